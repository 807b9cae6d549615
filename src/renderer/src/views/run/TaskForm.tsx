/**
 * The task box: Start runs it; with "continue the conversation" the new task follows the last
 * one. The `Private desktop` switch gives the run an X display of its own (its size, the apps to
 * start there), so it runs beside others and the user's mouse and keyboard stay theirs; Settings
 * keep its defaults.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices, useSession, useSettings } from '../../app-context';
import { appsOf, DesktopFields, sizeProblem, type DesktopDraft } from '../../components/DesktopFields';
import { NAMES } from '../../i18n/names';
import type { SavedSettings } from '../../../../shared/app-api';

/** The Run form's desktop as Settings say it starts. */
export function desktopDraftOf(saved: SavedSettings | null): DesktopDraft {
  const desktop = saved?.config.desktop;
  return { private: desktop?.private ?? false, size: desktop?.size ?? '1280x800', apps: (desktop?.apps ?? []).join('\n') };
}

export function TaskForm() {
  const { t } = useTranslation();
  const { session } = useServices();
  const [task, setTask] = useState('');
  const [continuing, setContinuing] = useState(true);
  const [busy, setBusy] = useState(false);
  const saved = useSettings((s) => s.saved);
  const [desktop, setDesktop] = useState<DesktopDraft>(() => desktopDraftOf(saved));
  const touched = useRef(false);
  // The user's display holds one run at a time; private desktops take any number.
  const userDisplayBusy = useSession((s) => s.liveRuns.some((run) => !run.desktop.private) || (s.liveRunId !== null && s.liveRuns.length === 0));
  const conversationId = useSession((s) => s.session?.run.conversationId ?? null);

  // The defaults arrive with the settings; what the user changed here stays.
  useEffect(() => {
    if (!touched.current) setDesktop(desktopDraftOf(saved));
  }, [saved]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!task.trim() || sizeProblem(desktop)) return;
    setBusy(true);
    const request = desktop.private ? { private: true, ...(desktop.size.trim() ? { size: desktop.size.trim() } : {}), apps: appsOf(desktop) } : undefined;
    const started = await session.getState().start(task.trim(), continuing, request);
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
      <button type="submit" className="primary" aria-label={NAMES.start} disabled={busy || !task.trim() || (userDisplayBusy && !desktop.private) || sizeProblem(desktop) !== null}>
        {t('start')}
      </button>
      {conversationId && (
        <label className="inline-check">
          <input type="checkbox" checked={continuing} onChange={(event) => setContinuing(event.target.checked)} />
          {t('continueConversation')}
        </label>
      )}
      <DesktopFields
        inline
        draft={desktop}
        onChange={(draft) => {
          touched.current = true;
          setDesktop(draft);
        }}
      />
    </form>
  );
}
