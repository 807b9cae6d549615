/**
 * Long streamed replies, with each vendor's real SDK over real HTTP (test/fixtures/
 * long-stream-server.ts): a reply of megabytes is read whole; a reply past model.maxReplyBytes is cut,
 * said so and not retried, and the connection closed; the timeout and Stop end a stream that
 * never ends, and the server sees the client hang up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createVisionModel, type PredictInput, type Prediction } from '../../../src/main/model';
import { type ModelSettings, ModelSettingsSchema } from '../../../src/shared/settings';
import { type LongStreamOptions, type LongStreamServer, startLongStreamServer, STREAM_FAMILIES, type StreamVendor } from '../../fixtures/long-stream-server';
import { screenshot, thoughtLog } from './helpers';

const MB = 1024 * 1024;

let server: LongStreamServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(options: LongStreamOptions): Promise<LongStreamServer> {
  server = await startLongStreamServer(options);
  return server;
}


function settings(vendor: StreamVendor, url: string, overrides: Partial<ModelSettings> = {}): ModelSettings {
  return ModelSettingsSchema.parse({ baseUrl: url, apiKey: 'test-key', maxRetries: 0, family: STREAM_FAMILIES[vendor].family, model: STREAM_FAMILIES[vendor].model, ...overrides });
}

async function input(): Promise<PredictInput> {
  return { task: 'Fill in the form', history: [], observation: await screenshot(640, 400) };
}

function failed(prediction: Prediction) {
  if (prediction.ok) throw new Error('expected the call to fail');
  return prediction.error;
}

describe.each(['openai', 'anthropic', 'gemini'] as const)('%s: a long streamed reply', (vendor) => {
  // Generous deadlines: the machine's speed is not what these tests measure (bench:stream does).
  it('is read whole when it fits, its thought shown', { timeout: 300_000 }, async () => {
    const long = await serve({ totalBytes: 4 * MB });
    const thoughts = thoughtLog();
    const model = createVisionModel(settings(vendor, long.baseUrl(vendor), { maxReplyBytes: 64 * MB, timeoutMs: 600_000 }));
    const prediction = await model.predict(await input(), undefined, thoughts.listener);
    // The call completed (a reply of prose alone may parse as a final answer or fail to parse: either is the reply's own).
    if (!prediction.ok) expect(prediction.error.kind).toBe('parse');
    expect(long.requests[0]?.finished).toBe(true);
    expect(long.requests[0]?.clientClosedEarly).toBe(false);
    // Text deltas of 48 characters in events of ~150 bytes: a thought of megabytes reached the listener.
    expect(thoughts.text().length).toBeGreaterThan(MB / 2);
  });

  it('is cut past model.maxReplyBytes, said so, not retried, and the connection closed', { timeout: 300_000 }, async () => {
    const long = await serve({ totalBytes: 10 * MB });
    const model = createVisionModel(settings(vendor, long.baseUrl(vendor), { maxReplyBytes: MB, maxRetries: 2, timeoutMs: 600_000 }));
    const prediction = await model.predict(await input());
    const error = failed(prediction);
    expect(error.kind).toBe('http');
    expect(error.message).toBe(`the reply was cut at ${MB} bytes: the provider sent more than model.maxReplyBytes allows for one reply`);
    expect(prediction.attempts).toBe(1);
    expect(long.requests).toHaveLength(1);
    await long.requests[0]?.closed;
    expect(long.requests[0]?.clientClosedEarly).toBe(true);
    expect(long.requests[0]?.bytesSent).toBeLessThan(10 * MB);
  });

  it('ends at the model timeout while the stream goes on', { timeout: 300_000 }, async () => {
    const long = await serve({ totalBytes: 1000 * MB, endless: true, bytesPerSecond: 2 * MB });
    const model = createVisionModel(settings(vendor, long.baseUrl(vendor), { timeoutMs: 1500, maxReplyBytes: 1000 * MB }));
    const error = failed(await model.predict(await input()));
    expect(error.kind).toBe('timeout');
    await long.requests[0]?.closed;
    expect(long.requests[0]?.clientClosedEarly).toBe(true);
  });

  it('ends at Stop while the stream goes on', { timeout: 300_000 }, async () => {
    const long = await serve({ totalBytes: 1000 * MB, endless: true, bytesPerSecond: 2 * MB });
    const model = createVisionModel(settings(vendor, long.baseUrl(vendor), { timeoutMs: 600_000, maxReplyBytes: 1000 * MB }));
    const stop = new AbortController();
    const prediction = model.predict(await input(), stop.signal);
    await long.sent(MB);
    stop.abort();
    const error = failed(await prediction);
    expect(error.kind).toBe('aborted');
    await long.requests[0]?.closed;
    expect(long.requests[0]?.clientClosedEarly).toBe(true);
  });
});
