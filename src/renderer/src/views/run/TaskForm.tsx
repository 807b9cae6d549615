/** The task box: Start runs it; with "continue the conversation" the new task follows the last one. */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices, useSession } from '../../app-context';
import { NAMES } from '../../i18n/names';

export function TaskForm() {
  const { t } = useTranslation();
  const { session } = useServices();
  const [task, setTask] = useState('');
  const [continuing, setContinuing] = useState(true);
  const [busy, setBusy] = useState(false);
  const liveRunId = useSession((s) => s.liveRunId);
  const conversationId = useSession((s) => s.session?.run.conversationId ?? null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!task.trim()) return;
    setBusy(true);
    const started = await session.getState().start(task.trim(), continuing);
    setBusy(false);
    if (started) setTask('');
  };

  return (
    <form className="task-form" onSubmit={(event) => void submit(event)}>
      <input
        type="text"
        aria-label={NAMES.task}
        placeholder={t('taskPlaceholder')}
        value={task}
        onChange={(event) => setTask(event.target.value)}
      />
      <button type="submit" className="primary" aria-label={NAMES.start} disabled={busy || !task.trim() || liveRunId !== null}>
        {t('start')}
      </button>
      {conversationId && (
        <label className="inline-check">
          <input type="checkbox" checked={continuing} onChange={(event) => setContinuing(event.target.checked)} />
          {t('continueConversation')}
        </label>
      )}
    </form>
  );
}
