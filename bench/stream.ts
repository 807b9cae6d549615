/**
 * npm run bench:stream — what Mnemo's processing of a long streamed reply costs: a 10 MB reply
 * (BENCH_STREAM_MB) streamed by each vendor's API shape (test/fixtures/long-stream-server.ts) and
 * read by the family's model through the vendor's SDK, thought shown as it streams, against
 * reading the same stream with a bare fetch and no processing at all: the baseline, measured in
 * the same run, in turn with it. Also the longest the event loop was held while Mnemo read the
 * stream (perf_hooks' event-loop delay): what Stop and the model timeout wait for at worst; and,
 * mid-way through an endless stream, how long after Stop and past its timeout a call returns.
 *
 * BENCH_STREAM_VENDORS (default openai,anthropic,gemini) picks the vendors.
 *
 * Targets: processing in linear time (the ratio stays flat as the reply grows: compare
 * BENCH_STREAM_MB=5 and 20), and no stall of the event loop near a second.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { createVisionModel } from '../src/main/model';
import { ModelSettingsSchema } from '../src/shared/settings';
import { startLongStreamServer, STREAM_FAMILIES, type LongStreamServer, type StreamVendor } from '../test/fixtures/long-stream-server';
import { median } from './lib/stats';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_STREAM_MB ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const VENDORS = (process.env.BENCH_STREAM_VENDORS ?? 'openai,anthropic,gemini').split(',') as StreamVendor[];


const image = await sharp({ create: { width: 1280, height: 800, channels: 3, background: { r: 40, g: 90, b: 160 } } }).jpeg().toBuffer();
const observation = { image, mime: 'image/jpeg' as const, width: 1280, height: 800 };

/** The baseline: the same stream read by fetch, every byte counted, nothing parsed. */
async function rawRead(server: LongStreamServer, vendor: StreamVendor): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${server.baseUrl(vendor)}${STREAM_FAMILIES[vendor].path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const reader = response.body?.getReader();
  let bytes = 0;
  for (;;) {
    const read = await reader?.read();
    if (!read || read.done) break;
    bytes += read.value.byteLength;
  }
  if (bytes < SIZE_MB * MB) throw new Error(`the raw read got ${bytes} bytes`);
  return performance.now() - started;
}

/** Mnemo's read: the family's model, the thought streamed to a listener; the time and the longest stall. */
async function mnemoRead(server: LongStreamServer, vendor: StreamVendor): Promise<{ ms: number; stallMs: number; thoughtChars: number }> {
  const { family, model: name } = STREAM_FAMILIES[vendor];
  const settings = ModelSettingsSchema.parse({ baseUrl: server.baseUrl(vendor), family, model: name, apiKey: 'bench', maxRetries: 0, timeoutMs: 600_000, maxReplyBytes: 4 * SIZE_MB * MB });
  const model = createVisionModel(settings);
  let thoughtChars = 0;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const prediction = await model.predict({ task: 'Fill in the form', history: [], observation }, undefined, (delta) => {
    thoughtChars += delta.length;
  });
  const ms = performance.now() - started;
  delay.disable();
  if (!prediction.ok && prediction.error.kind !== 'parse') throw new Error(`${vendor}: ${prediction.error.kind}: ${prediction.error.message}`);
  const finished = server.requests.at(-1)?.finished;
  if (!finished) throw new Error(`${vendor}: the stream was not read to its end`);
  return { ms, stallMs: delay.max / 1e6, thoughtChars };
}

/** How long after Stop (or past its timeout) a model call mid-way through an endless 1 MB/s stream returns. */
async function stopLatency(vendor: StreamVendor, how: 'stop' | 'timeout'): Promise<number> {
  const server = await startLongStreamServer({ totalBytes: 1000 * MB, endless: true, bytesPerSecond: MB });
  try {
    const { family, model: name } = STREAM_FAMILIES[vendor];
    const timeoutMs = how === 'timeout' ? 3000 : 600_000;
    const settings = ModelSettingsSchema.parse({ baseUrl: server.baseUrl(vendor), family, model: name, apiKey: 'bench', maxRetries: 0, timeoutMs, maxReplyBytes: 1000 * MB });
    const stop = new AbortController();
    const started = performance.now();
    const call = createVisionModel(settings).predict({ task: 'Fill in the form', history: [], observation }, stop.signal, () => undefined);
    let stoppedAt = started + timeoutMs;
    if (how === 'stop') {
      await server.sent(2 * MB);
      stoppedAt = performance.now();
      stop.abort();
    }
    await call;
    return performance.now() - stoppedAt;
  } finally {
    await server.close();
  }
}

console.log(`bench:stream — a ${SIZE_MB} MB streamed reply, median of ${RUNS} runs (one warm-up), processing against a bare read of the same stream`);
console.log('vendor     bare read   Mnemo      ratio   Mnemo MB/s  longest stall  thought shown');
let worstStall = 0;
for (const vendor of VENDORS) {
  const server = await startLongStreamServer({ totalBytes: SIZE_MB * MB });
  try {
    await rawRead(server, vendor);
    await mnemoRead(server, vendor);
    const raw: number[] = [];
    const mnemo: number[] = [];
    const stalls: number[] = [];
    let thought = 0;
    for (let run = 0; run < RUNS; run++) {
      raw.push(await rawRead(server, vendor));
      const read = await mnemoRead(server, vendor);
      mnemo.push(read.ms);
      stalls.push(read.stallMs);
      thought = read.thoughtChars;
    }
    const rawMs = median(raw);
    const mnemoMs = median(mnemo);
    const stall = Math.max(...stalls);
    worstStall = Math.max(worstStall, stall);
    console.log(
      `${vendor.padEnd(10)} ${`${(rawMs / 1000).toFixed(2)} s`.padEnd(11)} ${`${(mnemoMs / 1000).toFixed(2)} s`.padEnd(10)} ${`${(mnemoMs / rawMs).toFixed(2)}×`.padEnd(7)} ${(SIZE_MB / (mnemoMs / 1000)).toFixed(1).padEnd(11)} ${`${stall.toFixed(0)} ms`.padEnd(14)} ${(thought / MB).toFixed(1)} M chars`,
    );
  } finally {
    await server.close();
  }
}
console.log('\nmid-way through an endless stream (1 MB/s): how long after Stop, and past its 3 s timeout, the model call returned');
for (const vendor of VENDORS) {
  const stop = await stopLatency(vendor, 'stop');
  const timeout = await stopLatency(vendor, 'timeout');
  console.log(`${vendor.padEnd(10)} Stop ${stop.toFixed(0)} ms, timeout ${timeout.toFixed(0)} ms late (target: under 1000 ms)`);
}
console.log(`longest event-loop stall: ${worstStall.toFixed(0)} ms (target: well under 1 s, so Stop and the timeout act within a second)`);
