/**
 * npm run bench:ui — the window in Chromium against the real `mnemo serve`:
 *
 *   bytes  what the page receives per step of a live 100-step run (every response but images:
 *          the event stream, API answers), from Chromium's own network events; per half of the
 *          run, to show it stays flat as the run grows; the thought text is counted apart;
 *   open   from clicking a 2,000-step session in History (recorded with the real recorder) to
 *          its timeline rows and its step slider being there, in a freshly loaded page, as it is
 *          opened the first time: its events.jsonl is touched before each round, so the server
 *          reads and encodes the events again (store/recent-events.ts keeps them only while the
 *          file is unchanged). The median of 11 (a round's ratio swings with the shared machine:
 *          more rounds, a steadier median), and the time to move the slider to the middle step
 *          and see it;
 *   floor  in turns with each open, in a fresh page too, the file touched too: the session's
 *          events fetched from the same route and parsed (JSON.parse), nothing else: what any
 *          window must pay to have them, the baseline of the same run that the open is divided by
 *          (the machine is shared: a ratio survives its load better than a time);
 *   again  the same open and floor with the file untouched: a session opened again, whose events
 *          the server kept with their encoded form, so both lose the server's part and keep the
 *          window's. Printed for comparison, not judged: the target was set against a floor that
 *          included the server's reading (below).
 *
 * The run acts on a private Xvfb (:182, or MNEMO_BENCH_UI_DISPLAY where several people bench at
 * once) with the scripted OpenAI-compatible server as the model.
 * MNEMO_BENCH_UI_PROFILE=<file> writes the page's CPU profile of one more open there (for Chrome's
 * DevTools, or any .cpuprofile reader), after the counted rounds.
 * The last lines are the figures: `ui bytes per step: N`, `open 2000-step session: X ms` with its
 * target (under 500 ms), and `open/floor: R` with its target (at most 1.5: 0.5 s on a quiet
 * machine's floor of 328 ms, as a ratio that survives a loaded one). That floor was measured on
 * 2026-12-06 when every open had the server read the session, before it kept the events of one
 * opened again; the judged open is the one measured the same way.
 */
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { chromium, type CDPSession, type Page } from 'playwright-core';
import type { Frame } from '../src/shared/frame';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../test/fixtures/chromium-flags';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply } from '../test/fixtures/openai-server';
import { SessionBuilder } from '../test/fixtures/session-builder';
import { serveApp, startUiDisplay } from '../test/fixtures/ui/app-harness';
import { startCountingProxy } from './lib/counting-proxy';
import { median } from './lib/stats';

const RECORDED_STEPS = 2000;
const LIVE_STEPS = 100;
const OPEN_ROUNDS = 11;
const AGAIN_ROUNDS = 7;
/** Opening within 0.5 s where the floor is 328 ms (a quiet machine, the server reading the session): the target of item 7 as a ratio. */
const OPEN_FLOOR_TARGET = 1.5;
const THOUGHT = (step: number) => `Step ${step}: I move the pointer a little to the right.`;

const root = await mkdtemp(join(tmpdir(), 'mnemo-bench-ui-'));
const log = (line: string) => process.stdout.write(`${line}\n`);

