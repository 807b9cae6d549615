/**
 * Runs a batch's rows, N at once: each free slot takes the next row, runs it (through the launcher
 * it is given: the same recipe as any run), journals the attempt's start and end, and runs the row
 * again after a failure while retries are left. `drain` stops taking rows (the runs going on
 * finish and journal their outcomes); `stop` also stops the runs going on (their rows are left
 * without an outcome, for `resume`). Nothing here knows what a run is made of.
 */
import type { RunStatus } from '../../shared/events';
import type { AttemptStatus, JournalEntry } from './records';

export interface AttemptResult {
  status: AttemptStatus;
  session: string | null;
  runStatus: RunStatus | null;
  reason: string;
  steps: number;
  costUsd: number;
  durationMs: number;
  /**
   * What the run read off the screen, by name (run/screen-values.ts): each field it typed into with
   * what the field held after (a password by its length only), and its closing summary under
   * `summary`. Absent when it read nothing (or did not start).
   */
  screenValues?: Record<string, string>;
}

/** A row's run, started. */
export interface StartedAttempt {
  ok: true;
  session: string;
  /** Resolves once the run has ended and its record is closed. */
  done: Promise<AttemptResult>;
  /** Stops the run (it ends `interrupted`). */
  stop(): void;
  /** The X display it runs on (`:201`), for whoever shows what is running where. */
  display?: string;
}

export interface RowLauncher {
  /** Starts one attempt at a row; a run that could not start is its result (a failed attempt). */
  start(row: number, attempt: number): Promise<StartedAttempt | { ok: false; result: AttemptResult }>;
}

export interface ScheduleOptions {
  /** The rows to run, in order. */
  rows: readonly number[];
  concurrency: number;
  /** Runs again after a failure, per row: a row fails for good after 1 + retries failed attempts. */
  retries: number;
  /** Attempts already journalled for a row, and how many of them failed (resume goes on counting). */
  attemptsSoFar?: ReadonlyMap<number, number>;
  failedSoFar?: ReadonlyMap<number, number>;
  /** Take no new row (and no retry); the runs going on finish. */
  drain: AbortSignal;
  /** Stop the runs going on as well. */
  stop: AbortSignal;
}

export interface SchedulerDeps {
  launcher: RowLauncher;
  /** Where each entry goes first (the journal), before anyone is told. */
  journal: { append(entry: JournalEntry): Promise<void> };
  /** Told of each entry once it is journalled (the progress line). */
  onEntry?: (entry: JournalEntry) => void;
  now?: () => number;
}

export async function runRows(deps: SchedulerDeps, options: ScheduleOptions): Promise<void> {
  const now = deps.now ?? Date.now;
  const queue = [...options.rows];
  const record = async (entry: JournalEntry) => {
    await deps.journal.append(entry);
    deps.onEntry?.(entry);
  };

  const runRow = async (row: number) => {
    let attempt = options.attemptsSoFar?.get(row) ?? 0;
    let failed = options.failedSoFar?.get(row) ?? 0;
    for (;;) {
      if (options.drain.aborted || options.stop.aborted) return;
      attempt++;
      const started = now();
      const launched = await deps.launcher.start(row, attempt);
      let result: AttemptResult;
      if (launched.ok) {
        await record({ type: 'attempt-started', at: now(), row, attempt, session: launched.session });
        const stopIt = () => launched.stop();
        options.stop.addEventListener('abort', stopIt, { once: true });
        if (options.stop.aborted) launched.stop();
        try {
          result = await launched.done;
        } finally {
          options.stop.removeEventListener('abort', stopIt);
        }
      } else {
        result = { ...launched.result, durationMs: launched.result.durationMs || now() - started };
      }
      if (result.status === 'failed') failed++;
      const retryLeft = result.status === 'failed' && failed <= options.retries;
      const final = result.status === 'succeeded' || (result.status === 'failed' && !retryLeft);
      await record({ type: 'attempt-ended', at: now(), row, attempt, ...result, final });
      if (!retryLeft) return;
    }
  };

  const slot = async () => {
    for (let row = queue.shift(); row !== undefined; row = queue.shift()) {
      if (options.drain.aborted || options.stop.aborted) return;
      await runRow(row);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, queue.length)) }, slot));
}
