/**
 * The Workflows view: the saved workflows (and the damaged ones apart, with why), one open with
 * its parameters, steps and anchors, the form to run it with new values, Export, Import and
 * Delete, and Teach, which records a demonstration. A workflow not trusted (imported, or changed
 * since it was trusted) is marked in the list, and trusted from its detail once its steps are shown. A run started here is followed in the Run
 * view, where each step's decision shows in the timeline and the report above it.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { WorkflowListing } from '../../../../shared/workflow';
import { useServices } from '../../app-context';
import { ErrorLine } from '../../components/ErrorLine';
import { formatWhen } from '../../format';
import { NAMES } from '../../i18n/names';
import { sayProblem } from './problem';
import { TeachDialog } from './TeachDialog';
import { WorkflowDetail } from './WorkflowDetail';
import { importFileOf } from './workflow-forms';

interface Props {
  /** The workflow open (from the hash), or null. */
  open: string | null;
  onOpen: (name: string | null) => void;
  /** Follows a run just started (the Run view). */
  onRun: (runId: string) => void;
  onOpenSession: (sessionId: string) => void;
}

export function WorkflowsView({ open, onOpen, onRun, onOpenSession }: Props) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [workflows, setWorkflows] = useState<WorkflowListing[] | null>(null);
  const [damaged, setDamaged] = useState<Array<{ name: string; message: string }>>([]);
  const [error, setError] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [replaceOnImport, setReplaceOnImport] = useState(false);
  const [teaching, setTeaching] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  const refresh = useCallback(async () => {
    const listed = await client['workflows:list']();
    if (!listed.ok) {
      setError(listed.error.message);
      return;
    }
    setWorkflows(listed.value.workflows);
    setDamaged(listed.value.damaged);
  }, [client]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const importFile = async (file: File) => {
    setMessage(null);
    const read = importFileOf(await file.text());
    if (!read.ok) {
      setError(sayProblem(t, read.problem));
      return;
    }
    const imported = await client['workflows:import']({ file: read.value, replace: replaceOnImport });
    if (!imported.ok) {
      setError(imported.error.message);
      return;
    }
    setError(null);
    const name = imported.value.workflow.name;
    setMessage(imported.value.replaced ? t('workflowsView.importedReplaced', { name }) : t('workflowsView.imported', { name }));
    await refresh();
    onOpen(name);
  };

  const deleted = async (name: string) => {
    await refresh();
    if (open === name) onOpen(null);
  };

  return (
    <div className="workflows-view">
      <div className="workflows-toolbar">
        <button type="button" className="primary" aria-label={NAMES.teach} onClick={() => setTeaching(true)}>
          {t('teach')}
        </button>
        <button type="button" aria-label={NAMES.importWorkflow} onClick={() => fileInput.current?.click()}>
          {t('importWorkflow')}
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".json,application/json"
          hidden
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file) void importFile(file);
          }}
        />
        <label className="inline-check">
          <input type="checkbox" checked={replaceOnImport} onChange={(event) => setReplaceOnImport(event.target.checked)} />
          {t('workflowsView.replaceOnImport')}
        </label>
        {message && (
          <span className="note" role="status">
            {message}
          </span>
        )}
      </div>
      <ErrorLine message={error} />
      <div className="workflows-body">
        <aside className="workflows-side">
          {workflows !== null && workflows.length === 0 && damaged.length === 0 && <p className="note">{t('workflowsView.none')}</p>}
          <ul className="workflow-list" aria-label={NAMES.savedWorkflows}>
            {(workflows ?? []).map((workflow) => (
              <li key={workflow.name}>
                <button
                  type="button"
                  className={`workflow-open${open === workflow.name ? ' selected' : ''}`}
                  aria-current={open === workflow.name ? 'true' : undefined}
                  aria-label={`${t('workflowsView.open')} ${workflow.name}`}
                  onClick={() => onOpen(workflow.name)}
                >
                  <span className="workflow-name">
                    {workflow.name}
                    {!workflow.trusted && <span className="workflow-untrusted">{t('workflowsView.untrustedBadge')}</span>}
                  </span>
                  <span className="workflow-description">{workflow.description}</span>
                  <span className="workflow-meta">
                    {t('workflowsView.stepsCount', { count: workflow.steps })} · {workflow.params.length > 0 ? workflow.params.join(', ') : t('workflowsView.noParams')} · {formatWhen(workflow.createdAt)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
          {damaged.length > 0 && (
            <section className="damaged-workflows" aria-label={t('workflowsView.damaged')}>
              <h3>{t('workflowsView.damaged')}</h3>
              <ul className="plain-list">
                {damaged.map((item) => (
                  <li key={item.name}>
                    <code>{item.name}</code>: {item.message}
                  </li>
                ))}
              </ul>
            </section>
          )}
        </aside>
        <div className="workflow-main">
          {open ? (
            <WorkflowDetail key={open} name={open} onRun={onRun} onDeleted={(name) => void deleted(name)} onTrusted={() => void refresh()} onOpenSession={onOpenSession} />
          ) : (
            workflows !== null && workflows.length > 0 && <p className="note empty">{t('workflowsView.choose')}</p>
          )}
        </div>
      </div>
      {teaching && <TeachDialog onClose={() => setTeaching(false)} onOpenSession={onOpenSession} />}
    </div>
  );
}
