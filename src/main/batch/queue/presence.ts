/**
 * A worker's presence on its queue: who it is (host, pid), what it is doing (its state, the runs
 * in flight and the desktops they use), as a Redis key that expires unless the worker writes it
 * again, so a worker killed hard drops off the list by itself. `mnemo worker list` reads them.
 */
import { z } from 'zod';
import type { Redis } from 'ioredis';

export const WORKER_KEY_PREFIX = 'mnemo:worker:';

export const WorkerRunSchema = z.object({ batch: z.string(), row: z.number(), session: z.string(), display: z.string().nullable(), since: z.number() });
export type WorkerRun = z.infer<typeof WorkerRunSchema>;

export const WorkerPresenceSchema = z.object({
  id: z.string(),
  host: z.string(),
  pid: z.number(),
  startedAt: z.number(),
  concurrency: z.number(),
  /** `draining`: after a first SIGTERM, finishing its runs and taking no new job. */
  state: z.enum(['running', 'draining', 'handing back']),
  desktop: z.object({ size: z.string().optional(), apps: z.array(z.string()).optional() }),
  runs: z.array(WorkerRunSchema),
  seenAt: z.number(),
});
export type WorkerPresence = z.infer<typeof WorkerPresenceSchema>;

/** The workers of a queue alive now (their keys not expired), by id. */
export async function listWorkers(redis: Redis): Promise<WorkerPresence[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${WORKER_KEY_PREFIX}*`, 'COUNT', 200);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  if (keys.length === 0) return [];
  const values = await redis.mget(...keys);
  const workers: WorkerPresence[] = [];
  for (const value of values) {
    if (value === null) continue;
    try {
      const parsed = WorkerPresenceSchema.safeParse(JSON.parse(value));
      if (parsed.success) workers.push(parsed.data);
    } catch {
      // A key written by something else: not a worker.
    }
  }
  return workers.sort((a, b) => a.id.localeCompare(b.id));
}
