/**
 * The Replayer on a real recorded session (session-fixture: FileRunRecorder, real JPEGs) and the
 * fakes: which recorded actions reach the operator, in what frame, and how each policy ends a
 * replay whose screen no longer matches the recording.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action } from '../../../src/shared/actions';
import type { ActionResult } from '../../../src/shared/action-result';
import type { AgentEvent } from '../../../src/shared/events';
import type { PendingQuestion } from '../../../src/main/run/ask';
import { MASK } from '../../../src/main/run/masking';
import { Replayer, type ReplayOptions } from '../../../src/main/replay/replayer';
import { readSession, type SessionRecord } from '../../../src/main/store/session-reader';
import { recordFixtureSession, type FixtureStep } from '../../fixtures/session-fixture';
import { FAST_SETTLE, type Answers } from './agent-harness';
import { collect, FakeOperator, MemoryRecorder, ofType, oneToN, recordingAsker, reply, runFinished, ScriptedModel, textOf, type Screen } from '../../fixtures/fakes';
import { runContext } from '../../fixtures/run-context';

const usage = { inputTokens: 1000, outputTokens: 20, costUsd: 0.001 };
const ok = (type: Action['type']): ActionResult => ({ ok: true, type, durationMs: 5 });
const BLUE = { r: 40, g: 60, b: 120 };
const GREEN = { r: 50, g: 130, b: 60 };
const BROWN = { r: 120, g: 80, b: 40 };
const RED = { r: 200, g: 30, b: 30 };

function step(n: number, background: Screen['background'], actions: Action[], thought = `step ${n}`): FixtureStep {
  const results = actions.map((action) => (['finished', 'ask_user', 'fail'].includes(action.type) ? undefined : ok(action.type)));
  return { step: n, thought, actions, results, usage, background };
}

const CLICK: Action = { type: 'click', x: 120, y: 90, button: 'left' };
const DRAG: Action = { type: 'drag', x: 60, y: 300, toX: 300, toY: 120, button: 'left' };
const TYPE: Action = { type: 'type', text: 'hello' };

/** Click; drag and type; done. */
const PLAIN = [step(1, BLUE, [CLICK]), step(2, GREEN, [DRAG, TYPE]), step(3, BROWN, [{ type: 'finished', summary: 'Saved.' }])];
/** Click; type a password (recorded masked). */
const WITH_SECRET = [step(1, BLUE, [CLICK]), step(2, GREEN, [{ type: 'type', text: MASK, secret: true }], 'Type the password.')];
/** A click the model asked to confirm. */
const WITH_CONFIRM = [step(1, BLUE, [{ ...CLICK, confirm: true }])];

let scratch: string;
const sessions = new Map<FixtureStep[], SessionRecord>();

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mnemo-replayer-'));
  for (const steps of [PLAIN, WITH_SECRET, WITH_CONFIRM]) {
    const recorded = await recordFixtureSession(join(scratch, String(sessions.size)), { steps, missingStep: null });
    const read = await readSession(recorded.dataDir, recorded.sessionId);
    if (!read.ok) throw new Error(read.message);
    sessions.set(steps, read.session);
  }
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface ReplaySetup {
  /** The screens the live display shows, one per capture. */
  screens: Array<Screen['background']>;
  answers?: Answers;
  model?: ScriptedModel;
  recorder?: MemoryRecorder;
  /** Scripts the operator (results) before the replay starts. */
  operator?: (operator: FakeOperator) => void;
  onEvent?: (event: AgentEvent, stop: () => void) => void;
}

/** The live display: a second monitor to the right of the first, so the mapped frame shows it. */
const LIVE_BOUNDS = { x: 1280, y: 0, width: 1280, height: 800 };

async function replay(steps: FixtureStep[], options: Omit<ReplayOptions, 'speed' | 'settle'>, setup: ReplaySetup) {
  const session = sessions.get(steps);
  if (!session) throw new Error('replay() takes one of the recorded step lists');
  const operator = new FakeOperator({ bounds: LIVE_BOUNDS }).scriptObservations(...setup.screens.map((background) => ({ background })));
  setup.operator?.(operator);
  const recorder = setup.recorder ?? new MemoryRecorder({ sessionId: 'replay-session' });
  const questions: PendingQuestion[] = [];
  const answers = setup.answers ?? [];
  const controller = new AbortController();
  const replayer = new Replayer(setup.model ? { model: setup.model } : {});
  const life = runContext({ operator, recorder, askUser: recordingAsker(questions, answers) }, controller.signal);
  const events = await collect(replayer.replay(session, { speed: 0, settle: FAST_SETTLE, ...options }, life), (event) => setup.onEvent?.(event, () => controller.abort()));
  return { session, operator, recorder, questions, events, end: runFinished(events) };
}

