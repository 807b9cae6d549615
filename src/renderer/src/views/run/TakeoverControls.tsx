/**
 * Take over and Hand back, for the run shown: the user takes the run's desktop (the agent stops
 * after the action in progress and the live view takes their mouse and keys), then hands it back
 * with a note the agent reads in its next prompt.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices } from '../../app-context';
import { NAMES } from '../../i18n/names';

export function TakeoverControls({ takenOver }: { takenOver: boolean }) {
  const { t } = useTranslation();
  const { session } = useServices();
  const [note, setNote] = useState('');
  if (!takenOver) {
    return (
      <div className="takeover-controls">
        <button type="button" aria-label={NAMES.takeOver} onClick={() => void session.getState().takeOver()}>
          {t('takeOver')}
        </button>
      </div>
    );
  }
  return (
    <form
      className="takeover-controls"
      onSubmit={(event) => {
        event.preventDefault();
        void session.getState().handBack(note);
        setNote('');
      }}
    >
      <input type="text" aria-label={NAMES.handBackNote} placeholder={t('live.notePlaceholder')} value={note} onChange={(event) => setNote(event.target.value)} />
      <button type="submit" className="primary" aria-label={NAMES.handBack}>
        {t('handBack')}
      </button>
    </form>
  );
}
