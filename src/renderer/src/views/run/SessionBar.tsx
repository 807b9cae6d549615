/**
 * For a recorded session: the step scrubber (a slider), previous/next, playback at 0.5×–4×, Replay
 * with its policy, Export report, and Save as workflow.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useServices, useSession } from '../../app-context';
import { NAMES } from '../../i18n/names';
import type { ReplayPolicy } from '../../../../shared/app-api';
import { SaveWorkflowDialog } from '../workflows/SaveWorkflowDialog';
import { workflowsHash } from '../workflows/workflows-hash';

const SPEEDS = [0.5, 1, 2, 4] as const;
/** One step per second at 1×. */
const STEP_MS = 1000;

export function SessionBar() {
  const { t } = useTranslation();
  const { session: store, client } = useServices();
  const sessionId = useSession((s) => s.session?.id ?? null);
  const numbers = useSession((s) => s.session?.steps) ?? [];
  const cursor = useSession((s) => s.cursor);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<number>(1);
  const [policy, setPolicy] = useState<ReplayPolicy>('stop');
  const [message, setMessage] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const first = numbers[0]?.step ?? 0;
  const last = numbers.at(-1)?.step ?? 0;
  const at = cursor ?? last;

  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => {
      const state = store.getState();
      const now = state.cursor ?? first;
      if (now >= last) {
        setPlaying(false);
        return;
      }
      state.setCursor(now + 1);
    }, STEP_MS / speed);
    return () => clearInterval(timer);
  }, [playing, speed, first, last, store]);

  if (!sessionId || numbers.length === 0) return null;
  const go = (step: number) => store.getState().setCursor(Math.min(last, Math.max(first, step)));
  const exportReport = async () => {
    const saved = await client['sessions:export']({ id: sessionId });
    setMessage(saved.ok ? (saved.value.path ? t('scrubber.exported', { path: saved.value.path }) : t('scrubber.exportCancelled')) : saved.error.message);
  };

  return (
    <section className="session-bar" aria-label={t('history')}>
      <div className="scrubber">
        <button type="button" onClick={() => go(at - 1)} disabled={at <= first} aria-label={t('scrubber.previous')}>
          ‹
        </button>
        <input
          type="range"
          aria-label={NAMES.step}
          min={first}
          max={last}
          step={1}
          value={at}
          aria-valuetext={t('stepLabel', { n: at })}
          onChange={(event) => go(Number(event.target.value))}
        />
        <button type="button" onClick={() => go(at + 1)} disabled={at >= last} aria-label={t('scrubber.next')}>
          ›
        </button>
        <output className="scrubber-position">
          {at} / {last}
        </output>
        <button
          type="button"
          onClick={() => {
            if (!playing && at >= last) go(first);
            setPlaying(!playing);
          }}
        >
          {playing ? t('scrubber.pausePlayback') : t('scrubber.play')}
        </button>
        <label className="inline-field">
          {t('scrubber.speed')}
          <select value={speed} onChange={(event) => setSpeed(Number(event.target.value))}>
            {SPEEDS.map((value) => (
              <option key={value} value={value}>
                {value}×
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="session-actions">
        <label className="inline-field">
          {t('scrubber.policy')}
          <select value={policy} onChange={(event) => setPolicy(event.target.value as ReplayPolicy)}>
            {(['stop', 'ask', 'reground'] as const).map((value) => (
              <option key={value} value={value}>
                {t(`scrubber.policies.${value}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="button" aria-label={NAMES.replay} onClick={() => void store.getState().replay(policy, speed)}>
          {t('replay')}
        </button>
        <button type="button" aria-label={NAMES.exportReport} onClick={() => void exportReport()}>
          {t('exportReport')}
        </button>
        <button type="button" aria-label={NAMES.saveAsWorkflow} onClick={() => setSaving(true)}>
          {t('saveAsWorkflow')}
        </button>
        {message && (
          <span className="note" role="status">
            {message}
          </span>
        )}
      </div>
      {saving && <SaveWorkflowDialog sessionId={sessionId} onClose={() => setSaving(false)} onShow={(name) => (location.hash = workflowsHash(name))} />}
    </section>
  );
}
