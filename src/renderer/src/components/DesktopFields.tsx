/**
 * Where a run works, as the Run form asks it and Settings keeps its defaults: the `Private
 * desktop` switch (an X display of the run's own), its size, and the apps to start in it.
 */
import { useTranslation } from 'react-i18next';
import { parseDesktopSize } from '../../../shared/desktop-size';
import { NAMES } from '../i18n/names';

export interface DesktopDraft {
  private: boolean;
  size: string;
  /** One command a line. */
  apps: string;
}

export function appsOf(draft: DesktopDraft): string[] {
  return draft.apps
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** Why the size is not usable, or null. */
export function sizeProblem(draft: DesktopDraft): string | null {
  if (!draft.private || draft.size.trim() === '') return null;
  const parsed = parseDesktopSize(draft.size);
  return parsed.ok ? null : parsed.message;
}

/** `inline`: on one line under the task (the Run form), the size and apps only once the desktop is private. */
export function DesktopFields({ draft, onChange, inline = false }: { draft: DesktopDraft; onChange: (draft: DesktopDraft) => void; inline?: boolean }) {
  const { t } = useTranslation();
  const problem = sizeProblem(draft);
  return (
    <div className={`desktop-fields${inline ? ' inline' : ''}`}>
      <label className="inline-check" title={t('live.privateHint')}>
        <input type="checkbox" role="switch" aria-label={NAMES.privateDesktop} aria-checked={draft.private} checked={draft.private} onChange={(event) => onChange({ ...draft, private: event.target.checked })} />
        {t('privateDesktop')}
      </label>
      {(draft.private || !inline) && (
        <>
          <label className="field desktop-size">
            {t('desktopSize')}
            <input type="text" aria-label={NAMES.desktopSize} aria-invalid={problem !== null} placeholder="1280x800" title={t('live.sizeHint')} value={draft.size} onChange={(event) => onChange({ ...draft, size: event.target.value })} />
          </label>
          <label className="field desktop-apps">
            {t('desktopApps')}
            <textarea aria-label={NAMES.desktopApps} rows={inline ? 1 : 3} placeholder={t('live.appsPlaceholder')} value={draft.apps} onChange={(event) => onChange({ ...draft, apps: event.target.value })} />
          </label>
          {problem && (
            <span className="error" role="alert">
              {problem}
            </span>
          )}
        </>
      )}
    </div>
  );
}
