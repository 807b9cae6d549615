/**
 * The form task end to end in the OpenAI-protocol families (tools, ui-tars 1.0 and 1.5,
 * openai-cua) with the real `mnemo run` process, the real `openai` client against the scripted
 * server, real nut-js input and the effects checked on the page: on the 1280x800 test display
 * (sent as 960x600) and on a 1920x1080 display of its own (sent as 1280x720), where the screen is
 * larger than the image. Each model writes the points in its own space (pixels of the image sent,
 * 0-1000, pixels of its smart resize), and is told the actions back in that space: the later
 * requests name the points it wrote, never the screen's.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Point } from '../../src/shared/actions';
import { imageToModel, type CoordinateFrame } from '../../src/main/model/families/coordinates';
import { failureScreenshot } from '../fixtures/desktop/display';
import { expectFormSubmitted, formPage, inImage, largeScreen, resetForm, testDisplayScreen, type FormPage, type FormScreen } from '../fixtures/desktop/form-task';
import { TARGET_LAYOUT, type Rect } from '../fixtures/desktop/layout';
import { decodeDataUrl, imagesIn, startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-openai-families-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const NAME = 'Ada Lovelace';
const NOTES = 'Analytical Engine\nNote G: Bernoulli numbers!';

let memoryModel: ScriptedServer;
beforeAll(async () => {
  memoryModel = await startMemoryModelServer('Earlier steps: the form is being filled in.');
});
afterAll(async () => {
  await memoryModel?.close();
});

/** One family as a user sets it up: its flags, the space it writes points in, its replies for the form. */
interface FamilyCase {
  name: string;
  flags: string[];
  /** The space of the points the model writes (and is told), for the image sent. */
  frame: (image: FormScreen['image']) => CoordinateFrame;
  replies: (at: (rect: Rect) => Point) => ScriptedReply[];
  steps: number;
  /** Whether its requests carry the earlier actions as text (the Responses API chains by id instead). */
  toldInText: boolean;
}

const toolCall = (thought: string, actions: unknown[]): ScriptedReply => ({ text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] });
const uiTars = (thought: string, action: string): ScriptedReply => ({ text: `Thought: ${thought}\nAction: ${action}` });
const box = (point: Point) => `(${point.x},${point.y})`;

function uiTarsCase(version: '1.0' | '1.5'): FamilyCase {
  return {
    name: `ui-tars ${version}`,
    flags: ['--model', `ui-tars-${version}`, '--family', 'ui-tars', '--model-version', version],
    frame: (image) => ({ space: version === '1.0' ? 'relative-1000' : 'smart-resize', image }),
    replies: (at) => [
      uiTars('I click the name field.', `click(start_box='${box(at(TARGET_LAYOUT.field))}')`),
      uiTars('I type the name.', `type(content='${NAME}')`),
      uiTars('Now the notes.', `click(start_box='<|box_start|>${box(at(TARGET_LAYOUT.area))}<|box_end|>')`),
      uiTars('I type the notes.', `type(content='${NOTES.replace(/\n/g, '\\n')}')`),
      uiTars('Submit.', `click(start_box='${box(at(TARGET_LAYOUT['btn-center']))}')`),
      uiTars('The form is sent.', "finished(content='submitted')"),
    ],
    steps: 6,
    toldInText: true,
  };
}

const cuaCall = (id: string, action: unknown) => ({ type: 'computer_call', id: `cu_${id}`, call_id: `call_${id}`, action, pending_safety_checks: [], status: 'completed' });

const FAMILIES: FamilyCase[] = [
  {
    name: 'tools',
    flags: ['--model', 'gpt-4.1', '--family', 'tools'],
    frame: (image) => ({ space: 'image', image }),
    replies: (at) => [
      toolCall('I click the name field and type the name.', [{ type: 'click', ...at(TARGET_LAYOUT.field) }, { type: 'type', text: NAME }]),
      toolCall('Now the notes box.', [{ type: 'click', ...at(TARGET_LAYOUT.area) }]),
      toolCall('I type the notes.', [{ type: 'type', text: NOTES }]),
      toolCall('I submit the form.', [{ type: 'click', ...at(TARGET_LAYOUT['btn-center']) }]),
      toolCall('Done.', [{ type: 'finished', summary: 'The form is filled and submitted.' }]),
    ],
    steps: 5,
    toldInText: true,
  },
  uiTarsCase('1.0'),
  uiTarsCase('1.5'),
  {
    name: 'openai-cua',
    flags: ['--model', 'computer-use-preview', '--family', 'openai-cua'],
    frame: (image) => ({ space: 'image', image }),
    replies: (at) => [
      { responseOutput: [cuaCall('1', { type: 'click', button: 'left', ...at(TARGET_LAYOUT.field) })] },
      { responseOutput: [cuaCall('2', { type: 'type', text: NAME })] },
      { responseOutput: [cuaCall('3', { type: 'click', button: 'left', ...at(TARGET_LAYOUT.area) })] },
      { responseOutput: [cuaCall('4', { type: 'type', text: NOTES })] },
      { responseOutput: [cuaCall('5', { type: 'click', button: 'left', ...at(TARGET_LAYOUT['btn-center']) })] },
      { responseOutput: [{ type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'The form is filled and submitted.' }] }] },
    ],
    steps: 6,
    toldInText: false,
  },
];

