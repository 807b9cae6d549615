/**
 * `mnemo replay` end to end on the real display: a form-filling run is recorded with `mnemo run`
 * (the real CLI, a scripted OpenAI-compatible model, real nut-js), then replayed by the real CLI
 * process without the model, and the effects are checked on the instrumented page: its field
 * values, the clicks it received, and the replay session on disk. Then the form is moved on the page
 * (the page's `shift` command): the replay must notice before it clicks, stop with a message that
 * names the step and the difference, ask under `ask`, and find the moved targets with the (scripted)
 * model under `reground`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computerToolDefinition } from '../../src/main/model/families';
import { assessDivergence, decodeGrey, DEFAULT_DIVERGENCE_THRESHOLDS, summarizeMeasurements } from '../../src/main/replay/divergence';
import { planReplay, targetsOf } from '../../src/main/replay/plan';
import { readSession } from '../../src/main/store/session-reader';
import { MASK } from '../../src/main/run/masking';
import { decodeDataUrl, imagesIn, startScriptedServer, type ScriptedReply } from '../fixtures/openai-server';
import type { PageState } from '../fixtures/desktop/event-server';
import { runX } from '../fixtures/desktop/display';
import { screenshotOnFailure, useKioskPage } from '../fixtures/desktop/kiosk-page';
import { centreOf, shiftRect, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { runMnemoJson, type CliEvents } from '../fixtures/mnemo-cli';

/** Recorded as 960x600 images of the 1280x800 screen: recorded coordinates are not screen pixels. */
const IMAGE = { width: 960, height: 600 };
const toImage = (p: { x: number; y: number }) => ({ x: Math.round((p.x * IMAGE.width) / 1280), y: Math.round((p.y * IMAGE.height) / 800) });
/** Moves the form off every recorded target: 80 px left, 140 px down (field, area and button all move clear of where they were). */
const SHIFT = { dx: -80, dy: 140 };
/** Moves the form a little: the elements still cover the recorded points. */
const SMALL_SHIFT = { dx: 0, dy: 10 };

const NAME = 'Ada Lovelace';
const NOTES = 'Analytical Engine\nNote G: Bernoulli numbers!';

type Event = { type: string; [key: string]: unknown };


const scratch = mkdtempSync(join(tmpdir(), 'mnemo-replay-'));
/** The page, and the memory model's own server: its summaries never take a scripted agent reply. */
const page = useKioskPage({ memoryModel: true });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function mnemo(args: string[], options: { input?: string; onEvent?: (event: Event, kill: () => void) => void } = {}): Promise<CliEvents> {
  return runMnemoJson(args, {
    env: { DISPLAY: page.display, OPENAI_API_KEY: '' },
    ...(options.input !== undefined ? { input: options.input } : {}),
    onEvent: (event, child) => options.onEvent?.(event as unknown as Event, () => child.kill('SIGINT')),
  });
}

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

function newDataDir(): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ image: { maxWidth: IMAGE.width }, memory: { model: { baseUrl: page.memoryModel.url } } }));
  return dir;
}

/** Records a session with `mnemo run` against a model that gives `replies`; throws if the run fails. */
async function recordRun(dataDir: string, task: string, replies: ScriptedReply[]): Promise<void> {
  const model = await startScriptedServer({ replies });
  try {
    const run = await mnemo(['run', task, '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive']);
    if (run.code !== 0) throw new Error(`the recording failed (exit ${run.code}): ${run.stderr}`);
  } finally {
    await model.close();
  }
}

/** Session folders (the sessions folder holds other files too, e.g. an index). */
function sessionIds(dataDir: string): string[] {
  return readdirSync(join(dataDir, 'sessions'))
    .filter((name) => /^\d{8}-\d{6}-[0-9a-f]{6}$/.test(name))
    .sort();
}

function readMeta(dataDir: string, id: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(dataDir, 'sessions', id, 'session.json'), 'utf8')) as Record<string, unknown>;
}

