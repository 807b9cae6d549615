/**
 * Retries with exponential backoff and full jitter, honouring the server's `Retry-After`.
 *
 * What is retried is the caller's decision (an attempt says whether its failure is retryable: the
 * client marks 429, 5xx, network errors and timeouts); this module decides how long to wait and
 * stops at once when the signal aborts. `sleep` and `random` are injected so tests see the delays.
 */
import { type ModelError } from './types';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The first retry waits up to this; each next one up to twice as long ... */
  baseDelayMs: number;
  /** ... but never more than this. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the failure is returned. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
};

/** Waits `ms`; resolves early (never rejects) when the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

export interface RetryDeps {
  sleep: Sleep;
  /** In [0, 1), like Math.random. */
  random: () => number;
}

export type AttemptOutcome<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      error: ModelError;
      retryable: boolean;
      /** What the server asked for (`Retry-After`, `retry-after-ms`). */
      retryAfterMs?: number | undefined;
    };

export type RetryResult<T> = { ok: true; value: T; attempts: number } | { ok: false; error: ModelError; attempts: number };

export interface RetryNotice {
  /** The attempt that failed, from 1. */
  attempt: number;
  delayMs: number;
  error: ModelError;
}

/** Full jitter: uniform in [0, min(max, base × 2^retryIndex)). `retryIndex` counts from 0. */
export function backoffDelay(retryIndex: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

/**
 * The wait a response asks for, in ms: `retry-after-ms` (OpenAI's, milliseconds), else
 * `Retry-After` as seconds or as an HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfter(header: (name: string) => string | null | undefined, now: number = Date.now()): number | undefined {
  const ms = header('retry-after-ms');
  if (ms != null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = header('retry-after');
  if (after == null || after.trim() === '') return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

const ABORTED: ModelError = { kind: 'aborted', message: 'the model call was stopped' };

export function abortedError(): ModelError {
  return { ...ABORTED };
}

/**
 * Run `attempt` (given its number, from 1) until it succeeds, fails for good, retries run out, or
 * the signal aborts (then the result is an `aborted` error, without waiting).
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<AttemptOutcome<T>>,
  policy: RetryPolicy,
  deps: RetryDeps,
  signal?: AbortSignal,
  onRetry?: (notice: RetryNotice) => void,
): Promise<RetryResult<T>> {
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    if (signal?.aborted) return { ok: false, error: abortedError(), attempts: attemptNumber - 1 };
    const outcome = await attempt(attemptNumber);
    if (outcome.ok) return { ok: true, value: outcome.value, attempts: attemptNumber };
    if (signal?.aborted || outcome.error.kind === 'aborted') {
      return { ok: false, error: abortedError(), attempts: attemptNumber };
    }
    const retriesUsed = attemptNumber - 1;
    if (!outcome.retryable || retriesUsed >= policy.maxRetries) {
      return { ok: false, error: outcome.error, attempts: attemptNumber };
    }
    let delayMs: number;
    if (outcome.retryAfterMs !== undefined) {
      if (outcome.retryAfterMs > policy.maxRetryAfterMs) {
        const seconds = Math.ceil(outcome.retryAfterMs / 1000);
        return {
          ok: false,
          error: { ...outcome.error, message: `${outcome.error.message} (the server asks to retry after ${seconds} s)` },
          attempts: attemptNumber,
        };
      }
      delayMs = Math.ceil(outcome.retryAfterMs);
    } else {
      delayMs = backoffDelay(retriesUsed, policy, deps.random);
    }
    onRetry?.({ attempt: attemptNumber, delayMs, error: outcome.error });
    await deps.sleep(delayMs, signal);
  }
}

/** The settings a client's retries take (a parsed `ModelSettings` fits). */
export interface RetrySettings {
  maxRetries: number;
  retryBaseDelayMs?: number | undefined;
  retryMaxDelayMs?: number | undefined;
}

export interface RetrierDeps {
  sleep?: Sleep | undefined;
  random?: (() => number) | undefined;
  now?: (() => number) | undefined;
  /** Told before each retry's wait (for logs). */
  onRetry?: ((notice: RetryNotice) => void) | undefined;
}

/** A client's retries: the policy from its settings and the injected clock, sleep and randomness. */
export class Retrier {
  readonly policy: RetryPolicy;
  readonly now: () => number;
  private readonly deps: RetryDeps;
  private readonly onRetry: ((notice: RetryNotice) => void) | undefined;

  constructor(settings: RetrySettings, deps: RetrierDeps = {}) {
    this.policy = {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: settings.maxRetries,
      ...(settings.retryBaseDelayMs !== undefined ? { baseDelayMs: settings.retryBaseDelayMs } : {}),
      ...(settings.retryMaxDelayMs !== undefined ? { maxDelayMs: settings.retryMaxDelayMs } : {}),
    };
    this.deps = { sleep: deps.sleep ?? realSleep, random: deps.random ?? Math.random };
    this.now = deps.now ?? Date.now;
    this.onRetry = deps.onRetry;
  }

  run<T>(attempt: (attemptNumber: number) => Promise<AttemptOutcome<T>>, signal?: AbortSignal): Promise<RetryResult<T>> {
    return withRetries(attempt, this.policy, this.deps, signal, this.onRetry);
  }
}
