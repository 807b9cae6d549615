/** The runs going on, to switch the Run view between them (several at once on private desktops). */
import { useTranslation } from 'react-i18next';
import { useServices, useSession } from '../../app-context';
import { NAMES } from '../../i18n/names';

export function LiveRuns() {
  const { t } = useTranslation();
  const { session } = useServices();
  const runs = useSession((s) => s.liveRuns);
  const shown = useSession((s) => s.session?.id ?? null);
  if (runs.length < 2 && !(runs.length === 1 && runs[0]?.id !== shown)) return null;
  return (
    <nav className="live-runs" aria-label={NAMES.liveRuns}>
      {runs.map((run) => (
        <button
          key={run.id}
          type="button"
          aria-current={run.id === shown ? 'true' : undefined}
          title={t('live.switchTo')}
          onClick={() => void session.getState().switchTo(run.id)}
        >
          <span className={`status-dot status-${run.status === 'taken over' ? 'takenOver' : run.status}`} aria-hidden="true" />
          <span className="live-run-task">{run.task}</span>
          <span className="live-run-desktop">{run.desktop.private ? t('live.privateDesktop', { display: run.desktop.display ?? '' }) : t('live.userDesktop')}</span>
        </button>
      ))}
    </nav>
  );
}
