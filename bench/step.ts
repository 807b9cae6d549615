/**
 * npm run bench:step — what one step of the loop costs beyond its screenshot, against a scripted
 * model that answers at once, on a private 1280x800 Xvfb:
 *
 *   - capture alone (observe → JPEG), the baseline every ratio is measured against;
 *   - a 50-step run with the settle wait off: the step's parts, which run on the critical path
 *     (observe, model, act, settle) and which in the background (recording, fsync);
 *   - the same with settle detection on (the default);
 *   - a 1,000-step run: resident memory after step 100 and after step 1,000;
 *   - a 200-step recorded session replayed at full speed on an unchanged screen.
 *
 * The last two lines are `rss growth step100→step1000: N MB` and `overhead/capture: X`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent, AgentEventOf } from '../src/shared/events';
import { ModelSettingsSchema } from '../src/shared/settings';
import { DeviceAgent } from '../src/main/agent/device-agent';
import { DEFAULT_SETTLE } from '../src/main/run/settle';
import { createVisionModel } from '../src/main/model';
import { createDesktopOperator } from '../src/main/operator/desktop-operator';
import { createIsolatedOperator } from '../src/main/operator/isolated-operator';
import { Replayer } from '../src/main/replay/replayer';
import { FileRunRecorder } from '../src/main/store/run-recorder';
import { readSession } from '../src/main/store/session-reader';
import { startScriptedServer } from '../test/fixtures/openai-server';
import { fmt, fmtSigned, median, timeRunsInTurn } from './lib/stats';
import { startPrivateXvfb } from './lib/xvfb';

const STEPS = 50;
const LONG_RUN = 1000;
const REPLAY_STEPS = 200;

const xvfb = await startPrivateXvfb(1280, 800);
if (xvfb) process.env.DISPLAY = xvfb.display;
// The operator `mnemo run` uses: the display in a child process; in process for comparison.
const loaded = await createIsolatedOperator();
const inProcess = await createDesktopOperator();
if (!loaded.ok || !inProcess.ok) {
  console.error(`bench:step: ${loaded.ok ? '' : loaded.message}${inProcess.ok ? '' : inProcess.message}`);
  process.exit(1);
}
const operator = loaded.operator;
const dataDir = mkdtempSync(join(tmpdir(), 'mnemo-bench-step-'));

let served = 0;
let runLength = STEPS;
const server = await startScriptedServer({
  // A 1,000-step run: the server must not keep every request (each carries screenshots).
  keepRequests: false,
  replies: () => {
    served++;
    // The pointer is not in the screenshots: moving it leaves the screen unchanged, so nothing
    // here waits for the screen and the repetition guard sees a new action each step.
    const action = served > runLength ? { type: 'finished', summary: 'done' } : { type: 'mouse_move', x: 200 + (served % 2) * 400, y: 300 };
    return { toolCalls: [{ name: 'computer', arguments: { actions: [action] } }], usage: { prompt_tokens: 1000, completion_tokens: 20 } };
  },
});
const model = createVisionModel(ModelSettingsSchema.parse({ baseUrl: server.url, model: 'gpt-4.1', family: 'tools' }));

/** Flush durations (write + fsync): the recording's work, off the critical path. */
const flushes: number[] = [];

async function run(steps: number, settleTimeoutMs: number, onStep?: (event: AgentEventOf<'step-finished'>) => void): Promise<{ events: AgentEvent[]; sessionId: string }> {
  served = 0;
  runLength = steps;
  const recorder = await FileRunRecorder.create(dataDir, { task: 'bench', model: 'gpt-4.1', family: 'tools' });
  const flush = recorder.flush.bind(recorder);
  recorder.flush = async () => {
    const started = performance.now();
    await flush();
    flushes.push(performance.now() - started);
  };
  const agent = new DeviceAgent(
    { model, operator, recorder, askUser: async () => null },
    { limits: { maxSteps: steps + 1, maxCostUsd: null, maxConsecutiveErrors: 3, maxParseRetries: 3 }, settle: { ...DEFAULT_SETTLE, timeoutMs: settleTimeoutMs } },
  );
  const events: AgentEvent[] = [];
  for await (const event of agent.run('move the mouse back and forth', new AbortController().signal)) {
    if (event.type === 'step-finished') onStep?.(event);
    // A long run keeps only what the figures need, as a real consumer would.
    if (steps <= STEPS || event.type === 'step-finished') events.push(event);
  }
  return { events, sessionId: recorder.sessionId };
}

