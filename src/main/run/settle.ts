/**
 * After an action, wait until the screen stops changing (two captures in a row nearly equal)
 * instead of sleeping a fixed time: fast when nothing animates, patient when a page loads, and
 * bounded either way.
 */
import { sameScreen, type ScreenFingerprint } from '../operator/screen-diff';

export interface SettleOptions {
  /** Gap between two captures. */
  intervalMs: number;
  /** Give up waiting after this long; the step goes on with whatever is on screen. */
  timeoutMs: number;
  threshold: number;
}

export const DEFAULT_SETTLE: SettleOptions = { intervalMs: 120, timeoutMs: 3000, threshold: 0.003 };

export interface SettleOutcome {
  settled: boolean;
  waitedMs: number;
  last: ScreenFingerprint | undefined;
}

const delay = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export async function waitForSettle(
  fingerprint: () => Promise<ScreenFingerprint | undefined>,
  options: SettleOptions = DEFAULT_SETTLE,
  signal?: AbortSignal,
): Promise<SettleOutcome> {
  // Waiting switched off: not even one capture.
  if (options.timeoutMs <= 0) return { settled: false, waitedMs: 0, last: undefined };
  const started = Date.now();
  let previous = await fingerprint();
  if (previous === undefined) return { settled: false, waitedMs: 0, last: undefined };
  while (!signal?.aborted && Date.now() - started < options.timeoutMs) {
    await delay(options.intervalMs, signal);
    const current = await fingerprint();
    if (sameScreen(current, previous, options.threshold)) return { settled: true, waitedMs: Date.now() - started, last: current };
    previous = current;
  }
  return { settled: false, waitedMs: Date.now() - started, last: previous };
}
