/**
 * Teach: the user says what they will do, presses Start teaching, does it by hand on the desktop,
 * and presses Stop teaching; the demonstration is saved as a session (`teach:start`,
 * `teach:stop`), which opens like any other and can be saved as a workflow. Where the display
 * cannot be recorded, the core's answer (its fix) is said here and nothing starts.
 */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../../app-context';
import { Dialog, DialogDone, DialogSubmit } from '../../components/Dialog';
import { ErrorLine } from '../../components/ErrorLine';
import { NAMES } from '../../i18n/names';

type Phase = { kind: 'idle' } | { kind: 'recording'; id: string } | { kind: 'saved'; sessionId: string };

export function TeachDialog({ onClose, onOpenSession }: { onClose: () => void; onOpenSession: (sessionId: string) => void }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [task, setTask] = useState('');
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const start = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    const started = await client['teach:start']({ task });
    setBusy(false);
    if (!started.ok) {
      setError(started.error.message);
      return;
    }
    setError(null);
    setPhase({ kind: 'recording', id: started.value.id });
  };

  const stop = async (id: string) => {
    setBusy(true);
    const stopped = await client['teach:stop']({ id });
    setBusy(false);
    if (!stopped.ok) {
      setError(stopped.error.message);
      return;
    }
    setError(null);
    setPhase({ kind: 'saved', sessionId: stopped.value.sessionId });
  };

  return (
    <Dialog name={NAMES.teach} title={t('teach')} className="teach-dialog">
      {phase.kind === 'idle' && (
        <form onSubmit={(event) => void start(event)}>
          <p className="note">{t('teachDialog.intro')}</p>
          <label className="stacked-field">
            {t('teachTask')}
            <input type="text" aria-label={NAMES.teachTask} placeholder={t('teachDialog.placeholder')} value={task} onChange={(event) => setTask(event.target.value)} autoFocus />
          </label>
          <DialogSubmit error={error} name={NAMES.startTeaching} text={t('startTeaching')} disabled={busy || !task.trim()} onCancel={onClose} />
        </form>
      )}
      {phase.kind === 'recording' && (
        <>
          <p className="recording" role="status">
            {t('teachDialog.recording')}
          </p>
          <ErrorLine message={error} />
          <div className="dialog-buttons">
            <button type="button" className="danger" aria-label={NAMES.stopTeaching} disabled={busy} onClick={() => void stop(phase.id)}>
              {t('stopTeaching')}
            </button>
          </div>
        </>
      )}
      {phase.kind === 'saved' && (
        <DialogDone message={t('teachDialog.saved', { id: phase.sessionId })} next={t('teachDialog.openSession')} onNext={() => onOpenSession(phase.sessionId)} onClose={onClose} />
      )}
    </Dialog>
  );
}
