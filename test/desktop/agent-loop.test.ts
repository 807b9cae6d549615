/**
 * The DeviceAgent loop in process, with real parts: the real DesktopOperator on the X display, a
 * real model (createVisionModel + the real `openai` client) talking to the scripted
 * OpenAI-compatible server, and a real FileRunRecorder in a temporary data dir.
 *
 * Each test drives one way a run can go (model faults, bad replies, a model that repeats itself,
 * stop, pause, questions, safety checks, confirmations, secrets, limits) and checks where the
 * effects land: the streamed events, the session on disk (every event, the final status), what
 * the server received (feedback in the next request), and the pointer on the real screen.
 *
 * No window is opened: actions target the bare root window (left clicks, pointer moves, keys),
 * where nothing on screen changes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventOf, AgentEventType } from '../../src/shared/events';
import { ModelSettingsSchema, type ModelSettingsInput, type PriceTable } from '../../src/shared/settings';
import { createVisionModel } from '../../src/main/model';
import { createDesktopOperator, type DesktopOperator } from '../../src/main/operator/desktop-operator';
import { FileRunRecorder, type SessionMeta } from '../../src/main/store/run-recorder';
import { DeviceAgent, type AskRequest } from '../../src/main/agent/device-agent';
import type { AgentOptions } from '../../src/main/agent/settings';
import { MASK } from '../../src/main/run/masking';
import type { ConfirmationRule } from '../../src/main/run/confirmation';
import { PauseGate } from '../../src/main/run/pause-gate';
import type { RunMemoryDeps } from '../../src/main/agent/run-memory';
import { createTextModel, TieredMemory } from '../../src/main/memory';
import { startScriptedServer, type RecordedRequest, type ReplyScript, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { failureScreenshot, requireDisplay, runX, xdotool } from '../fixtures/desktop/display';
import { launchXterm, type Xterm } from '../fixtures/desktop/xterm';
import { runContext } from '../fixtures/run-context';

const display = requireDisplay();
// nut-js reads DISPLAY when it loads: set it before the operator is created.
process.env.DISPLAY = display;

/** The 1280x800 screen is sent as 960x600 images: model pixels ≠ screen pixels (× 4/3). */
const IMAGE = { width: 960, height: 600 };
/** The screen pixel under the centre of an image pixel. */
const toScreen = (p: { x: number; y: number }) => ({ x: Math.floor(((p.x + 0.5) * 1280) / IMAGE.width), y: Math.floor(((p.y + 0.5) * 800) / IMAGE.height) });
/** A spot on the bare root window (in image pixels): clicking there changes nothing on screen. */
const BARE = { x: 675, y: 525 }; // screen (900, 700)

const FAST_SETTLE = { intervalMs: 50, timeoutMs: 500, threshold: 0.003 };

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-agent-loop-'));
let operator: DesktopOperator;
const servers: ScriptedServer[] = [];

beforeAll(async () => {
  const loaded = await createDesktopOperator({ capture: { maxWidth: IMAGE.width } });
  if (!loaded.ok) throw new Error(loaded.message);
  operator = loaded.operator;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeEach(async ({ task, onTestFailed }) => {
  onTestFailed(async () => {
    await failureScreenshot(display, `agent-loop-${task.name}`);
  });
  // Away from the fail-safe corner and from where the tests point.
  await xdotool(display, ['mousemove', '640', '120']);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

// ---------------------------------------------------------------------------------------------
// Replies

type Act = Record<string, unknown>;

/** A `tools` reply: the thought as text, the actions in a `computer` tool call. */
function toolCall(actions: Act[], thought = 'I act.', extra: Partial<ScriptedReply> = {}): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }], ...extra } as ScriptedReply;
}

const finished = (summary = 'All done.') => toolCall([{ type: 'finished', summary }], 'The task is done.');

// ---------------------------------------------------------------------------------------------
// Running the agent

interface RunSpec {
  replies: ReplyScript;
  model?: Partial<ModelSettingsInput>;
  agent?: Omit<Partial<AgentOptions>, 'limits'> & { limits?: Partial<AgentOptions['limits']> };
  /** The run's confirmation rules (the settings' agent.confirmationRules). */
  confirmationRules?: ConfirmationRule[];
  askUser?: (request: AskRequest, signal: AbortSignal) => Promise<string | null>;
  prices?: PriceTable;
  /** The memory model, blackboard and conversation of the run. */
  memory?: RunMemoryDeps;
  /** Sees each event as it streams (to pause, resume or stop the run). */
  onEvent?: (event: AgentEvent, control: { gate: PauseGate; stop: AbortController; server: ScriptedServer }) => void;
}

