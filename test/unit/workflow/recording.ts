/**
 * A recorded form-filling run for the workflow tests, written by the real recorder: painted
 * screens (scene.ts) as JPEG screenshots, a click and typing into the field, a click and a masked
 * password into the text area, a click on the button, then the end. And a text reader that "reads"
 * a fixed set of words: those whose centre lies in the region asked for.
 */
import type { Rect } from '../../../src/shared/frame';
import type { OcrWord, ReadMode, TextReader } from '../../../src/main/workflow/ocr';
import { MASK } from '../../../src/shared/describe-action';
import { jpegFrameOf, SessionBuilder } from '../../fixtures/session-builder';
import { encode, FORM, type Scene } from './scene';

export const NAME = 'Ada Lovelace';
export const TASK = `Fill in the form for ${NAME} and send it`;

const frame = jpegFrameOf({ width: 960, height: 600 }, FORM);

/** The field and area with text in them, as the screen looks after typing. */
const typedInto = (scene: Scene, box: number): Scene => {
  const target = scene.boxes[box]!;
  return { ...scene, boxes: [...scene.boxes, { x: target.x + 4, y: target.y + 4, width: 70, height: 8, face: 50 }] };
};

export const SCREENS = [FORM, typedInto(FORM, 0), typedInto(typedInto(FORM, 0), 1), typedInto(typedInto(FORM, 0), 1)];

/** The form once sent: a line of confirmation under it. */
export const sent = (scene: Scene): Scene => ({ ...scene, boxes: [...scene.boxes, { x: 200, y: 190, width: 120, height: 10, face: 80 }] });

export const POINTS = { field: { x: 310, y: 49 }, area: { x: 310, y: 100 }, button: { x: 250, y: 161 } };

/** Words on the painted form: a label above the field, the button's caption, a word far away. */
export const FORM_WORDS: OcrWord[] = [
  { text: 'Name', confidence: 92, box: { x: 200, y: 26, width: 30, height: 10 } },
  { text: 'Send', confidence: 95, box: { x: 238, y: 156, width: 24, height: 10 } },
  { text: 'Elsewhere', confidence: 90, box: { x: 20, y: 250, width: 60, height: 10 } },
];

export class StaticReader implements TextReader {
  readonly reads: Array<{ region: Rect; mode: ReadMode }> = [];
  constructor(private readonly words: OcrWord[] = FORM_WORDS) {}
  async read(_image: Buffer, region: Rect, mode: ReadMode): Promise<OcrWord[]> {
    this.reads.push({ region, mode });
    return this.words.filter((word) => {
      const x = word.box.x + word.box.width / 2;
      const y = word.box.y + word.box.height / 2;
      return x >= region.x && y >= region.y && x < region.x + region.width && y < region.y + region.height;
    });
  }
  async close(): Promise<void> {}
}

/**
 * `lagging`: the steps whose screenshot predates the previous action (a demonstration's lagging
 * capture). `confirmed`: sending the form showed a confirmation (the last screen has it).
 */
export async function recordFormSession(dataDir: string, options: { password?: string; lagging?: readonly number[]; confirmed?: boolean } = {}): Promise<{ id: string }> {
  const screens = options.confirmed ? [...SCREENS.slice(0, 3), sent(SCREENS[3]!)] : SCREENS;
  const session = await SessionBuilder.create(dataDir, { task: TASK, model: 'gpt-test', family: 'tools' });
  const record = (event: Record<string, unknown>) => session.record(event);
  const usage = { inputTokens: 1000, outputTokens: 50, costUsd: 0.01 };
  const steps = [
    { thought: `I click the name field and type ${NAME}.`, actions: [{ type: 'click', ...POINTS.field, button: 'left' }, { type: 'type', text: `${NAME}\n` }] },
    { thought: 'Now the password.', actions: [{ type: 'click', ...POINTS.area, button: 'left' }, { type: 'type', text: options.password ?? MASK, ...(options.password ? {} : { secret: true }) }] },
    { thought: 'I send the form.', actions: [{ type: 'click', ...POINTS.button, button: 'left' }] },
    { thought: 'Done.', actions: [{ type: 'finished', summary: `Sent for ${NAME}.` }] },
  ];
  await record({ type: 'run-started', task: TASK, model: 'gpt-test', family: 'tools', limits: { maxSteps: 10, maxCostUsd: null } });
  for (const [i, planned] of steps.entries()) {
    const step = i + 1;
    await record({ type: 'step-started', step });
    const screenshot = session.recorder.saveScreenshot(step, await encode(screens[i]!, 'jpeg'), 'image/jpeg', { width: FORM.width, height: FORM.height });
    await record({ type: 'observation', step, screenshot, frame, ...(options.lagging?.includes(step) ? { predatesPreviousAction: true } : {}) });
    await record({ type: 'prediction', step, thought: planned.thought, actions: planned.actions, usage, attempts: 1 });
    for (const [index, action] of planned.actions.entries()) {
      if (action.type === 'finished') continue;
      await record({ type: 'action', step, index, action });
      await record({ type: 'action-result', step, index, action, result: { ok: true, type: action.type, durationMs: 5 } });
    }
    await record({ type: 'step-finished', step, durationMs: 100, costUsd: 0.01 * step });
  }
  await record({ type: 'run-finished', status: 'finished', reason: 'done', summary: `Sent for ${NAME}.`, steps: 4, usage: { inputTokens: 4000, outputTokens: 200, costUsd: 0.04 } });
  await session.recorder.close();
  return { id: session.id };
}
