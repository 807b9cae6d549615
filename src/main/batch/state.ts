/**
 * A batch's state, folded from its journal: each row's outcome (or none), its attempts and
 * sessions, and the counts the progress line and the summary show. Pure: the same journal folds
 * the same way in the process that runs the batch, in `mnemo batch show` and after a crash.
 */
import type { AttemptStatus, BatchDefinition, JournalEntry, JournalEntryOf } from './records';

/**
 * `pending`: no outcome and nothing going on; `running`: an attempt started and not ended (when no
 * process holds the batch any more, it was cut off: `resume` runs it again); `succeeded`,
 * `failed`: its outcome.
 */
export type RowStatus = 'pending' | 'running' | 'succeeded' | 'failed';

export interface RowState {
  row: number;
  status: RowStatus;
  /** Attempts since the row was last (re)opened, ended or not. */
  attempts: number;
  /** Failed attempts since then: what the retries count against. */
  failedAttempts: number;
  /** The session of the latest attempt; every attempt's in `sessions`. */
  session: string | null;
  sessions: string[];
  reason: string | null;
  steps: number;
  costUsd: number;
  durationMs: number;
  /** What the latest ended attempt read off the screen, by name (none yet: empty). */
  screenValues: Record<string, string>;
}

export interface BatchState {
  rows: RowState[];
  /** The process that holds the batch, when the last `opened` has no `closed` after it. */
  holder: JournalEntryOf<'opened'>['writer'] | null;
  cancelled: boolean;
  /** What every attempt cost, kept across retries. */
  costUsd: number;
  counts: Record<RowStatus, number>;
}

function freshRow(row: number): RowState {
  return { row, status: 'pending', attempts: 0, failedAttempts: 0, session: null, sessions: [], reason: null, steps: 0, costUsd: 0, durationMs: 0, screenValues: {} };
}

export function foldBatch(definition: BatchDefinition, entries: readonly JournalEntry[]): BatchState {
  const rows = new Map(definition.rows.map((row) => [row.row, freshRow(row.row)]));
  let holder: BatchState['holder'] = null;
  let cancelled = false;
  let costUsd = 0;
  for (const entry of entries) {
    switch (entry.type) {
      case 'opened':
        holder = entry.writer;
        cancelled = false;
        break;
      case 'closed':
        holder = null;
        break;
      case 'cancelled':
        cancelled = true;
        break;
      case 'reopened':
        for (const row of entry.rows) {
          const state = rows.get(row);
          if (state) rows.set(row, { ...freshRow(row), sessions: state.sessions });
        }
        break;
      case 'attempt-started': {
        const state = rows.get(entry.row);
        if (!state) break;
        state.status = 'running';
        state.attempts = Math.max(state.attempts, entry.attempt);
        state.session = entry.session;
        if (!state.sessions.includes(entry.session)) state.sessions.push(entry.session);
        break;
      }
      case 'attempt-ended': {
        const state = rows.get(entry.row);
        if (!state) break;
        costUsd += entry.costUsd;
        state.attempts = Math.max(state.attempts, entry.attempt);
        if (entry.session !== null) {
          state.session = entry.session;
          if (!state.sessions.includes(entry.session)) state.sessions.push(entry.session);
        }
        if (entry.status === 'failed') state.failedAttempts++;
        state.reason = entry.reason;
        state.steps = entry.steps;
        state.costUsd += entry.costUsd;
        state.durationMs = entry.durationMs;
        state.screenValues = entry.screenValues ?? {};
        state.status = entry.final ? finalStatus(entry.status) : 'pending';
        break;
      }
    }
  }
  const list = [...rows.values()];
  const counts: Record<RowStatus, number> = { pending: 0, running: 0, succeeded: 0, failed: 0 };
  for (const row of list) counts[row.status]++;
  return { rows: list, holder, cancelled, costUsd, counts };
}

function finalStatus(status: AttemptStatus): RowStatus {
  return status === 'succeeded' ? 'succeeded' : 'failed';
}

/** The rows `resume` runs: those with no outcome (never run, or cut off mid-run). */
export function rowsWithoutOutcome(state: BatchState): number[] {
  return state.rows.filter((row) => row.status === 'pending' || row.status === 'running').map((row) => row.row);
}

/** The rows `retry` runs again: every row, or (`failedOnly`) those that failed. */
export function rowsToRetry(state: BatchState, failedOnly: boolean): number[] {
  return state.rows.filter((row) => (failedOnly ? row.status === 'failed' : true)).map((row) => row.row);
}

/** A batch in one word: `running` (a live process holds it), `cancelled`, `done` (every row has an outcome), `incomplete`. */
export function batchStatus(state: BatchState, holderAlive: boolean): 'running' | 'cancelled' | 'done' | 'incomplete' {
  if (state.holder && holderAlive) return 'running';
  if (rowsWithoutOutcome(state).length === 0) return 'done';
  return state.cancelled ? 'cancelled' : 'incomplete';
}
