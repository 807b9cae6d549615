/**
 * What the schedules and the workers are now, read once for whoever shows them: `mnemo batch
 * schedules`, `mnemo worker list` and the window's Batches view (`batches:queue`). Local schedules
 * come from the data directory; a queue's job schedulers and its workers' presence from Redis.
 */
import type { Queue } from 'bullmq';
import type { BatchSource } from '../records';
import { nextRuns, readLocalSchedules } from '../schedules';
import { FiringJobSchema, ROWS_QUEUE } from './jobs';
import { bullConnection, queueConnection, reachQueue, type QueueReached } from './connection';
import { listWorkers, type WorkerPresence } from './presence';

/** How many next runs a listing shows per schedule. */
export const NEXT_RUNS_SHOWN = 3;

/** A schedule as the listings show it. */
export interface ListedSchedule {
  id: string;
  where: 'local' | 'queue';
  cron: string;
  source: string;
  valuesFile: string;
  next: number[];
}

export function describeBatchSource(source: BatchSource): string {
  return source.kind === 'workflow' ? `workflow ${source.name}` : `task "${source.task}"`;
}

/** A BullMQ queue of rows opened for one use, closed after (the queue reached first, or why not). */
export async function withRowsQueue<T>(url: string, use: (queue: Queue) => Promise<T>): Promise<QueueReached<T>> {
  const reached = await reachQueue(url);
  if (!reached.ok) return reached;
  const { Queue } = await import('bullmq');
  const queue = new Queue(ROWS_QUEUE, { connection: bullConnection(url) });
  try {
    return { ok: true, value: await use(queue) };
  } finally {
    await queue.close().catch(() => undefined);
  }
}

/** The local schedules of a data directory, then a queue's job schedulers when a queue is given. */
export async function listSchedules(dataDir: string, queueUrl: string | undefined, now: number): Promise<QueueReached<ListedSchedule[]>> {
  const listed: ListedSchedule[] = [];
  const read = await readLocalSchedules(dataDir);
  if (!read.ok) return read;
  for (const schedule of read.schedules) {
    const next = nextRuns(schedule.cron, now, NEXT_RUNS_SHOWN);
    listed.push({ id: schedule.id, where: 'local', cron: schedule.cron, source: describeBatchSource(schedule.source), valuesFile: schedule.valuesFile, next: next.ok ? next.next : [] });
  }
  if (queueUrl === undefined) return { ok: true, value: listed };
  const found = await withRowsQueue(queueUrl, (queue) => queue.getJobSchedulers(0, -1, true));
  if (!found.ok) return found;
  for (const scheduler of found.value) {
    const firing = FiringJobSchema.safeParse(scheduler.template?.data);
    const cron = scheduler.pattern ?? (scheduler.every ? `every ${scheduler.every} ms` : '?');
    const after = scheduler.pattern ? nextRuns(scheduler.pattern, scheduler.next ?? now, NEXT_RUNS_SHOWN - 1) : null;
    const next = [...(scheduler.next ? [scheduler.next] : []), ...(after?.ok ? after.next : [])].slice(0, NEXT_RUNS_SHOWN);
    listed.push({ id: scheduler.id ?? scheduler.key, where: 'queue', cron, source: firing.success ? describeBatchSource(firing.data.source) : '?', valuesFile: firing.success ? firing.data.valuesFile : '?', next });
  }
  return { ok: true, value: listed };
}

/** The workers of a queue alive now (the queue reached first, or why not). */
export async function listQueueWorkers(queueUrl: string): Promise<QueueReached<WorkerPresence[]>> {
  const reached = await reachQueue(queueUrl);
  if (!reached.ok) return reached;
  const redis = queueConnection(queueUrl);
  try {
    return { ok: true, value: await listWorkers(redis) };
  } finally {
    redis.disconnect();
  }
}
