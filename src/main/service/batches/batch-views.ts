/**
 * A batch read from its journal, as the front ends show it (src/shared/batch.ts): its summary with
 * the progress, the ETA and the cost, its rows, and what changed between two reads of it (the
 * event the window follows). Pure functions of what was read, the clock and whether the process
 * holding the batch is alive.
 */
import type { BatchChange, BatchDetail, BatchRow, BatchSummary } from '../../../shared/batch';
import type { BatchDefinition, JournalEntry } from '../../batch/records';
import { etaFromJournal, rowReports } from '../../batch/report';
import { batchStatus, foldBatch, type BatchState } from '../../batch/state';

/** A batch as read from the data directory. */
export interface ReadBatch {
  definition: BatchDefinition;
  entries: JournalEntry[];
  state: BatchState;
  /** Lines of the journal that could not be read (cut short by a crash). */
  skipped: number;
}

export function readBatchOf(definition: BatchDefinition, entries: JournalEntry[], skipped = 0): ReadBatch {
  return { definition, entries, state: foldBatch(definition, entries), skipped };
}

export function batchSummary(batch: ReadBatch, holderAlive: boolean, now: number): BatchSummary {
  const { definition, state, entries } = batch;
  const status = batchStatus(state, holderAlive);
  return {
    id: definition.id,
    createdAt: definition.createdAt,
    status,
    source: definition.source.kind === 'workflow' ? { kind: 'workflow', name: definition.source.name } : { kind: 'task', task: definition.source.task },
    valuesFile: definition.valuesFile,
    columns: definition.columns,
    total: state.rows.length,
    counts: { ...state.counts },
    costUsd: state.costUsd,
    etaMs: status === 'running' ? etaFromJournal(entries, state, now) : null,
    concurrency: definition.concurrency,
    concurrencyReason: definition.concurrencyReason,
    retries: definition.retries,
    runningIn: status === 'running' && state.holder ? { pid: state.holder.pid, hostname: state.holder.hostname } : null,
  };
}

export function batchDetail(batch: ReadBatch, holderAlive: boolean, now: number): BatchDetail {
  return { ...batchSummary(batch, holderAlive, now), rows: rowReports(batch.definition, batch.state) };
}

/** The rows of `next` that differ from `before` (every row when there was no before). */
export function changedRows(before: readonly BatchRow[] | null, next: readonly BatchRow[]): BatchRow[] {
  if (!before) return [...next];
  const earlier = new Map(before.map((row) => [row.row, JSON.stringify(row)]));
  return next.filter((row) => earlier.get(row.row) !== JSON.stringify(row));
}

/** The change event between two reads of one batch; null when nothing a viewer sees changed. */
export function batchChange(before: BatchDetail | null, next: BatchDetail): BatchChange | null {
  const rows = changedRows(before?.rows ?? null, next.rows);
  const { rows: _rows, ...summary } = next;
  if (before) {
    const { rows: _beforeRows, ...earlier } = before;
    if (rows.length === 0 && JSON.stringify({ ...earlier, etaMs: null }) === JSON.stringify({ ...summary, etaMs: null })) return null;
  }
  return { batch: summary, rows };
}
