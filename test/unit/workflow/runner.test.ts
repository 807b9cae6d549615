/**
 * The workflow runner on painted screens (a scene operator that captures what it draws and
 * changes it when it is typed into), the recorded form run saved as a workflow: new values typed
 * with no model call on the unchanged form; the moved form found again; a restyled button found
 * by its caption; a removed button stopped before acting; the model grounding only the step that
 * differs; a step whose effect does not appear; secrets in no event.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action } from '../../../src/shared/actions';
import type { ActionResult } from '../../../src/shared/action-result';
import { MASK } from '../../../src/shared/describe-action';
import type { AgentEvent } from '../../../src/shared/events';
import type { Frame } from '../../../src/shared/frame';
import { type Workflow } from '../../../src/shared/workflow';
import { workflowReport } from '../../../src/shared/workflow-report';
import type { CaptureOptions, CaptureResult } from '../../../src/main/operator/capture';
import type { Operator } from '../../../src/main/operator/desktop-operator';
import type { ScreenFingerprint } from '../../../src/main/operator/screen-diff';
import { readSession } from '../../../src/main/store/session-reader';
import { buildWorkflow } from '../../../src/main/workflow/build';
import type { WorkflowPolicy } from '../../../src/main/replay/policy';
import type { OcrWord } from '../../../src/main/workflow/ocr';
import { WorkflowRunner } from '../../../src/main/workflow/runner';
import { workflowRunRedaction } from '../../../src/main/workflow/params';
import { SecretMask } from '../../../src/shared/secret-mask';
import { collect, MemoryRecorder, ofType, reply, runFinished, ScriptedModel, textOf } from '../../fixtures/fakes';
import { FORM_WORDS, NAME, POINTS, recordFormSession, sent, StaticReader } from './recording';
import { encode, FORM, moved, type Scene } from './scene';
import { runContext } from '../../fixtures/run-context';

const SCREEN = { width: 960, height: 600 };
const NEW_NAME = 'Grace Hopper';
const PASSWORD = 'pw-secret-123';

/** A display showing a scene (480x300 of image, 960x600 of screen); typing writes into the box last clicked. */
class SceneOperator implements Operator {
  readonly executed: Action[] = [];
  private lastClicked: number | null = null;
  /** False: typing lands nowhere (the field lost the focus). */
  typingLands = true;
  /**
   * The send button shows a confirmation (`sent`) at the given look after its click (1: the first
   * capture after it, 2: the one after that: an application that draws late); null: never.
   */
  confirmsAtLook: number | null = null;
  private looksUntilConfirmed: number | null = null;

  constructor(public scene: Scene) {}

  async observe(options: CaptureOptions = {}): Promise<CaptureResult> {
    if (this.looksUntilConfirmed !== null && --this.looksUntilConfirmed === 0) {
      this.looksUntilConfirmed = null;
      this.scene = sent(this.scene);
    }
    const scale = Math.min(1, (options.maxWidth ?? Infinity) / SCREEN.width, (options.maxHeight ?? Infinity) / SCREEN.height);
    const size = { width: Math.round(SCREEN.width * scale), height: Math.round(SCREEN.height * scale) };
    const image = await sharp(await encode(this.scene)).resize(size.width, size.height).jpeg({ quality: 90 }).toBuffer();
    const frame: Frame = { displayId: '0', bounds: { x: 0, y: 0, ...SCREEN }, scaleFactor: 1, captured: SCREEN, image: { ...size, format: 'jpeg' } };
    return { ok: true, observation: { image, frame, source: 'nut-js', capturedAt: Date.now() } };
  }

