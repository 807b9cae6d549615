/**
 * One rate limit per provider, shared by every worker of a queue: at most `max` model requests in
 * any `durationMs`, counted in Redis (a sorted set of the requests' times per provider, trimmed and
 * added to in one script, on Redis's clock, so workers on machines whose clocks differ count
 * alike). A request over the limit waits until the oldest one in the window leaves it.
 *
 * Why not BullMQ's worker limiter: it counts jobs started, and a job is a whole run of many
 * requests; what trips a provider's 429 is requests, so requests are what is counted.
 */
import type { Redis } from 'ioredis';
import type { ProviderRateLimit } from '../../../shared/config';

/** Trims the window, and takes a place in it or answers how long to wait (ms). */
const TAKE_SCRIPT = `
local key = KEYS[1]
local max = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local member = ARGV[3]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZCARD', key) < max then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, window)
  return 0
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)
`;

/** The provider a base URL names: its host (and port), what `queue.rateLimit` is keyed by. */
export function providerOf(baseUrl: string | undefined): string {
  if (!baseUrl) return 'default';
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

export class SharedRateLimit {
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly limits: Readonly<Record<string, ProviderRateLimit>>,
    /** Makes each request's member unique across workers. */
    private readonly workerId: string,
    private readonly keyPrefix = 'mnemo:rate',
  ) {}

  /** The limit of a provider, if one is set. */
  limitOf(provider: string): ProviderRateLimit | undefined {
    return this.limits[provider];
  }

  /** Resolves once a request to this provider may go (at once when it has no limit); rejects when aborted. */
  async take(provider: string, signal?: AbortSignal): Promise<void> {
    const limit = this.limits[provider];
    if (!limit) return;
    for (;;) {
      signal?.throwIfAborted();
      const member = `${this.workerId}:${++this.sequence}`;
      const wait = Number(await this.redis.eval(TAKE_SCRIPT, 1, `${this.keyPrefix}:${provider}`, limit.max, limit.durationMs, member));
      if (wait <= 0) return;
      await abortableDelay(wait, signal);
    }
  }
}

function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The fetch a model's client is given on a worker: each request takes its place in its provider's
 * window first, at the moment it is sent (after the prompt and the image are built, so the
 * provider sees the pace the limit sets), retries included.
 */
export function rateLimitedFetch(limit: SharedRateLimit, provider: string, base: typeof globalThis.fetch = (...args) => globalThis.fetch(...args)): typeof globalThis.fetch {
  if (!limit.limitOf(provider)) return base;
  return async (input, init) => {
    await limit.take(provider, init?.signal ?? undefined);
    return base(input, init);
  };
}
