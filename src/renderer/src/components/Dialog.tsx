/** A dialog over the window, the window dimmed behind it: its accessible name the English `name` (names.ts), its title in the window's language. */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { NAMES } from '../i18n/names';
import { ErrorLine } from './ErrorLine';

export function Dialog({ name, title, className, children }: { name: string; title: string; className?: string; children: ReactNode }) {
  return (
    <div className="dialog-backdrop">
      <div role="dialog" aria-modal="true" aria-label={name} className={`workflow-dialog${className ? ` ${className}` : ''}`}>
        <h2>{title}</h2>
        {children}
      </div>
    </div>
  );
}

/** A dialog's last word: what was done (role status), the next thing to do, and Close. */
export function DialogDone({ message, next, onNext, onClose }: { message: string; next: string; onNext: () => void; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <>
      <p role="status">{message}</p>
      <div className="dialog-buttons">
        <button type="button" className="primary" onClick={onNext}>
          {next}
        </button>
        <button type="button" aria-label={NAMES.close} onClick={onClose}>
          {t('close')}
        </button>
      </div>
    </>
  );
}

/** A dialog form's end: what went wrong (if anything), its submit button (named in English, shown translated), and Cancel. */
export function DialogSubmit({ error, name, text, disabled, onCancel }: { error: string | null; name: string; text: string; disabled: boolean; onCancel: () => void }) {
  const { t } = useTranslation();
  return (
    <>
      <ErrorLine message={error} />
      <div className="dialog-buttons">
        <button type="submit" className="primary" aria-label={name} disabled={disabled}>
          {text}
        </button>
        <button type="button" aria-label={NAMES.cancel} onClick={onCancel}>
          {t('cancel')}
        </button>
      </div>
    </>
  );
}
