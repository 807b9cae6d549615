/**
 * The batch watch the window follows, over real journals in a data directory: a listener is first
 * told every batch whole, then only what changes (a row ended by another writer); one that comes
 * later is told every batch whole too, and the first hears nothing new; the ETA moving with the
 * clock alone is no change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BatchChange, BatchDetail } from '../../../src/shared/batch';
import { BatchJournal, listBatchIds } from '../../../src/main/batch/journal';
import type { BatchDefinition } from '../../../src/main/batch/records';
import { BatchWatch } from '../../../src/main/service/batches/batch-watch';
import { batchDetail, readBatchOf } from '../../../src/main/service/batches/batch-views';

const dataDir = mkdtempSync(join(tmpdir(), 'mnemo-batch-watch-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const definition = (id: string): BatchDefinition => ({
  id,
  createdAt: 1,
  source: { kind: 'task', task: 'Note {{name}}' },
  valuesFile: 'people.csv',
  columns: ['name'],
  rows: [1, 2].map((row) => ({ row, cells: { name: { kind: 'text' as const, text: `N${row}` } } })),
  concurrency: 1,
  concurrencyReason: '1 at once (--concurrency)',
  retries: 0,
  desktop: {},
});

async function readAll(): Promise<{ batches: BatchDetail[] }> {
  const batches: BatchDetail[] = [];
  for (const id of await listBatchIds(dataDir)) {
    const opened = await BatchJournal.open(dataDir, id);
    const read = opened.ok ? await opened.journal.read() : null;
    if (read?.ok) batches.push(batchDetail(readBatchOf(read.definition, read.entries), false, Date.now()));
  }
  return { batches };
}

describe('the batch watch', () => {
  it('tells a new listener every batch whole, then only the changes', async () => {
    const first = await BatchJournal.create(dataDir, definition('b-20261206-100000-aaaaaa'));
    await BatchJournal.create(dataDir, definition('b-20261206-110000-bbbbbb'));
    const watch = new BatchWatch({ read: readAll, pollMs: 20 });
    const heardA: BatchChange[] = [];
    const stopA = watch.subscribe((change) => heardA.push(change));
    await expect.poll(() => heardA.map((change) => [change.batch.id, change.rows.length])).toEqual([
      ['b-20261206-100000-aaaaaa', 2],
      ['b-20261206-110000-bbbbbb', 2],
    ]);

    await first.append({ type: 'attempt-ended', at: 5, row: 2, attempt: 1, session: 's-2', status: 'succeeded', runStatus: 'finished', reason: 'done', steps: 1, costUsd: 0.5, durationMs: 3, final: true });
    await expect.poll(() => heardA.length).toBe(3);
    expect(heardA[2]).toMatchObject({ batch: { id: 'b-20261206-100000-aaaaaa', counts: { succeeded: 1, pending: 1 }, costUsd: 0.5 }, rows: [{ row: 2, status: 'succeeded', session: 's-2' }] });

    const heardB: BatchChange[] = [];
    const stopB = watch.subscribe((change) => heardB.push(change));
    await expect.poll(() => heardB.length).toBe(2);
    expect(heardB[0]?.rows.map((row) => row.status)).toEqual(['pending', 'succeeded']);
    expect(heardA).toHaveLength(3);
    stopA();
    stopB();
    watch.close();
  });
});
