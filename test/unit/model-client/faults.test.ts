/**
 * Faults between the client and the server, with the real `openai` client over real HTTP:
 * rate limits with Retry-After, server errors, a stream cut midway, timeouts, a stop during a
 * call, authentication and a base URL without /v1. Each becomes a value, never a throw.
 */
import { describe, expect, it } from 'vitest';
import { createVisionModel, type PredictInput, realSleep, type VisionModelDeps } from '../../../src/main/model';
import { type ModelSettings } from '../../../src/shared/settings';
import { type ScriptedReply, startScriptedServer } from '../../fixtures/openai-server';
import { predictOk, recordingSleep, screenshot, settingsFor, thoughtLog, scriptedServerPerTest } from './helpers';

const serve = scriptedServerPerTest();

async function input(): Promise<PredictInput> {
  return { task: 'Open the settings', history: [], observation: await screenshot(640, 400) };
}

const good: ScriptedReply = {
  text: 'Opening the settings.',
  toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'click', x: 600, y: 20 }] } }],
};

function model(url: string, overrides: Partial<ModelSettings> = {}, deps: VisionModelDeps = {}) {
  const recorder = recordingSleep();
  const built = createVisionModel(settingsFor(url, overrides), { sleep: recorder.sleep, random: () => 0.5, ...deps });
  return { model: built, delays: recorder.delays };
}

describe('retries', () => {
  it('waits exactly the Retry-After seconds on a 429, then succeeds', async () => {
    const { url, requests } = await serve({ status: 429, headers: { 'retry-after': '2' } }, good);
    const { model: vision, delays } = model(url);
    const prediction = await predictOk(vision, await input());
    expect(delays).toEqual([2000]);
    expect(prediction.attempts).toBe(2);
    expect(requests).toHaveLength(2);
  });

  it('prefers retry-after-ms, and reads Retry-After as an HTTP date', async () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    const { url } = await serve(
      { status: 429, headers: { 'retry-after-ms': '250', 'retry-after': '9' } },
      { status: 503, headers: { 'retry-after': 'Wed, 21 Oct 2026 07:28:03 GMT' } },
      good,
    );
    const { model: vision, delays } = model(url, {}, { now: () => now });
    await predictOk(vision, await input());
    expect(delays).toEqual([250, 3000]);
  });

  it('backs off with full jitter on a 500, then succeeds', async () => {
    const { url } = await serve({ status: 500 }, { status: 502 }, good);
    const { model: vision, delays } = model(url, { retryBaseDelayMs: 400 });
    const prediction = await predictOk(vision, await input());
    // random() = 0.5: half of 400, then half of 800.
    expect(delays).toEqual([200, 400]);
    expect(prediction.attempts).toBe(3);
  });

  it('gives up after maxRetries with the last HTTP error', async () => {
    const { url, requests } = await serve({ status: 500 }, { status: 500 }, { status: 500 });
    const { model: vision, delays } = model(url, { maxRetries: 2 });
    const prediction = await vision.predict(await input());
    expect(prediction).toMatchObject({ ok: false, attempts: 3, error: { kind: 'http', status: 500 } });
    if (!prediction.ok) expect(prediction.error.message).toContain('HTTP 500 from');
    expect(delays).toHaveLength(2);
    expect(requests).toHaveLength(3);
  });

  it('does not wait for a Retry-After beyond the limit', async () => {
    const { url, requests } = await serve({ status: 429, headers: { 'retry-after': '3600' } });
    const { model: vision, delays } = model(url);
    const prediction = await vision.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'http', status: 429 } });
    if (!prediction.ok) expect(prediction.error.message).toContain('retry after 3600 s');
    expect(delays).toEqual([]);
    expect(requests).toHaveLength(1);
  });

  it('never retries a 401', async () => {
    const { url, requests } = await serve({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } }, good);
    const { model: vision, delays } = model(url);
    const prediction = await vision.predict(await input());
    expect(prediction).toMatchObject({ ok: false, attempts: 1, error: { kind: 'auth', status: 401 } });
    if (!prediction.ok) expect(prediction.error.message).toContain('Incorrect API key provided');
    expect(delays).toEqual([]);
    expect(requests).toHaveLength(1);
  });

  it('never retries a 400', async () => {
    const { url, requests } = await serve({ status: 400, body: { error: { message: 'image too large', type: 'invalid_request_error' } } }, good);
    const prediction = await model(url).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'http', status: 400 } });
    expect(requests).toHaveLength(1);
  });
});

describe('base URL', () => {
  it('explains a 404 from a base URL without /v1', async () => {
    const { origin, requests } = await serve(good);
    const prediction = await model(origin).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, attempts: 1, error: { kind: 'not_found', status: 404 } });
    if (!prediction.ok) {
      expect(prediction.error.message).toBe(
        `404 Not Found at ${origin}/chat/completions: the base URL has no /v1 — did you mean ${origin}/v1?`,
      );
    }
    expect(requests[0]?.path).toBe('/chat/completions');
  });

  it('passes the server message through for a 404 under /v1 (an unknown model)', async () => {
    const { url } = await serve({ status: 404, body: { error: { message: 'model "llava:13b" not found, try pulling it first', type: 'api_error' } } });
    const prediction = await model(`${url}/`).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    if (!prediction.ok) {
      expect(prediction.error.message).toContain('model "llava:13b" not found');
      expect(prediction.error.message).not.toContain('/v1 —');
    }
  });

  it('reports an unreachable server as a network error after the retries', async () => {
    const closed = await startScriptedServer({ replies: [] });
    const url = closed.url;
    await closed.close();
    const { model: vision, delays } = model(url, { maxRetries: 1 });
    const prediction = await vision.predict(await input());
    expect(prediction).toMatchObject({ ok: false, attempts: 2, error: { kind: 'network' } });
    if (!prediction.ok) expect(prediction.error.message).toContain(`cannot reach ${url}/chat/completions`);
    expect(delays).toHaveLength(1);
  });
});

