/**
 * A real session on disk, recorded with FileRunRecorder the way the agent loop records one: real
 * JPEG screenshots made with sharp, clicks, a drag along a path, typing, keys, a question, a
 * failed action, a masked secret, and a thought carrying an injection attempt.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Action } from '../../../src/shared/actions';
import type { ActionResult } from '../../../src/shared/action-result';
import type { Frame } from '../../../src/shared/frame';
import { SessionBuilder } from '../../fixtures/session-builder';

export const IMAGE = { width: 640, height: 400 } as const;

/** Breaks out of a <script> element, then tries an inline handler. */
export const INJECTED_THOUGHT = 'Open the menu. </script><script>alert(1)</script><img src=x onerror="window.__pwned=1;alert(2)"> & done';

export interface FixtureStep {
  step: number;
  thought: string;
  actions: Action[];
  /** By action position; undefined: the action produces no result (control) or never ran. */
  results: Array<ActionResult | undefined>;
  usage: { inputTokens: number; outputTokens: number; costUsd: number };
  background: { r: number; g: number; b: number };
}

const ok = (type: Action['type'], durationMs = 12): ActionResult => ({ ok: true, type, durationMs });

export const FIXTURE_STEPS: FixtureStep[] = [
  {
    step: 1,
    thought: INJECTED_THOUGHT,
    actions: [{ type: 'click', x: 120, y: 90, button: 'left' }],
    results: [ok('click')],
    usage: { inputTokens: 1200, outputTokens: 40, costUsd: 0.0013 },
    background: { r: 40, g: 60, b: 90 },
  },
  {
    step: 2,
    thought: 'Move the file into the folder, then open the folder menu.',
    actions: [
      { type: 'drag', path: [{ x: 60, y: 300 }, { x: 300, y: 300 }, { x: 300, y: 120 }], button: 'left' },
      { type: 'double_click', x: 500, y: 200, button: 'right' },
    ],
    results: [ok('drag', 300), ok('double_click')],
    usage: { inputTokens: 1300, outputTokens: 55, costUsd: 0.0014 },
    background: { r: 70, g: 90, b: 60 },
  },
  {
    step: 3,
    thought: 'Type the name and save.',
    actions: [
      { type: 'click', x: 200, y: 150, button: 'left' },
      { type: 'type', text: 'hello <b>world</b>' },
      { type: 'hotkey', keys: ['ctrl', 's'] },
    ],
    results: [ok('click'), { ok: true, type: 'type', durationMs: 80, detail: 'typed 18 characters' }, ok('hotkey')],
    usage: { inputTokens: 1400, outputTokens: 60, costUsd: 0.0015 },
    background: { r: 90, g: 70, b: 40 },
  },
  {
    step: 4,
    thought: 'Ask which file, then click it.',
    actions: [
      { type: 'ask_user', question: 'Which file?' },
      { type: 'click', x: 320, y: 200, button: 'left' },
    ],
    results: [undefined, ok('click')],
    usage: { inputTokens: 1500, outputTokens: 30, costUsd: 0.0016 },
    background: { r: 60, g: 40, b: 80 },
  },
  {
    step: 5,
    thought: 'Click the button at the far right.',
    actions: [{ type: 'click', x: 900, y: 100, button: 'left' }],
    results: [{ ok: false, type: 'click', error: { kind: 'out_of_bounds', message: 'x=900 lies outside the 640x400 image' } }],
    usage: { inputTokens: 1600, outputTokens: 35, costUsd: 0.0017 },
    background: { r: 30, g: 80, b: 80 },
  },
  {
    step: 6,
    thought: 'Enter the password and finish.',
    actions: [
      { type: 'type', text: '********', secret: true },
      { type: 'finished', summary: 'Saved the file.' },
    ],
    results: [ok('type')],
    usage: { inputTokens: 1700, outputTokens: 25, costUsd: 0.0018 },
    background: { r: 80, g: 30, b: 50 },
  },
];

