/** How a run ends: a status and the reason in words a user understands. */
import type { RunStatus } from '../../shared/events';

export interface Ending {
  status: RunStatus;
  reason: string;
  summary?: string | null;
}

export const STOPPED: Ending = { status: 'aborted', reason: 'stopped by the user' };

/** A bug, not an expected failure: the run still ends in the record, with the reason. */
export function internalError(error: unknown): Ending {
  return { status: 'failed', reason: `internal error: ${error instanceof Error ? error.message : String(error)}` };
}

/** Waits `ms`, or less when the signal stops the run; never rejects. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
