/**
 * "Save as workflow" for a recorded session: the values typed in it, proposed as parameters
 * (`workflows:propose`), each to confirm (a checkbox), name and mark secret; a name for the
 * workflow; then `workflows:save`. A bad name, a name taken (unless "Replace it" is ticked) and
 * the core's refusals are said in the dialog, and nothing is saved.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { WorkflowSummary } from '../../../../shared/workflow';
import { useServices } from '../../app-context';
import { Dialog, DialogDone, DialogSubmit } from '../../components/Dialog';
import { NAMES } from '../../i18n/names';
import { sayProblem } from './problem';
import { choicesOf, saveRequestOf, type ProposalChoice } from './workflow-forms';

interface Props {
  sessionId: string;
  onClose: () => void;
  /** Shows a saved workflow in the Workflows view. */
  onShow: (name: string) => void;
}

export function SaveWorkflowDialog({ sessionId, onClose, onShow }: Props) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [choices, setChoices] = useState<ProposalChoice[] | null>(null);
  const [taken, setTaken] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [replace, setReplace] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<WorkflowSummary | null>(null);

  useEffect(() => {
    let current = true;
    void client['workflows:propose']({ id: sessionId }).then((proposed) => {
      if (!current) return;
      if (proposed.ok) setChoices(choicesOf(proposed.value));
      else {
        setChoices([]);
        setError(proposed.error.message);
      }
    });
    void client['workflows:list']().then((listed) => {
      if (current && listed.ok) setTaken(listed.value.workflows.map((workflow) => workflow.name));
    });
    return () => {
      current = false;
    };
  }, [client, sessionId]);

  const change = (index: number, patch: Partial<ProposalChoice>) => {
    setChoices((all) => (all ?? []).map((choice, i) => (i === index ? { ...choice, ...patch } : choice)));
    setError(null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const request = saveRequestOf(sessionId, name, choices ?? [], taken, replace);
    if (!request.ok) {
      setError(sayProblem(t, request.problem));
      return;
    }
    setSaving(true);
    const answer = await client['workflows:save'](request.value);
    setSaving(false);
    if (!answer.ok) {
      setError(answer.error.message);
      return;
    }
    setError(null);
    setSaved(answer.value.workflow);
  };

  const nameTaken = taken.includes(name.trim());
  return (
    <Dialog name={NAMES.saveAsWorkflow} title={t('saveAsWorkflow')}>
      {saved ? (
        <DialogDone message={t('saveWorkflow.saved', { name: saved.name, count: saved.steps.length })} next={t('saveWorkflow.show')} onNext={() => onShow(saved.name)} onClose={onClose} />
      ) : (
        <form onSubmit={(event) => void submit(event)}>
          <p className="note">{t('saveWorkflow.intro')}</p>
          <label className="stacked-field">
            {t('workflowName')}
            <input
              type="text"
              aria-label={NAMES.workflowName}
              placeholder={t('saveWorkflow.namePlaceholder')}
              value={name}
              onChange={(event) => {
                setName(event.target.value);
                setError(null);
              }}
              autoFocus
            />
          </label>
          {nameTaken && (
            <label className="inline-check">
              <input type="checkbox" aria-label={NAMES.replaceWorkflow} checked={replace} onChange={(event) => setReplace(event.target.checked)} />
              {t('replaceWorkflow')}
            </label>
          )}
          {choices === null ? (
            <p className="note" role="status">
              {t('saveWorkflow.reading')}
            </p>
          ) : choices.length === 0 ? (
            <p className="note">{t('saveWorkflow.none')}</p>
          ) : (
            <div className="proposals">
              {choices.map((choice, index) => (
                <fieldset key={`${index}-${choice.value}`} className={`proposal${choice.use ? '' : ' unused'}`} aria-label={choice.value}>
                  <legend>
                    <code className="proposal-value">{choice.value}</code> <span className="note">{t('saveWorkflow.typedIn', { steps: choice.steps.join(', ') })}</span>
                  </legend>
                  <label className="inline-check">
                    <input type="checkbox" aria-label={NAMES.parameter} checked={choice.use} onChange={(event) => change(index, { use: event.target.checked })} />
                    {t('parameter')}
                  </label>
                  <input type="text" aria-label={NAMES.parameterName} value={choice.name} disabled={!choice.use} onChange={(event) => change(index, { name: event.target.value })} />
                  <label className="inline-check" title={choice.masked ? t('saveWorkflow.masked') : undefined}>
                    <input
                      type="checkbox"
                      aria-label={NAMES.secret}
                      checked={choice.secret || choice.masked}
                      disabled={!choice.use || choice.masked}
                      onChange={(event) => change(index, { secret: event.target.checked })}
                    />
                    {t('secret')}
                  </label>
                </fieldset>
              ))}
            </div>
          )}
          <DialogSubmit error={error} name={NAMES.save} text={t('save')} disabled={saving || choices === null} onCancel={onClose} />
        </form>
      )}
    </Dialog>
  );
}