function readEvents(dataDir: string, id: string): Event[] {
  return readFileSync(join(dataDir, 'sessions', id, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event);
}

/** The replay's own session id: every event carries it. */
const sessionOf = (outcome: CliEvents) => outcome.events[0]!.runId as string;

const stepStarts = (events: Event[]) => events.filter((e) => e.type === 'step-started').map((e) => ({ step: e.step as number, at: e.at as number }));

/** The page as every recording and every replay starts from: form in place or moved, empty, focused, pointer parked. */
async function preparePage(shift = { dx: 0, dy: 0 }): Promise<PageState> {
  await runX(page.display, 'xdotool', ['mousemove', '640', '700']);
  await page.kiosk.focus();
  await page.server.shift(shift.dx, shift.dy);
  const state = await page.server.reset();
  page.server.clear();
  return state;
}

/** Clicks, presses and focus changes the page received, for messages. */
const clicks = () => page.server.events().filter((e) => e.type === 'mousedown' || e.type === 'mouseup' || e.type === 'click');

describe('replaying a recorded form-filling run', () => {
  let dataDir: string;
  let recordedId: string;
  let recordedEvents: Event[];

  beforeAll(async () => {
    dataDir = newDataDir();
    await preparePage();
    const field = toImage(centreOf(TARGET_LAYOUT.field));
    const area = toImage(centreOf(TARGET_LAYOUT.area));
    const submit = toImage(centreOf(TARGET_LAYOUT['btn-center']));
    await recordRun(dataDir, 'Fill in the form with Ada Lovelace and submit it', [
      toolCall([{ type: 'click', ...field }, { type: 'type', text: NAME }], 'I click the name field and type the name.'),
      toolCall([{ type: 'click', ...area }], 'Now the notes box.'),
      toolCall([{ type: 'type', text: NOTES }], 'I type the notes.'),
      toolCall([{ type: 'click', ...submit }], 'I submit the form.'),
      toolCall([{ type: 'finished', summary: 'The form is filled and submitted.' }], 'Done.'),
    ]);
    // The recording really filled the form.
    const state = await page.server.state();
    if (state.field.value !== NAME || state.area.value !== NOTES) throw new Error(`the recording did not fill the form: ${JSON.stringify([state.field.value, state.area.value])}`);
    [recordedId] = sessionIds(dataDir) as [string];
    recordedEvents = readEvents(dataDir, recordedId);
  }, 120_000);

  screenshotOnFailure(page, 'replay');

  it('reproduces the end state on an unchanged page, at the recorded pace divided by --speed, and records itself as a linked session', async () => {
    await preparePage();
    const speed = 0.5;
    const replay = await mnemo(['replay', recordedId, '--data-dir', dataDir, '--speed', String(speed), '--json', '--non-interactive']);
    expect(replay.code, replay.stderr).toBe(0);

    // The effects, where they land.
    const state = await page.server.state();
    expect(state.field.value).toBe(NAME);
    expect(state.area.value).toBe(NOTES);
    await page.server.waitForType('click', (e) => e.target === 'btn-center');
    expect(clicks().filter((e) => e.type === 'click').map((e) => (e as { target: string }).target)).toEqual(['field', 'area', 'btn-center']);

    // The events: every recorded step, no divergence, finished with the recorded summary.
    const end = replay.events.at(-1);
    expect(end).toMatchObject({ type: 'run-finished', status: 'finished', summary: 'The form is filled and submitted.', steps: 5 });
    expect(end!.reason).toMatch(new RegExp(`replayed 4 recorded steps of session ${recordedId}`));
    expect(replay.events.filter((e) => e.type === 'note')).toEqual([]);
    expect(replay.events.filter((e) => e.type === 'action').map((e) => (e.action as { type: string }).type)).toEqual(['click', 'type', 'click', 'type', 'click']);

    // The replay session on disk, linked to the recording.
    const replayId = sessionOf(replay);
    expect(readMeta(dataDir, replayId)).toMatchObject({ status: 'finished', replayOf: recordedId, steps: 5 });
    expect(readEvents(dataDir, replayId).map((e) => e.type)).toEqual(replay.events.map((e) => e.type));
    expect(readdirSync(join(dataDir, 'sessions', replayId, 'screenshots')).filter((f) => f.endsWith('.jpg'))).toHaveLength(5);

    // Pace: each step started no sooner than the recorded gap divided by the speed.
    const recorded = stepStarts(recordedEvents);
    const replayed = stepStarts(replay.events);
    expect(replayed.map((s) => s.step)).toEqual(recorded.map((s) => s.step));
    for (let i = 1; i < recorded.length; i++) {
      const recordedGap = recorded[i]!.at - recorded[i - 1]!.at;
      expect(replayed[i]!.at - replayed[i - 1]!.at).toBeGreaterThanOrEqual(recordedGap / speed - 5);
    }

    // How close an unchanged replay is to its recording, measured on the saved screenshots: well
    // under the thresholds (printed, to tune them by). All of the screen difference is the page's
    // event log, whose lines differ (sequence numbers, interleaving); the patches are identical.
    const original = await readSession(dataDir, recordedId);
    const copy = await readSession(dataDir, replayId);
    if (!original.ok || !copy.ok) throw new Error('sessions unreadable');
    for (const step of planReplay(original.session)) {
      const live = copy.session.steps.find((s) => s.step === step.step)!;
      const report = assessDivergence(
        await decodeGrey(readFileSync(join(original.session.directory, step.screenshot!.path))),
        await decodeGrey(readFileSync(join(copy.session.directory, live.screenshot!.path))),
        targetsOf(step.actions),
      );
      console.log(`[replay] unchanged page, step ${step.step}: ${summarizeMeasurements(report)}`);
      expect(report.screen.mean).toBeLessThan(DEFAULT_DIVERGENCE_THRESHOLDS.screenMean / 2);
      expect(report.screen.changed).toBeLessThan(DEFAULT_DIVERGENCE_THRESHOLDS.screenChanged / 2);
      for (const patch of report.patches) {
        expect(patch.mean).toBeLessThan(DEFAULT_DIVERGENCE_THRESHOLDS.patchMean / 4);
        expect(patch.changed).toBeLessThan(DEFAULT_DIVERGENCE_THRESHOLDS.patchChanged / 4);
      }
    }
  });

  it('stops before the first click when the form has moved, naming the step, the target and the difference', async () => {
    const moved = await preparePage(SHIFT);
    expect(moved.rects.field).toEqual(shiftRect(TARGET_LAYOUT.field, SHIFT.dx, SHIFT.dy));
    const replay = await mnemo(['replay', recordedId, '--data-dir', dataDir, '--speed', 'max', '--json']);
    expect(replay.code, replay.stderr).toBe(3);

    const field = toImage(centreOf(TARGET_LAYOUT.field));
    const message = new RegExp(
      `step 1 \\(click at \\(${field.x}, ${field.y}\\), then type "Ada Lovelace"\\) diverged from the recording: around the click at \\(${field.x}, ${field.y}\\) the screen differs from the recording \\(mean difference [\\d.]+% > [\\d.]+%`,
    );
    expect(replay.stderr).toMatch(message);
    const end = replay.events.at(-1)!;
    expect(end).toMatchObject({ type: 'run-finished', status: 'failed', steps: 1 });
    expect(end.reason).toMatch(message);
    expect(end.reason).toMatch(/the replay stopped before acting$/);
    // The measured differences are in the record, as a note of step 1.
    const note = replay.events.find((e) => e.type === 'note');
    expect(note).toMatchObject({ step: 1, message: expect.stringMatching(/^step 1 diverges: .*\[screen [\d.]+% mean, [\d.]+% changed; click at/) });
    console.log(`[replay] form moved by (${SHIFT.dx}, ${SHIFT.dy}): ${note!.message as string}`);

    // Nothing was done on the page: no action, no click anywhere, the field still empty.
    expect(replay.events.filter((e) => e.type === 'action')).toEqual([]);
    await page.server.settle(300);
    expect(clicks()).toEqual([]);
    expect((await page.server.state()).field.value).toBe('');
    expect(readMeta(dataDir, sessionOf(replay))).toMatchObject({ status: 'failed', replayOf: recordedId });
  });

  it('with --policy reground and the model, finds the moved targets and completes the form', async () => {
    const moved = await preparePage(SHIFT);
    const field = toImage(centreOf(moved.rects.field));
    const area = toImage(centreOf(moved.rects.area));
    const submit = toImage(centreOf(moved.rects['btn-center']));
    const model = await startScriptedServer({
      replies: [
        toolCall([{ type: 'click', ...field }, { type: 'type', text: NAME }], 'The name field is now lower and to the left; I click it and type the name.'),
        toolCall([{ type: 'click', ...area }], 'The notes box moved down.'),
        toolCall([{ type: 'click', ...submit }], 'The centre button moved too.'),
      ],
    });
    try {
      const replay = await mnemo(['replay', recordedId, '--policy', 'reground', '--speed', 'max', '--data-dir', dataDir, '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--json']);
      expect(replay.code, replay.stderr).toBe(0);

      const state = await page.server.state();
      expect(state.field.value).toBe(NAME);
      expect(state.area.value).toBe(NOTES);
      await page.server.waitForType('click', (e) => e.target === 'btn-center');
      // Every click landed on the moved elements, none on the empty page where they had been.
      expect(clicks().filter((e) => e.type === 'click').map((e) => (e as { target: string }).target)).toEqual(['field', 'area', 'btn-center']);

      expect(replay.events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 5, reason: expect.stringMatching(/3 of them found again with the model/) });
      const regrounded = replay.events.filter((e) => e.type === 'note' && /found again by the model/.test(e.message as string)).map((e) => e.step);
      expect(regrounded).toEqual([1, 2, 4]);
      // The replay session records the model's actions (new coordinates) and its usage.
      const predictions = replay.events.filter((e) => e.type === 'prediction');
      expect(predictions.find((e) => e.step === 1)).toMatchObject({ actions: [{ type: 'click', ...field }, { type: 'type', text: NAME }], usage: { inputTokens: 1200 } });

      // What the model was given: the recorded screenshot and actions, the live screenshot, the difference.
      expect(model.requests).toHaveLength(3);
      for (const request of model.requests) {
        expect(request.body.tools).toEqual([computerToolDefinition(IMAGE)]);
        const images = imagesIn(request.body);
        expect(images).toHaveLength(2);
        for (const image of images) expect(await decodeDataUrl(image)).toMatchObject(IMAGE);
      }
      const first = JSON.stringify(model.requests[0]!.body.messages);
      const oldField = toImage(centreOf(TARGET_LAYOUT.field));
      expect(first).toContain('Fill in the form with Ada Lovelace and submit it');
      expect(first).toContain(`That was step 1 of a recording: on the screenshot above you did click at (${oldField.x}, ${oldField.y}), then type \\"Ada Lovelace\\"`);
      expect(first).toMatch(/The screen has changed since: around the click at/);
    } finally {
      await model.close();
    }
  });

  it('with --policy ask, asks at the divergence; "stop" ends the replay as refused (exit 4) without acting', async () => {
    await preparePage(SHIFT);
    const replay = await mnemo(['replay', recordedId, '--policy', 'ask', '--speed', 'max', '--data-dir', dataDir, '--json'], { input: 'stop\n' });
    expect(replay.code, replay.stderr).toBe(4);
    expect(replay.stderr).toMatch(/Step 1 \(click at .*\) differs from the recording: around the click at .*Replay it as recorded anyway \(yes\), skip it \(skip\), or stop \(no\)\?/);
    const types = replay.events.map((e) => e.type);
    expect(types).toContain('ask-user');
    expect(replay.events.find((e) => e.type === 'user-answer')).toMatchObject({ step: 1, kind: 'confirmation', answer: 'stop' });
    expect(replay.events.at(-1)).toMatchObject({ type: 'run-finished', status: 'refused', reason: expect.stringMatching(/^the user stopped the replay at step 1/) });
    await page.server.settle(300);
    expect(clicks()).toEqual([]);
  });

  it('with --policy ask, "skip" passes over a diverged step and "yes" replays one as recorded', async () => {
    // Moved a little: the patches under the targets differ, yet the recorded points still fall on
    // the (taller than 10 px) elements, so a step replayed as recorded still lands.
    await preparePage(SMALL_SHIFT);
    const replay = await mnemo(['replay', recordedId, '--policy', 'ask', '--speed', 'max', '--data-dir', dataDir, '--json'], { input: 'skip\nyes\nyes\nyes\nyes\n' });
    expect(replay.code, replay.stderr).toBe(0);
    const asked = replay.events.filter((e) => e.type === 'ask-user').map((e) => e.step);
    console.log(`[replay] form moved by (${SMALL_SHIFT.dx}, ${SMALL_SHIFT.dy}): asked at steps ${asked.join(', ')}; ${replay.events
      .filter((e) => e.type === 'note')
      .map((e) => e.message)
      .join(' | ')}`);
    expect(asked[0]).toBe(1);
    expect(asked).toContain(2);
    expect(replay.events.filter((e) => e.type === 'user-answer').map((e) => e.answer)).toEqual(['skip', ...asked.slice(1).map(() => 'yes')]);
    // Step 1 (click the field, type the name) skipped; the others replayed at the recorded points.
    const state = await page.server.state();
    expect(state.field.value).toBe('');
    expect(state.area.value).toBe(NOTES);
    expect(clicks().filter((e) => e.type === 'click').map((e) => (e as { target: string }).target)).toEqual(['area', 'btn-center']);
    expect(replay.events.filter((e) => e.type === 'note' && e.message === 'step 1 skipped')).toHaveLength(1);
  });

  it('Ctrl+C during the replay stops it: exit 4, the replay session marked aborted', async () => {
    await preparePage();
    let interrupted = false;
    // Slowly (a tenth of the recorded pace): the stop comes during the pause before step 2.
    const replay = await mnemo(['replay', recordedId, '--data-dir', dataDir, '--speed', '0.1', '--json'], {
      onEvent: (event, kill) => {
        if (!interrupted && event.type === 'step-finished' && event.step === 1) {
          interrupted = true;
          kill();
        }
      },
    });
    expect(replay.code, replay.stderr).toBe(4);
    // Stopped in the pause before step 2 (no wall-clock bound: a busy machine is slow, not wrong).
    expect(replay.events.at(-1)).toMatchObject({ type: 'run-finished', status: 'aborted', steps: 1 });
    expect(replay.events.filter((e) => e.type === 'step-started')).toHaveLength(1);
    expect(readMeta(dataDir, sessionOf(replay))).toMatchObject({ status: 'aborted', replayOf: recordedId });
    // Step 1 ran (the name is typed), step 2 never did.
    const state = await page.server.state();
    expect(state.field.value).toBe(NAME);
    expect(state.area.value).toBe('');
  });

  it('exit codes for a missing session (1) and bad arguments (2)', async () => {
    const missing = await mnemo(['replay', '20990101-000000-abcdef', '--data-dir', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no session "20990101-000000-abcdef"/);
    const badSpeed = await mnemo(['replay', recordedId, '--data-dir', dataDir, '--speed', '-1']);
    expect(badSpeed.code).toBe(2);
    expect(badSpeed.stderr).toMatch(/--speed must be a number ≥ 0/);
    const badPolicy = await mnemo(['replay', recordedId, '--data-dir', dataDir, '--policy', 'retry']);
    expect(badPolicy.code).toBe(2);
    const noModel = await mnemo(['replay', recordedId, '--data-dir', dataDir, '--policy', 'reground'], {});
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/--policy reground needs a model: missing --base-url/);
    const badThresholds = await mnemo(['replay', recordedId, '--data-dir', dataDir, '--thresholds', '{"patchMeen":0.1}']);
    expect(badThresholds.code).toBe(2);
    expect(badThresholds.stderr).toMatch(/--thresholds: .*patchMeen/);
  });
});

describe('a recorded secret', () => {
  let dataDir: string;
  let recordedId: string;
  const SECRET = 'hunter2-swordfish';

  beforeAll(async () => {
    dataDir = newDataDir();
    await preparePage();
    await recordRun(dataDir, 'Type the password', [
      toolCall([{ type: 'click', ...toImage(centreOf(TARGET_LAYOUT.field)) }, { type: 'type', text: SECRET, secret: true }], 'I type the password into the field.'),
      toolCall([{ type: 'finished', summary: 'Typed.' }], 'Done.'),
    ]);
    [recordedId] = sessionIds(dataDir) as [string];
  }, 120_000);

  it('is masked in the recording, so --policy stop cannot replay it: it fails at that step before acting', async () => {
    expect(readFileSync(join(dataDir, 'sessions', recordedId, 'events.jsonl'), 'utf8')).not.toContain(SECRET);
    await preparePage();
    // Without --json: the terminal view on stderr.
    const replay = await mnemo(['replay', recordedId, '--data-dir', dataDir, '--speed', 'max']);
    expect(replay.code).toBe(3);
    expect(replay.stderr).toMatch(new RegExp(`^replaying session ${recordedId}: Type the password\npolicy stop, no pauses\n`));
    expect(replay.stderr).toMatch(/\nfailed: step 1 types a secret that the recording masks \(\*{8}\): it cannot be replayed; replay with the ask policy to type it yourself\n/);
    expect(replay.stderr).toMatch(/replay session \S+ in /);
    await page.server.settle(300);
    expect(clicks()).toEqual([]);
  });

  it('under --policy ask, the user types it; the replay types it and records it masked', async () => {
    await preparePage();
    const replay = await mnemo(['replay', recordedId, '--policy', 'ask', '--data-dir', dataDir, '--speed', 'max', '--json'], { input: `${SECRET}\n` });
    expect(replay.code, replay.stderr).toBe(0);
    expect((await page.server.state()).field.value).toBe(SECRET);
    expect(replay.events.find((e) => e.type === 'user-answer')).toMatchObject({ kind: 'question', answer: MASK });
    expect(readFileSync(join(dataDir, 'sessions', sessionOf(replay), 'events.jsonl'), 'utf8')).not.toContain(SECRET);
    expect(replay.stdout).not.toContain(SECRET);
  });
});
