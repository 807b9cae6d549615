/**
 * The checks of `mnemo doctor`, run by the core: in Settings (each check with its status, detail
 * and fix, and a button to run them again), and at start as a notice when one fails.
 */
import { useTranslation } from 'react-i18next';
import type { DoctorCheck } from '../../../shared/app-api';
import { useServices, useSettings } from '../app-context';
import { NAMES } from '../i18n/names';
import { ErrorLine } from '../components/ErrorLine';

const MARKS: Record<DoctorCheck['status'], string> = { ok: '✓', warn: '⚠', fail: '✗' };

/** One check: ✓, ⚠ or ✗ (with its status in words for screen readers), the detail and the fix. */
function CheckItem({ check }: { check: DoctorCheck }) {
  const { t } = useTranslation();
  return (
    <li className={`check-item check-${check.status}`}>
      <span className="check-mark" role="img" aria-label={t(`doctor.status.${check.status}`)}>
        {MARKS[check.status]}
      </span>
      <strong className="check-name">{check.check}</strong>
      <span className="check-detail">{check.detail}</span>
      {check.fix && <span className="check-fix">{t('doctor.fix', { fix: check.fix })}</span>}
    </li>
  );
}

/** Settings' list of checks, as they ran at start (not while a run drives the desktop) or on demand. */
export function DoctorChecks() {
  const { t } = useTranslation();
  const { settings } = useServices();
  const { running, checks, error } = useSettings((s) => s.doctor);
  return (
    <section className="panel doctor" aria-label={NAMES.systemChecks} aria-busy={running}>
      <h2>{t('doctor.title')}</h2>
      <p className="note">{t('doctor.intro')}</p>
      <ErrorLine message={error} />
      {!checks && !running && <p className="note">{t('doctor.notRun')}</p>}
      {checks && (
        <ul className="check-list">
          {checks.map((check) => (
            <CheckItem key={check.check} check={check} />
          ))}
        </ul>
      )}
      <div className="field-row">
        <button type="button" aria-label={NAMES.runChecks} onClick={() => void settings.getState().runDoctor()} disabled={running}>
          {t('doctor.runAgain')}
        </button>
        {running && <span className="note">{t('doctor.running')}</span>}
      </div>
    </section>
  );
}

/** At start: what fails, and how to fix it; dismissed for this window. */
export function StartupNotice({ onDismiss, onOpenSettings }: { onDismiss: () => void; onOpenSettings: () => void }) {
  const { t } = useTranslation();
  const checks = useSettings((s) => s.doctor.checks);
  const failing = (checks ?? []).filter((check) => check.status === 'fail');
  if (failing.length === 0) return null;
  return (
    <div className="notice startup-notice" role="alert" aria-label={NAMES.setupProblems}>
      <h2>{t('doctor.startupTitle', { count: failing.length })}</h2>
      <ul className="check-list">
        {failing.map((check) => (
          <CheckItem key={check.check} check={check} />
        ))}
      </ul>
      <div className="field-row">
        <button type="button" onClick={onOpenSettings}>
          {t('doctor.openSettings')}
        </button>
        <button type="button" aria-label={NAMES.dismiss} onClick={onDismiss}>
          {t('doctor.dismiss')}
        </button>
      </div>
    </div>
  );
}
