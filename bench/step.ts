/**
 * npm run bench:step — what one step of the loop costs beyond its screenshot, against a scripted
 * model that answers at once, on a private 1280x800 Xvfb:
 *
 *   - capture alone (observe → JPEG), the baseline every ratio is measured against, taken before
 *     and after the run it is compared with (and in each round of the families');
 *   - a 50-step run with the settle wait off: the step's parts, which run on the critical path
 *     (observe, model, act, settle) and which in the background (recording, fsync);
 *   - the same with settle detection on (the default);
 *   - a 1,000-step run: resident memory after step 100 and after step 1,000;
 *   - a 200-step recorded session replayed at full speed on an unchanged screen;
 *   - the same 50-step run in each model family (its own request builder, client, protocol and
 *     parser against its own scripted server: OpenAI-compatible for tools, ui-tars, openai-cua and
 *     pyautogui, the Anthropic Messages API through its SDK for anthropic, the Gemini API through
 *     Google's SDK for gemini), one family after the other, in turns;
 *   - a 4-action batch per step against one action per step (tools family, settle detection on,
 *     so the batch guard looks at the screen before each pointed action after the first): the
 *     time per action, the batch's against the single action's.
 *
 * The last two lines are `rss growth step100→step1000: N MB` and `overhead/capture: X` with its
 * target (at most 1.5): the tools family's step, settle wait off, against the captures of the same
 * rounds (taken in turns, so a machine getting busier weighs on both alike).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentEvent, AgentEventOf } from '../src/shared/events';
import { ModelSettingsSchema } from '../src/shared/settings';
import { DeviceAgent } from '../src/main/agent/device-agent';
import { DEFAULT_SETTLE } from '../src/main/run/settle';
import { createVisionModel, type VisionModel } from '../src/main/model';
import { toGeminiGrid } from '../src/main/model/families';
import { createDesktopOperator } from '../src/main/operator/desktop-operator';
import { createIsolatedOperator } from '../src/main/operator/isolated-operator';
import { Replayer } from '../src/main/replay/replayer';
import { FileRunRecorder } from '../src/main/store/run-recorder';
import { readSession } from '../src/main/store/session-reader';
import { startScriptedServer, type ScriptedReply } from '../test/fixtures/openai-server';
import { startGeminiServer, type GeminiScript } from '../test/fixtures/gemini-server';
import { computer, startAnthropicServer, type MessageScript } from '../test/fixtures/anthropic-server';
import { fmt, fmtSigned, median, timeRuns, timeRunsInTurn } from './lib/stats';
import { startPrivateXvfb } from './lib/xvfb';
import { RunLifecycle } from '../src/main/run/lifecycle';

const STEPS = 50;
const LONG_RUN = 1000;
const REPLAY_STEPS = 200;
const FAMILY_ROUNDS = 10;
const FAMILY_RUN = 15;
const BATCH = 4;
const BATCH_ROUNDS = 8;
const BATCH_RUN = 10;

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
/** The step's action: a pointer move, back and forth, until the run's length; then the end. */
function nextMove(): { x: number; y: number } | null {
  served++;
  return served > runLength ? null : { x: 200 + (served % 2) * 400, y: 300 };
}
// The pointer is not in the screenshots: moving it leaves the screen unchanged, so nothing here
// waits for the screen and the repetition guard sees a new action each step. Replies answer at once;
// a 1,000-step run's server must not keep every request (each carries screenshots).
const IMAGE = { width: 1280, height: 800 };
const openAiReply: Record<'tools' | 'ui-tars' | 'openai-cua' | 'pyautogui', () => ScriptedReply> = {
  tools: () => {
    const move = nextMove();
    const action = move === null ? { type: 'finished', summary: 'done' } : { type: 'mouse_move', ...move };
    return { toolCalls: [{ name: 'computer', arguments: { actions: [action] } }], usage: { prompt_tokens: 1000, completion_tokens: 20 } };
  },
  'ui-tars': () => {
    const move = nextMove();
    return { text: move === null ? "Thought: Done.\nAction: finished(content='done')" : `Thought: Move.\nAction: hover(start_box='(${move.x},${move.y})')` };
  },
  pyautogui: () => {
    const move = nextMove();
    return { text: move === null ? 'The pointer went back and forth.\nDONE' : `Move.\n\`\`\`python\npyautogui.moveTo(${move.x}, ${move.y})\n\`\`\`` };
  },
  'openai-cua': () => {
    const move = nextMove();
    if (move === null) return { responseOutput: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }] };
    return { responseOutput: [{ type: 'computer_call', id: `cu_${served}`, call_id: `call_${served}`, action: { type: 'move', ...move }, pending_safety_checks: [], status: 'completed' }] };
  },
};
/** The tools family answering with a batch of moves per step: BATCH actions, each a move of its own. */
function batchReply(): ScriptedReply {
  const moves: Array<{ x: number; y: number }> = [];
  for (let index = 0; index < BATCH; index++) {
    const move = nextMove();
    if (move === null) break;
    moves.push(move);
  }
  const actions = moves.length === 0 ? [{ type: 'finished', summary: 'done' }] : moves.map((move) => ({ type: 'mouse_move', ...move }));
  return { toolCalls: [{ name: 'computer', arguments: { actions } }], usage: { prompt_tokens: 1000, completion_tokens: 20 } };
}

