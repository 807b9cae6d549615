/**
 * The form task end to end with `mnemo run --family pyautogui`: the real CLI process, the real
 * `openai` client against the scripted OpenAI-compatible server answering in pyautogui code, real
 * nut-js input, the effects checked on the page. On the 1280x800 test display (sent as 960x600)
 * and on a 1920x1080 display of its own (sent as 1280x720), in pixels of the image sent and, set
 * up with `--coordinates relative-1000`, on the 0-1000 grid. On the large display the grounding
 * check also runs against the real screen: the images it sends are the run's, the errors it
 * reports are in that screen's pixels.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageToModel, type CoordinateSpace } from '../../src/main/model/families/coordinates';
import { pythonString } from '../../src/main/model/families/python-calls';
import { failureScreenshot, requireDisplay } from '../fixtures/desktop/display';
import { expectFormSubmitted, formPage, inImage, resetForm, type FormScreen } from '../fixtures/desktop/form-task';
import { TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { startSizedDisplay, type SizedDisplay } from '../fixtures/desktop/sized-display';
import { groundingModel } from '../fixtures/grounding-model';
import { decodeDataUrl, imagesIn, startMemoryModelServer, startScriptedServer, type ScriptedServer } from '../fixtures/openai-server';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-pyautogui-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const NAME = 'Ada Lovelace';
const NOTES = "Analytical Engine\nNote G: it's Bernoulli numbers!";
const SUMMARY = 'The form is filled in with Ada Lovelace and submitted.';

let memoryModel: ScriptedServer;
beforeAll(async () => {
  memoryModel = await startMemoryModelServer('Earlier steps: the form is being filled in.');
});
afterAll(async () => {
  await memoryModel?.close();
});

/** A reply: a thought, then the lines in a python block. */
const code = (thought: string, lines: string[]) => `${thought}\n\`\`\`python\n${lines.join('\n')}\n\`\`\``;

function formTask(setup: () => Promise<FormScreen>, spaces: CoordinateSpace[]) {
  const page = formPage(setup);

  for (const space of spaces) {
    it(`fills in and submits the form, the model writing pyautogui in ${space} coordinates`, { timeout: 180_000 }, async ({ onTestFailed }) => {
      const { screen, pageServer } = page();
      onTestFailed(async () => {
        await failureScreenshot(screen.display, `pyautogui-run-${screen.screen.width}x${screen.screen.height}-${space}`);
      });
      await resetForm(page());
      // Each element's centre as the model writes it: pixels of the image sent, or its 0-1000 grid.
      const at = (rect: (typeof TARGET_LAYOUT)[keyof typeof TARGET_LAYOUT]) => imageToModel(inImage(page(), rect), { space, image: screen.image });
      const field = at(TARGET_LAYOUT.field);
      const area = at(TARGET_LAYOUT.area);
      const submit = at(TARGET_LAYOUT['btn-center']);
      const replies = [
        code('## Thought:\nThe name field is empty; I click it and type the name.', ['import pyautogui', `pyautogui.click(${field.x}, ${field.y})`, `pyautogui.write(${pythonString(NAME)})`]),
        code('Now the notes box.', [`pyautogui.click(x=${area.x}, y=${area.y})`, `pyautogui.typewrite(${pythonString(NOTES)}, interval=0.01)`]),
        code('I submit the form.', [`pyautogui.click((${submit.x}, ${submit.y}))`]),
        `${SUMMARY}\nDONE`,
      ];
      const model = await startScriptedServer({ replies: replies.map((text) => ({ text })) });
      try {
        const dataDir = mkdtempSync(join(scratch, 'data-'));
        writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ ...(screen.imageConfig ? { image: screen.imageConfig } : {}), memory: { model: { baseUrl: memoryModel.url } } }));
        const task = ['run', 'Fill in the form with Ada Lovelace and submit it', '--base-url', model.url, '--model', 'agent-pyautogui', '--family', 'pyautogui'];
        const run = await runMnemo([...task, '--data-dir', dataDir, '--json', '--non-interactive', ...(space === 'image' ? [] : ['--coordinates', space])], { env: { DISPLAY: screen.display, OPENAI_API_KEY: '' } });
        expect(run.code, run.stderr).toBe(0);
        await expectFormSubmitted(pageServer, NAME, NOTES);
        const events = jsonLines(run.stdout);
        expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 4, summary: SUMMARY });
        expect(events.some((event) => event.type === 'thought-delta')).toBe(true);

        // What the model was sent: the action space in its own coordinates, images of the run's
        // size, and its earlier replies as they came.
        expect(model.requests).toHaveLength(4);
        const spoken = space === 'image' ? `pixels of the current screenshot (${screen.image.width}x${screen.image.height})` : 'thousandths of the current screenshot';
        for (const request of model.requests) {
          expect(request.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining(spoken) });
          for (const image of imagesIn(request.body)) expect(await decodeDataUrl(image)).toMatchObject(screen.image);
        }
        const earlier = model.requests[3]!.body.messages.filter((message: { role: string }) => message.role === 'assistant');
        expect(earlier.map((message: { content: string }) => message.content)).toEqual(replies.slice(0, 3));

        const [session] = readdirSync(join(dataDir, 'sessions'));
        expect(JSON.parse(readFileSync(join(dataDir, 'sessions', session!, 'session.json'), 'utf8'))).toMatchObject({ status: 'finished', family: 'pyautogui', model: 'agent-pyautogui' });
      } finally {
        await model.close();
      }
    });
  }
}

describe('on the 1280x800 test display, sent as 960x600', () => {
  formTask(async () => ({ display: requireDisplay(), screen: { width: 1280, height: 800 }, image: { width: 960, height: 600 }, imageConfig: { maxWidth: 960 } }), ['image']);
});

describe('on a 1920x1080 display, sent as 1280x720', () => {
  let sized: SizedDisplay;
  formTask(async () => {
    sized = await startSizedDisplay(1920, 1080);
    return { display: sized.display, screen: { width: 1920, height: 1080 }, image: { width: 1280, height: 720 }, close: () => sized.stop() };
  }, ['image', 'relative-1000']);

  it("the grounding check sends the run's 1280x720 images and measures in pixels of the 1920x1080 screen", { timeout: 120_000 }, async () => {
    const server = await startScriptedServer({ replies: groundingModel({ space: 'relative-1', format: 'pyautogui' }) });
    try {
      const args = ['check-model', '--grounding', '--targets', '3', '--base-url', server.url, '--model', 'agent-pyautogui', '--family', 'pyautogui', '--data-dir', mkdtempSync(join(scratch, 'data-'))];
      const env = { env: { DISPLAY: sized.display, OPENAI_API_KEY: '' } };
      const words = await runMnemo(args, env);
      expect(words.code).toBe(3);
      expect(words.stdout).toMatch(/^Grounding of agent-pyautogui \(pyautogui\) on 3 targets, 1280x720 images of a 1920x1080 screen:/);
      expect(words.stdout).toContain('fix: run with --coordinates relative-1,');
      for (const request of server.requests) expect(await decodeDataUrl(imagesIn(request.body)[0]!)).toMatchObject({ width: 1280, height: 720 });
      const json = await runMnemo([...args, '--coordinates', 'relative-1', '--json'], env);
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout);
      expect(report).toMatchObject({ configured: 'relative-1', detected: 'relative-1', targets: 3, hits: { 'relative-1': 3 } });
      // Three decimals of 0-1 are about 1.3 px of the image, 2 px of the screen: the error stays that small.
      expect(report.meanErrorPx).toBeLessThan(3);
    } finally {
      await server.close();
    }
  });
});
