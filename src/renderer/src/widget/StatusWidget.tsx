/**
 * The always-on-top status widget (`index.html#widget`, opened by the Electron main process
 * while a run goes on): the step, Pause or Resume, and Stop.
 */
import { useTranslation } from 'react-i18next';
import { RunControls } from '../components/RunControls';
import { useSession } from '../app-context';

export function StatusWidget() {
  const { t } = useTranslation();
  const liveRunId = useSession((s) => s.liveRunId);
  const run = useSession((s) => (s.session && s.session.id === s.liveRunId ? s.session.run : null));
  const step = useSession((s) => s.session?.steps.at(-1)?.step ?? 0);
  return (
    <div className="widget">
      <span className="widget-step">{liveRunId && run ? t('widget.step', { n: step }) : t('widget.idle')}</span>
      {liveRunId && run && <RunControls paused={run.paused} />}
    </div>
  );
}
