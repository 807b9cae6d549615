/**
 * `mnemo run --family gemini` end to end: the real CLI process, the official `@google/genai` SDK
 * against the scripted Gemini server, real input, the instrumented form in kiosk Chromium. The
 * form task on the 1280x800 test display (sent as 960x600 images) and on a 1920x1080 desktop of
 * its own (sent as 1280x720 images): the scripted model answers on the 0–999 grid, as Gemini does,
 * and every field and the button must be hit. The memory model is a Gemini model too (its own
 * scripted server). And a call whose safety decision needs confirmation, with nobody to ask
 * (`--non-interactive`): nothing runs, exit 4.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { contentsOf, functionResponsesIn, geminiImagesIn, startGeminiServer, type GeminiScript, type GeminiServer } from '../fixtures/gemini-server';
import { decodeDataUrl } from '../fixtures/openai-server';
import { launchKiosk, type Kiosk } from '../fixtures/desktop/chromium';
import { failureScreenshot, requireDisplay, xdotool } from '../fixtures/desktop/display';
import { startEventServer, type EventServer } from '../fixtures/desktop/event-server';
import { centreOf, type Rect } from '../fixtures/desktop/layout';
import { startSizedDisplay, type SizedDisplay } from '../fixtures/desktop/sized-display';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';

const MODEL = 'gemini-2.5-computer-use-preview-10-2025';
const KEY = 'AIza-run-test-key-0123456789';
const NAME = 'Ada Lovelace';
const NOTES = 'Analytical Engine\nNote G: Bernoulli numbers!';
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-gemini-run-'));

/** The memory model's own Gemini server: its summaries never take an agent's scripted reply. */
let memoryModel: GeminiServer;
beforeAll(async () => {
  memoryModel = await startGeminiServer({ replies: () => ({ text: JSON.stringify({ summary: 'Earlier steps: the agent worked through the form.' }) }) });
});
afterAll(async () => {
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface Desk {
  display: string;
  screen: { width: number; height: number };
  server: EventServer;
  kiosk: Kiosk;
}

/** The page in kiosk Chromium on `display`, opened before the describe's tests and closed after. */
function useDesk(open: () => Promise<{ display: string; screen: { width: number; height: number }; close?: () => Promise<void> }>): Desk {
  const desk = {} as Desk;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await open();
    close = opened.close;
    desk.display = opened.display;
    desk.screen = opened.screen;
    desk.server = await startEventServer();
    desk.kiosk = await launchKiosk(desk.server, { display: opened.display });
  });
  afterAll(async () => {
    await desk.kiosk?.close();
    await desk.server?.close();
    await close?.();
  });
  beforeEach(async ({ task, onTestFailed }) => {
    onTestFailed(async () => {
      await failureScreenshot(desk.display, `gemini-run-${task.name}`);
    });
    await xdotool(desk.display, ['mousemove', '40', String(desk.screen.height - 40)]);
    await desk.kiosk.focus();
    await desk.server.reset();
    desk.server.clear();
  });
  return desk;
}

/** The grid cell a Gemini model answers for the centre of an element of the page. */
function gridAt(desk: Desk, rect: Rect): { x: number; y: number } {
  const point = desk.kiosk.toScreen(centreOf(rect));
  return { x: Math.round((point.x * 1000) / desk.screen.width), y: Math.round((point.y * 1000) / desk.screen.height) };
}

function dataDir(image: { maxWidth: number }): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ image, memory: { model: { baseUrl: memoryModel.url, model: 'gemini-2.5-flash' } } }));
  return dir;
}

async function mnemoRun(desk: Desk, model: GeminiServer, dir: string, extra: string[] = []) {
  const run = await runMnemo(
    ['run', 'Fill in the form with Ada Lovelace and submit it', '--family', 'gemini', '--base-url', model.url, '--model', MODEL, '--data-dir', dir, '--json', ...extra],
    { env: { DISPLAY: desk.display, GEMINI_API_KEY: KEY, GOOGLE_API_KEY: '', OPENAI_API_KEY: '' } },
  );
  return { ...run, events: jsonLines(run.stdout) };
}