interface RunOutcome {
  events: AgentEvent[];
  end: AgentEventOf<'run-finished'>;
  server: ScriptedServer;
  sessionDir: string;
  meta: SessionMeta;
  recorded: AgentEvent[];
}

async function runAgent(spec: RunSpec): Promise<RunOutcome> {
  const server = await startScriptedServer({ replies: spec.replies });
  servers.push(server);
  const settings = ModelSettingsSchema.parse({
    baseUrl: server.url,
    model: 'scripted-model',
    family: 'tools',
    timeoutMs: 5000,
    maxRetries: 0,
    retryBaseDelayMs: 10,
    ...spec.model,
  });
  const model = createVisionModel(settings, spec.prices ? { prices: spec.prices } : {});
  const dataDir = mkdtempSync(join(scratch, 'data-'));
  const task = 'Do the scripted task';
  const recorder = await FileRunRecorder.create(dataDir, { task, model: settings.model, family: settings.family });
  const stop = new AbortController();
  const gate = new PauseGate();
  const life = runContext({ operator, recorder, gate, ...(spec.askUser ? { askUser: spec.askUser } : {}), ...(spec.confirmationRules ? { confirmationRules: spec.confirmationRules } : {}) }, stop.signal);
  const agent = new DeviceAgent(
    { model, ...(spec.memory ? { memory: spec.memory } : {}) },
    {
      settle: FAST_SETTLE,
      capture: { maxWidth: IMAGE.width, format: 'jpeg', quality: 70 },
      ...spec.agent,
      limits: { maxSteps: 10, maxCostUsd: null, maxConsecutiveErrors: 3, maxParseRetries: 3, ...spec.agent?.limits },
    },
  );
  const events: AgentEvent[] = [];
  for await (const event of agent.run(task, life)) {
    events.push(event);
    spec.onEvent?.(event, { gate, stop, server });
  }
  const end = events.at(-1);
  if (end?.type !== 'run-finished') throw new Error(`the run did not end with run-finished: ${JSON.stringify(events.map((e) => e.type))}`);

  const sessionDir = recorder.directory;
  const jsonl = readFileSync(join(sessionDir, 'events.jsonl'), 'utf8');
  // Whole lines only: the last one ends with a newline, every one parses.
  if (!jsonl.endsWith('\n')) throw new Error('events.jsonl ends in the middle of a line');
  const recorded = jsonl
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as AgentEvent);
  const meta = JSON.parse(readFileSync(join(sessionDir, 'session.json'), 'utf8')) as SessionMeta;
  return { events, end, server, sessionDir, meta, recorded };
}

/** The session on disk holds every event streamed, in order, and session.json the final state. */
function expectCompleteRecord(run: RunOutcome): void {
  const { events, recorded, meta, end } = run;
  // The record holds every event streamed, with `seq` 1, 2, 3... (thought deltas masked again
  // once the step's secrets are known: their text may differ).
  const withoutDeltaText = (list: readonly AgentEvent[]) => list.map((event) => (event.type === 'thought-delta' ? { ...event, delta: '' } : event));
  expect(withoutDeltaText(recorded)).toEqual(JSON.parse(JSON.stringify(withoutDeltaText(events))));
  expect(recorded.map((event) => event.seq)).toEqual(recorded.map((_, index) => index + 1));
  expect(events.filter((e) => e.type === 'run-finished')).toHaveLength(1);
  expect(events[0]?.type).toBe('run-started');
  // Every step that started also finished, in the record.
  const started = ofType(recorded, 'step-started').map((e) => e.step);
  const stepsDone = ofType(recorded, 'step-finished').map((e) => e.step);
  expect(stepsDone).toEqual(started);
  expect(started).toEqual(Array.from({ length: end.steps }, (_, i) => i + 1));
  // Each observation's screenshot is on disk.
  for (const observation of ofType(recorded, 'observation')) {
    expect(statSync(join(run.sessionDir, observation.screenshot.path)).size).toBeGreaterThan(0);
  }
  expect(meta).toMatchObject({
    id: end.runId,
    status: end.status,
    reason: end.reason,
    steps: end.steps,
    endedAt: end.at,
    costUsd: end.usage.costUsd,
  });
}

function ofType<T extends AgentEventType>(events: readonly AgentEvent[], type: T): AgentEventOf<T>[] {
  return events.filter((event): event is AgentEventOf<T> => event.type === type);
}

