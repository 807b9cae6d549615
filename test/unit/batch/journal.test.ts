/**
 * A batch's journal on real files: what was appended is read back and folded into each row's
 * outcome; a line cut short by a crash is skipped; rows without an outcome are the ones resume
 * runs; the scheduler journals every attempt, retries a failed row K times, and stops taking rows
 * when drained.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConcurrency } from '../../../src/main/batch/capacity';
import { BatchJournal, listBatchIds, newBatchId } from '../../../src/main/batch/journal';
import type { BatchDefinition } from '../../../src/main/batch/records';
import { progressLine, summaryTable } from '../../../src/main/batch/report';
import { runRows, type AttemptResult, type RowLauncher } from '../../../src/main/batch/scheduler';
import { batchStatus, foldBatch, rowsToRetry, rowsWithoutOutcome } from '../../../src/main/batch/state';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-batch-journal-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function definition(rows: number): BatchDefinition {
  return {
    id: newBatchId(),
    createdAt: Date.now(),
    source: { kind: 'task', task: 'Enter {{n}}' },
    valuesFile: 'rows.csv',
    columns: ['n'],
    rows: Array.from({ length: rows }, (_, i) => ({ row: i + 1, cells: { n: { kind: 'text' as const, text: `v${i + 1}` } } })),
    concurrency: 2,
    concurrencyReason: '2 at once (--concurrency)',
    retries: 1,
    desktop: {},
  };
}

const result = (status: AttemptResult['status'], session: string): AttemptResult => ({ status, session, runStatus: status === 'succeeded' ? 'finished' : 'failed', reason: status, steps: 1, costUsd: 0.01, durationMs: 5 });

/** Runs rows for real through the scheduler, each attempt's result decided by `outcome`, the runs ending when `release` says. */
function launcher(outcome: (row: number, attempt: number) => AttemptResult['status'], log: string[]): RowLauncher {
  return {
    async start(row, attempt) {
      const session = `s-${row}-${attempt}`;
      log.push(`start ${row}.${attempt}`);
      let stop = () => {};
      const done = new Promise<AttemptResult>((resolve) => {
        stop = () => resolve(result('interrupted', session));
        setImmediate(() => resolve(result(outcome(row, attempt), session)));
      });
      return { ok: true, session, done, stop: () => stop() };
    },
  };
}

describe('the batch journal', () => {
  it('keeps every attempt on disk; the fold gives each row its outcome, retries counted; a torn last line is skipped', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const batch = definition(4);
    const journal = await BatchJournal.create(dataDir, batch);
    const log: string[] = [];
    const never = new AbortController().signal;
    await runRows({ launcher: launcher((row) => (row === 3 ? 'failed' : 'succeeded'), log), journal }, { rows: [1, 2, 3, 4], concurrency: 2, retries: 1, drain: never, stop: never });
    expect(log.filter((line) => line.startsWith('start 3.'))).toEqual(['start 3.1', 'start 3.2']);

    appendFileSync(join(journal.directory, 'journal.jsonl'), '{"type":"attempt-ended","at":1,"ro');
    const reopened = await BatchJournal.open(dataDir, batch.id.slice(0, 12));
    if (!reopened.ok) throw new Error(reopened.message);
    const read = await reopened.journal.read();
    if (!read.ok) throw new Error(read.message);
    expect(read.skipped).toBe(1);
    const state = foldBatch(read.definition, read.entries);
    expect(state.rows.map((row) => [row.row, row.status, row.attempts, row.sessions.length])).toEqual([
      [1, 'succeeded', 1, 1],
      [2, 'succeeded', 1, 1],
      [3, 'failed', 2, 2],
      [4, 'succeeded', 1, 1],
    ]);
    expect(state.costUsd).toBeCloseTo(0.05);
    expect(rowsWithoutOutcome(state)).toEqual([]);
    expect(rowsToRetry(state, true)).toEqual([3]);
    expect(batchStatus(state, false)).toBe('done');
    expect(summaryTable(read.definition, state)).toMatch(/3 succeeded, 1 failed; \$0\.0500$/);
    expect(progressLine(batch.id, state, { startedAt: 0, now: 10_000, doneSinceStart: 4, concurrency: 2 })).toBe(`batch ${batch.id}: 4/4 done (1 failed), 0 running, ETA 0s, $0.0500 so far`);
    expect(await listBatchIds(dataDir)).toEqual([batch.id]);
    expect(readFileSync(join(journal.directory, 'batch.json'), 'utf8')).toContain('"Enter {{n}}"');
  });

  it('drained, starts no new row and leaves the rest without an outcome; stopped, the runs going on are interrupted, not failed', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const batch = definition(5);
    const journal = await BatchJournal.create(dataDir, batch);
    const drain = new AbortController();
    const stop = new AbortController();
    const log: string[] = [];
    const outcomes = launcher(() => 'succeeded', log);
    const stopping: RowLauncher = {
      async start(row, attempt) {
        if (row !== 2) return outcomes.start(row, attempt);
        // Row 2 runs until it is stopped, which happens while it runs; nothing starts after it.
        log.push(`start ${row}.${attempt}`);
        let stopIt = () => {};
        const done = new Promise<AttemptResult>((resolve) => (stopIt = () => resolve(result('interrupted', 's-2'))));
        setImmediate(() => {
          drain.abort();
          stop.abort();
        });
        return { ok: true, session: 's-2', done, stop: () => stopIt() };
      },
    };
    await runRows({ launcher: stopping, journal }, { rows: [1, 2, 3, 4, 5], concurrency: 2, retries: 1, drain: drain.signal, stop: stop.signal });
    const read = await journal.read();
    if (!read.ok) throw new Error(read.message);
    const state = foldBatch(read.definition, read.entries);
    expect(state.rows.find((row) => row.row === 2)).toMatchObject({ status: 'pending', attempts: 1, failedAttempts: 0 });
    expect(rowsWithoutOutcome(state)).toEqual([2, 3, 4, 5]);
    expect(log).toEqual(['start 1.1', 'start 2.1']);
  });
});

describe('the default concurrency', () => {
  it('is the smaller of the cores and what the free memory holds, and says so', () => {
    expect(defaultConcurrency({ cpus: 2, freeMemoryBytes: 16e9, withApps: true })).toEqual({
      concurrency: 2,
      reason: expect.stringMatching(/^2 at once, what this machine holds: 2 CPU cores .*16\.0 GB free memory .*the cores set the limit/),
    });
    expect(defaultConcurrency({ cpus: 16, freeMemoryBytes: 2e9, withApps: true })).toMatchObject({ concurrency: 2, reason: expect.stringMatching(/the memory set the limit/) });
    expect(defaultConcurrency({ cpus: 64, freeMemoryBytes: 256e9, withApps: false })).toMatchObject({ concurrency: 8, reason: expect.stringMatching(/at most 8 by default/) });
    expect(defaultConcurrency({ cpus: 1, freeMemoryBytes: 1e8, withApps: true }).concurrency).toBe(1);
  });
});