describe('replaying on an unchanged screen', () => {
  it('executes the recorded actions in order, in the recorded image’s pixels mapped onto the live display, and finishes', async () => {
    const run = await replay(PLAIN, { policy: 'stop' }, { screens: [BLUE, GREEN, BROWN] });
    expect(run.end).toMatchObject({ status: 'finished', reason: `replayed 2 recorded steps of session ${run.session.meta.id}`, summary: 'Saved the file.', steps: 3 });
    expect(run.operator.executed.map((entry) => entry.action)).toEqual([CLICK, DRAG, TYPE]);
    for (const { frame } of run.operator.executed) {
      expect(frame.bounds).toEqual(LIVE_BOUNDS);
      expect(frame.image).toEqual({ width: 640, height: 400, format: 'jpeg' });
    }
    // Captured at the recorded image size.
    expect(run.operator.observed[0]).toMatchObject({ maxWidth: 640, maxHeight: 400, format: 'jpeg' });
    expect(ofType(run.events, 'run-started')).toMatchObject([{ replayOf: run.session.meta.id }]);
    expect(run.events.map((event) => event.seq)).toEqual(oneToN(run.events.length));
    expect(run.recorder.events.map((event) => event.seq)).toEqual(oneToN(run.events.length));
  });
});

describe('a diverged screen', () => {
  it('under stop: fails before the step acts, naming the step and the difference', async () => {
    const run = await replay(PLAIN, { policy: 'stop' }, { screens: [RED] });
    expect(run.end.status).toBe('failed');
    expect(run.end.reason).toMatch(/^step 1 \(click at \(120, 90\)\) diverged from the recording: .*the replay stopped before acting$/);
    expect(run.operator.executed).toEqual([]);
  });

  it('under ask, yes: the recorded actions run anyway', async () => {
    const run = await replay(PLAIN, { policy: 'ask' }, { screens: [RED, GREEN, BROWN], answers: ['yes'] });
    expect(run.end.status).toBe('finished');
    expect(run.questions).toMatchObject([{ kind: 'confirmation', question: expect.stringMatching(/^Step 1 \(click at \(120, 90\)\) differs from the recording: .* skip it \(skip\), or stop \(no\)\?$/) }]);
    expect(run.operator.executed.map((entry) => entry.action)).toEqual([CLICK, DRAG, TYPE]);
  });

  it('under ask, skip: that step is left out and the replay goes on', async () => {
    const run = await replay(PLAIN, { policy: 'ask' }, { screens: [RED, GREEN, BROWN], answers: ['skip'] });
    expect(run.end.status).toBe('finished');
    expect(ofType(run.events, 'note').map((note) => note.message)).toContain('step 1 skipped');
    expect(run.operator.executed.map((entry) => entry.action)).toEqual([DRAG, TYPE]);
  });

  it.each(['no', 'not sure'])('under ask, any other answer (%s): refused before the step acts', async (answer) => {
    const run = await replay(PLAIN, { policy: 'ask' }, { screens: [RED], answers: [answer] });
    expect(run.end.status).toBe('refused');
    expect(run.end.reason).toMatch(/^the user stopped the replay at step 1, which diverged from the recording: /);
    expect(run.operator.executed).toEqual([]);
  });

  it('under reground without a model: fails at once with the reason', async () => {
    const run = await replay(PLAIN, { policy: 'reground' }, { screens: [RED] });
    expect(run.end).toMatchObject({ status: 'failed', reason: 'the reground policy needs a model (--base-url, --model, --family)' });
    expect(run.operator.observed).toEqual([]);
    expect(run.operator.executed).toEqual([]);
  });

  it('under reground with a model: the model’s action runs on the live screen', async () => {
    const model = new ScriptedModel([reply([{ type: 'click', x: 300, y: 200 }], { thought: 'The button moved down.' })]);
    const run = await replay(PLAIN, { policy: 'reground' }, { screens: [RED, GREEN, BROWN], model });
    expect(run.end.status).toBe('finished');
    expect(run.end.reason).toBe(`replayed 2 recorded steps of session ${run.session.meta.id}, 1 of them found again with the model`);
    expect(run.operator.executed.map((entry) => entry.action)).toEqual([{ type: 'click', x: 300, y: 200, button: 'left' }, DRAG, TYPE]);
    expect(run.operator.executed[0]?.frame.bounds).toEqual(LIVE_BOUNDS);
    expect(model.calls[0]?.input.history[0]?.actions).toEqual([CLICK]);
    expect(ofType(run.events, 'note').map((note) => note.message)).toContain('step 1 found again by the model: click at (300, 200)');
  });
});