/** The text of the last user message of a chat request (feedback and the screenshot label). */
function lastUserText(request: RecordedRequest | undefined): string {
  const messages = (request?.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const user = messages.filter((message) => message.role === 'user').at(-1);
  if (!user) return '';
  if (typeof user.content === 'string') return user.content;
  return (user.content as Array<{ type: string; text?: string }>)
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/** Where the pointer is on the real display (synchronous, so a scripted reply function can ask too). */
function pointer(): { x: number; y: number } {
  const out = execFileSync('xdotool', ['getmouselocation'], { env: { ...process.env, DISPLAY: display }, encoding: 'utf8', timeout: 5000 });
  const match = /x:(\d+) y:(\d+)/.exec(out);
  if (!match) throw new Error(`unexpected xdotool output: ${out}`);
  return { x: Number(match[1]), y: Number(match[2]) };
}

/** Every file below `dir`, screenshots included. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------

describe('model faults', () => {
  it('waits out a 429 with Retry-After: 1 and finishes on the retry', async () => {
    const arrivals: number[] = [];
    const replies: ScriptedReply[] = [{ status: 429, headers: { 'retry-after': '1' } }, finished()];
    const run = await runAgent({
      model: { maxRetries: 1 },
      replies: (request) => {
        arrivals.push(performance.now());
        return replies[request.index];
      },
    });

    expect(run.end).toMatchObject({ status: 'finished', steps: 1, summary: 'All done.' });
    const [prediction] = ofType(run.events, 'prediction');
    expect(prediction?.attempts).toBe(2);
    expect(ofType(run.events, 'model-error')).toEqual([]);
    expect(run.server.requests).toHaveLength(2);
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(950);
    // The streamed thought comes from the attempt that answered.
    const deltas = ofType(run.events, 'thought-delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((delta) => delta.attempt === 2)).toBe(true);
    expectCompleteRecord(run);
  });

  it('fails after three 500s in a row, each a counted model error', async () => {
    const run = await runAgent({ replies: () => ({ status: 500 }) });

    const errors = ofType(run.events, 'model-error');
    expect(errors.map((e) => [e.step, e.kind, e.consecutive, e.limit])).toEqual([
      [1, 'http', 1, 3],
      [2, 'http', 2, 3],
      [3, 'http', 3, 3],
    ]);
    expect(errors[0]?.message).toMatch(/HTTP 500/);
    expect(run.end).toMatchObject({ status: 'failed', steps: 3 });
    expect(run.end.reason).toMatch(/^3 errors in a row; last: HTTP 500 from /);
    expect(run.server.requests).toHaveLength(3);
    expect(run.meta.status).toBe('failed');
    expectCompleteRecord(run);
  });

  it('retries a stream cut midway inside the model call (maxRetries 1)', async () => {
    const move = { type: 'mouse_move', x: 300, y: 150 };
    const run = await runAgent({
      model: { maxRetries: 1 },
      replies: [toolCall([move], 'I move the pointer to the left.', { dropAfterChunks: 4 }), toolCall([move], 'I move the pointer to the left.'), finished()],
    });

    expect(run.end).toMatchObject({ status: 'finished', steps: 2 });
    expect(ofType(run.events, 'model-error')).toEqual([]);
    const [prediction] = ofType(run.events, 'prediction');
    expect(prediction).toMatchObject({ step: 1, attempts: 2, thought: 'I move the pointer to the left.' });
    // The cut attempt streamed some thought, then the retry streamed it again under attempt 2.
    const step1 = ofType(run.events, 'thought-delta').filter((d) => d.step === 1);
    expect(step1.some((d) => d.attempt === 1)).toBe(true);
    expect(step1.filter((d) => d.attempt === 2).map((d) => d.delta).join('')).toBe('I move the pointer to the left.');
    expect(pointer()).toEqual(toScreen(move));
    expect(run.server.requests).toHaveLength(3);
    expectCompleteRecord(run);
  });

  it('counts a stream cut midway as one network error and goes on (maxRetries 0)', async () => {
    const move = { type: 'mouse_move', x: 330, y: 160 };
    const run = await runAgent({
      replies: [toolCall([move], 'I move the pointer.', { dropAfterChunks: 4 }), toolCall([move], 'I move the pointer.'), finished()],
    });

    const errors = ofType(run.events, 'model-error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ step: 1, kind: 'network', consecutive: 1, limit: 3 });
    expect(run.end).toMatchObject({ status: 'finished', steps: 3 });
    expect(ofType(run.events, 'prediction').map((p) => p.step)).toEqual([2, 3]);
    expect(pointer()).toEqual(toScreen(move));
    expectCompleteRecord(run);
  });

  it('reports a timeout as a model error, then goes on with the next reply', async () => {
    const run = await runAgent({
      // Long enough for a busy machine to answer the second request in time.
      model: { timeoutMs: 3000, maxRetries: 0 },
      replies: [{ ...finished('too late'), delayMs: 600_000 }, finished('in time')],
    });

    const errors = ofType(run.events, 'model-error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ step: 1, kind: 'timeout', consecutive: 1 });
    expect(errors[0]?.message).toMatch(/did not answer within 3 s/);
    const started = ofType(run.events, 'step-started')[0]!;
    // The timeout ended the call (the reply would have come ten minutes later, after the test's own timeout).
    expect(errors[0]!.at - started.at).toBeGreaterThanOrEqual(2950);
    expect(run.server.requests).toHaveLength(2);
    expect(run.end).toMatchObject({ status: 'finished', steps: 2, summary: 'in time' });
    expectCompleteRecord(run);
  });
});

describe('replies that need reading', () => {
  it('reads fenced JSON with prose around it, and a JSON object with prose after it, and runs them', async () => {
    const first = { x: 300, y: 150 };
    const second = { x: 450, y: 300 };
    const script: ScriptedReply[] = [
      { text: `I see an empty desktop. I move the pointer first.\n\`\`\`json\n{"actions": [{"type": "mouse_move", "x": ${first.x}, "y": ${first.y}}]}\n\`\`\`\nThat should wake it up.` },
      { text: `{"type": "mouse_move", "x": ${second.x}, "y": ${second.y}} I moved the pointer to the middle.` },
      finished(),
    ];
    // Where the pointer is when the model is asked again, i.e. after the last step's action.
    const seen: Array<{ x: number; y: number }> = [];
    const run = await runAgent({
      replies: (request) => {
        if (request.index > 0) seen.push(pointer());
        return script[request.index];
      },
    });

    expect(run.end).toMatchObject({ status: 'finished', steps: 3 });
    expect(ofType(run.events, 'model-error')).toEqual([]);
    const predictions = ofType(run.events, 'prediction');
    expect(predictions[0]).toMatchObject({ actions: [{ type: 'mouse_move', ...first }] });
    expect(predictions[0]?.thought).toMatch(/^I see an empty desktop\. I move the pointer first\.\s+That should wake it up\.$/);
    expect(predictions[1]).toMatchObject({ actions: [{ type: 'mouse_move', ...second }], thought: 'I moved the pointer to the middle.' });
    const results = ofType(run.events, 'action-result');
    expect(results.map((r) => [r.step, r.result.ok])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(seen).toEqual([toScreen(first), toScreen(second)]);
    expectCompleteRecord(run);
  });

  it('sends each parse error back to the model as feedback: outside the image, unknown action, empty reply', async () => {
    const run = await runAgent({
      replies: [
        toolCall([{ type: 'click', x: 1000, y: 100 }], 'I click the far right.'),
        toolCall([{ type: 'teleport', x: 10, y: 10 }], 'I teleport.'),
        { text: '' },
        finished(),
      ],
    });

    const errors = ofType(run.events, 'model-error');
    expect(errors.map((e) => [e.step, e.kind, e.consecutive, e.limit])).toEqual([
      [1, 'parse', 1, 3],
      [2, 'parse', 2, 3],
      [3, 'parse', 3, 3],
    ]);
    expect(errors.map((e) => e.message)).toEqual(['coordinates (1000, 100) outside the 960x600 image', 'unknown action "teleport"', 'no action in the reply']);
    // The next request carries the previous parse error, and the first carries none.
    const { requests } = run.server;
    expect(requests).toHaveLength(4);
    expect(lastUserText(requests[0])).not.toMatch(/could not be used/);
    errors.forEach((error, i) => {
      expect(lastUserText(requests[i + 1])).toContain(`Your last reply could not be used: ${error.message}.`);
    });
    // Nothing was executed.
    expect(ofType(run.events, 'action')).toEqual([]);
    expect(ofType(run.events, 'action-result')).toEqual([]);
    expect(run.end).toMatchObject({ status: 'finished', steps: 4 });
    expectCompleteRecord(run);
  });

  it('fails once a reply could not be parsed 4 times in a row', async () => {
    const run = await runAgent({ replies: () => ({ text: 'Hmm, I am not sure what to do here.' }) });

    const errors = ofType(run.events, 'model-error');
    expect(errors.map((e) => [e.kind, e.consecutive])).toEqual([
      ['parse', 1],
      ['parse', 2],
      ['parse', 3],
      ['parse', 4],
    ]);
    expect(run.server.requests).toHaveLength(4);
    expect(run.end).toMatchObject({ status: 'failed', steps: 4 });
    expect(run.end.reason).toMatch(/could not be parsed 4 times in a row; last error: no action in the reply/);
    expectCompleteRecord(run);
  });
});

describe('a model that repeats itself', () => {
  it('gets a note on the 3rd identical click on an unchanged screen and ends stuck at the 4th', async () => {
    // Precondition: no app window that a click could change.
    const windows = await runX(display, 'xdotool', ['search', '--onlyvisible', '--class', 'chromium|xterm|XTerm']).catch(() => '');
    expect(windows.trim(), 'a Chromium or xterm window is open on the display').toBe('');

    const click = { type: 'click', ...BARE };
    const run = await runAgent({ replies: () => toolCall([click], 'I click the empty desktop.') });

    expect(run.end).toMatchObject({ status: 'stuck', steps: 4 });
    expect(run.end.reason).toMatch(/same action 4 times in a row on an unchanged screen/);
    // Only three clicks reached the screen, all where the model said.
    const results = ofType(run.events, 'action-result');
    expect(results.map((r) => [r.step, r.result.ok])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    expect(results.every((r) => r.result.ok && r.result.points?.[0]?.x === 900 && r.result.points[0].y === 700)).toBe(true);
    expect(pointer()).toEqual({ x: 900, y: 700 });

    const notes = ofType(run.events, 'note');
    expect(notes.map((n) => n.step)).toEqual([3, 4]);
    const note = notes[0]!.message;
    expect(note).toMatch(/same action 3 times in a row and the screen did not change/);
    // The note came before the 3rd click, and went to the model with the 4th request only.
    const thirdClick = run.events.findIndex((e) => e.type === 'action' && e.step === 3);
    expect(run.events.indexOf(notes[0]!)).toBeLessThan(thirdClick);
    const { requests } = run.server;
    expect(requests).toHaveLength(4);
    expect(lastUserText(requests[3])).toContain(note);
    expect(requests.slice(0, 3).some((r) => r.rawBody.includes('the screen did not change'))).toBe(false);
    expectCompleteRecord(run);
  });
});

describe('stop and pause', () => {
  it('stops during a model call and ends aborted, without waiting for the reply', async () => {
    let requestsAtStop = -1;
    let stoppedAt = 0;
    const run = await runAgent({
      // The reply would come long after the test's own timeout: only the stop can end this run.
      replies: [{ ...finished(), delayMs: 600_000 }],
      onEvent: (event, { stop, server }) => {
        if (event.type !== 'step-started') return;
        void (async () => {
          // The call is in flight once its request has reached the server (however long that takes).
          while (server.requests.length === 0) await sleep(25);
          requestsAtStop = server.requests.length;
          stoppedAt = Date.now();
          stop.abort();
        })();
      },
    });

    expect(requestsAtStop).toBe(1);
    expect(run.end).toMatchObject({ status: 'aborted', steps: 1 });
    expect(run.end.reason).toMatch(/during a model call/);
    expect(run.end.at).toBeGreaterThanOrEqual(stoppedAt);
    expect(ofType(run.events, 'prediction')).toEqual([]);
    expect(run.meta.status).toBe('aborted');
    expectCompleteRecord(run);
  });

  it('pauses at the step boundary and resumes', async () => {
    let resumedAt = 0;
    const run = await runAgent({
      replies: [toolCall([{ type: 'mouse_move', x: 200, y: 200 }]), toolCall([{ type: 'mouse_move', x: 250, y: 220 }]), finished()],
      onEvent: (event, { gate }) => {
        if (event.type === 'step-finished' && event.step === 1) gate.pause();
        if (event.type === 'paused') {
          setTimeout(() => {
            resumedAt = Date.now();
            gate.resume();
          }, 300);
        }
      },
    });

    expect(run.end).toMatchObject({ status: 'finished', steps: 3 });
    const types = run.events.map((e) => e.type);
    const paused = types.indexOf('paused');
    const resumed = types.indexOf('resumed');
    expect(paused).toBeGreaterThan(types.indexOf('step-finished'));
    expect(resumed).toBeGreaterThan(paused);
    expect(run.events[paused]).toMatchObject({ type: 'paused', step: 1 });
    expect(run.events[resumed]).toMatchObject({ type: 'resumed', step: 1 });
    // Nothing ran while paused; step 2 started only after the resume.
    expect(types.slice(paused + 1, resumed)).toEqual([]);
    expect(run.events[resumed]!.at - run.events[paused]!.at).toBeGreaterThanOrEqual(295);
    const step2 = ofType(run.events, 'step-started').find((e) => e.step === 2)!;
    expect(step2.at).toBeGreaterThanOrEqual(resumedAt);
    expect(run.server.requests).toHaveLength(3);
    expectCompleteRecord(run);
  });
});

describe('asking the user', () => {
  it('passes the answer to an ask_user question to the model, then finishes', async () => {
    const questions: AskRequest[] = [];
    const run = await runAgent({
      replies: [toolCall([{ type: 'ask_user', question: 'Which file?' }], 'I need to know the file.'), finished()],
      askUser: async (request) => {
        questions.push(request);
        return 'notes.txt';
      },
    });

    expect(ofType(run.events, 'ask-user')).toMatchObject([{ step: 1, kind: 'question', question: 'Which file?' }]);
    expect(ofType(run.events, 'user-answer')).toMatchObject([{ step: 1, kind: 'question', answer: 'notes.txt' }]);
    expect(questions).toHaveLength(1);
    expect(lastUserText(run.server.requests[1])).toContain('The user answered your question "Which file?": notes.txt');
    expect(run.server.requests[0]!.rawBody).not.toContain('notes.txt');
    expect(ofType(run.events, 'action-result')).toEqual([]);
    expect(run.end).toMatchObject({ status: 'finished', steps: 2 });
    expectCompleteRecord(run);
  });

  it('fails with the question in the reason when nobody answers', async () => {
    const run = await runAgent({
      replies: [toolCall([{ type: 'ask_user', question: 'Which file?' }], 'I need to know the file.'), finished()],
      askUser: async () => null,
    });

    expect(ofType(run.events, 'user-answer')).toMatchObject([{ kind: 'question', answer: null }]);
    expect(run.end).toMatchObject({ status: 'failed', steps: 1 });
    expect(run.end.reason).toContain('"Which file?"');
    expect(run.server.requests).toHaveLength(1);
    expectCompleteRecord(run);
  });
});

describe('openai-cua safety checks', () => {
  const check = { id: 'cu_sc_1', code: 'malicious_instructions', message: 'Check this' };
  const replies = (): ScriptedReply[] => [
    {
      responseOutput: [
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'I click the desktop.' }] },
        {
          type: 'computer_call',
          id: 'cu_1',
          call_id: 'call_1',
          action: { type: 'click', button: 'left', ...BARE },
          pending_safety_checks: [check],
          status: 'completed',
        },
      ],
    },
    { responseOutput: [{ type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Clicked.' }] }] },
  ];
  const cua = { family: 'openai-cua', model: 'computer-use-preview' } as const;

  it('runs the flagged click after a yes and acknowledges the check in the next request', async () => {
    const run = await runAgent({ model: cua, replies: replies(), askUser: async (request) => (request.kind === 'safety_check' ? 'yes' : null) });

    const [ask] = ofType(run.events, 'ask-user');
    expect(ask).toMatchObject({ step: 1, kind: 'safety_check', action: { type: 'click', ...BARE, confirm: true } });
    expect(ask?.question).toContain('Check this');
    const results = ofType(run.events, 'action-result');
    expect(results).toHaveLength(1);
    expect(results[0]?.result).toMatchObject({ ok: true, points: [{ x: 900, y: 700 }] });
    expect(pointer()).toEqual({ x: 900, y: 700 });

    const next = run.server.requests[1]!.body;
    expect(next.previous_response_id).toBe('resp_0');
    expect(next.input).toEqual([
      expect.objectContaining({ type: 'computer_call_output', call_id: 'call_1', acknowledged_safety_checks: [check] }),
    ]);
    expect(run.end).toMatchObject({ status: 'finished', steps: 2, summary: 'Clicked.' });
    expectCompleteRecord(run);
  });

  it('acknowledges the accepted check again when the request after the click timed out', async () => {
    const [flagged, done] = replies();
    const run = await runAgent({
      // Long enough for a busy machine to answer the first and third requests in time.
      model: { ...cua, timeoutMs: 3000, maxRetries: 0 },
      replies: [flagged!, { ...done!, delayMs: 600_000 }, done!],
      askUser: async () => 'yes',
    });

    expect(ofType(run.events, 'model-error')).toMatchObject([{ step: 2, kind: 'timeout' }]);
    const { requests } = run.server;
    expect(requests).toHaveLength(3);
    // Both answers to call_1 carry the acknowledgement: the server never saw the first one.
    for (const request of requests.slice(1)) {
      expect(request.body.previous_response_id).toBe('resp_0');
      expect(request.body.input).toEqual([
        expect.objectContaining({ type: 'computer_call_output', call_id: 'call_1', acknowledged_safety_checks: [check] }),
      ]);
    }
    expect(run.end).toMatchObject({ status: 'finished', steps: 3, summary: 'Clicked.' });
    expectCompleteRecord(run);
  });

  it('ends refused after a no, without running the click', async () => {
    const run = await runAgent({ model: cua, replies: replies(), askUser: async () => 'no' });

    expect(ofType(run.events, 'user-answer')).toMatchObject([{ kind: 'safety_check', answer: 'no' }]);
    expect(ofType(run.events, 'action')).toEqual([]);
    expect(ofType(run.events, 'action-result')).toEqual([]);
    expect(pointer()).toEqual({ x: 640, y: 120 });
    expect(run.end).toMatchObject({ status: 'refused', steps: 1 });
    expect(run.end.reason).toContain('Check this');
    expect(run.server.requests).toHaveLength(1);
    expectCompleteRecord(run);
  });
});

describe('confirmation rules', () => {
  const rules = [{ keys: ['enter'], reason: 'Enter submits' }];

  it('asks before pressing Enter and never presses it after a no', async () => {
    const run = await runAgent({
      confirmationRules: rules,
      replies: [toolCall([{ type: 'hotkey', keys: ['enter'] }], 'I submit.'), finished()],
      askUser: async () => 'no',
    });

    const [ask] = ofType(run.events, 'ask-user');
    expect(ask).toMatchObject({ step: 1, kind: 'confirmation', action: { type: 'hotkey', keys: ['enter'] } });
    expect(ask?.question).toMatch(/^Enter submits\. Allow hotkey/);
    expect(ofType(run.events, 'action')).toEqual([]);
    expect(ofType(run.events, 'action-result')).toEqual([]);
    expect(run.end).toMatchObject({ status: 'refused', steps: 1 });
    expect(run.end.reason).toContain('Enter submits');
    expect(run.meta.status).toBe('refused');
    expectCompleteRecord(run);
  });

  it('presses Enter after a yes and goes on', async () => {
    const run = await runAgent({
      confirmationRules: rules,
      replies: [toolCall([{ type: 'hotkey', keys: ['enter'] }], 'I submit.'), finished()],
      askUser: async () => 'yes',
    });

    expect(ofType(run.events, 'action-result')).toMatchObject([{ step: 1, result: { ok: true, detail: 'pressed enter' } }]);
    expect(run.end).toMatchObject({ status: 'finished', steps: 2 });
    expectCompleteRecord(run);
  });
});

describe('secrets', () => {
  it('types a password but keeps it out of the session files and the next request', async () => {
    const secret = 'hunter2-Secret!';
    const run = await runAgent({
      replies: [toolCall([{ type: 'type', text: secret }], 'I type the password into the password field.'), finished()],
    });

    expect(run.end).toMatchObject({ status: 'finished', steps: 2 });
    const [result] = ofType(run.events, 'action-result');
    expect(result?.result.ok).toBe(true);
    expect(result?.action).toEqual({ type: 'type', text: MASK });
    expect(ofType(run.events, 'prediction')[0]?.actions).toEqual([{ type: 'type', text: MASK }]);
    expect(JSON.stringify(run.events)).not.toContain(secret);
    // The streamed thought, joined, holds no secret either (deltas are split across events).
    expect(ofType(run.events, 'thought-delta').map((d) => d.delta).join('')).not.toContain(secret);

    // Every file of the session, screenshots included.
    const files = filesUnder(run.sessionDir);
    expect(files.map((f) => f.slice(run.sessionDir.length))).toEqual(expect.arrayContaining(['/events.jsonl', '/session.json']));
    for (const file of files) expect(readFileSync(file).includes(secret), file).toBe(false);

    // The model is reminded of the step with the mask, not the secret.
    const next = run.server.requests[1]!.rawBody;
    expect(next).not.toContain(secret);
    expect(next).toContain(MASK);
    expect(run.server.requests[0]!.rawBody).not.toContain(secret);
    expectCompleteRecord(run);
  });
  it('keeps a password the model spells out in its thought out of the session files', async () => {
    const secret = 'correct-Horse-9!';
    const run = await runAgent({
      replies: [toolCall([{ type: 'type', text: secret }], `I type ${secret} into the password field.`), finished()],
    });

    expect(run.end).toMatchObject({ status: 'finished', steps: 2 });
    expect(ofType(run.events, 'prediction')[0]?.thought).toBe(`I type ${MASK} into the password field.`);
    const files = filesUnder(run.sessionDir);
    for (const file of files) expect(readFileSync(file).includes(secret), file).toBe(false);
    expect(run.server.requests[1]!.rawBody).not.toContain(secret);
    expectCompleteRecord(run);
  });
});

describe('limits', () => {
  const wait = () => toolCall([{ type: 'wait', ms: 10 }], 'I wait a moment.');

  it('ends at maxSteps', async () => {
    const run = await runAgent({ agent: { limits: { maxSteps: 2 } }, replies: () => wait() });

    expect(run.end).toMatchObject({ status: 'limit', steps: 2, reason: 'reached the limit of 2 steps' });
    expect(run.server.requests).toHaveLength(2);
    expect(ofType(run.events, 'action-result')).toHaveLength(2);
    expectCompleteRecord(run);
  });

  it('ends at maxCostUsd with the cost in the reason', async () => {
    // 1000 input tokens at $10 per million: $0.01 a call.
    const prices: PriceTable = { 'scripted-model': { inputPerMTok: 10, outputPerMTok: 0 } };
    const run = await runAgent({
      agent: { limits: { maxCostUsd: 0.015 } },
      prices,
      replies: () => ({ ...wait(), usage: { prompt_tokens: 1000, completion_tokens: 0 } }) as ScriptedReply,
    });

    expect(run.end).toMatchObject({ status: 'limit', steps: 2 });
    expect(run.end.usage.costUsd).toBeCloseTo(0.02, 10);
    expect(run.end.reason).toContain('$0.015');
    expect(run.end.reason).toContain('$0.0200');
    expect(ofType(run.events, 'step-finished').map((e) => e.costUsd)).toEqual([expect.closeTo(0.01, 10), expect.closeTo(0.02, 10)]);
    expect(ofType(run.events, 'prediction').map((p) => p.usage.costUsd)).toEqual([expect.closeTo(0.01, 10), expect.closeTo(0.01, 10)]);
    expect(run.server.requests).toHaveLength(2);
    expect(run.meta.costUsd).toBeCloseTo(0.02, 10);
    expectCompleteRecord(run);
  });
});

describe('a confirmation rule on the focused window title', () => {
  // Last in the file: the repetition tests above need a screen with no windows.
  let xterm: Xterm | undefined;
  beforeAll(async () => {
    xterm = await launchXterm({ display, title: 'Delete everything', geometry: '60x10+200+200' });
  });
  afterAll(async () => {
    await xterm?.close();
  });

  const rules = [{ types: ['click'], windowTitleContains: 'delete', reason: 'A Delete window is in front' }];

  it('asks before a click while a window titled "...Delete..." has the focus, and a no ends the run', async () => {
    await xterm!.focus();
    const asked: AskRequest[] = [];
    const run = await runAgent({
      confirmationRules: rules,
      replies: [toolCall([{ type: 'click', ...BARE }], 'I click.'), finished()],
      askUser: async (request) => {
        asked.push(request);
        return 'no';
      },
    });
    expect(asked).toMatchObject([{ kind: 'confirmation', question: expect.stringMatching(/A Delete window is in front/) }]);
    expect(ofType(run.events, 'action-result')).toEqual([]);
    expect(run.end).toMatchObject({ status: 'refused' });
    expectCompleteRecord(run);
  });

  it('does not ask when another window has the focus', async () => {
    await runX(display, 'xdotool', ['mousemove', '640', '120']);
    const other = await launchXterm({ display, title: 'Notes', geometry: '60x10+600+300' });
    try {
      await other.focus();
      const run = await runAgent({
        confirmationRules: rules,
        replies: [toolCall([{ type: 'mouse_move', ...BARE }], 'I move.'), finished()],
        askUser: async () => {
          throw new Error('nothing should be asked');
        },
      });
      expect(ofType(run.events, 'ask-user')).toEqual([]);
      expect(run.end).toMatchObject({ status: 'finished' });
    } finally {
      await other.close();
    }
  });
});

describe('long-term memory', () => {
  it('answers the model\'s query_long_term_memory with the memory manager\'s synthesis, in the next request', async () => {
    // The memory manager's own server: it is asked about the hint and answers in its own words.
    const manager = await startScriptedServer({ replies: [{ text: 'The user keeps invoices in the folder ~/Paperwork/2026.' }] });
    servers.push(manager);
    const memoryModel = createTextModel(ModelSettingsSchema.parse({ baseUrl: manager.url, model: 'memory-model', family: 'tools', maxRetries: 0 }));
    const conversation = new TieredMemory({}, { model: memoryModel });
    conversation.restore({ context: [], shortTerm: [], longTerm: ['Invoices: saved under ~/Paperwork/2026, one PDF per client.'] });

    const run = await runAgent({
      memory: { model: memoryModel, conversation },
      replies: [toolCall([{ type: 'query_long_term_memory', hint: 'where the user keeps invoices' }], 'I recall where invoices go.'), finished()],
    });

    expect(run.end).toMatchObject({ status: 'finished', steps: 2 });
    // The manager was asked about the hint, with the long-term memory to answer from.
    const asked = JSON.stringify(manager.requests.at(-1)!.body);
    expect(asked).toContain('where the user keeps invoices');
    expect(asked).toContain('~/Paperwork/2026, one PDF per client');
    // Its answer (not a copy of the memory) reached the agent's model with the next screenshot.
    const next = run.server.requests[1]!.rawBody;
    expect(next).toContain('The user keeps invoices in the folder ~/Paperwork/2026.');
    expect(ofType(run.events, 'note').map((note) => note.message)).toEqual([expect.stringContaining('long-term memory on "where the user keeps invoices"')]);
    // Nothing was done on the desktop for it.
    expect(ofType(run.events, 'action-result')).toEqual([]);
    expectCompleteRecord(run);
  });
});
