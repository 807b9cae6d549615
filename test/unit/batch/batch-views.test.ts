/**
 * A batch as the front ends show it, from its journal: the summary's counts, status and ETA (the
 * pace since the latest `opened`), the rows with a secret by its reference, the change between two
 * reads (only the rows that changed; none when nothing a viewer sees did), and the window's fold of
 * a change into the list and the batch open.
 */
import { describe, expect, it } from 'vitest';
import type { BatchDefinition, JournalEntry } from '../../../src/main/batch/records';
import { etaFromJournal } from '../../../src/main/batch/report';
import { batchChange, batchDetail, batchSummary, readBatchOf } from '../../../src/main/service/batches/batch-views';
import { detailWithChange, listWithChange } from '../../../src/renderer/src/views/batches/batch-fold';

const definition: BatchDefinition = {
  id: 'b-20261206-101500-a1b2c3',
  createdAt: 1_000,
  source: { kind: 'workflow', name: 'invoice', policy: 'stop', speed: 1 },
  valuesFile: 'invoices.csv',
  columns: ['customer', 'password'],
  rows: [1, 2, 3, 4].map((row) => ({ row, cells: { customer: { kind: 'text' as const, text: `C${row}` }, password: { kind: 'secret' as const, source: 'env' as const, name: 'PW' } } })),
  concurrency: 2,
  concurrencyReason: '2 at once (--concurrency)',
  retries: 1,
  desktop: {},
};

const writer = { pid: 1, hostname: 'here' };
const ended = (row: number, at: number, status: 'succeeded' | 'failed', final = true): JournalEntry => ({
  type: 'attempt-ended',
  at,
  row,
  attempt: 1,
  session: `s-${row}`,
  status,
  runStatus: status === 'succeeded' ? 'finished' : 'failed',
  reason: status,
  steps: 2,
  costUsd: 0.01,
  durationMs: 500,
  final,
});

const entries: JournalEntry[] = [
  { type: 'opened', at: 10_000, writer, rows: [1, 2, 3, 4], concurrency: 2 },
  { type: 'attempt-started', at: 10_001, row: 1, attempt: 1, session: 's-1' },
  { type: 'attempt-started', at: 10_002, row: 2, attempt: 1, session: 's-2' },
  ended(1, 20_000, 'succeeded'),
  ended(2, 30_000, 'failed'),
  { type: 'attempt-started', at: 30_001, row: 3, attempt: 1, session: 's-3' },
];

describe('a batch as shown', () => {
  it('counts its rows, says it runs while its holder lives, and paces the ETA since it was opened', () => {
    const batch = readBatchOf(definition, entries);
    const summary = batchSummary(batch, true, 40_000);
    expect(summary).toMatchObject({ status: 'running', total: 4, counts: { succeeded: 1, failed: 1, running: 1, pending: 1 }, runningIn: { pid: 1, hostname: 'here' }, source: { kind: 'workflow', name: 'invoice' } });
    // 2 rows ended in 30 s since `opened`: 15 s a row, 2 rows left.
    expect(summary.etaMs).toBe(30_000);
    expect(etaFromJournal(entries, batch.state, 40_000)).toBe(30_000);
    expect(batchSummary(batch, false, 40_000)).toMatchObject({ status: 'incomplete', etaMs: null, runningIn: null });
    expect(batchSummary(readBatchOf(definition, entries.slice(0, 3)), true, 40_000).etaMs).toBeNull();
  });

  it('shows a secret as its reference, never a value', () => {
    const detail = batchDetail(readBatchOf(definition, entries), false, 40_000);
    expect(detail.rows[0]).toMatchObject({ row: 1, values: { customer: 'C1', password: '${env:PW}' }, status: 'succeeded', session: 's-1' });
    expect(detail.rows[1]).toMatchObject({ status: 'failed', reason: 'failed' });
  });

  it('tells only the rows that changed, and nothing when nothing a viewer sees did', () => {
    const before = batchDetail(readBatchOf(definition, entries), true, 40_000);
    const after = batchDetail(readBatchOf(definition, [...entries, ended(3, 45_000, 'succeeded')]), true, 50_000);
    const change = batchChange(before, after);
    expect(change?.rows.map((row) => row.row)).toEqual([3]);
    expect(change?.batch.counts).toEqual({ succeeded: 2, failed: 1, running: 0, pending: 1 });
    // The clock alone moves the ETA: no change.
    expect(batchChange(before, batchDetail(readBatchOf(definition, entries), true, 41_000))).toBeNull();
    // A batch seen for the first time comes whole.
    expect(batchChange(null, before)?.rows).toHaveLength(4);
  });

  it('folds a change into the list (a new batch first) and into the batch open', () => {
    const before = batchDetail(readBatchOf(definition, entries), true, 40_000);
    const after = batchDetail(readBatchOf(definition, [...entries, ended(3, 45_000, 'succeeded')]), true, 50_000);
    const change = batchChange(before, after);
    if (!change) throw new Error('no change');
    const { rows: _rows, ...summary } = before;
    const other = { ...summary, id: 'b-20261206-090000-000000' };
    expect(listWithChange([summary, other], change).map((batch) => [batch.id, batch.counts.succeeded])).toEqual([
      [definition.id, 2],
      [other.id, 1],
    ]);
    expect(listWithChange([other], change).map((batch) => batch.id)).toEqual([definition.id, other.id]);
    const folded = detailWithChange(before, change);
    expect(folded?.rows.map((row) => row.status)).toEqual(['succeeded', 'failed', 'succeeded', 'pending']);
    expect(detailWithChange({ ...before, id: other.id }, change)?.rows[2]?.status).toBe('running');
  });
});
