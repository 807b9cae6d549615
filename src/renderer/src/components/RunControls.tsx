/** Pause or Resume, and Stop, for the live run: in the Run view's header and in the status widget. */
import { useTranslation } from 'react-i18next';
import { useServices } from '../app-context';
import { NAMES } from '../i18n/names';

export function RunControls({ paused }: { paused: boolean }) {
  const { t } = useTranslation();
  const { session } = useServices();
  return (
    <div className="run-controls">
      {paused ? (
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
    </div>
  );
}
