/**
 * The local schedules fired by the app (or `mnemo serve`) while it is open: on real files, two
 * processes' batches of one data directory (standing for the app and a second window, or a
 * worker) fire a schedule of every second; each firing becomes one batch in the data directory,
 * never two, and its rows are journalled from the values file as it is then.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { BatchJournal } from '../../../src/main/batch/journal';
import { writeLocalSchedules } from '../../../src/main/batch/schedules';
import { Batches, type BatchesDeps } from '../../../src/main/service/batches/batch-service';
import { SCHEDULE_TICK_MS, ScheduleFirer } from '../../../src/main/service/batches/schedule-firer';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-schedule-firer-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function batchesOn(dataDir: string): Batches {
  // A row's run cannot start here (no desktop): it fails at once, and its batch stays on disk.
  const refused = async () => ({ ok: false as const, error: { kind: 'unavailable' as const, message: 'no desktop in this test' } });
  const deps: BatchesDeps = {
    workflowRuns: { start: refused },
    agentRuns: { start: refused },
    workflows: { show: async () => ({ ok: false, error: { kind: 'not_found', message: 'none' } }) },
    dataDir: () => dataDir,
    dataDirReady: async () => undefined,
    defaultApps: () => [],
    env: {},
    secrets: { env: {}, keychain: () => { throw new Error('no keychain in this test'); } },
  };
  return new Batches(deps);
}

/**
 * `stop()` asked while a firing is held: whether it had already resolved once every callback then
 * due had run (stop clears the timer at once, so no later tick could change that), and the stop.
 */
async function stopWhileHeld(firer: ScheduleFirer): Promise<{ stoppedAtOnce: boolean; stopping: Promise<void> }> {
  let stopped = false;
  const stopping = firer.stop().then(() => {
    stopped = true;
  });
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  return { stoppedAtOnce: stopped, stopping };
}

it('fires each firing of a local schedule once, whichever of two processes comes first, a batch of the values file as it is then', { timeout: 60_000 }, async () => {
  const dataDir = join(scratch, 'data');
  const values = join(scratch, 'rows.csv');
  writeFileSync(values, 'number\n1001\n1002\n');
  await writeLocalSchedules(dataDir, [{ id: 's-test', createdAt: 1, cron: '* * * * * *', source: { kind: 'task', task: 'Enter invoice {{number}}' }, valuesFile: values, retries: 0, concurrency: 2, desktop: {}, model: { model: 'scripted' } }]);
  const app = batchesOn(dataDir);
  const other = batchesOn(dataDir);
  app.fireSchedules();
  other.fireSchedules();
  try {
    await expect.poll(() => (readdirSync(join(dataDir, 'batches'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).length), { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(3);
  } finally {
    await app.close();
    await other.close();
  }
  const firings = readdirSync(join(dataDir, 'schedule-firings'));
  const ids = readdirSync(join(dataDir, 'batches'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  // One batch per firing taken: no firing made two batches.
  expect(ids.length).toBe(firings.length);
  for (const id of ids) {
    const opened = await BatchJournal.open(dataDir, id);
    if (!opened.ok) throw new Error(opened.message);
    const read = await opened.journal.read();
    if (!read.ok) throw new Error(`batch ${id} unreadable`);
    expect(read.definition.source).toEqual({ kind: 'task', task: 'Enter invoice {{number}}' });
    expect(read.definition.rows.map((row) => row.cells)).toEqual([{ number: { kind: 'text', text: '1001' } }, { number: { kind: 'text', text: '1002' } }]);
  }
});

it('stop waits for a firing already begun, and a firing that throws is said in the log, never left unhandled', { timeout: 60_000 }, async () => {
  const dataDir = join(scratch, 'stopping');
  await writeLocalSchedules(dataDir, [{ id: 's-slow', createdAt: 1, cron: '* * * * * *', source: { kind: 'task', task: 'Enter invoice {{number}}' }, valuesFile: join(scratch, 'none.csv'), retries: 0, desktop: {}, model: {} }]);
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let starts = 0;
  const log: string[] = [];
  const firer = new ScheduleFirer({
    dataDir: () => dataDir,
    readValuesFile: async () => ({ ok: true, value: { columns: ['number'], rows: [] } as never }),
    start: async () => {
      starts++;
      if (starts === 1) await held;
      throw new Error('the disk went away');
    },
    runningHere: () => false,
    log: (line) => log.push(line),
  });
  firer.start();
  await expect.poll(() => starts, { timeout: 30_000, interval: 50 }).toBe(1);
  // The firing in flight holds stop back.
  const { stoppedAtOnce, stopping } = await stopWhileHeld(firer);
  expect(stoppedAtOnce).toBe(false);
  release();
  await stopping;
  expect(starts).toBe(1);
  expect(log).toEqual(['schedules: a firing failed: the disk went away']);
});

it('a firing still going on when the next looks are due is not overlapped by them, and stop still waits for it', { timeout: 60_000 }, async () => {
  const dataDir = join(scratch, 'overlapping');
  await writeLocalSchedules(dataDir, [{ id: 's-long', createdAt: 1, cron: '* * * * * *', source: { kind: 'task', task: 'Enter invoice {{number}}' }, valuesFile: join(scratch, 'none.csv'), retries: 0, desktop: {}, model: {} }]);
  // The firer's clock and timer are moved by hand: three more looks fall due, each a second on,
  // while the first firing is held.
  let clock = Date.parse('2026-12-07T10:00:00.400Z');
  let look: () => void = () => undefined;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let starts = 0;
  const firer = new ScheduleFirer({
    dataDir: () => dataDir,
    readValuesFile: async () => ({ ok: true, value: { columns: ['number'], rows: [] } as never }),
    start: async () => {
      starts++;
      await held;
      return { ok: false, error: { kind: 'unavailable', message: 'no desktop in this test' } };
    },
    runningHere: () => false,
    now: () => clock,
    every: (ms, callback) => {
      expect(ms).toBe(SCHEDULE_TICK_MS);
      look = () => {
        clock += ms;
        callback();
      };
      return () => (look = () => undefined);
    },
  });
  try {
    firer.start();
    look();
    await expect.poll(() => starts, { timeout: 30_000, interval: 20 }).toBe(1);
    for (let more = 0; more < 3; more++) look();
    // A look begun while the firing was held would have taken its place as the one stop waits for.
    const { stoppedAtOnce, stopping } = await stopWhileHeld(firer);
    expect(stoppedAtOnce).toBe(false);
    release();
    await stopping;
    // A look let through would have fired one of the three seconds gone by (and held stop on it).
    expect(starts).toBe(1);
    expect(readdirSync(join(dataDir, 'schedule-firings'))).toHaveLength(1);
  } finally {
    release();
  }
});
