/**
 * The Redis connection the shared memory uses (ioredis). Commands are never queued while the
 * connection is down: a write that cannot reach Redis fails at once, with a message naming the
 * server, and the caller shows it — nothing waits in a queue to be lost when the process ends.
 * The client reconnects in the background, so the next write after Redis is back succeeds.
 */
import type { Redis } from 'ioredis';

export interface RedisConnection {
  readonly client: Redis;
  /** The URL without its password, for messages. */
  readonly displayUrl: string;
  /** `<prefix>:<organisation>:`: every key of this memory starts with it. */
  readonly keyPrefix: string;
  /** Why the last command failed, as a sentence naming the server. */
  describe(error: unknown): string;
  close(): Promise<void>;
}

export type RedisOpen = { ok: true; connection: RedisConnection } | { ok: false; message: string };

export interface RedisOptions {
  /** Key namespace; default `mnemo`. */
  prefix?: string;
  /** The organisation of the scopes profile; default `default`. */
  organisation?: string;
  /** Give up connecting after this long. Default 3000 ms. */
  connectTimeoutMs?: number;
}

export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

export function checkRedisUrl(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a Redis URL (expected redis://host:port or rediss://host:port)`;
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') return `"${url}" is not a Redis URL (expected redis://host:port or rediss://host:port)`;
  return null;
}

/** Connects and checks with a PING; an unreachable server is a message, not a throw. */
export async function openRedis(url: string, options: RedisOptions = {}): Promise<RedisOpen> {
  const invalid = checkRedisUrl(url);
  if (invalid) return { ok: false, message: invalid };
  const displayUrl = redactRedisUrl(url);
  const timeout = options.connectTimeoutMs ?? 3000;
  let lastError = '';
  // Loaded only when a shared memory is used: every other command starts without it.
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timeout,
    // Keep trying in the background after a drop; each command meanwhile fails at once.
    retryStrategy: (times) => Math.min(100 * times, 2000),
  });
  client.on('error', (error: Error) => {
    lastError = error.message;
  });
  try {
    await withTimeout(client.connect(), timeout, `no answer within ${timeout} ms`);
    await withTimeout(client.ping(), timeout, `no answer to PING within ${timeout} ms`);
  } catch (error) {
    client.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `cannot reach Redis at ${displayUrl}: ${lastError || reason}` };
  }
  const keyPrefix = `${options.prefix ?? 'mnemo'}:${options.organisation ?? 'default'}:`;
  return {
    ok: true,
    connection: {
      client,
      displayUrl,
      keyPrefix,
      describe: (error) => `Redis at ${displayUrl} did not take the change: ${error instanceof Error ? error.message : String(error)}${lastError && client.status !== 'ready' ? ` (${lastError})` : ''}`,
      async close() {
        client.disconnect();
      },
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]);
}
