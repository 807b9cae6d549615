/**
 * The queue's parts that need no desktop, on a real redis-server: the shared rate limit (two
 * limiters, standing for two workers, share one window), a worker's presence key (listed while
 * it lives, gone when it expires), reaching a queue (an unreachable one named with its fix), and
 * the schedules' cron expressions and file; the queue as the window's Batches view shows it
 * (`batches:queue`: the schedules with their next runs, the workers and what each runs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reachQueue, shownQueueUrl } from '../../../src/main/batch/queue/connection';
import { FIRING_JOB } from '../../../src/main/batch/queue/jobs';
import { listWorkers, WORKER_KEY_PREFIX } from '../../../src/main/batch/queue/presence';
import { withRowsQueue } from '../../../src/main/batch/queue/queue-view';
import { providerOf, rateLimitedFetch, SharedRateLimit } from '../../../src/main/batch/queue/rate-limit';
import { nextRuns, readLocalSchedules, writeLocalSchedules } from '../../../src/main/batch/schedules';
import { Batches, type BatchesDeps } from '../../../src/main/service/batches/batch-service';
import { startRedis, type TestRedis } from '../../fixtures/redis-server';

let redis: TestRedis;
let client: Redis;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-queue-unit-'));

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
});

afterAll(async () => {
  client.disconnect();
  await redis.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the shared rate limit', () => {
  it('lets two limiters (two workers) through at most max requests in any window, together', async () => {
    const limits = { 'api.example:443': { max: 2, durationMs: 1500 } };
    const one = new SharedRateLimit(client, limits, 'one');
    const two = new SharedRateLimit(client, limits, 'two');
    const times: number[] = [];
    await Promise.all(Array.from({ length: 6 }, async (_, i) => {
      await (i % 2 === 0 ? one : two).take('api.example:443');
      times.push(Date.now());
    }));
    times.sort((a, b) => a - b);
    // Redis's clock admits a request, this process's clock sees it: a busy machine can put a few
    // hundred milliseconds between the two, so a third is looked for within 1 s, not the whole window.
    for (let i = 0; i + 2 < times.length; i++) expect((times[i + 2] as number) - (times[i] as number)).toBeGreaterThanOrEqual(1000);
  });

  it('leaves a provider without a limit alone, and names providers by host and port', async () => {
    const limit = new SharedRateLimit(client, {}, 'solo');
    await limit.take('unlimited:1');
    expect(providerOf('http://127.0.0.1:8080/v1')).toBe('127.0.0.1:8080');
    expect(providerOf('https://api.openai.com/v1')).toBe('api.openai.com');
    const base: typeof fetch = async () => new Response('ok');
    expect(rateLimitedFetch(limit, 'unlimited:1', base)).toBe(base);
  });

  it('gives up waiting when the request is aborted', async () => {
    const limits = { 'busy:1': { max: 1, durationMs: 60_000 } };
    const limit = new SharedRateLimit(client, limits, 'aborting');
    await limit.take('busy:1');
    const controller = new AbortController();
    const waiting = limit.take('busy:1', controller.signal);
    controller.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
  });
});

describe('reaching a queue and the workers on it', () => {
  it('names an unreachable queue and the fix, and hides a password', async () => {
    expect(await reachQueue(redis.url)).toEqual({ ok: true, value: undefined });
    const refused = await reachQueue('redis://127.0.0.1:1');
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.message).toMatch(/^cannot reach the queue at redis:\/\/127\.0\.0\.1:1 \(.+\): start Redis there \(redis-server --port 1\), or give the queue's URL with --queue redis:\/\/HOST:PORT or queue\.url in config\.json/);
    expect((await reachQueue('http://127.0.0.1:1')).ok).toBe(false);
    expect(shownQueueUrl('redis://user:secret@queue.example:6379')).toBe('redis://user:***@queue.example:6379');
  });

  it('lists the workers whose presence keys live, and none once they expire', async () => {
    const presence = { id: 'host:1', host: 'host', pid: 1, startedAt: 1, concurrency: 2, state: 'running', desktop: {}, runs: [{ batch: 'b-1', row: 3, session: 's', display: ':201', since: 2 }], seenAt: 3 };
    await client.set(`${WORKER_KEY_PREFIX}host:1`, JSON.stringify(presence), 'PX', 300);
    await client.set(`${WORKER_KEY_PREFIX}junk`, 'not json');
    expect(await listWorkers(client)).toEqual([presence]);
    await expect.poll(() => listWorkers(client), { timeout: 10_000 }).toEqual([]);
  });
});

describe('schedules', () => {
  it('computes the next runs of a cron expression (five fields, or six with seconds), and refuses a bad one', () => {
    const from = Date.UTC(2026, 11, 4, 12, 0, 0); // a Friday
    const weekdays = nextRuns('0 2 * * 1-5', from, 2);
    expect(weekdays.ok).toBe(true);
    if (weekdays.ok) expect(weekdays.next.map((at) => new Date(at).getUTCDay())).toEqual(expect.arrayContaining([1]));
    const seconds = nextRuns('*/2 * * * * *', from, 3);
    expect(seconds).toEqual({ ok: true, next: [from + 2000, from + 4000, from + 6000] });
    const bad = nextRuns('not a cron', from, 1);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/^--cron "not a cron": .*e\.g\. "0 2 \* \* 1-5"/);
  });

  it('keeps the local schedules in the data directory, read back as written', async () => {
    const dir = join(scratch, 'data');
    expect(await readLocalSchedules(dir)).toEqual({ ok: true, schedules: [] });
    const schedule = { id: 's-1', createdAt: 1, cron: '* * * * *', source: { kind: 'task' as const, task: 'Do {{x}}' }, valuesFile: '/rows.csv', retries: 1, desktop: {}, model: { model: 'gpt-4.1' } };
    await writeLocalSchedules(dir, [schedule]);
    expect(await readLocalSchedules(dir)).toEqual({ ok: true, schedules: [schedule] });
  });
});

describe('the queue as the Batches view shows it', () => {
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
});
