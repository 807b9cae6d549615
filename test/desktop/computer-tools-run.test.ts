/**
 * Today's frontier models, spoken as they are now, end to end with the real `mnemo run` process,
 * the vendors' SDKs against the scripted servers (which refuse what the real APIs refuse: the older
 * tools for Claude 5, a call left unanswered, a toolset answer without its `toolset_name`, the GA
 * tool for computer-use-preview), real input, and the effects checked on the page:
 *
 * - Claude's `computer_toolset_20260801` (claude-sonnet-5-5): batches of 2-4 member calls per turn,
 *   a zoom, on the 1280x800 test display and on a 1920x1200 display;
 * - OpenAI's GA `computer` tool (gpt-5.5): `actions` batches, on both screens;
 * - a click with Shift held, with both tools;
 * - a batch cut short because the page changed under it: the clicks after never reach the page, and
 *   the next request says which actions did not run.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicImagesIn, decodeImage, lastToolResults, member, resultText, startAnthropicServer, type AnthropicServer, type MessageScript } from '../fixtures/anthropic-server';
import { failureScreenshot } from '../fixtures/desktop/display';
import { expectFormSubmitted, formPage, inImage, resetForm, testDisplayScreen, type FormPage, type FormScreen } from '../fixtures/desktop/form-task';
import { TARGET_LAYOUT, type Rect } from '../fixtures/desktop/layout';
import { startSizedDisplay } from '../fixtures/desktop/sized-display';
import { decodeDataUrl, imagesIn, startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-computer-tools-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const NAME = 'Ada Lovelace';
const NOTES = 'Analytical Engine\nNote G: Bernoulli numbers!';
const SUMMARY = 'The form is filled in and submitted.';

/** A 1920x1200 display of its own, sent at the default 1280 wide (1280x800). */
async function wideScreen(): Promise<FormScreen> {
  const sized = await startSizedDisplay(1920, 1200);
  return { display: sized.display, screen: { width: 1920, height: 1200 }, image: { width: 1280, height: 800 }, close: () => sized.stop() };
}

/** Memory models of their own, so their summaries never take an agent reply. */
let claudeMemory: AnthropicServer;
let openAiMemory: ScriptedServer;
beforeAll(async () => {
  claudeMemory = await startAnthropicServer({ replies: () => ({ content: [{ type: 'text', text: JSON.stringify({ summary: 'Earlier steps: the form.' }) }] }) });
  openAiMemory = await startMemoryModelServer('Earlier steps: the form.');
});
afterAll(async () => {
  await claudeMemory?.close();
  await openAiMemory?.close();
});

const point = (at: { x: number; y: number }) => [Math.round(at.x), Math.round(at.y)];

/** A data directory whose config sends images of the screen's size and keeps the memory model apart. */
function dataDirFor(screen: FormScreen, memory: { baseUrl: string; family?: string }): string {
  const dataDir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ ...(screen.imageConfig ? { image: screen.imageConfig } : {}), memory: { model: memory } }));
  return dataDir;
}