function stepFigures(events: readonly AgentEvent[]) {
  const finished = events.filter((event): event is AgentEventOf<'step-finished'> => event.type === 'step-finished' && event.timings?.act !== undefined);
  const part = (name: 'observe' | 'model' | 'act' | 'settle') => median(finished.map((event) => event.timings?.[name] ?? 0));
  const total = median(finished.map((event) => event.durationMs));
  return { total, observe: part('observe'), model: part('model'), act: part('act'), settle: part('settle') };
}

const mb = (bytes: number) => bytes / 1024 / 1024;
const collect = () => (globalThis as { gc?: () => void }).gc?.();

try {
  // Warm up the client, the server and the capture path.
  await run(5, 0);
  const observeWith = (observer: Pick<typeof operator, 'observe'>) => async () => {
    const result = await observer.observe({ maxWidth: 1280, format: 'jpeg', quality: 80 });
    if (!result.ok) throw new Error(result.message);
  };
  const [throughHost = [], inProcessTimes = []] = await timeRunsInTurn(STEPS, [observeWith(operator), observeWith(inProcess.operator)]);
  const capture = median(throughHost);
  const captureInProcess = median(inProcessTimes);
  flushes.length = 0;
  const noSettle = stepFigures((await run(STEPS, 0)).events);
  const background = median(flushes);
  const withSettle = stepFigures((await run(STEPS, DEFAULT_SETTLE.timeoutMs)).events);

  // Memory over a long run: the median of eleven samples (each after a full GC) around step 100
  // and around step 1,000, since the allocator's own ups and downs are not growth.
  const samples: Record<'early' | 'late', number[]> = { early: [], late: [] };
  await run(LONG_RUN, 0, (event) => {
    const window = event.step >= 95 && event.step <= 105 ? 'early' : event.step >= LONG_RUN - 10 ? 'late' : null;
    if (!window) return;
    collect();
    samples[window].push(process.memoryUsage().rss);
  });
  const rss = { 100: median(samples.early), [LONG_RUN]: median(samples.late) } as Record<number, number>;

  // Replay of a recorded 200-step session, at full speed, on the unchanged screen.
  const recorded = await run(REPLAY_STEPS, 0);
  const session = await readSession(dataDir, recorded.sessionId);
  if (!session.ok) throw new Error(session.message);
  const replayRecorder = await FileRunRecorder.create(dataDir, { task: 'bench replay', model: 'none', family: 'none', replayOf: recorded.sessionId });
  const replayer = new Replayer({ operator, recorder: replayRecorder, askUser: async () => null });
  const replayStarted = performance.now();
  let replayEnd: AgentEventOf<'run-finished'> | undefined;
  for await (const event of replayer.replay(session.session, { policy: 'stop', speed: 0, settle: { ...DEFAULT_SETTLE, timeoutMs: 0 } }, new AbortController().signal)) {
    if (event.type === 'run-finished') replayEnd = event;
  }
  const replayPerStep = (performance.now() - replayStarted) / REPLAY_STEPS;
  if (replayEnd?.status !== 'finished') throw new Error(`the replay ended ${replayEnd?.status}: ${replayEnd?.reason}`);

  const overhead = noSettle.total;
  console.log(`display ${process.env.DISPLAY}, scripted model answering at once (medians)`);
  console.log(`capture alone (observe → JPEG):           ${fmt(capture)} ms   (in process ${fmt(captureInProcess)} ms, ${fmtSigned(capture - captureInProcess)} ms through the operator host)`);
  console.log(`step, settle wait off (${STEPS} steps):         ${fmt(overhead)} ms`);
  console.log(`  critical path: observe ${fmt(noSettle.observe)}, model (request + HTTP + parse) ${fmt(noSettle.model)}, act ${fmt(noSettle.act)}, settle ${fmt(noSettle.settle)}`);
  console.log(`  background:    recording (write + fsync) ${fmt(background)} per step, overlapping the next step`);
  console.log(`step, settle detection on (default):       ${fmt(withSettle.total)} ms   settle ${fmt(withSettle.settle)}`);
  console.log(`step with settle/capture: ${(withSettle.total / capture).toFixed(2)}`);
  console.log(`replay, ${REPLAY_STEPS} recorded steps at full speed:    ${fmt(replayPerStep)} ms per step, replay/capture: ${(replayPerStep / capture).toFixed(2)}`);
  console.log(`rss after step 100: ${mb(rss[100] ?? 0).toFixed(1)} MB, after step ${LONG_RUN}: ${mb(rss[LONG_RUN] ?? 0).toFixed(1)} MB`);
  console.log(`rss growth step100→step1000: ${mb((rss[LONG_RUN] ?? 0) - (rss[100] ?? 0)).toFixed(1)} MB`);
  console.log(`overhead/capture: ${(overhead / capture).toFixed(2)}`);
} finally {
  await operator.close();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
