/**
 * The always-on-top status widget (`index.html#widget`, opened by the Electron main process
 * while a run goes on): the step, Pause or Resume, and Stop.
 */
import { useTranslation } from 'react-i18next';
import { useServices, useSession } from '../app-context';
import { NAMES } from '../i18n/names';

export function StatusWidget() {
  const { t } = useTranslation();
  const { session } = useServices();
  const liveRunId = useSession((s) => s.liveRunId);
  const run = useSession((s) => (s.session && s.session.id === s.liveRunId ? s.session.run : null));
  const step = useSession((s) => s.session?.steps.at(-1)?.step ?? 0);
  return (
    <div className="widget">
      <span className="widget-step">{liveRunId && run ? t('widget.step', { n: step }) : t('widget.idle')}</span>
      {liveRunId && run && (
        <>
          {run.paused ? (
            <button type="button" aria-label={NAMES.resume} onClick={() => void session.getState().resume()}>
              {t('resume')}
            </button>
          ) : (
            <button type="button" aria-label={NAMES.pause} onClick={() => void session.getState().pause()}>
              {t('pause')}
            </button>
          )}
          <button type="button" className="danger" aria-label={NAMES.stop} onClick={() => void session.getState().stop()}>
            {t('stop')}
          </button>
        </>
      )}
    </div>
  );
}