/** A model-ready screenshot: a flat colour with a lighter panel, so markers stand out and decode. */
export async function makeScreenshot(background: { r: number; g: number; b: number }, size: { width: number; height: number } = IMAGE): Promise<Buffer> {
  const panel = `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}"><rect x="${size.width * 0.05}" y="${size.height * 0.05}" width="${size.width * 0.4}" height="${size.height * 0.3}" fill="#dddddd"/></svg>`;
  return sharp({ create: { width: size.width, height: size.height, channels: 3, background } })
    .composite([{ input: Buffer.from(panel) }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

const frame: Frame = {
  displayId: '0',
  bounds: { x: 0, y: 0, width: 1280, height: 800 },
  scaleFactor: 1,
  captured: { width: 1280, height: 800 },
  image: { width: IMAGE.width, height: IMAGE.height, format: 'jpeg' },
};

export interface RecordedFixture {
  dataDir: string;
  sessionId: string;
  directory: string;
  /** Screenshot bytes by step, as written to disk. */
  screenshots: Map<number, Buffer>;
  /** The step whose screenshot file was deleted after recording. */
  missingStep: number | null;
}

export const TASK = 'Save <the> "report" & quit';

/** Records FIXTURE_STEPS into `dataDir`; deletes the screenshot of `missingStep` afterwards. */
export async function recordFixtureSession(dataDir: string, options: { missingStep?: number | null; steps?: FixtureStep[] } = {}): Promise<RecordedFixture> {
  const steps = options.steps ?? FIXTURE_STEPS;
  const missingStep = options.missingStep === undefined ? 5 : options.missingStep;
  const start = Date.UTC(2026, 10, 29, 12, 45, 1);
  const session = await SessionBuilder.create(dataDir, { task: TASK, model: 'test-model', family: 'tools' }, start);
  const { recorder } = session;
  const record = (event: Record<string, unknown>) => session.record(event);
  await record({ type: 'run-started', task: TASK, model: 'test-model', family: 'tools', limits: { maxSteps: 20, maxCostUsd: 1 } });
  const screenshots = new Map<number, Buffer>();
  const paths = new Map<number, string>();
  let cost = 0;
  for (const fixture of steps) {
    const { step } = fixture;
    await record({ type: 'step-started', step });
    const image = await makeScreenshot(fixture.background);
    screenshots.set(step, image);
    const screenshot = await recorder.saveScreenshot(step, image, 'image/jpeg', IMAGE);
    paths.set(step, screenshot.path);
    await record({ type: 'observation', step, screenshot, frame });
    await record({ type: 'prediction', step, thought: fixture.thought, actions: fixture.actions, usage: fixture.usage, attempts: 1 });
    cost += fixture.usage.costUsd;
    for (const [index, action] of fixture.actions.entries()) {
      if (action.type === 'ask_user') {
        await record({ type: 'ask-user', step, kind: 'question', question: action.question });
        await record({ type: 'user-answer', step, kind: 'question', answer: 'report.txt' });
        continue;
      }
      const result = fixture.results[index];
      if (!result) continue;
      await record({ type: 'action', step, index, action });
      await record({ type: 'action-result', step, index, action, result });
    }
    if (step === 2) await record({ type: 'note', step, message: 'the screen did not change after the drag' });
    // Memory changes are recorded as `memory` events; the reader keeps them per step.
    if (step === 3) await record({ type: 'memory', step, change: { kind: 'layers', pending: '', recent: 'typed <the> name', summary: '', compressing: false, lastError: null } });
    await record({ type: 'step-finished', step, durationMs: 1500 + step, costUsd: cost });
    await recorder.flush();
  }
  const usage = steps.reduce((sum, s) => ({ inputTokens: sum.inputTokens + s.usage.inputTokens, outputTokens: sum.outputTokens + s.usage.outputTokens, costUsd: cost }), { inputTokens: 0, outputTokens: 0, costUsd: cost });
  await record({ type: 'run-finished', status: 'finished', reason: 'the model reported the task done', summary: 'Saved the file.', steps: steps.length, usage });
  await recorder.close();
  const missingPath = missingStep === null ? undefined : paths.get(missingStep);
  if (missingPath) await rm(join(recorder.directory, missingPath));
  return { dataDir, sessionId: recorder.sessionId, directory: recorder.directory, screenshots, missingStep };
}