/** The form task: fill the name and the notes, submit; the model answers on the grid. */
async function formTask(desk: Desk, image: { width: number; height: number }): Promise<void> {
  const rects = (await desk.server.state()).rects;
  const replies: GeminiScript[] = [
    { thought: 'The name field is at the top right.', calls: [{ name: 'type_text_at', args: { ...gridAt(desk, rects.field), text: NAME } }] },
    { thought: 'Now the notes.', calls: [{ name: 'type_text_at', args: { ...gridAt(desk, rects.area), text: NOTES } }] },
    { thought: 'Everything is filled in: submit.', calls: [{ name: 'click_at', args: gridAt(desk, rects['btn-center']) }] },
    { text: 'The form is filled in and submitted.' },
  ];
  const model = await startGeminiServer({ replies, apiKey: KEY, models: [MODEL] });
  try {
    const dir = dataDir({ maxWidth: image.width });
    const run = await mnemoRun(desk, model, dir, ['--non-interactive']);
    expect(run.code, run.stderr).toBe(0);

    const state = await desk.server.state();
    expect(state.field.value).toBe(NAME);
    expect(state.area.value).toBe(NOTES);
    await desk.server.waitForType('click', (e) => e.target === 'btn-center');
    expect(run.events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 4, summary: 'The form is filled in and submitted.' });
    expect(run.events.some((e) => e.type === 'thought-delta')).toBe(true);
    expect(run.events.find((e) => e.type === 'run-started')).toMatchObject({ family: 'gemini', model: MODEL });

    // The provider check asked for the model; four requests, each image the size sent, every call answered.
    expect(model.probes.map((probe) => probe.model)).toEqual([MODEL]);
    expect(model.requests).toHaveLength(4);
    for (const request of model.requests) {
      for (const url of geminiImagesIn(request.body)) expect(await decodeDataUrl(url)).toMatchObject(image);
    }
    const last = contentsOf(model.requests[3]!);
    expect(last.map((content) => content.role)).toEqual(['user', 'model', 'user', 'model', 'user', 'model', 'user']);
    expect(functionResponsesIn(last.at(-1)).map((response) => response.name)).toEqual(['click_at']);
    expect(functionResponsesIn(last[2]).map((response) => response.name)).toEqual(['type_text_at']);

    // The session on disk, and the key in none of it.
    const [session] = readdirSync(join(dir, 'sessions'));
    const meta = JSON.parse(readFileSync(join(dir, 'sessions', session!, 'session.json'), 'utf8'));
    expect(meta).toMatchObject({ status: 'finished', steps: 4, family: 'gemini' });
    expect(readFileSync(join(dir, 'sessions', session!, 'events.jsonl'), 'utf8')).not.toContain(KEY);
    // The memory work went to the memory model's Gemini server, none of it to the agent's.
    expect(memoryModel.requests.length).toBeGreaterThan(0);
    expect(memoryModel.requests.every((request) => request.model === 'gemini-2.5-flash')).toBe(true);
  } finally {
    await model.close();
  }
}

describe('the form task on the 1280x800 test display (960x600 images)', () => {
  const desk = useDesk(async () => ({ display: requireDisplay(), screen: { width: 1280, height: 800 } }));

  it('fills the form and submits it', { timeout: 180_000 }, async () => {
    await formTask(desk, { width: 960, height: 600 });
  });

  it('a call that needs confirmation, with nobody to ask: nothing runs, exit 4', { timeout: 120_000 }, async () => {
    const decision = { decision: 'require_confirmation', explanation: 'Submitting sends the form.' };
    const rects = (await desk.server.state()).rects;
    const model = await startGeminiServer({ replies: [{ calls: [{ name: 'click_at', args: { ...gridAt(desk, rects['btn-center']), safety_decision: decision } }] }, { text: 'Sent.' }], apiKey: KEY });
    try {
      const run = await mnemoRun(desk, model, dataDir({ maxWidth: 960 }), ['--non-interactive']);
      expect(run.code, run.stderr).toBe(4);
      expect(run.events.at(-1)).toMatchObject({ type: 'run-finished', status: 'refused' });
      expect(run.events.find((e) => e.type === 'ask-user')).toMatchObject({ kind: 'safety_check', question: expect.stringContaining('Submitting sends the form.') });
      expect(model.requests).toHaveLength(1);
      await desk.server.settle(300);
      expect(desk.server.events().filter((e) => e.type === 'mousedown' || e.type === 'click')).toEqual([]);
    } finally {
      await model.close();
    }
  });
});

describe('the form task on a 1920x1080 desktop (1280x720 images)', () => {
  let desktop: SizedDisplay | undefined;
  const desk = useDesk(async () => {
    desktop = await startSizedDisplay(1920, 1080);
    return { display: desktop.display, screen: { width: 1920, height: 1080 }, close: () => desktop!.stop() };
  });

  it('fills the form and submits it', { timeout: 180_000 }, async () => {
    expect(desk.kiosk.fillsScreen).toBe(true);
    await formTask(desk, { width: 1280, height: 720 });
  });
});
