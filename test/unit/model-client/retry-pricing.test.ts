/**
 * The pure parts: backoff, Retry-After, the retry loop, prices, settings defaults.
 */
import { describe, expect, it } from 'vitest';
import { findPrice, suggestV1, usageOf } from '../../../src/main/model';
import { type AttemptOutcome, backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter, withRetries } from '../../../src/main/model/retry';
import { DEFAULT_PRICES, ModelSettingsSchema, SettingsSchema } from '../../../src/shared/settings';
import { recordingSleep } from './helpers';

const headers = (values: Record<string, string>) => (name: string) => values[name];

describe('backoffDelay', () => {
  const policy = { baseDelayMs: 500, maxDelayMs: 4000 };
  it('is full jitter over base × 2^n, capped', () => {
    expect(backoffDelay(0, policy, () => 0)).toBe(0);
    expect(backoffDelay(0, policy, () => 0.999)).toBe(499);
    expect(backoffDelay(2, policy, () => 0.5)).toBe(1000);
    expect(backoffDelay(10, policy, () => 0.5)).toBe(2000);
  });
});

describe('parseRetryAfter', () => {
  it('reads retry-after-ms, seconds and HTTP dates', () => {
    expect(parseRetryAfter(headers({ 'retry-after-ms': '1500.5' }))).toBe(1500.5);
    expect(parseRetryAfter(headers({ 'retry-after': '7' }))).toBe(7000);
    expect(parseRetryAfter(headers({ 'retry-after': '0.25' }))).toBe(250);
    const now = Date.parse('Tue, 01 Sep 2026 10:00:00 GMT');
    expect(parseRetryAfter(headers({ 'retry-after': 'Tue, 01 Sep 2026 10:00:05 GMT' }), now)).toBe(5000);
    expect(parseRetryAfter(headers({ 'retry-after': 'Tue, 01 Sep 2026 09:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfter(headers({}))).toBeUndefined();
  });
});

describe('withRetries', () => {
  const failure = (retryable: boolean, retryAfterMs?: number): AttemptOutcome<string> => ({
    ok: false,
    error: { kind: 'http', message: 'boom', status: 503 },
    retryable,
    retryAfterMs,
  });

  it('retries retryable failures with backoff, then returns the value', async () => {
    const { sleep, delays } = recordingSleep();
    const outcomes = [failure(true), failure(true, 1200), { ok: true as const, value: 'done' }];
    const result = await withRetries(async (n) => outcomes[n - 1] as AttemptOutcome<string>, DEFAULT_RETRY_POLICY, { sleep, random: () => 0.5 });
    expect(result).toEqual({ ok: true, value: 'done', attempts: 3 });
    expect(delays).toEqual([250, 1200]);
  });

  it('stops at a failure that is not retryable', async () => {
    const { sleep, delays } = recordingSleep();
    const result = await withRetries(async () => failure(false), DEFAULT_RETRY_POLICY, { sleep, random: () => 0.5 });
    expect(result).toMatchObject({ ok: false, attempts: 1, error: { kind: 'http' } });
    expect(delays).toEqual([]);
  });

  it('returns "aborted" when the signal aborts during the wait', async () => {
    const controller = new AbortController();
    let calls = 0;
    const result = await withRetries(
      async () => {
        calls += 1;
        return failure(true);
      },
      DEFAULT_RETRY_POLICY,
      {
        sleep: async () => {
          controller.abort();
        },
        random: () => 0.5,
      },
      controller.signal,
    );
    expect(result).toMatchObject({ ok: false, error: { kind: 'aborted' }, attempts: 1 });
    expect(calls).toBe(1);
  });
});

describe('prices', () => {
  it('finds exact names, dated or tagged versions, and OpenRouter names', () => {
    expect(findPrice('gpt-4.1', DEFAULT_PRICES)).toEqual({ inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 });
    expect(findPrice('gpt-4o-2024-08-06', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['gpt-4o']);
    expect(findPrice('gpt-4o-mini-2024-07-18', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['gpt-4o-mini']);
    expect(findPrice('openai/gpt-4.1-mini', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['gpt-4.1-mini']);
    expect(findPrice('computer-use-preview-2025-03-11', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['computer-use-preview']);
    expect(findPrice('gpt-4.1-nano', DEFAULT_PRICES)).toBeUndefined();
    expect(findPrice('qwen2.5vl:7b', DEFAULT_PRICES)).toBeUndefined();
  });

  it('prices usage per million tokens', () => {
    expect(usageOf({ inputTokens: 1_000_000, outputTokens: 500_000 }, 'gpt-4o', DEFAULT_PRICES)).toEqual({
      inputTokens: 1_000_000,
      outputTokens: 500_000,
      costUsd: 7.5,
      priced: true,
      reported: true,
    });
    expect(usageOf({ inputTokens: 10, outputTokens: 5 }, 'llava', { llava: { inputPerMTok: 0, outputPerMTok: 0 } })).toMatchObject({ costUsd: 0, priced: true });
  });
});

describe('settings', () => {
  it('fills the documented defaults', () => {
    const model = ModelSettingsSchema.parse({ baseUrl: 'http://localhost:11434/v1', model: 'qwen2.5vl:7b', family: 'tools' });
    expect(model).toEqual({
      baseUrl: 'http://localhost:11434/v1',
      model: 'qwen2.5vl:7b',
      family: 'tools',
      toolCalling: true,
      timeoutMs: 120_000,
      maxRetries: 3,
      retryBaseDelayMs: 500,
      retryMaxDelayMs: 20_000,
      stream: true,
    });
    const all = SettingsSchema.parse({ model });
    expect(all.image).toEqual({ maxWidth: 1280, format: 'jpeg', quality: 80 });
    expect(all.prices).toEqual(DEFAULT_PRICES);
  });

  it('refuses a base URL that is not http(s)', () => {
    const result = ModelSettingsSchema.safeParse({ baseUrl: 'localhost:11434', model: 'm', family: 'tools' });
    expect(result.success).toBe(false);
  });

  it('suggests /v1 only when the path lacks it', () => {
    expect(suggestV1('http://localhost:11434')).toBe('http://localhost:11434/v1');
    expect(suggestV1('http://localhost:11434/')).toBe('http://localhost:11434/v1');
    expect(suggestV1('https://openrouter.ai/api/v1/')).toBeNull();
    expect(suggestV1('https://res.openai.azure.com/openai/v1')).toBeNull();
  });
});