/** A 2,000-step session as a run records it: screenshots, thoughts, actions, memory, timings. */
async function recordLongSession(dataDir: string): Promise<string> {
  const size = { width: 960, height: 600 };
  const image = await sharp({ create: { ...size, channels: 3, background: { r: 59, g: 110, b: 143 } } }).jpeg({ quality: 80 }).toBuffer();
  const frame: Frame = { displayId: '0', bounds: { x: 0, y: 0, width: 1280, height: 800 }, scaleFactor: 1, captured: { width: 1280, height: 800 }, image: { ...size, format: 'jpeg' } };
  const session = await SessionBuilder.create(dataDir, { task: 'A very long task', model: 'gpt-4.1', family: 'tools' });
  const record = (event: Record<string, unknown>) => session.record(event);
  await record({ type: 'run-started', task: 'A very long task', model: 'gpt-4.1', family: 'tools', limits: { maxSteps: 5000, maxCostUsd: null } });
  let cost = 0;
  for (let step = 1; step <= RECORDED_STEPS; step++) {
    const thought = `Step ${step}: the dialog is open; I click Save to keep the changes, then check the title bar.`;
    const action = { type: 'click', x: 100 + (step % 700), y: 200, button: 'left' };
    await record({ type: 'step-started', step });
    const screenshot = session.recorder.saveScreenshot(step, image, 'image/jpeg', size);
    await record({ type: 'observation', step, screenshot, frame });
    await record({ type: 'thought-delta', step, delta: thought.slice(0, 40), attempt: 1 });
    await record({ type: 'thought-delta', step, delta: thought.slice(40), attempt: 1 });
    await record({ type: 'prediction', step, thought, actions: [action], usage: { inputTokens: 1800, outputTokens: 60, costUsd: 0.0041 }, attempts: 1 });
    await record({ type: 'action', step, index: 0, action });
    await record({ type: 'action-result', step, index: 0, action, result: { ok: true, type: 'click', points: [{ x: action.x, y: 200 }], durationMs: 14 } });
    await record({ type: 'memory', step, change: { kind: 'trace', op: 'add', step, item: { step, action: 'click' }, length: Math.min(step, 100), dropped: step > 100 ? 1 : 0 } });
    await record({ type: 'memory', step, change: { kind: 'layers-delta', recent: `Step ${step} | Eval: success | Goal: click Save`, compressing: false, lastError: null } });
    await record({ type: 'memory', step, change: { kind: 'blackboard-delta', sections: { trajectories: { drop: step > 20 ? 1 : 0, add: [{ step, subtask: 'click Save', action: 'click', status: 'success' }] } } } });
    cost += 0.0041;
    await record({ type: 'step-finished', step, durationMs: 2100, costUsd: cost, usage: { inputTokens: 1800, outputTokens: 60, costUsd: 0.0041 }, timings: { observe: 120, model: 1800, act: 30, settle: 150 } });
    if (step % 200 === 0) await session.recorder.flush();
  }
  await record({ type: 'run-finished', status: 'finished', reason: 'the model reported the task done', summary: null, steps: RECORDED_STEPS, usage: { inputTokens: 1800 * RECORDED_STEPS, outputTokens: 60 * RECORDED_STEPS, costUsd: cost } });
  await session.recorder.close();
  return session.id;
}

/**
 * Bytes of every response but images as they reach the browser (the counting proxy: compressed
 * where the server compressed), and the event stream's messages by step and kind (as decoded).
 */
function countBytes(cdp: CDPSession) {
  const byStep = new Map<number, number>();
  const byType = new Map<string, number>();
  let thoughtBytes = 0;
  cdp.on('Network.eventSourceMessageReceived', (event) => {
    const parsed = JSON.parse(event.data) as { step?: number; type: string; delta?: string; thought?: string | null };
    const bytes = Buffer.byteLength(`id: ${event.eventId}\ndata: ${event.data}\n\n`);
    byStep.set(parsed.step ?? 0, (byStep.get(parsed.step ?? 0) ?? 0) + bytes);
    const kind = parsed.type === 'memory' ? `memory:${(parsed as { change?: { kind?: string } }).change?.kind}` : parsed.type;
    byType.set(kind, (byType.get(kind) ?? 0) + bytes);
    if (parsed.type === 'thought-delta') thoughtBytes += Buffer.byteLength(parsed.delta ?? '');
    if (parsed.type === 'prediction') thoughtBytes += Buffer.byteLength(parsed.thought ?? '');
  });
  return {
    reset() {
      proxy.reset();
      thoughtBytes = 0;
      byStep.clear();
      byType.clear();
    },
    get total() {
      return proxy.bytes;
    },
    get thoughtBytes() {
      return thoughtBytes;
    },
    byStep,
    byType,
  };
}

async function liveRunBytes(page: Page, cdp: CDPSession): Promise<{ perStep: number; firstHalf: number; secondHalf: number; thought: number; stream: number }> {
  const counter = countBytes(cdp);
  await cdp.send('Network.enable');
  counter.reset();
  await page.getByRole('link', { name: 'Run' }).click();
  await page.getByRole('textbox', { name: 'Task' }).fill('Move the pointer to the right, one step at a time');
  await page.getByRole('button', { name: 'Start' }).click();
  await page.locator('.run-header .status-badge').filter({ hasText: /^(finished|failed|stuck|limit|stopped|refused)$/ }).waitFor({ timeout: 600_000 });
  const status = await page.locator('.run-header .status-badge').innerText();
  if (status !== 'finished') throw new Error(`the live run ended ${status}: ${await page.locator('.run-reason').innerText().catch(() => '')}`);
  const stepBytes = [...counter.byStep.entries()].filter(([step]) => step > 0);
  const average = (entries: Array<[number, number]>) => entries.reduce((sum, [, bytes]) => sum + bytes, 0) / Math.max(1, entries.length);
  const half = LIVE_STEPS / 2;
  const kinds = [...counter.byType.entries()].sort((a, b) => b[1] - a[1]);
  log(`  event stream per step by kind: ${kinds.map(([kind, bytes]) => `${kind} ${Math.round(bytes / LIVE_STEPS)}`).join(', ')}`);
  return {
    perStep: counter.total / LIVE_STEPS,
    firstHalf: average(stepBytes.filter(([step]) => step <= half)),
    secondHalf: average(stepBytes.filter(([step]) => step > half)),
    thought: counter.thoughtBytes / LIVE_STEPS,
    stream: average(stepBytes),
  };
}