function recordedEvents(dataDir: string): Array<Record<string, unknown>> {
  const [session] = readdirSync(join(dataDir, 'sessions'));
  return readFileSync(join(dataDir, 'sessions', session!, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function runClaude(page: FormPage, replies: MessageScript[], extra: string[] = []) {
  const model = await startAnthropicServer({ replies });
  const dataDir = dataDirFor(page.screen, { baseUrl: claudeMemory.url });
  const run = await runMnemo(['run', 'Fill in the form with Ada Lovelace and submit it', '--base-url', model.url, '--model', 'claude-sonnet-5-5', '--family', 'anthropic', '--data-dir', dataDir, '--json', '--non-interactive', ...extra], {
    env: { DISPLAY: page.screen.display, ANTHROPIC_API_KEY: 'sk-ant-e2e-test-key', ANTHROPIC_BASE_URL: '' },
  });
  return { model, run, dataDir, events: jsonLines(run.stdout) };
}

async function runGpt(page: FormPage, replies: ScriptedReply[]) {
  const model = await startScriptedServer({ replies });
  const dataDir = dataDirFor(page.screen, { baseUrl: openAiMemory.url });
  const run = await runMnemo(['run', 'Fill in the form with Ada Lovelace and submit it', '--base-url', model.url, '--model', 'gpt-5.5', '--data-dir', dataDir, '--json', '--non-interactive'], {
    env: { DISPLAY: page.screen.display, OPENAI_API_KEY: '' },
  });
  return { model, run, dataDir, events: jsonLines(run.stdout) };
}

const gptBatch = (id: string, actions: unknown[]) => ({ type: 'computer_call', id: `cu_${id}`, call_id: `call_${id}`, actions, pending_safety_checks: [], status: 'completed' });
const gptSays = (text: string) => ({ type: 'message', id: 'msg_done', role: 'assistant', content: [{ type: 'output_text', text }] });

function formTask(setup: () => Promise<FormScreen>) {
  const page = formPage(setup);
  const failed = (name: string) => async () => {
    const { screen } = page();
    await failureScreenshot(screen.display, `computer-tools-${name}-${screen.screen.width}x${screen.screen.height}`);
  };

  it('Claude 5.5 fills in the form with the computer toolset, several member calls per turn', { timeout: 180_000 }, async ({ onTestFailed }) => {
    onTestFailed(failed('claude-form'));
    const current = page();
    await resetForm(current);
    const at = (rect: Rect) => point(inImage(current, rect));
    const submit = at(TARGET_LAYOUT['btn-center']);
    const region = [submit[0]! - 40, submit[1]! - 20, submit[0]! + 40, submit[1]! + 20];
    const { model, run, events } = await runClaude(current, [
      {
        content: [
          { type: 'thinking', thinking: 'The name field is at the top right.', signature: 'sig-a' },
          { type: 'text', text: 'I fill in the name and go to the notes.' },
          member('left_click', { coordinate: at(TARGET_LAYOUT.field) }, 'toolu_field'),
          member('type', { text: NAME }, 'toolu_name'),
          member('left_click', { coordinate: at(TARGET_LAYOUT.area) }, 'toolu_area'),
        ],
      },
      {
        content: [
          { type: 'text', text: 'The notes; a closer look at the button; submit.' },
          member('type', { text: NOTES }, 'toolu_notes'),
          member('zoom', { region }, 'toolu_zoom'),
          member('left_click', { coordinate: submit }, 'toolu_submit'),
          member('screenshot', {}, 'toolu_look'),
        ],
      },
      { content: [{ type: 'text', text: SUMMARY }] },
    ]);
    try {
      expect(run.code, run.stderr).toBe(0);
      await expectFormSubmitted(current.pageServer, NAME, NOTES);
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 3, summary: SUMMARY });

      // The toolset as the API takes it: one entry, no name, no display, no beta header.
      expect(model.requests).toHaveLength(3);
      for (const request of model.requests) {
        expect(request.body.tools[0]).toEqual({ type: 'computer_toolset_20260801' });
        expect(request.headers['anthropic-beta']).toBeUndefined();
      }
      // Every member call answered in order, its answer carrying toolset_name, in words.
      const first = lastToolResults(model.requests[1]!.body) as Array<{ tool_use_id: string; toolset_name?: string; is_error?: boolean; content: unknown[] }>;
      expect(first.map((result) => [result.tool_use_id, result.toolset_name, result.is_error ?? false])).toEqual([
        ['toolu_field', 'computer', false],
        ['toolu_name', 'computer', false],
        ['toolu_area', 'computer', false],
      ]);
      expect(resultText(first[0]!)).toMatch(/^Clicked\./);
      expect(resultText(first[1]!)).toMatch(/^Typed\./);
      // The screen after the step follows the answers, at the size of the images sent.
      const shown = anthropicImagesIn(model.requests[1]!.body.messages.at(-1));
      expect(shown).toHaveLength(1);
      expect(await decodeImage(shown[0]!)).toMatchObject(current.screen.image);

      const second = lastToolResults(model.requests[2]!.body);
      expect(second.map((result) => result.tool_use_id)).toEqual(['toolu_notes', 'toolu_zoom', 'toolu_submit', 'toolu_look']);
      // The zoom: the region at the screen's own resolution (larger than in the image on the larger screen).
      const zoomed = await decodeImage(anthropicImagesIn(second[1])[0]!);
      const scale = current.screen.screen.width / current.screen.image.width;
      expect(Math.abs(zoomed.width - 80 * scale)).toBeLessThanOrEqual(2);
      expect(Math.abs(zoomed.height - 40 * scale)).toBeLessThanOrEqual(2);
      // The last call was a screenshot: its answer is the screen after the step.
      expect(await decodeImage(anthropicImagesIn(second[3])[0]!)).toMatchObject(current.screen.image);
    } finally {
      await model.close();
    }
  });

  it('GPT-5.5 fills in the form with the GA computer tool, its actions batches run in order', { timeout: 180_000 }, async ({ onTestFailed }) => {
    onTestFailed(failed('gpt-form'));
    const current = page();
    await resetForm(current);
    const at = (rect: Rect) => {
      const [x, y] = point(inImage(current, rect));
      return { x, y };
    };
    const { model, run, events, dataDir } = await runGpt(current, [
      {
        responseOutput: [
          gptBatch('1', [
            { type: 'click', button: 'left', ...at(TARGET_LAYOUT.field) },
            { type: 'type', text: NAME },
            { type: 'click', button: 'left', ...at(TARGET_LAYOUT.area) },
            { type: 'type', text: NOTES },
          ]),
        ],
      },
      { responseOutput: [gptBatch('2', [{ type: 'click', button: 'left', ...at(TARGET_LAYOUT['btn-center']) }])] },
      { responseOutput: [gptSays(SUMMARY)] },
    ]);
    try {
      expect(run.code, run.stderr).toBe(0);
      await expectFormSubmitted(current.pageServer, NAME, NOTES);
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 3 });
      expect(model.requests).toHaveLength(3);
      for (const request of model.requests) expect(request.body.tools[0]).toEqual({ type: 'computer' });
      // The screenshot goes at its original detail: the GA tool's points are its pixels.
      expect(JSON.stringify(model.requests[0]!.body.input)).toContain('"detail":"original"');
      // Each call answered with the screen after it, chained on the response.
      expect(model.requests[1]!.body.previous_response_id).toBe('resp_0');
      expect(model.requests[1]!.body.input[0]).toMatchObject({ type: 'computer_call_output', call_id: 'call_1' });
      for (const request of model.requests) for (const image of imagesIn(request.body)) expect(await decodeDataUrl(image)).toMatchObject(current.screen.image);
      // The record: the four actions of the first batch ran, in order.
      const ran = recordedEvents(dataDir).filter((event) => event.type === 'action-result' && event.step === 1);
      expect(ran.map((event) => (event.action as { type: string }).type)).toEqual(['click', 'type', 'click', 'type']);
    } finally {
      await model.close();
    }
  });

  it('a click with Shift held reaches the page with Shift, with both tools', { timeout: 180_000 }, async ({ onTestFailed }) => {
    onTestFailed(failed('shift-click'));
    const current = page();
    await resetForm(current);
    const target = inImage(current, TARGET_LAYOUT['btn-tl']);
    const claude = await runClaude(current, [{ content: [member('left_click', { coordinate: point(target), text: 'shift' })] }, { content: [{ type: 'text', text: 'Clicked.' }] }]);
    try {
      expect(claude.run.code, claude.run.stderr).toBe(0);
      expect(await current.pageServer.waitForType('click', (event) => event.target === 'btn-tl')).toMatchObject({ shiftKey: true, ctrlKey: false });
    } finally {
      await claude.model.close();
    }
    current.pageServer.clear();
    const [x, y] = point(target);
    const gpt = await runGpt(current, [{ responseOutput: [gptBatch('1', [{ type: 'click', button: 'left', x, y, keys: ['SHIFT'] }])] }, { responseOutput: [gptSays('Clicked.')] }]);
    try {
      expect(gpt.run.code, gpt.run.stderr).toBe(0);
      expect(await current.pageServer.waitForType('click', (event) => event.target === 'btn-tl')).toMatchObject({ shiftKey: true, ctrlKey: false });
    } finally {
      await gpt.model.close();
    }
  });

  it('a batch stops where the page changed under it: the clicks after never reach the page, and the model is told which did not run', { timeout: 180_000 }, async ({ onTestFailed }) => {
    onTestFailed(failed('batch-cut'));
    const current = page();
    await resetForm(current);
    // The first click reflows the page: the form moves down, away from where the model saw it.
    await current.pageServer.shiftOnClick('btn-tl', 0, 160);
    const at = (rect: Rect) => point(inImage(current, rect));
    const { model, run, dataDir } = await runClaude(current, [
      {
        content: [
          member('left_click', { coordinate: at(TARGET_LAYOUT['btn-tl']) }, 'toolu_open'),
          member('left_click', { coordinate: at(TARGET_LAYOUT.field) }, 'toolu_field'),
          member('type', { text: NAME }, 'toolu_name'),
          member('left_click', { coordinate: at(TARGET_LAYOUT.area) }, 'toolu_area'),
        ],
      },
      { content: [{ type: 'text', text: 'The page changed; I stop here.' }] },
    ]);
    try {
      expect(run.code, run.stderr).toBe(0);
      // The page got the first click, and nothing after it: no click, no typing. (The page reports
      // in order: once it answered the state command, every earlier report has arrived.)
      await current.pageServer.waitForType('click', (event) => event.target === 'btn-tl');
      const state = await current.pageServer.state();
      expect(state.field.value).toBe('');
      const events = current.pageServer.events();
      expect(events.filter((event) => event.type === 'click').map((event) => (event as { target: string }).target)).toEqual(['btn-tl']);
      expect(events.filter((event) => event.type === 'keydown')).toEqual([]);

      // The next request: the first call ran, the three after it did not, and why.
      const results = lastToolResults(model.requests[1]!.body);
      expect(results.map((result) => [result.tool_use_id, result.is_error ?? false])).toEqual([
        ['toolu_open', false],
        ['toolu_field', true],
        ['toolu_name', true],
        ['toolu_area', true],
      ]);
      for (const result of results.slice(1)) expect(resultText(result)).toMatch(/^Not executed: the screen changed after action 1 of 4 where action 2 aims; 2, 3 and 4 were not run/);
      // The record says it too: the actions not run, from the second on.
      const notRun = recordedEvents(dataDir).filter((event) => event.type === 'actions-not-run');
      expect(notRun).toMatchObject([{ step: 1, from: 1, count: 3, reason: expect.stringMatching(/the screen changed after action 1 of 4/) }]);
    } finally {
      await model.close();
      await current.pageServer.shift(0, 0);
    }
  });
}