  async execute(action: Action, frame: Frame): Promise<ActionResult> {
    this.executed.push(action);
    const scale = frame.image.width / SCREEN.width / 0.5;
    if (action.type === 'click') {
      const x = action.x / scale;
      const y = action.y / scale;
      const hit = this.scene.boxes.findIndex((box) => x >= box.x && y >= box.y && x < box.x + box.width && y < box.y + box.height);
      this.lastClicked = hit >= 0 ? hit : null;
      if (hit === 2 && this.confirmsAtLook !== null) this.looksUntilConfirmed = this.confirmsAtLook;
    } else if (action.type === 'type' && this.typingLands && this.lastClicked !== null) {
      const box = this.scene.boxes[this.lastClicked]!;
      this.scene = { ...this.scene, boxes: [...this.scene.boxes, { x: box.x + 4, y: box.y + 4, width: 70, height: 8, face: 50 }] };
    }
    return { ok: true, type: action.type, durationMs: 1 };
  }

  async fingerprint(): Promise<ScreenFingerprint> {
    return { width: 4, height: 1, pixels: Uint8Array.from([this.scene.boxes.length, 0, 0, 0]) };
  }

  async activeWindowTitle(): Promise<string | undefined> {
    return undefined;
  }

  get clicks(): Array<{ x: number; y: number }> {
    return this.executed.flatMap((action) => (action.type === 'click' ? [{ x: action.x, y: action.y }] : []));
  }
}

let dataDir: string;
let workflow: Workflow;
let files: Map<string, Buffer>;
/** The same form run, where sending showed a confirmation. */
let confirmed: { workflow: Workflow; files: Map<string, Buffer> };

