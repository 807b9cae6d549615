/**
 * "New batch": what each row runs (a saved workflow, or a task with `{{name}}`s), the rows as CSV
 * text with a header line (a secret as `${env:NAME}` or `${keychain:NAME}`, never its value), how
 * many at once (empty: what the machine holds) and the retries; "Start batch" starts it in the
 * background and opens it. The columns are checked by the core, which names the ones that do not fit.
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../../app-context';
import { ErrorLine } from '../../components/ErrorLine';
import { NAMES } from '../../i18n/names';

/** The choice of what rows run that means "a task", beside the workflows' names. */
const TASK = '';
/** Examples in the empty fields: code-like, the same in every language (and `{{…}}` is no translation's to fill). */
const TASK_EXAMPLE = 'Enter invoice {{number}} for {{customer}}';
const VALUES_EXAMPLE = 'number,customer\n1001,Acme';

export function NewBatchForm({ onStarted }: { onStarted: (id: string) => void }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const titleId = useId();
  const [workflows, setWorkflows] = useState<Array<{ name: string; params: string[] }>>([]);
  const [runs, setRuns] = useState(TASK);
  const [task, setTask] = useState('');
  const [csv, setCsv] = useState('');
  const [concurrency, setConcurrency] = useState('');
  const [retries, setRetries] = useState('0');
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);

  useEffect(() => {
    void client['workflows:list']().then((listed) => {
      if (listed.ok) setWorkflows(listed.value.workflows.filter((workflow) => workflow.trusted).map((workflow) => ({ name: workflow.name, params: workflow.params })));
    });
  }, [client]);

  const chosen = workflows.find((workflow) => workflow.name === runs);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setStarting(true);
    const started = await client['batches:start']({
      ...(runs === TASK ? { task } : { workflow: runs }),
      csv,
      ...(concurrency.trim() !== '' ? { concurrency: Number(concurrency) } : {}),
      retries: Number(retries || '0'),
    });
    setStarting(false);
    if (!started.ok) {
      setError(started.error.message);
      return;
    }
    setError(null);
    setCsv('');
    onStarted(started.value.id);
  };

  return (
    <form className="new-batch" aria-labelledby={titleId} onSubmit={(event) => void submit(event)}>
      <h3 id={titleId}>{t('newBatch')}</h3>
      <label className="field">
        {t('batchRuns')}
        <select aria-label={NAMES.batchRuns} value={runs} onChange={(event) => setRuns(event.target.value)}>
          <option value={TASK}>{t('batchesView.aTask')}</option>
          {workflows.map((workflow) => (
            <option key={workflow.name} value={workflow.name}>
              {t('batchesView.workflow', { name: workflow.name })}
            </option>
          ))}
        </select>
      </label>
      {runs === TASK && (
        <label className="field">
          {t('task')}
          <input aria-label={NAMES.task} value={task} placeholder={TASK_EXAMPLE} onChange={(event) => setTask(event.target.value)} />
        </label>
      )}
      <label className="field">
        {t('batchValues')}
        <textarea
          aria-label={NAMES.batchValues}
          rows={4}
          value={csv}
          placeholder={chosen ? chosen.params.join(',') : VALUES_EXAMPLE}
          onChange={(event) => setCsv(event.target.value)}
        />
      </label>
      <div className="new-batch-numbers">
        <label className="inline-field">
          {t('concurrency')}
          <input aria-label={NAMES.concurrency} type="number" min={1} max={64} value={concurrency} placeholder={t('batchesView.auto')} onChange={(event) => setConcurrency(event.target.value)} />
        </label>
        <label className="inline-field">
          {t('retries')}
          <input aria-label={NAMES.retries} type="number" min={0} max={20} value={retries} onChange={(event) => setRetries(event.target.value)} />
        </label>
        <button type="submit" className="primary" aria-label={NAMES.startBatch} disabled={starting || csv.trim() === '' || (runs === TASK && task.trim() === '')}>
          {t('startBatch')}
        </button>
      </div>
      <ErrorLine message={error} />
    </form>
  );
}
