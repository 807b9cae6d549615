/**
 * A batch's cancel as its queue hears it, on a real redis-server with real BullMQ: the cancel
 * takes that batch's waiting row jobs off (another batch's stay) and marks it; a worker that takes
 * a job of a cancelled batch afterwards runs nothing and ends the job `interrupted`, kind
 * `cancelled`, the row left without an outcome; a resume lifts the mark.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cancelledAmong, cancelQueuedBatch, uncancelQueuedBatch, CANCELLED_KEY_PREFIX } from '../../../src/main/batch/queue/cancels';
import { ROW_JOB, ROWS_QUEUE, type RowJob } from '../../../src/main/batch/queue/jobs';
import { RowWorker } from '../../../src/main/batch/queue/row-worker';
import { startRedis, type TestRedis } from '../../fixtures/redis-server';

let redis: TestRedis;
let client: Redis;
let queue: Queue;

const rowJob = (batch: string, row: number): RowJob => ({ batch, row, source: { kind: 'task', task: 'Enter {{n}}' }, cells: { n: { kind: 'text', text: String(row) } }, desktop: {}, model: {}, attempts: 1 });
const add = (batch: string, row: number) => queue.add(ROW_JOB, rowJob(batch, row), { jobId: `row-${batch}-${row}`, removeOnComplete: false, removeOnFail: false });

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  queue = new Queue(ROWS_QUEUE, { connection: { url: redis.url, maxRetriesPerRequest: null } });
});

afterAll(async () => {
  await queue.close();
  client.disconnect();
  await redis.stop();
});

it('takes the cancelled batch\'s waiting rows off the queue and marks it; another batch\'s rows stay', async () => {
  await add('b-cancel', 1);
  await add('b-cancel', 2);
  await add('b-other', 1);
  const cancelled = await cancelQueuedBatch(redis.url, 'b-cancel', 1234);
  expect(cancelled).toEqual({ ok: true, takenOff: 2 });
  expect((await queue.getJobs(['waiting'])).map((job) => job.id)).toEqual(['row-b-other-1']);
  expect(await cancelledAmong(client, ['b-cancel', 'b-other'])).toEqual(new Set(['b-cancel']));
  expect(await client.pttl(`${CANCELLED_KEY_PREFIX}b-cancel`)).toBeGreaterThan(0);
  await uncancelQueuedBatch(client, 'b-cancel');
  expect(await cancelledAmong(client, ['b-cancel'])).toEqual(new Set());
  await queue.obliterate({ force: true });
});

it('names an unreachable queue, and says its rows stay there', async () => {
  const cancelled = await cancelQueuedBatch('redis://127.0.0.1:1', 'b-x', 1);
  expect(cancelled).toMatchObject({ ok: false, message: expect.stringMatching(/cannot reach the queue at redis:\/\/127\.0\.0\.1:1 .*the rows still on the queue .* stay there until it is reached/) });
});

it('a worker runs no job of a cancelled batch: its job ends interrupted, kind cancelled, without an outcome', { timeout: 30_000 }, async () => {
  await client.set(`${CANCELLED_KEY_PREFIX}b-late`, '1');
  const job = await add('b-late', 1);
  const launched: number[] = [];
  const worker = new RowWorker(
    {
      launch: async (row) => {
        launched.push(row.row);
        return { ok: false, result: { status: 'failed', session: null, runStatus: null, reason: 'not expected to run', steps: 0, costUsd: 0, durationMs: 0 } };
      },
      log: () => undefined,
    },
    { url: redis.url, concurrency: 1, desktop: {} },
  );
  await worker.start();
  try {
    await expect.poll(async () => (await queue.getJob(job.id as string))?.finishedOn, { timeout: 20_000, interval: 50 }).toBeDefined();
    const finished = await queue.getJob(job.id as string);
    expect(finished?.returnvalue).toMatchObject({ batch: 'b-late', row: 1, status: 'interrupted', session: null, final: false, error: { kind: 'cancelled', message: 'its batch b-late was cancelled before the row started' } });
    expect(finished?.progress).toMatchObject({ attempts: [{ session: null, ended: { status: 'interrupted', error: { kind: 'cancelled' } } }] });
    expect(launched).toEqual([]);
  } finally {
    await worker.drain();
    await worker.close();
  }
});