/** The form recorded in `dataDir` (with `options`) and built into workflow `name`. */
async function buildFormWorkflow(name: string, options: { confirmed?: boolean } = {}): Promise<{ workflow: Workflow; files: Map<string, Buffer> }> {
  const { id } = await recordFormSession(dataDir, options);
  const read = await readSession(dataDir, id);
  if (!read.ok) throw new Error(read.message);
  const built = await buildWorkflow(read.session, { name, params: [{ name: 'name', value: NAME, secret: false }, { name: 'password', secret: true }] }, new StaticReader());
  if (!built.ok) throw new Error(built.message);
  return built.built;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mnemo-workflow-run-'));
  ({ workflow, files } = await buildFormWorkflow('invoice'));
  confirmed = await buildFormWorkflow('confirmed', { confirmed: true });
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const shiftedWords = (dx: number, dy: number): OcrWord[] => FORM_WORDS.map((word) => (word.text === 'Elsewhere' ? word : { ...word, box: { ...word.box, x: word.box.x + dx, y: word.box.y + dy } }));

async function run(scene: Scene, options: { policy?: WorkflowPolicy; words?: OcrWord[]; model?: ScriptedModel; typingLands?: boolean; confirmsAtLook?: number | null; built?: { workflow: Workflow; files: Map<string, Buffer> } } = {}) {
  const operator = new SceneOperator(scene);
  operator.typingLands = options.typingLands ?? true;
  operator.confirmsAtLook = options.confirmsAtLook ?? null;
  const chosen = options.built ?? { workflow, files };
  const recorder = new MemoryRecorder();
  const reader = new StaticReader(options.words ?? FORM_WORDS);
  const values = new Map([['name', NEW_NAME], ['password', PASSWORD]]);
  const runner = new WorkflowRunner({
    reader,
    files: async (image) => chosen.files.get(image.file) ?? null,
    ...(options.model ? { model: options.model } : {}),
  });
  const events = await collect(
    runner.run(chosen.workflow, { policy: options.policy ?? 'stop', values, settle: { intervalMs: 1, timeoutMs: 20, threshold: 0 } }, runContext({ operator, recorder, redaction: workflowRunRedaction(chosen.workflow.params, values, SecretMask.none) })),
  );
  const decisions = ofType(events, 'workflow-step').map((event) => event.decision);
  return { operator, recorder, reader, events, decisions, end: runFinished(events), report: workflowReport(events) };
}

const typed = (operator: SceneOperator) => operator.executed.flatMap((action) => (action.type === 'type' ? [action.text] : []));

describe('a workflow run', () => {
  it('on the unchanged form: every step replayed, the new values typed, no model call, no secret in any event', async () => {
    const { operator, recorder, events, decisions, end, report } = await run(FORM);
    expect(end).toMatchObject({ status: 'finished', summary: `Sent for ${NEW_NAME}.` });
    expect(decisions).toEqual(['replayed', 'replayed', 'replayed', 'replayed', 'replayed']);
    expect(typed(operator)).toEqual([`${NEW_NAME}\n`, PASSWORD]);
    expect(operator.clicks).toEqual([POINTS.field, POINTS.area, POINTS.button]);
    expect(report).toEqual({
      type: 'workflow-report',
      status: 'finished',
      steps: 5,
      replayed: 5,
      refound: 0,
      grounded: 0,
      stopped: 0,
      modelCalls: 0,
      tokens: 0,
      costUsd: 0,
      recording: { modelCalls: 4, tokens: 4200, costUsd: 0.04 },
    });
    expect(events[0]).toMatchObject({ type: 'run-started', task: `Fill in the form for ${NEW_NAME} and send it`, workflow: { name: 'invoice' } });
    expect(ofType(events, 'action').map((event) => event.action)).toContainEqual({ type: 'type', text: MASK, secret: true });
    expect(textOf(events)).not.toContain(PASSWORD);
    expect(textOf(recorder.events)).not.toContain(PASSWORD);
  });

  it('on the form moved: each target found again by its patch, no model call', async () => {
    const { operator, decisions, end, events } = await run(moved(FORM, -96, 40, (_, i) => i < 3), { words: shiftedWords(-96, 40) });
    expect(end.status).toBe('finished');
    expect(decisions).toEqual(['refound', 'replayed', 'refound', 'replayed', 'refound']);
    expect(operator.clicks).toEqual([POINTS.field, POINTS.area, POINTS.button].map((p) => ({ x: p.x - 96, y: p.y + 40 })));
    expect(typed(operator)).toEqual([`${NEW_NAME}\n`, PASSWORD]);
    const how = ofType(events, 'workflow-step').map((event) => event.how);
    expect(how[0]).toMatch(/^click at \(310, 49\): the patch found at \(214, 89\) \(NCC (0\.9\d|1\.00)\)$/);
    // The next targets are tried where the previous one moved to, first: no search needed.
    expect(how[2]).toBe("found moved by (-96, +40) like the previous step's target");
  });

  it('finds a restyled button by its caption, and grounds nothing', async () => {
    const restyled: Scene = { ...FORM, boxes: FORM.boxes.map((box, i) => (i === 2 ? { ...box, x: box.x + 100, face: 60, border: 200, strokes: 5, width: 70 } : box)) };
    const words = FORM_WORDS.map((word) => (word.text === 'Send' ? { ...word, box: { ...word.box, x: word.box.x + 105 } } : word));
    const { operator, decisions, events, reader } = await run(restyled, { words });
    expect(decisions).toEqual(['replayed', 'replayed', 'replayed', 'replayed', 'refound']);
    expect(ofType(events, 'workflow-step')[4]!.how).toMatch(/the text "send" read at \(355, 161\) \(the patch no longer matches: restyled\)/);
    expect(operator.clicks.at(-1)).toEqual({ x: 355, y: 161 });
    // Read as captions: the faces of about the button's size.
    expect(reader.reads.filter((read) => read.mode === 'caption').length).toBeGreaterThan(0);
  });

  it('stops before acting where the button is gone: nothing clicked, the step and what differed named', async () => {
    const gone: Scene = { ...FORM, boxes: FORM.boxes.filter((_, i) => i !== 2) };
    const { operator, decisions, end, report } = await run(gone, { words: FORM_WORDS.filter((word) => word.text !== 'Send') });
    expect(decisions).toEqual(['replayed', 'replayed', 'replayed', 'replayed', 'stopped']);
    expect(operator.clicks).toEqual([POINTS.field, POINTS.area]);
    expect(end.status).toBe('failed');
    expect(end.reason).toMatch(/^step 5 \(click at \(250, 161\) \(near "Send"\)\) diverged: around the click at \(250, 161\) the screen differs from the recording .*its patch matches nowhere .*and its text is not on the screen; stopped before acting$/);
    expect(report).toMatchObject({ status: 'failed', stopped: 1, modelCalls: 0 });
  });

  it('under reground asks the model for that step alone, once', async () => {
    const gone: Scene = { ...FORM, boxes: FORM.boxes.filter((_, i) => i !== 2) };
    const model = new ScriptedModel([reply([{ type: 'click', x: 40, y: 25 }], { thought: 'The send button is the one at the top left now.' })]);
    const { operator, decisions, end, events, report } = await run(gone, { policy: 'reground', model, words: FORM_WORDS.filter((word) => word.text !== 'Send') });
    expect(end.status).toBe('finished');
    expect(decisions).toEqual(['replayed', 'replayed', 'replayed', 'replayed', 'grounded']);
    expect(operator.clicks.at(-1)).toEqual({ x: 40, y: 25 });
    expect(model.calls).toHaveLength(1);
    const input = model.calls[0]!.input;
    expect(input.history[0]).toMatchObject({ step: 5, actions: [{ type: 'click', ...POINTS.button }] });
    expect(input.feedback).toMatch(/The screen has changed since: around the click at \(250, 161\)/);
    expect(textOf(input)).not.toContain(PASSWORD);
    expect(ofType(events, 'workflow-step')[4]).toMatchObject({ modelCalls: 1, how: expect.stringMatching(/the model found it: click at \(40, 25\)$/) });
    expect(report).toMatchObject({ grounded: 1, modelCalls: 1, tokens: 1020, costUsd: 0.001 });
  });

  it('a step whose effect does not appear is looked at once more, then stopped', async () => {
    const { operator, decisions, end, events } = await run(FORM, { typingLands: false });
    expect(decisions).toEqual(['replayed', 'stopped']);
    // Typing is not done twice.
    expect(typed(operator)).toEqual([`${NEW_NAME}\n`]);
    expect(ofType(events, 'note').map((note) => note.message)).toEqual([expect.stringMatching(/^step 2: its effect did not appear \(0 of the 1 region that changed in the recording changed\); looking once more \(typing is not repeated\)$/)]);
    expect(end.reason).toMatch(/^step 2 \(type "\{\{name\}\}\\n"\) diverged: its effect did not appear/);
  });

  it('a click whose effect the application draws late is looked at once more, not done twice', async () => {
    const { operator, decisions, end, events } = await run(FORM, { built: confirmed, confirmsAtLook: 2 });
    expect(end).toMatchObject({ status: 'finished' });
    expect(decisions).toEqual(['replayed', 'replayed', 'replayed', 'replayed', 'replayed']);
    // The form is sent once.
    expect(operator.clicks).toEqual([POINTS.field, POINTS.area, POINTS.button]);
    expect(ofType(events, 'note').map((note) => note.message)).toEqual([expect.stringMatching(/^step 5: its effect did not appear \(.*\); looking once more before trying once more$/)]);
  });

  it('a click whose effect never appears is tried once more, then stopped', async () => {
    const { operator, decisions, end } = await run(FORM, { built: confirmed, confirmsAtLook: null });
    expect(end.status).toBe('failed');
    expect(decisions.at(-1)).toBe('stopped');
    expect(operator.clicks).toEqual([POINTS.field, POINTS.area, POINTS.button, POINTS.button]);
  });

  it('the report is folded from the events the same way live and recorded', async () => {
    const { recorder, events } = await run(FORM);
    expect(workflowReport(recorder.events as AgentEvent[])).toEqual(workflowReport(events));
  });
});
