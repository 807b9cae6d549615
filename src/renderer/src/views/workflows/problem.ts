/** A form problem (workflow-forms.ts) in the window's language. */
import type { TFunction } from 'i18next';
import type { FormProblem } from './workflow-forms';

export function sayProblem(t: TFunction, problem: FormProblem): string {
  return t(`workflowForms.${problem.key}`, problem.values ?? {});
}