describe('on the 1280x800 test display, sent as 960x600', () => {
  formTask(testDisplayScreen);
});

describe('on a 1920x1200 display, sent as 1280x800', () => {
  formTask(wideScreen);
});

/** A 2560x1440 display of its own, sent at the default 1280 wide (1280x720): small targets are a few image pixels. */
async function monitorScreen(): Promise<FormScreen> {
  const sized = await startSizedDisplay(2560, 1440);
  return { display: sized.display, screen: { width: 2560, height: 1440 }, image: { width: 1280, height: 720 }, close: () => sized.stop() };
}

describe('zoom on a 2560x1440 display, sent as 1280x720', () => {
  const page = formPage(monitorScreen);

  it('the tools family zooms: the next screenshot is the region at the screen’s resolution, and a click on it lands through the region', { timeout: 180_000 }, async ({ onTestFailed }) => {
    onTestFailed(async () => {
      await failureScreenshot(page().screen.display, 'computer-tools-zoom-2560x1440');
    });
    const current = page();
    await resetForm(current);
    const button = inImage(current, TARGET_LAYOUT['btn-center']);
    const region = { x: Math.round(button.x) - 40, y: Math.round(button.y) - 20, toX: Math.round(button.x) + 40, toY: Math.round(button.y) + 20 };
    const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({ text: '', toolCalls: [{ name, arguments: args }] });
    // The zoomed image is the region at the screen's resolution: 160x80; its centre is the button's.
    const model = await startScriptedServer({
      replies: [call('zoom', region), call('computer', { thought: 'The button, closer.', actions: [{ type: 'click', x: 80, y: 40 }] }), call('computer', { actions: [{ type: 'finished', summary: SUMMARY }] })],
    });
    try {
      const dataDir = dataDirFor(current.screen, { baseUrl: openAiMemory.url });
      const run = await runMnemo(['run', 'Press the button', '--base-url', model.url, '--model', 'scripted-vision', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive'], {
        env: { DISPLAY: current.screen.display, OPENAI_API_KEY: '' },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(jsonLines(run.stdout).at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 3 });
      await current.pageServer.waitForType('click', (event) => event.target === 'btn-center');

      // Zoom is offered where the screen is larger than the image.
      expect(model.requests[0]!.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['computer', 'zoom']);
      // The second look is the region, twice as fine as the screenshot, told as such.
      const [zoomed] = imagesIn(model.requests[1]!.body).slice(-1);
      expect(await decodeDataUrl(zoomed!)).toMatchObject({ width: 160, height: 80 });
      expect(JSON.stringify(model.requests[1]!.body.messages)).toContain(`the region from (${region.x}, ${region.y}) to (${region.toX}, ${region.toY}) of the screenshot before`);
      // The third look is the whole screen again.
      const [whole] = imagesIn(model.requests[2]!.body).slice(-1);
      expect(await decodeDataUrl(whole!)).toMatchObject(current.screen.image);
    } finally {
      await model.close();
    }
  });

  it('Claude\'s toolset zoom answers the region at the screen’s resolution, and the run goes on', { timeout: 180_000 }, async ({ onTestFailed }) => {
    onTestFailed(async () => {
      await failureScreenshot(page().screen.display, 'computer-tools-claude-zoom-2560x1440');
    });
    const current = page();
    await resetForm(current);
    const submit = point(inImage(current, TARGET_LAYOUT['btn-center']));
    const { model, run } = await runClaude(current, [
      { content: [member('zoom', { region: [submit[0]! - 40, submit[1]! - 20, submit[0]! + 40, submit[1]! + 20] }, 'toolu_zoom'), member('left_click', { coordinate: submit }, 'toolu_submit')] },
      { content: [{ type: 'text', text: SUMMARY }] },
    ]);
    try {
      expect(run.code, run.stderr).toBe(0);
      await current.pageServer.waitForType('click', (event) => event.target === 'btn-center');
      const [zoomResult] = lastToolResults(model.requests[1]!.body);
      expect(await decodeImage(anthropicImagesIn(zoomResult)[0]!)).toMatchObject({ width: 160, height: 80 });
    } finally {
      await model.close();
    }
  });
});
