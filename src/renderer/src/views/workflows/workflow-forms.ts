/**
 * What the workflow forms turn into requests, checked before anything is sent: "Save as workflow"
 * (the proposals the user confirmed, named and marked secret), "Run workflow" (a value per
 * parameter), an imported file. Pure, so the checks are tested without a window. A problem is a
 * message key of the `workflowForms` strings and its values, for the view to say in its language.
 */
import type { SaveWorkflow, StartWorkflowRun } from '../../../../shared/app-api';
import { MASK } from '../../../../shared/describe-action';
import { ParamNameSchema, WorkflowNameSchema, type ProposedParam } from '../../../../shared/workflow';

export type FormProblem = { key: 'workflowName' | 'nameTaken' | 'paramName' | 'paramTwice' | 'noValue' | 'notJson' | 'notAnExport'; values?: Record<string, string> };
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: FormProblem };

/** One proposal as the dialog holds it: whether it becomes a parameter, under which name, secret or not. */
export interface ProposalChoice {
  /** The value typed (the mask for a secret the recording masked). */
  value: string;
  /** The workflow steps that type it. */
  steps: number[];
  /** The recording holds only the mask: it can only be a secret, and takes the next masked text. */
  masked: boolean;
  use: boolean;
  name: string;
  secret: boolean;
}

/** The proposals, each taken as proposed (the user unticks what is not a parameter). */
export function choicesOf(proposed: readonly ProposedParam[]): ProposalChoice[] {
  return proposed.map((proposal) => ({
    value: proposal.value,
    steps: proposal.steps,
    masked: proposal.secret && proposal.value === MASK,
    use: true,
    name: proposal.name,
    secret: proposal.secret,
  }));
}

/** The save request for the choices, or the first problem: a bad or taken name, a parameter named badly or twice. */
export function saveRequestOf(session: string, name: string, choices: readonly ProposalChoice[], taken: readonly string[], replace: boolean): Checked<SaveWorkflow> {
  const workflowName = name.trim();
  if (!WorkflowNameSchema.safeParse(workflowName).success) return { ok: false, problem: { key: 'workflowName', values: { name: workflowName } } };
  if (taken.includes(workflowName) && !replace) return { ok: false, problem: { key: 'nameTaken', values: { name: workflowName } } };
  const params: SaveWorkflow['params'] = [];
  const seen = new Set<string>();
  for (const choice of choices) {
    if (!choice.use) continue;
    const param = choice.name.trim();
    if (!ParamNameSchema.safeParse(param).success) return { ok: false, problem: { key: 'paramName', values: { name: param } } };
    if (seen.has(param)) return { ok: false, problem: { key: 'paramTwice', values: { name: param } } };
    seen.add(param);
    // A masked value is not known: the secret takes the next text the recording masked.
    params.push(choice.masked ? { name: param, secret: true } : { name: param, value: choice.value, secret: choice.secret || choice.masked });
  }
  return { ok: true, value: { session, name: workflowName, params, autoParams: false } };
}

/** The run request for the values typed, or the first parameter left empty. */
export function runRequestOf(
  name: string,
  params: ReadonlyArray<{ name: string }>,
  values: Readonly<Record<string, string>>,
  policy: StartWorkflowRun['policy'],
): Checked<Pick<StartWorkflowRun, 'name' | 'values' | 'policy'>> {
  const given: Record<string, string> = {};
  for (const param of params) {
    const value = values[param.name] ?? '';
    if (value === '') return { ok: false, problem: { key: 'noValue', values: { name: param.name } } };
    given[param.name] = value;
  }
  return { ok: true, value: { name, values: given, policy } };
}

/** A file chosen to import, read as the object the import command takes (the core checks it whole). */
export function importFileOf(text: string): Checked<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: { key: 'notJson', values: { reason: error instanceof Error ? error.message : String(error) } } };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, problem: { key: 'notAnExport' } };
  return { ok: true, value: parsed as Record<string, unknown> };
}

/** The name an exported workflow is saved under. */
export function exportFileName(name: string): string {
  return `${name}.mnemo-workflow.json`;
}
