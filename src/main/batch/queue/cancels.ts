/**
 * A queued batch cancelled (`mnemo batch cancel`, the window's Cancel), as the queue hears it: a
 * Redis key per cancelled batch that every worker reads for the runs it holds (and before it
 * starts a job), so a run of that batch stops wherever it runs; and the batch's row jobs still
 * waiting taken off the queue at once, whether or not a process still follows the batch. The key
 * lives a week: long enough for a job handed back or retried after a backoff to be refused, short
 * enough that Redis does not keep every cancel for ever. `resume` takes the mark away again.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { bullConnection, queueConnection, reachQueue, shownQueueUrl } from './connection';
import { ROW_JOB, ROWS_QUEUE } from './jobs';

export const CANCELLED_KEY_PREFIX = 'mnemo:cancelled:';
const CANCELLED_TTL_MS = 7 * 24 * 3600_000;

/** The states of a job no worker holds: what a cancel takes off the queue. */
const NOT_STARTED = ['waiting', 'delayed', 'prioritized', 'waiting-children'] as const;

export type QueueCancel = { ok: true; takenOff: number } | { ok: false; message: string };

/** Marks the batch cancelled on its queue and takes its row jobs no worker holds off it (how many). */
export async function cancelQueuedBatch(url: string, batch: string, now: number): Promise<QueueCancel> {
  const reached = await reachQueue(url);
  if (!reached.ok) return { ok: false, message: `${reached.message}; the rows still on the queue ${shownQueueUrl(url)} stay there until it is reached (cancel again then)` };
  const redis = queueConnection(url);
  const queue = new Queue(ROWS_QUEUE, { connection: bullConnection(url) });
  try {
    await redis.set(`${CANCELLED_KEY_PREFIX}${batch}`, String(now), 'PX', CANCELLED_TTL_MS);
    let takenOff = 0;
    for (const job of await queue.getJobs([...NOT_STARTED])) {
      if (job.name !== ROW_JOB || (job.data as { batch?: unknown }).batch !== batch) continue;
      // A worker may have taken it meanwhile: then it hears the mark instead.
      if (await job.remove().then(() => true, () => false)) takenOff++;
    }
    return { ok: true, takenOff };
  } finally {
    await queue.close().catch(() => undefined);
    redis.disconnect();
  }
}

/** `resume` or `retry` of a cancelled batch: its rows may run again. */
export async function uncancelQueuedBatch(redis: Redis, batch: string): Promise<void> {
  await redis.del(`${CANCELLED_KEY_PREFIX}${batch}`);
}

/** Which of these batches are cancelled now. */
export async function cancelledAmong(redis: Redis, batches: readonly string[]): Promise<Set<string>> {
  if (batches.length === 0) return new Set();
  const marks = await redis.mget(batches.map((batch) => `${CANCELLED_KEY_PREFIX}${batch}`));
  return new Set(batches.filter((_, i) => marks[i] !== null && marks[i] !== undefined));
}
