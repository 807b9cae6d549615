/**
 * One workflow whole (`workflows:show`): where it came from and what its recording cost, the form
 * to run it with new values, its parameters (a secret's value is never kept, so never shown), and
 * its steps, each with the anchors a run finds its target by: the patch of the recorded screen
 * (loaded by reference, never inlined) and the words read near it. Export saves the one
 * self-contained file; Delete removes it after asking.
 *
 * Each step is described from the action that will run, and a step that types text or presses
 * keys is labelled so. A workflow the user has not trusted (imported, or changed since) says so,
 * offers no run, and ends its steps with "Trust this workflow", which trusts what was shown (its
 * digest): one changed meanwhile is refused.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatUsd } from '../../../../shared/format';
import { describeWorkflowStep, keyboardInputOf, type ShownWorkflow } from '../../../../shared/workflow';
import { saveDownload } from '../../api/download';
import { useServices } from '../../app-context';
import { ErrorLine } from '../../components/ErrorLine';
import { formatTokens } from '../../format';
import { NAMES } from '../../i18n/names';
import { RunWorkflowForm } from './RunWorkflowForm';
import { exportFileName } from './workflow-forms';

interface Props {
  name: string;
  onRun: (runId: string) => void;
  onDeleted: (name: string) => void;
  /** The user trusted it: the list shows it trusted. */
  onTrusted: (name: string) => void;
  onOpenSession: (sessionId: string) => void;
}

/** Saves `text` as a file the user downloads (the browser's download, Electron's save). */
function saveFile(text: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  saveDownload(url, filename);
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function WorkflowDetail({ name, onRun, onDeleted, onTrusted, onOpenSession }: Props) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [workflow, setWorkflow] = useState<ShownWorkflow | null>(null);
  const [trusting, setTrusting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    void client['workflows:show']({ name }).then((shown) => {
      if (!current) return;
      if (shown.ok) setWorkflow(shown.value);
      else setError(shown.error.message);
    });
    return () => {
      current = false;
    };
  }, [client, name]);

  const exportIt = async () => {
    const exported = await client['workflows:export']({ name });
    if (!exported.ok) {
      setError(exported.error.message);
      return;
    }
    const file = exportFileName(name);
    saveFile(JSON.stringify(exported.value), file);
    setMessage(t('workflowsView.exported', { file }));
  };

  /** Trusts the steps shown (their digest); a workflow changed since they were shown is refused, saying so. */
  const trust = async (shown: ShownWorkflow) => {
    setTrusting(true);
    const trusted = await client['workflows:trust']({ name, digest: shown.digest });
    setTrusting(false);
    if (!trusted.ok) {
      setError(trusted.error.message);
      return;
    }
    setError(null);
    setWorkflow(trusted.value);
    onTrusted(name);
  };

  const remove = async () => {
    if (!window.confirm(t('workflowsView.confirmDelete', { name }))) return;
    const removed = await client['workflows:delete']({ name });
    if (!removed.ok) {
      setError(removed.error.message);
      return;
    }
    onDeleted(name);
  };

  if (!workflow) return <ErrorLine message={error} />;
  const cost = workflow.source.recording;
  return (
    <article className="workflow-detail" aria-label={workflow.name}>
      <header className="workflow-header">
        <div>
          <h2>{workflow.name}</h2>
          <p className="workflow-description">{workflow.description}</p>
          <p className="note">
            <button type="button" className="link" onClick={() => onOpenSession(workflow.source.session)}>
              {t('workflowsView.fromSession', { id: workflow.source.session })}
            </button>{' '}
            · {t('workflowsView.recording', { calls: cost.modelCalls, tokens: formatTokens(cost.tokens), cost: formatUsd(cost.costUsd) })}
          </p>
        </div>
        <div className="workflow-actions">
          <button type="button" aria-label={NAMES.exportWorkflow} onClick={() => void exportIt()}>
            {t('exportWorkflow')}
          </button>
          <button type="button" className="danger" aria-label={NAMES.deleteWorkflow} onClick={() => void remove()}>
            {t('deleteWorkflow')}
          </button>
        </div>
      </header>
      {!workflow.trusted && (
        <section className="notice untrusted-notice" aria-label={NAMES.notTrusted}>
          <strong>{t('notTrusted')}.</strong> {t('workflowsView.untrusted')}
        </section>
      )}
      {message && (
        <p className="note" role="status">
          {message}
        </p>
      )}
      <ErrorLine message={error} />
      <div className="workflow-columns">
        <div className="workflow-left">
          {workflow.trusted && <RunWorkflowForm workflow={workflow} onRun={onRun} />}
          <section className="panel" aria-label={NAMES.parameters}>
            <h3>{t('workflowsView.parameters')}</h3>
            {workflow.params.length === 0 ? (
              <p className="note">{t('workflowsView.noParams')}</p>
            ) : (
              <ul className="param-list">
                {workflow.params.map((param) => (
                  <li key={param.name}>
                    <code>{`{{${param.name}}}`}</code>{' '}
                    <span className="note">{param.secret ? t('workflowsView.secretValue') : t('workflowsView.example', { value: param.example ?? '' })}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </div>
        <section className="panel workflow-steps" aria-label={NAMES.workflowSteps}>
          <h3>{t('workflowsView.steps')}</h3>
          <ol className="workflow-step-list">
            {workflow.steps.map((step) => {
              const input = keyboardInputOf(step.action);
              return (
                <li key={step.index} className={`workflow-step${input ? ` keyboard-step keyboard-${input}` : ''}`}>
                  <div className="workflow-step-text">
                    <span className="step-number">{step.index}</span>
                    {input && <span className="step-input">{input === 'text' ? t('workflowsView.typesText') : t('workflowsView.pressesKeys')}</span>}
                    {/* What the action will do (never a description a file brought), and the words near its target. */}
                    <code className="step-action">{describeWorkflowStep(step)}</code>
                  </div>
                  <div className="anchors">
                    {step.anchors.length === 0 && <span className="note">{t('workflowsView.noAnchor')}</span>}
                    {step.anchors.map((anchor) => (
                      <figure key={`${anchor.role}-${anchor.patch.image.file}`} className="anchor">
                        <img
                          src={client.workflowFileUrl(workflow.name, anchor.patch.image.file)}
                          alt={t('workflowsView.anchorAlt', { n: step.index, role: anchor.role })}
                          width={anchor.patch.image.width}
                          height={anchor.patch.image.height}
                          loading="lazy"
                        />
                        {anchor.text.length > 0 && <figcaption className="note">{t('workflowsView.nearText', { text: anchor.text.map((word) => word.text).join(' ') })}</figcaption>}
                      </figure>
                    ))}
                  </div>
                </li>
              );
            })}
          </ol>
          {workflow.trusted ? (
            <p className="note">{t('workflowsView.trusted')}</p>
          ) : (
            <div className="trust-workflow">
              <p className="note">{t('workflowsView.trustHint')}</p>
              <button type="button" className="primary" aria-label={NAMES.trustWorkflow} disabled={trusting} onClick={() => void trust(workflow)}>
                {t('trustWorkflow')}
              </button>
            </div>
          )}
        </section>
      </div>
    </article>
  );
}