function geminiReply(): GeminiScript {
  const move = nextMove();
  return move === null ? { text: 'done' } : { calls: [{ name: 'hover_at', args: toGeminiGrid(move, IMAGE) }], usage: { prompt: 1000, candidates: 20 } };
}

function anthropicReply(): MessageScript {
  const move = nextMove();
  return move === null ? { content: [{ type: 'text', text: 'done' }] } : { content: [computer('mouse_move', { coordinate: [move.x, move.y] })], usage: { input_tokens: 1000, output_tokens: 20 } };
}

const FAMILIES = ['tools', 'ui-tars', 'openai-cua', 'pyautogui', 'anthropic', 'gemini'] as const;
type BenchFamily = (typeof FAMILIES)[number];
const servers: Array<{ close(): Promise<void> }> = [];
const models = {} as Record<BenchFamily, VisionModel>;
for (const family of FAMILIES) {
  if (family === 'anthropic') {
    const server = await startAnthropicServer({ keepRequests: false, replies: anthropicReply });
    servers.push(server);
    models.anthropic = createVisionModel(ModelSettingsSchema.parse({ baseUrl: server.url, model: 'claude-sonnet-4-6', family }));
  } else if (family === 'gemini') {
    const server = await startGeminiServer({ keepRequests: false, replies: geminiReply });
    servers.push(server);
    models.gemini = createVisionModel(ModelSettingsSchema.parse({ baseUrl: server.url, model: 'gemini-2.5-computer-use-preview-10-2025', family, apiKey: 'bench' }));
  } else {
    const server = await startScriptedServer({ keepRequests: false, replies: openAiReply[family] });
    servers.push(server);
    const model = { tools: 'gpt-4.1', 'ui-tars': 'ui-tars-1.5-7b', 'openai-cua': 'computer-use-preview', pyautogui: 'agent-pyautogui' }[family];
    models[family] = createVisionModel(ModelSettingsSchema.parse({ baseUrl: server.url, model, family }), { platform: 'linux' });
  }
}
const model = models.tools;
const batchServer = await startScriptedServer({ keepRequests: false, replies: batchReply });
servers.push(batchServer);
const batchModel = createVisionModel(ModelSettingsSchema.parse({ baseUrl: batchServer.url, model: 'gpt-4.1', family: 'tools' }));

/** Flush durations (write + fsync): the recording's work, off the critical path. */
const flushes: number[] = [];

async function run(steps: number, settleTimeoutMs: number, onStep?: (event: AgentEventOf<'step-finished'>) => void, vision: VisionModel = model, actionsPerStep = 1): Promise<{ events: AgentEvent[]; sessionId: string }> {
  served = 0;
  runLength = steps * actionsPerStep;
  const recorder = await FileRunRecorder.create(dataDir, { task: 'bench', model: vision.model, family: vision.family });
  const flush = recorder.flush.bind(recorder);
  recorder.flush = async () => {
    const started = performance.now();
    await flush();
    flushes.push(performance.now() - started);
  };
  const agent = new DeviceAgent(
    { model: vision },
    { limits: { maxSteps: steps + 1, maxCostUsd: null, maxConsecutiveErrors: 3, maxParseRetries: 3 }, settle: { ...DEFAULT_SETTLE, timeoutMs: settleTimeoutMs } },
  );
  const events: AgentEvent[] = [];
  for await (const event of agent.run('move the mouse back and forth', new RunLifecycle({ recorder, operator, askUser: async () => null, now: preciseNow }, new AbortController().signal))) {
    if (event.type === 'step-finished') onStep?.(event);
    // A long run keeps only what the figures need, as a real consumer would.
    if (steps <= STEPS || event.type === 'step-finished' || event.type === 'run-finished') events.push(event);
  }
  // Figures of a run that did not go the whole way would mislead.
  const end = events.at(-1);
  if (end?.type !== 'run-finished' || end.status !== 'finished') {
    throw new Error(`the ${vision.family} run of ${steps} steps ended ${end?.type === 'run-finished' ? `${end.status} at step ${end.steps}: ${end.reason}` : 'without run-finished'}`);
  }
  return { events, sessionId: recorder.sessionId };
}

function stepFigures(events: readonly AgentEvent[]) {
  const finished = events.filter((event): event is AgentEventOf<'step-finished'> => event.type === 'step-finished' && event.timings?.act !== undefined);
  const part = (name: 'observe' | 'model' | 'act' | 'settle') => median(finished.map((event) => event.timings?.[name] ?? 0));
  const total = median(finished.map((event) => event.durationMs));
  return { total, observe: part('observe'), model: part('model'), act: part('act'), settle: part('settle') };
}

/**
 * The runs' clock: epoch milliseconds, as Date.now gives them, but to the microsecond. A step is
 * about 20 ms and the captures it is compared with are timed with performance.now(): whole
 * milliseconds would move the ratio by 0.07 at a time.
 */
