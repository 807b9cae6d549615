/**
 * The Redis behind a batch queue: its URL checked, reached once with a short deadline before
 * anything else (so an unreachable queue is one line naming it and the fix, not BullMQ retrying
 * for ever), then the connections BullMQ is given (commands that wait for a reply as long as it
 * takes, as BullMQ requires of its workers).
 */
import type { RedisOptions as BullRedisOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';

export type QueueReached<T> = { ok: true; value: T } | { ok: false; message: string };

/** How long the first contact may take before the queue is called unreachable. */
const REACH_TIMEOUT_MS = 5_000;

/** The URL, or what is wrong with it. */
export function parseQueueUrl(url: string): QueueReached<URL> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, message: `the queue "${url}" is not a URL (redis://HOST:PORT)` };
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') return { ok: false, message: `the queue "${url}" is not a redis:// or rediss:// URL` };
  return { ok: true, value: parsed };
}

/** The URL without its password, for messages. */
export function shownQueueUrl(url: string): string {
  const parsed = parseQueueUrl(url);
  if (!parsed.ok) return url;
  if (parsed.value.password) parsed.value.password = '***';
  return parsed.value.toString().replace(/\/$/, '');
}

/** One PING, within a few seconds: the queue can be used, or why not and what to do. */
export async function reachQueue(url: string): Promise<QueueReached<void>> {
  const parsed = parseQueueUrl(url);
  if (!parsed.ok) return parsed;
  const client = new Redis(url, { lazyConnect: true, connectTimeout: REACH_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return { ok: true, value: undefined };
  } catch (error) {
    const host = `${parsed.value.hostname}:${parsed.value.port || '6379'}`;
    return {
      ok: false,
      message: `cannot reach the queue at ${shownQueueUrl(url)} (${(error as Error).message}): start Redis there (redis-server --port ${parsed.value.port || '6379'}), or give the queue's URL with --queue redis://HOST:PORT or queue.url in config.json (tried ${host})`,
    };
  } finally {
    client.disconnect();
  }
}

/**
 * What BullMQ connects with, from the URL: BullMQ then makes its connections and closes them with
 * the queue or the worker (one handed to it would outlive them, and keep the process alive).
 */
export function bullConnection(url: string): BullRedisOptions {
  return { url, maxRetriesPerRequest: null };
}

/** A connection of this process's own (presence, rate limit, lookups), closed by whoever made it. */
export function queueConnection(url: string, extra: RedisOptions = {}): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: null, ...extra });
  // BullMQ reports lost connections itself; an 'error' with no listener would end the process.
  client.on('error', () => undefined);
  return client;
}