/** Every `(x, y)` written after "click at" in a request, as the model would read it. */
function toldClicks(body: unknown): Point[] {
  return [...JSON.stringify(body).matchAll(/click at \((-?[\d.]+), (-?[\d.]+)\)/g)].map((match) => ({ x: Number(match[1]), y: Number(match[2]) }));
}

function formTask(setup: () => Promise<FormScreen>) {
  const page = formPage(setup);

  for (const family of FAMILIES) {
    it(`fills in and submits the form with ${family.name}, told its actions in its own coordinates`, { timeout: 180_000 }, async ({ onTestFailed }) => {
      const current: FormPage = page();
      const { screen, pageServer } = current;
      onTestFailed(async () => {
        await failureScreenshot(screen.display, `openai-families-${family.name.replace(/\W+/g, '-')}-${screen.screen.width}x${screen.screen.height}`);
      });
      await resetForm(current);
      const frame = family.frame(screen.image);
      const at = (rect: Rect) => imageToModel(inImage(current, rect), frame);
      const model = await startScriptedServer({ replies: family.replies(at) });
      try {
        const dataDir = mkdtempSync(join(scratch, 'data-'));
        writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ ...(screen.imageConfig ? { image: screen.imageConfig } : {}), memory: { model: { baseUrl: memoryModel.url } } }));
        const run = await runMnemo(['run', 'Fill in the form with Ada Lovelace and submit it', '--base-url', model.url, ...family.flags, '--data-dir', dataDir, '--json', '--non-interactive'], {
          env: { DISPLAY: screen.display, OPENAI_API_KEY: '' },
        });
        expect(run.code, run.stderr).toBe(0);
        await expectFormSubmitted(pageServer, NAME, NOTES);
        expect(jsonLines(run.stdout).at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: family.steps });

        // Every image the model was sent has the run's size, not the screen's.
        expect(model.requests).toHaveLength(family.steps);
        for (const request of model.requests) for (const image of imagesIn(request.body)) expect(await decodeDataUrl(image)).toMatchObject(screen.image);

        if (family.toldInText) {
          // The clicks come back as the model wrote them (within the rounding of one pixel of the
          // screen), never as screen pixels where the screen is larger than the image.
          const written = [at(TARGET_LAYOUT.field), at(TARGET_LAYOUT.area), at(TARGET_LAYOUT['btn-center'])];
          const told = toldClicks(model.requests.at(-1)!.body);
          expect(told.length).toBeGreaterThanOrEqual(1);
          const tolerance = Math.max(1, (frame.space === 'relative-1000' ? 1000 / screen.screen.width : 1) * 1.5);
          for (const point of told) {
            const nearest = Math.min(...written.map((w) => Math.hypot(w.x - point.x, w.y - point.y)));
            expect(nearest, `told ${JSON.stringify(point)}, wrote ${JSON.stringify(written)}`).toBeLessThanOrEqual(tolerance);
          }
          if (screen.screen.width !== screen.image.width) {
            const onScreen = [TARGET_LAYOUT.field, TARGET_LAYOUT.area, TARGET_LAYOUT['btn-center']].map((rect) => current.kiosk.toScreen({ x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 }));
            for (const point of told) for (const s of onScreen) expect(Math.hypot(s.x - point.x, s.y - point.y)).toBeGreaterThan(tolerance);
          }
        }

        // The record keeps the screen's pixels: the clicks landed where the page's elements are.
        const [session] = readdirSync(join(dataDir, 'sessions'));
        const events = readFileSync(join(dataDir, 'sessions', session!, 'events.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
        const clickPoints = events.filter((event) => event.type === 'action-result' && event.action.type === 'click').map((event) => event.result.points[0]);
        expect(clickPoints.length).toBe(3);
        const field = current.kiosk.toScreen({ x: TARGET_LAYOUT.field.x + TARGET_LAYOUT.field.width / 2, y: TARGET_LAYOUT.field.y + TARGET_LAYOUT.field.height / 2 });
        expect(Math.hypot(clickPoints[0].x - field.x, clickPoints[0].y - field.y)).toBeLessThanOrEqual(4);
      } finally {
        await model.close();
      }
    });
  }
}

describe('on the 1280x800 test display, sent as 960x600', () => {
  formTask(testDisplayScreen);
});

describe('on a 1920x1080 display, sent as 1280x720', () => {
  formTask(largeScreen);
});
