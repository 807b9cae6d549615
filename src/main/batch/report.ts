/**
 * What a batch says while it runs and at its end, as pure functions of its state: the live
 * progress line (done, failed, running, the ETA, the cost so far), the summary table, and the
 * `--json` objects, one per row.
 */
import { formatUsd } from '../../shared/format';
import type { BatchDefinition, JournalEntry } from './records';
import type { BatchRow } from '../../shared/batch';
import type { BatchState } from './state';
import { shownCell } from './values';

export interface ProgressClock {
  /** When this process started running rows. */
  startedAt: number;
  now: number;
  /** Rows that reached an outcome since then (for the pace). */
  doneSinceStart: number;
  concurrency: number;
}

/** `batch b-…: 5/12 done (1 failed), 3 running, ETA 1m20s, $0.0123 so far`. */
export function progressLine(id: string, state: BatchState, clock: ProgressClock): string {
  const total = state.rows.length;
  const done = state.counts.succeeded + state.counts.failed;
  const remaining = total - done;
  return `batch ${id}: ${done}/${total} done (${state.counts.failed} failed), ${state.counts.running} running, ETA ${eta(remaining, clock)}, ${formatUsd(state.costUsd)} so far`;
}

/**
 * The time left for a batch a process is running, from the journal alone (so a window reading it
 * from another process says the same): the pace since the latest `opened`, times the rows left;
 * null before any row ended there.
 */
export function etaFromJournal(entries: readonly JournalEntry[], state: BatchState, now: number): number | null {
  let openedAt: number | null = null;
  let doneSince = 0;
  for (const entry of entries) {
    if (entry.type === 'opened') {
      openedAt = entry.at;
      doneSince = 0;
    } else if (entry.type === 'attempt-ended' && entry.final) doneSince++;
  }
  const remaining = state.counts.pending + state.counts.running;
  if (remaining === 0) return 0;
  if (openedAt === null || doneSince === 0) return null;
  return ((now - openedAt) / doneSince) * remaining;
}

/** From this process's pace: the time per row it has finished, times the rows left (which the slots share already, in the pace). */
function eta(remaining: number, clock: ProgressClock): string {
  if (remaining === 0) return '0s';
  if (clock.doneSinceStart === 0) return 'unknown yet';
  const perRow = (clock.now - clock.startedAt) / clock.doneSinceStart;
  return shortDuration(perRow * remaining);
}

export function shortDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** One row as `--json` prints it: its values (a secret by where it is kept), its outcome, its session. */
export type RowReport = BatchRow;

export function rowReports(definition: BatchDefinition, state: BatchState): RowReport[] {
  const cells = new Map(definition.rows.map((row) => [row.row, row.cells]));
  return state.rows.map((row) => ({
    batch: definition.id,
    row: row.row,
    values: Object.fromEntries(Object.entries(cells.get(row.row) ?? {}).map(([column, cell]) => [column, shownCell(cell)])),
    status: row.status,
    attempts: row.attempts,
    session: row.session,
    sessions: row.sessions,
    steps: row.steps,
    costUsd: row.costUsd,
    durationMs: row.durationMs,
    reason: row.reason,
    screenValues: row.screenValues,
  }));
}

/** The summary table: a line per row (its values, status, attempts, session, steps, cost, time, why it failed), then the totals. */
export function summaryTable(definition: BatchDefinition, state: BatchState): string {
  const reports = rowReports(definition, state);
  const header = ['row', ...definition.columns, 'status', 'attempts', 'session', 'steps', 'cost', 'time', 'reason'];
  const lines = reports.map((report) => [
    String(report.row),
    ...definition.columns.map((column) => clip(report.values[column] ?? '', 24)),
    report.status,
    String(report.attempts),
    report.session ?? '-',
    String(report.steps),
    formatUsd(report.costUsd),
    shortDuration(report.durationMs),
    report.status === 'failed' ? clip(report.reason ?? '', 60) : '',
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => (line[i] ?? '').length)));
  const format = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const { succeeded, failed, pending, running } = state.counts;
  const open = pending + running;
  const totals = `${succeeded} succeeded, ${failed} failed${open > 0 ? `, ${open} without an outcome (mnemo batch resume ${definition.id})` : ''}; ${formatUsd(state.costUsd)}`;
  return [format(header), ...lines.map(format), totals].join('\n');
}

function clip(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}