describe('a masked secret', () => {
  it('under stop: fails at that step, before it acts', async () => {
    const run = await replay(WITH_SECRET, { policy: 'stop' }, { screens: [BLUE, GREEN] });
    expect(run.end).toMatchObject({
      status: 'failed',
      reason: `step 2 types a secret that the recording masks (${MASK}): it cannot be replayed; replay with the ask policy to type it yourself`,
    });
    expect(run.operator.executed.map((entry) => entry.action)).toEqual([CLICK]);
  });

  it('under ask: the text the user gives is typed, and recorded masked', async () => {
    const run = await replay(WITH_SECRET, { policy: 'ask' }, { screens: [BLUE, GREEN], answers: ['open-sesame'] });
    expect(run.end.status).toBe('finished');
    expect(run.questions).toMatchObject([{ kind: 'question', question: expect.stringMatching(/^Step 2 types a secret/) }]);
    expect(run.operator.executed.map((entry) => entry.action)).toEqual([CLICK, { type: 'type', text: 'open-sesame', secret: true }]);
    expect(ofType(run.recorder.events, 'user-answer')).toMatchObject([{ answer: MASK }]);
    expect(ofType(run.recorder.events, 'action').map((event) => event.action)).toContainEqual({ type: 'type', text: MASK, secret: true });
    expect(textOf(run.recorder.events)).not.toContain('open-sesame');
    expect(textOf(run.events)).not.toContain('open-sesame');
  });

  it('under ask: an error message quoting the given text is recorded masked', async () => {
    const run = await replay(WITH_SECRET, { policy: 'ask' }, {
      screens: [BLUE, GREEN],
      answers: ['open-sesame'],
      operator: (operator) => operator.scriptResults(ok('click'), { ok: false, type: 'type', error: { kind: 'input_failed', message: 'typing "open-sesame" failed half-way' } }),
    });
    expect(run.end).toMatchObject({ status: 'failed', reason: `step 2: type (a masked secret) failed (input_failed): typing "${MASK}" failed half-way` });
    expect(textOf(run.recorder.events)).not.toContain('open-sesame');
  });

  it('under ask, no text: refused before the step acts', async () => {
    const run = await replay(WITH_SECRET, { policy: 'ask' }, { screens: [BLUE, GREEN], answers: [''] });
    expect(run.end).toMatchObject({ status: 'refused', reason: 'step 2 types a masked secret and no text was given for it' });
    expect(run.operator.executed.map((entry) => entry.action)).toEqual([CLICK]);
  });
});

describe('other endings', () => {
  it('stopped during the replay: aborted, nothing more runs', async () => {
    const run = await replay(PLAIN, { policy: 'stop' }, {
      screens: [BLUE, GREEN, BROWN],
      onEvent: (event, stop) => {
        if (event.type === 'action-result') stop();
      },
    });
    expect(run.end).toMatchObject({ status: 'aborted', reason: 'stopped by the user' });
    expect(run.operator.executed.map((entry) => entry.action)).toEqual([CLICK]);
  });

  it('a recorded action marked confirm asks again; no: refused, not executed', async () => {
    const run = await replay(WITH_CONFIRM, { policy: 'stop' }, { screens: [BLUE], answers: ['no'] });
    expect(run.end).toMatchObject({ status: 'refused', reason: 'the user refused the click at (120, 90) of step 1' });
    expect(run.questions).toMatchObject([{ kind: 'confirmation', action: { type: 'click', confirm: true } }]);
    expect(run.operator.executed).toEqual([]);
  });

  it('a recorded action marked confirm, yes: executed', async () => {
    const run = await replay(WITH_CONFIRM, { policy: 'stop' }, { screens: [BLUE], answers: ['yes'] });
    expect(run.end.status).toBe('finished');
    expect(run.operator.executed).toHaveLength(1);
  });

  it('the replay’s record cannot be written: it stops before acting', async () => {
    const recorder = new MemoryRecorder({ failFrom: (write) => write.kind === 'event' && write.event.type === 'observation' });
    const run = await replay(PLAIN, { policy: 'stop' }, { screens: [BLUE, GREEN, BROWN], recorder });
    expect(run.end.status).toBe('failed');
    expect(run.end.reason).toMatch(/^the session could not be recorded, so the run stopped before acting: /);
    expect(run.operator.executed).toEqual([]);
  });
});