/** The baseline: the session's events fetched from the window's route and parsed, in a fresh page, nothing else. */
async function fetchFloor(page: Page, url: string, sessionId: string): Promise<number> {
  await page.goto('about:blank');
  await page.goto(`${url}#/history`);
  return page.evaluate(async (id) => {
    const started = performance.now();
    const response = await fetch(`/api/sessions/${id}/events?since=0`, { credentials: 'same-origin' });
    const events = JSON.parse(await response.text()) as unknown[];
    if (events.length === 0) throw new Error('no events');
    return performance.now() - started;
  }, sessionId);
}

/** Click to usable: rows in the timeline and the slider spanning the whole session. */
async function openLongSession(page: Page, url: string, task: string, profileTo?: string): Promise<{ openMs: number; scrubMs: number }> {
  // A fresh document each round (a hash change alone would keep the page and its store).
  await page.goto('about:blank');
  await page.goto(`${url}#/history`);
  const open = page.getByRole('button', { name: `Open ${task}` });
  await open.waitFor();
  const profiler = profileTo ? await page.context().newCDPSession(page) : null;
  if (profiler) {
    await profiler.send('Profiler.enable');
    await profiler.send('Profiler.setSamplingInterval', { interval: 200 });
    await profiler.send('Profiler.start');
  }
  await open.evaluate((button) => {
    (globalThis as unknown as { openStarted: number }).openStarted = performance.now();
    (button as unknown as { click(): void }).click();
  });
  const openMs = (await page.waitForFunction(
    (steps) => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { max?: string } | null; querySelectorAll(s: string): { length: number } } }).document;
      const slider = doc.querySelector('input[type="range"][aria-label="Step"]');
      const rows = doc.querySelectorAll('ul[aria-label="Steps"] > li').length;
      return slider?.max === String(steps) && rows > 0 ? performance.now() - (globalThis as unknown as { openStarted: number }).openStarted : 0;
    },
    RECORDED_STEPS,
    { polling: 'raf', timeout: 60_000 },
  ).then((handle) => handle.jsonValue())) as number;
  if (profiler && profileTo) {
    const { profile } = await profiler.send('Profiler.stop');
    await writeFile(profileTo, JSON.stringify(profile));
    await profiler.detach();
  }
  const middle = RECORDED_STEPS / 2;
  const started = Date.now();
  await page.getByRole('slider', { name: 'Step' }).fill(String(middle));
  await page.locator('.screen figcaption', { hasText: `Step ${middle}` }).waitFor();
  return { openMs, scrubMs: Date.now() - started };
}