const preciseNow = () => performance.timeOrigin + performance.now();

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
  const captureInProcess = median(inProcessTimes);
  flushes.length = 0;
  const noSettle = stepFigures((await run(STEPS, 0)).events);
  const background = median(flushes);
  // The baseline on both sides of the run it is compared with: a machine shared with others gets
  // busier or quieter meanwhile, and weighs on both alike.
  throughHost.push(...(await timeRuns(STEPS, observeWith(operator), 0)));
  const capture = median(throughHost);
  const withSettle = stepFigures((await run(STEPS, DEFAULT_SETTLE.timeoutMs)).events);

  // Each family's step, settle wait off: short runs taking turns (ten rounds), so a machine getting
  // busier weighs on each alike; the figures are medians over all of a family's steps.
  const familySteps = Object.fromEntries(FAMILIES.map((family) => [family, [] as AgentEvent[]])) as Record<BenchFamily, AgentEvent[]>;
  for (const family of FAMILIES) await run(3, 0, undefined, models[family]);
  // Captures in each round too: the families' ratios are against a capture of the same minutes.
  const familyCaptures: number[] = [];
  for (let round = 0; round < FAMILY_ROUNDS; round++) {
    familyCaptures.push(...(await timeRuns(FAMILY_RUN, observeWith(operator), 0)));
    for (const family of FAMILIES) familySteps[family].push(...(await run(FAMILY_RUN, 0, undefined, models[family])).events);
  }
  const byFamily = FAMILIES.map((family) => ({ family, ...stepFigures(familySteps[family]) }));
  const familyCapture = median(familyCaptures);

  // One action per step against a batch of BATCH per step, settle detection on (the batch guard
  // looks before each pointed action after the first), in turns.
  const single: AgentEvent[] = [];
  const batched: AgentEvent[] = [];
  await run(3, DEFAULT_SETTLE.timeoutMs, undefined, batchModel, BATCH);
  for (let round = 0; round < BATCH_ROUNDS; round++) {
    single.push(...(await run(BATCH_RUN, DEFAULT_SETTLE.timeoutMs)).events);
    batched.push(...(await run(BATCH_RUN, DEFAULT_SETTLE.timeoutMs, undefined, batchModel, BATCH)).events);
  }
  const perAction = { single: stepFigures(single).total, batch: stepFigures(batched).total / BATCH };

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
  const replayer = new Replayer();
  const replayStarted = performance.now();
  let replayEnd: AgentEventOf<'run-finished'> | undefined;
  for await (const event of replayer.replay(session.session, { policy: 'stop', speed: 0, settle: { ...DEFAULT_SETTLE, timeoutMs: 0 } }, new RunLifecycle({ recorder: replayRecorder, operator, askUser: async () => null }, new AbortController().signal))) {
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
  console.log(`step per family, settle wait off (${FAMILY_ROUNDS} x ${FAMILY_RUN} steps each, in turns with ${FAMILY_RUN} captures a round: ${fmt(familyCapture)} ms):`);
  const tools = byFamily[0];
  for (const figures of byFamily) {
    console.log(
      `  ${figures.family.padEnd(11)} step ${fmt(figures.total)} ms (step/capture ${(figures.total / familyCapture).toFixed(2)}, vs tools ${(figures.total / (tools?.total ?? figures.total)).toFixed(2)})   model (request + HTTP + parse) ${fmt(figures.model)} ms (vs tools ${(figures.model / (tools?.model ?? figures.model)).toFixed(2)})`,
    );
  }
  console.log(`a ${BATCH}-action batch per step against one action per step, settle detection on (${BATCH_ROUNDS} x ${BATCH_RUN} steps each, in turns):`);
  console.log(`  per action: single ${fmt(perAction.single)} ms (overhead/capture ${(perAction.single / capture).toFixed(2)}), batch ${fmt(perAction.batch)} ms (overhead/capture ${(perAction.batch / capture).toFixed(2)})`);
  console.log(`  batch per-action overhead ÷ single-action overhead: ${(perAction.batch / perAction.single).toFixed(2)} (target ≤ 1)`);
  console.log(`rss after step 100: ${mb(rss[100] ?? 0).toFixed(1)} MB, after step ${LONG_RUN}: ${mb(rss[LONG_RUN] ?? 0).toFixed(1)} MB`);
  console.log(`rss growth step100→step1000: ${mb((rss[LONG_RUN] ?? 0) - (rss[100] ?? 0)).toFixed(1)} MB`);
  // The target's figure from the rounds taken in turns (the tools family, settle wait off): one run
  // between two sets of captures swings with whatever else the machine does in those seconds.
  const ratio = (tools?.total ?? overhead) / familyCapture;
  console.log(
    `overhead/capture: ${ratio.toFixed(2)} (target ≤ 1.5: ${ratio <= 1.5 ? 'met' : 'not met'}; a step against a capture alone, medians of ${FAMILY_ROUNDS} rounds in turns; the single ${STEPS}-step run: ${(overhead / capture).toFixed(2)})`,
  );
} finally {
  await operator.close();
  await Promise.all(servers.map((server) => server.close()));
  rmSync(dataDir, { recursive: true, force: true });
}
