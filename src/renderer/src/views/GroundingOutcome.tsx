/**
 * What "Check grounding" found: the space the model answers in against the configured one, the
 * hits and the distance to the targets, and where they differ the fix (with a button that puts
 * the detected space into the form).
 */
import { useTranslation } from 'react-i18next';
import { groundingPassed } from '../../../shared/grounding';
import type { CoordinateSpaceName } from '../../../shared/model-families';
import type { GroundingState } from '../store/settings-store';

export function GroundingOutcome({ state, onUse }: { state: GroundingState; onUse: ((space: CoordinateSpaceName) => void) | undefined }) {
  const { t } = useTranslation();
  if (state.status === 'idle') return null;
  if (state.status === 'checking') return <p className="note grounding-outcome">{t('settingsView.groundingChecking', { count: state.targets })}</p>;
  if (state.status === 'failed') return <Failure message={state.message} />;
  const { result } = state;
  if (!result.ok) return <Failure message={`${result.status ? `${result.status}: ` : ''}${result.message}`} />;
  const { report, fix, note, configuredMeanErrorPx } = result;
  const targets = report.targets;
  const passed = groundingPassed(report);
  const verdict = passed
    ? t('settingsView.groundingOk', { space: report.configured, hits: report.hits[report.configured], targets, error: Math.round(configuredMeanErrorPx ?? 0) })
    : report.detected !== report.configured
      ? t('settingsView.groundingWrongSpace', { detected: report.detected, hits: report.hits[report.detected], configured: report.configured, configuredHits: report.hits[report.configured], targets })
      : t('settingsView.groundingMisses', { space: report.configured, hits: report.hits[report.configured], targets });
  return (
    <div className={`grounding-outcome ${passed ? 'ok' : 'error'}`} role={passed ? 'status' : 'alert'} aria-label="Grounding">
      <p>{verdict}</p>
      {!passed && report.detected !== report.configured && (
        <p>
          {fix ? t('settingsView.groundingFix', { flag: fix.flag, config: fix.config }) : t('settingsView.groundingFixed')}
          {fix && onUse && (
            <>
              {' '}
              <button type="button" onClick={() => onUse(report.detected)}>
                {t('settingsView.groundingUse', { space: report.detected })}
              </button>
            </>
          )}
        </p>
      )}
      {note && <p className="note">{note}</p>}
    </div>
  );
}

function Failure({ message }: { message: string }) {
  return (
    <p className="error grounding-outcome" role="alert">
      {message}
    </p>
  );
}