const display = await startUiDisplay(process.env.MNEMO_BENCH_UI_DISPLAY ?? ':182');
const memoryModel = await startMemoryModelServer();
let replies = 0;
const model = await startScriptedServer({
  keepRequests: false,
  replies: (): ScriptedReply => {
    replies += 1;
    const thought = THOUGHT(replies);
    const actions = replies >= LIVE_STEPS ? [{ type: 'finished', summary: 'Done.' }] : [{ type: 'mouse_move', x: 200 + (replies % 600), y: 500 }];
    return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
  },
});
const dataDir = join(root, 'data');
const { mkdir } = await import('node:fs/promises');
await mkdir(dataDir, { recursive: true });
await writeFile(
  join(dataDir, 'config.json'),
  JSON.stringify({ model: { baseUrl: model.url, model: 'gpt-4.1', family: 'tools' }, image: { maxWidth: 960 }, memory: { model: { baseUrl: memoryModel.url } }, agent: { maxSteps: LIVE_STEPS + 10 } }),
);
log(`recording a ${RECORDED_STEPS}-step session...`);
const longSessionId = await recordLongSession(dataDir);
const app = await serveApp(dataDir, display.display);
const proxy = await startCountingProxy();
const browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: [...HEADLESS_CHROMIUM_ARGS, `--proxy-server=${proxy.address}`, '--proxy-bypass-list=<-loopback>'] });
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(app.url);
  const cdp = await context.newCDPSession(page);
  log(`live run of ${LIVE_STEPS} steps...`);
  const bytes = await liveRunBytes(page, cdp);
  log(`  event stream per step: steps 1-${LIVE_STEPS / 2} ${Math.round(bytes.firstHalf)} B, steps ${LIVE_STEPS / 2 + 1}-${LIVE_STEPS} ${Math.round(bytes.secondHalf)} B (flat: ratio ${(bytes.secondHalf / bytes.firstHalf).toFixed(2)})`);
  log(`  thought text per step: ${Math.round(bytes.thought)} B (streamed deltas plus the prediction)`);
  log(`  event stream as JSON text per step: ${Math.round(bytes.stream)} B`);
  log(`  received per step by path: ${[...proxy.byPath.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([path, n]) => `${path.replace(/[\w-]{20,}/g, '…')} ${Math.round(n / LIVE_STEPS)}`).join(', ')}`);
  log(`  received per step, everything but images (compressed as sent): ${Math.round(bytes.perStep)} B, ${Math.round(bytes.perStep - bytes.thought)} B beyond the thought text (goal ≤ 2048)`);

  // A first open: the events file touched (a new modification time), so the server reads it again.
  const eventsFile = join(dataDir, 'sessions', longSessionId, 'events.jsonl');
  let touched = Date.now() / 1000;
  const touch = () => utimes(eventsFile, touched, (touched += 1));
  const opens: number[] = [];
  const scrubs: number[] = [];
  const floors: number[] = [];
  // A warm-up of each: the server's first read of the record, the page's first load of the app.
  await fetchFloor(page, app.origin + '/', longSessionId);
  await openLongSession(page, app.origin + '/', 'A very long task');
  for (let round = 0; round < OPEN_ROUNDS; round++) {
    await touch();
    floors.push(await fetchFloor(page, app.origin + '/', longSessionId));
    await touch();
    const { openMs, scrubMs } = await openLongSession(page, app.origin + '/', 'A very long task');
    opens.push(openMs);
    scrubs.push(scrubMs);
  }
  // MNEMO_BENCH_UI_PROFILE=file.cpuprofile: one more open, with the page's CPU profile written there (not counted).
  const profileTo = process.env.MNEMO_BENCH_UI_PROFILE;
  if (profileTo) {
    await touch();
    await openLongSession(page, app.origin + '/', 'A very long task', profileTo);
    log(`  the page's CPU profile of one more open: ${profileTo}`);
  }
  // Opened again: the file untouched since the last round's open, so the server answers from what it kept.
  const againOpens: number[] = [];
  const againFloors: number[] = [];
  for (let round = 0; round < AGAIN_ROUNDS; round++) {
    againFloors.push(await fetchFloor(page, app.origin + '/', longSessionId));
    againOpens.push((await openLongSession(page, app.origin + '/', 'A very long task')).openMs);
  }
  const againRatio = median(againOpens.map((ms, round) => ms / (againFloors[round] as number)));
  log(`opened again (the server keeps the events of a session read while its file is unchanged), ${AGAIN_ROUNDS} fresh pages: ${againOpens.map((ms) => Math.round(ms)).join(', ')} ms; its floor: ${againFloors.map((ms) => Math.round(ms)).join(', ')} ms`);
  log(`  opened again: ${Math.round(median(againOpens))} ms (the floor ${Math.round(median(againFloors))} ms), open/floor ${againRatio.toFixed(2)}; for comparison, not judged (both lose the server's part)`);
  const ratios = opens.map((ms, round) => ms / (floors[round] as number));
  log(`open ${RECORDED_STEPS}-step session the first time (the server reads it), ${OPEN_ROUNDS} fresh pages: ${opens.map((ms) => Math.round(ms)).join(', ')} ms; slider to step ${RECORDED_STEPS / 2} shown in ${Math.round(median(scrubs))} ms (median)`);
  log(`floor, its events fetched and parsed in a fresh page, in turns: ${floors.map((ms) => Math.round(ms)).join(', ')} ms; open/floor per round: ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`);
  log(`  the window's own part, open minus floor per round (median): ${Math.round(median(opens.map((ms, round) => ms - (floors[round] as number))))} ms`);
  log(`ui bytes per step: ${Math.round(bytes.perStep)}`);
  const open = median(opens);
  log(`open 2000-step session: ${Math.round(open)} ms (target < 500 ms: ${open < 500 ? 'met' : 'not met'}; the floor ${Math.round(median(floors))} ms)`);
  // The target as a ratio that survives a loaded machine: 0.5 s on the floor of a quiet one (328 ms, 2026-12-06, the server reading the session) is 1.5.
  const ratio = median(ratios);
  log(`open/floor: ${ratio.toFixed(2)} (target ≤ ${OPEN_FLOOR_TARGET}: ${ratio <= OPEN_FLOOR_TARGET ? 'met' : 'not met'}; the window's own work on top of receiving the events)`);
} finally {
  await browser.close();
  await proxy.close();
  await app.close();
  await Promise.all([model.close(), memoryModel.close()]);
  await display.close();
  await rm(root, { recursive: true, force: true });
}