describe('a stream dropped midway', () => {
  it('is retried, and the thought restarts with the new attempt', async () => {
    const { url, requests } = await serve({ ...good, dropAfterChunks: 4 }, good);
    const thoughts = thoughtLog();
    const { model: vision, delays } = model(url);
    const prediction = await predictOk(vision, await input(), undefined, thoughts.listener);
    expect(requests).toHaveLength(2);
    expect(delays).toHaveLength(1);
    expect(prediction.attempts).toBe(2);
    expect(prediction.thought).toBe('Opening the settings.');
    expect(thoughts.deltas.some((entry) => entry.attempt === 1)).toBe(true);
    expect(thoughts.text()).toBe('Opening the settings.');
    expect(thoughts.deltas.at(-1)?.attempt).toBe(2);
  });

  it('is a network error when no retry is left', async () => {
    const { url } = await serve({ ...good, dropAfterChunks: 4 });
    const prediction = await model(url, { maxRetries: 0 }).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, attempts: 1, error: { kind: 'network' } });
    if (!prediction.ok) expect(prediction.error.message).toMatch(/connection to .* failed: terminated/);
  });
});

/** A reply this much later than asked for: a call that waited for it would take at least this long. */
const LATER_MS = 60_000;

describe('timeouts', () => {
  it('times out while waiting for the response headers', async () => {
    // The reply would come a minute later: had the client waited for it, the call would take that long.
    const { url } = await serve({ ...good, delayMs: LATER_MS });
    const started = Date.now();
    const prediction = await model(url, { timeoutMs: 200, maxRetries: 0 }).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    if (!prediction.ok) expect(prediction.error.message).toContain('did not answer within 200 ms');
    expect(Date.now() - started).toBeLessThan(LATER_MS / 2);
  });

  it('times out a stream that stalls after the headers, and retries it', async () => {
    const { url, requests } = await serve({ ...good, chunkDelayMs: LATER_MS }, good);
    const started = Date.now();
    const { model: vision, delays } = model(url, { timeoutMs: 300 });
    const prediction = await predictOk(vision, await input());
    expect(prediction.attempts).toBe(2);
    expect(delays).toHaveLength(1);
    expect(requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(LATER_MS / 2);
  });
});

describe('stop during a call', () => {
  it('returns "aborted" at once while the server is thinking', async () => {
    const { url } = await serve({ ...good, delayMs: LATER_MS });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const prediction = await model(url).model.predict(await input(), controller.signal);
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'aborted' } });
    expect(Date.now() - started).toBeLessThan(LATER_MS / 2);
  });

  it('returns "aborted" mid-stream, after some thought arrived', async () => {
    const { url } = await serve({ ...good, chunkDelayMs: 100, chunkSize: 2 });
    const controller = new AbortController();
    const thoughts = thoughtLog();
    const prediction = await model(url).model.predict(await input(), controller.signal, (delta, attempt) => {
      thoughts.listener(delta, attempt);
      if (thoughts.deltas.length === 2) controller.abort();
    });
    expect(prediction).toMatchObject({ ok: false, attempts: 1, error: { kind: 'aborted' } });
    // Stopped mid-stream: two deltas came, the rest never did.
    expect(thoughts.deltas).toHaveLength(2);
  });

  it('does not wait out a backoff once stopped', async () => {
    const { url, requests } = await serve({ status: 500 }, good);
    const controller = new AbortController();
    // The backoff lasts until the stop: a client that waited it out would never answer (the test's timeout).
    let backingOff!: () => void;
    const backoffStarted = new Promise<void>((resolve) => (backingOff = resolve));
    const sleep = (ms: number, signal?: AbortSignal) => {
      backingOff();
      return realSleep(ms * 1_000, signal);
    };
    const vision = createVisionModel(settingsFor(url, { retryBaseDelayMs: 10_000 }), { sleep, random: () => 0.99 });
    const predicting = vision.predict(await input(), controller.signal);
    await backoffStarted;
    controller.abort();
    const prediction = await predicting;
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'aborted' } });
    expect(requests).toHaveLength(1);
  });

  it('sends nothing when already stopped', async () => {
    const { url, requests } = await serve(good);
    const prediction = await model(url).model.predict(await input(), AbortSignal.abort());
    expect(prediction).toMatchObject({ ok: false, attempts: 0, error: { kind: 'aborted' } });
    expect(requests).toHaveLength(0);
  });
});

describe('malformed bodies', () => {
  it('a completion that is not JSON is a parse error, not retried', async () => {
    const { url, requests } = await serve({ raw: '{"id": "chatcmpl-1", "choices": [' }, good);
    const prediction = await model(url, { stream: false }).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'parse' } });
    expect(requests).toHaveLength(1);
  });

  it('an error event inside the stream is retried', async () => {
    const { url, requests } = await serve(
      { raw: 'data: {"error": {"message": "upstream provider overloaded", "code": 502}}\n\n', contentType: 'text/event-stream' },
      good,
    );
    const prediction = await predictOk(model(url).model, await input());
    expect(prediction.attempts).toBe(2);
    expect(requests).toHaveLength(2);
  });
});
