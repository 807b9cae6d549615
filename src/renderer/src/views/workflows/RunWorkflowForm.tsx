/**
 * "Run workflow": a field per parameter, labelled by its name (a password field for a secret,
 * whose value is typed on the desktop and never recorded), the policy for a step the screen does
 * not agree with (stop before acting, or let the model ground that step), and the button. The
 * values are forgotten once the run starts, so a secret stays nowhere in the window.
 */
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { WorkflowPolicy } from '../../../../shared/app-api';
import type { Workflow } from '../../../../shared/workflow';
import { useServices } from '../../app-context';
import { ErrorLine } from '../../components/ErrorLine';
import { NAMES } from '../../i18n/names';
import { sayProblem } from './problem';
import { runRequestOf } from './workflow-forms';

const POLICIES: readonly WorkflowPolicy[] = ['stop', 'reground'];

export function RunWorkflowForm({ workflow, onRun }: { workflow: Workflow; onRun: (runId: string) => void }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const titleId = useId();
  const [values, setValues] = useState<Record<string, string>>({});
  const [policy, setPolicy] = useState<WorkflowPolicy>('stop');
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const request = runRequestOf(workflow.name, workflow.params, values, policy);
    if (!request.ok) {
      setError(sayProblem(t, request.problem));
      return;
    }
    setStarting(true);
    const started = await client['workflows:run'](request.value);
    setStarting(false);
    if (!started.ok) {
      setError(started.error.message);
      return;
    }
    setError(null);
    setValues({});
    onRun(started.value.id);
  };

  return (
    <form className="panel run-workflow" aria-labelledby={titleId} onSubmit={(event) => void submit(event)}>
      <h3 id={titleId}>{t('workflowsView.runTitle')}</h3>
      {workflow.params.map((param) => (
        <label key={param.name} className="stacked-field">
          {param.name}
          <input
            type={param.secret ? 'password' : 'text'}
            autoComplete={param.secret ? 'new-password' : 'off'}
            placeholder={param.secret ? '' : (param.example ?? '')}
            value={values[param.name] ?? ''}
            onChange={(event) => setValues((before) => ({ ...before, [param.name]: event.target.value }))}
          />
        </label>
      ))}
      <label className="stacked-field">
        {t('workflowsView.policy')}
        <select aria-label={NAMES.policy} value={policy} onChange={(event) => setPolicy(event.target.value as WorkflowPolicy)}>
          {POLICIES.map((value) => (
            <option key={value} value={value}>
              {t(`workflowsView.policies.${value}`)}
            </option>
          ))}
        </select>
      </label>
      <ErrorLine message={error} />
      <button type="submit" className="primary" aria-label={NAMES.runWorkflow} disabled={starting}>
        {starting ? t('workflowsView.starting') : t('runWorkflow')}
      </button>
    </form>
  );
}
