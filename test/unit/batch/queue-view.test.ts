/**
 * The queue as the window's Batches view shows it (`batches:queue`), on a real redis-server: the
 * data directory's schedules and a queue's job scheduler with their next runs, the workers alive
 * and what each runs, the queue's password never shown; with no queue set, the local schedules only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIRING_JOB } from '../../../src/main/batch/queue/jobs';
import { WORKER_KEY_PREFIX } from '../../../src/main/batch/queue/presence';
import { withRowsQueue } from '../../../src/main/batch/queue/queue-view';
import { writeLocalSchedules } from '../../../src/main/batch/schedules';
import { Batches, type BatchesDeps } from '../../../src/main/service/batches/batch-service';
import { startRedis, type TestRedis } from '../../fixtures/redis-server';

let redis: TestRedis;
let client: Redis;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-queue-view-'));

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
});

afterAll(async () => {
  client.disconnect();
  await redis.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function batchesFor(dataDir: string, queueUrl: string | undefined): Batches {
  // Only what the queue's view reads: the rows are never run here.
  const deps = { dataDir: () => dataDir, queueUrl: () => queueUrl, now: () => Date.UTC(2026, 11, 7, 0, 0, 0) } as unknown as BatchesDeps;
  return new Batches(deps);
}

it('shows the local schedules, the queue\'s job scheduler and the workers with what each runs', async () => {
  const dataDir = join(scratch, 'with-queue');
  await writeLocalSchedules(dataDir, [{ id: 'local-1', createdAt: 1, cron: '0 2 * * *', source: { kind: 'workflow', name: 'invoice', policy: 'stop', speed: 1 }, valuesFile: '/rows.csv', retries: 0, desktop: {}, model: {} }]);
  const firing = { schedule: 'on-queue', source: { kind: 'task', task: 'Enter {{n}}' }, valuesFile: 'rows.csv', columns: ['n'], rows: [{ row: 1, cells: { n: { kind: 'text', text: '1' } } }], retries: 0, desktop: {}, model: {} };
  const made = await withRowsQueue(redis.url, (queue) => queue.upsertJobScheduler('on-queue', { pattern: '0 3 * * *' }, { name: FIRING_JOB, data: firing }));
  expect(made.ok).toBe(true);
  const presence = { id: 'box:42', host: 'box', pid: 42, startedAt: 1, concurrency: 2, state: 'running', desktop: {}, runs: [{ batch: 'b-1', row: 3, session: 's-9', display: ':201', since: 2 }], seenAt: 3 };
  await client.set(`${WORKER_KEY_PREFIX}box:42`, JSON.stringify(presence), 'PX', 60_000);
  try {
    const withPassword = redis.url.replace('redis://', 'redis://:hunter2@');
    const view = await batchesFor(dataDir, withPassword).queueView();
    expect(view.queue).not.toContain('hunter2');
    expect(view.schedules.map((schedule) => [schedule.id, schedule.cron, schedule.what])).toEqual(
      expect.arrayContaining([
        ['local-1', '0 2 * * *', 'workflow invoice'],
        ['on-queue', '0 3 * * *', expect.stringContaining('Enter {{n}}')],
      ]),
    );
    const local = view.schedules.find((schedule) => schedule.id === 'local-1');
    expect(local?.queue).toBeNull();
    // 02:00 each day (the machine's time zone): three runs after "now", a day apart.
    const next = local?.nextRuns ?? [];
    expect(next).toHaveLength(3);
    expect(next[0]).toBeGreaterThan(Date.UTC(2026, 11, 7, 0, 0, 0));
    expect(new Date(next[0] as number).getHours()).toBe(2);
    expect((next[2] as number) - (next[1] as number)).toBe(24 * 3600_000);
    expect(view.schedules.find((schedule) => schedule.id === 'on-queue')?.queue).not.toContain('hunter2');
    expect(view.workers).toEqual([{ id: 'box:42', host: 'box', pid: 42, desktopsInUse: 1, running: [{ batch: 'b-1', row: 3, session: 's-9' }] }]);
  } finally {
    await client.del(`${WORKER_KEY_PREFIX}box:42`);
    await withRowsQueue(redis.url, (queue) => queue.removeJobScheduler('on-queue'));
  }
});

it('without a queue: the local schedules only, no workers', async () => {
  const dataDir = join(scratch, 'no-queue');
  await writeLocalSchedules(dataDir, [{ id: 'local-2', createdAt: 1, cron: '*/5 * * * *', source: { kind: 'task', task: 'Do {{x}}' }, valuesFile: '/rows.csv', retries: 0, desktop: {}, model: {} }]);
  const view = await batchesFor(dataDir, undefined).queueView();
  expect(view.queue).toBeNull();
  expect(view.schedules).toHaveLength(1);
  expect(view.schedules[0]?.nextRuns).toHaveLength(3);
  expect(view.workers).toEqual([]);
});
