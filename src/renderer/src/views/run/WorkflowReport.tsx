/**
 * A workflow run's report in the Run view: its status, how its steps were done (replayed,
 * refound, grounded, stopped), and what it cost against what the recording cost. The figures are
 * the shared fold's (`addToWorkflowReport`), so they are what `mnemo workflow run --json` prints;
 * they count up while the run goes on.
 */
import { useTranslation } from 'react-i18next';
import { formatUsd } from '../../../../shared/format';
import { WORKFLOW_DECISIONS } from '../../../../shared/workflow-run';
import { useSession } from '../../app-context';
import { formatTokens } from '../../format';
import { NAMES } from '../../i18n/names';

export function WorkflowReportPanel() {
  const { t } = useTranslation();
  const workflow = useSession((s) => s.session?.run.workflow ?? null);
  if (!workflow) return null;
  const { report } = workflow;
  const running = report.status === 'running';
  return (
    <section className="panel workflow-report" aria-label={NAMES.workflowReport}>
      <h2>{t('workflowRun.title', { name: workflow.name })}</h2>
      <dl className="report-figures">
        <div>
          <dt>{t('workflowRun.status')}</dt>
          <dd data-figure="status">{t(`status.${report.status}`, { defaultValue: report.status })}</dd>
        </div>
        <div>
          <dt>{t('workflowRun.steps')}</dt>
          <dd data-figure="steps">{report.steps}</dd>
        </div>
        {WORKFLOW_DECISIONS.map((decision) => (
          <div key={decision}>
            <dt>{t(`workflowRun.decisions.${decision}`)}</dt>
            <dd data-figure={decision}>{report[decision]}</dd>
          </div>
        ))}
        <div>
          <dt>{t('workflowRun.modelCalls')}</dt>
          <dd data-figure="modelCalls">
            {report.modelCalls} <span className="versus">{t('workflowRun.recorded', { value: report.recording.modelCalls })}</span>
          </dd>
        </div>
        <div>
          <dt>{t('workflowRun.tokens')}</dt>
          <dd data-figure="tokens">
            {running ? '—' : formatTokens(report.tokens)} <span className="versus">{t('workflowRun.recorded', { value: formatTokens(report.recording.tokens) })}</span>
          </dd>
        </div>
        <div>
          <dt>{t('workflowRun.cost')}</dt>
          <dd data-figure="costUsd">
            {running ? '—' : formatUsd(report.costUsd)} <span className="versus">{t('workflowRun.recorded', { value: formatUsd(report.recording.costUsd) })}</span>
          </dd>
        </div>
      </dl>
    </section>
  );
}
