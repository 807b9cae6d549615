/**
 * The form task end to end with `mnemo run --family anthropic`: the real CLI process, the real
 * `@anthropic-ai/sdk` against the scripted Anthropic server, real nut-js input, the effects checked
 * on the page. On the 1280x800 test display (sent as 960x600 images) and on a 1920x1080 display of
 * its own (sent as the default 1280x720): the scripted model clicks in pixels of the image it was
 * sent, and the clicks land.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicImagesIn,
  computer,
  decodeImage,
  lastToolResults,
  startAnthropicServer,
  type AnthropicServer,
  type MessageScript,
} from '../fixtures/anthropic-server';
import { launchKiosk, type Kiosk } from '../fixtures/desktop/chromium';
import { failureScreenshot, runX } from '../fixtures/desktop/display';
import { largeScreen, testDisplayScreen } from '../fixtures/desktop/form-task';
import { startEventServer, type EventServer } from '../fixtures/desktop/event-server';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-anthropic-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const NAME = 'Ada Lovelace';
const NOTES = 'Analytical Engine\nNote G: Bernoulli numbers!';
const SUMMARY = 'The form is filled in with Ada Lovelace and submitted.';
const THINKING = { type: 'thinking' as const, thinking: 'The name field is at the top right, the notes below it.', signature: 'EqQBCkgIARAB-signed-thinking' };

interface Screen {
  /** The display and its size. */
  display: string;
  screen: { width: number; height: number };
  /** The image the model is sent. */
  image: { width: number; height: number };
  /** config.json's image section (none: the default width, 1280). */
  imageConfig?: { maxWidth: number };
}

/** A memory model of its own, speaking the same API, so its summaries never take an agent reply. */
let memoryModel: AnthropicServer;
beforeAll(async () => {
  memoryModel = await startAnthropicServer({ replies: () => ({ content: [{ type: 'text', text: JSON.stringify({ summary: 'Earlier steps: the form is being filled in.' }) }] }) });
});
afterAll(async () => {
  await memoryModel?.close();
});

function formTask(setup: () => Promise<Screen & { close?: () => Promise<void> }>) {
  let screen: Screen & { close?: () => Promise<void> };
  let pageServer: EventServer;
  let kiosk: Kiosk;

  beforeAll(async () => {
    screen = await setup();
    pageServer = await startEventServer();
    kiosk = await launchKiosk(pageServer, { display: screen.display });
  });
  afterAll(async () => {
    await kiosk?.close();
    await pageServer?.close();
    await screen?.close?.();
  });

  it('fills in and submits the form, clicking in pixels of the image sent', { timeout: 180_000 }, async ({ onTestFailed }) => {
    onTestFailed(async () => {
      await failureScreenshot(screen.display, `anthropic-run-${screen.screen.width}x${screen.screen.height}`);
    });
    await runX(screen.display, 'xdotool', ['mousemove', String(screen.screen.width / 2), String(screen.screen.height - 60)]);
    await kiosk.focus();
    await pageServer.reset();
    pageServer.clear();

    // Page points → screen (measured) → pixels of the image the model sees.
    const toImage = (rect: (typeof TARGET_LAYOUT)[keyof typeof TARGET_LAYOUT]): [number, number] => {
      const onScreen = kiosk.toScreen(centreOf(rect));
      return [Math.round((onScreen.x * screen.image.width) / screen.screen.width), Math.round((onScreen.y * screen.image.height) / screen.screen.height)];
    };
    const submit = toImage(TARGET_LAYOUT['btn-center']);
    const region = [submit[0] - 40, submit[1] - 20, submit[0] + 40, submit[1] + 20];
    const replies: MessageScript[] = [
      {
        content: [
          THINKING,
          { type: 'text', text: 'I fill in the name, then go to the notes.' },
          computer('left_click', { coordinate: toImage(TARGET_LAYOUT.field) }, 'toolu_field'),
          computer('type', { text: NAME }, 'toolu_name'),
          computer('left_click', { coordinate: toImage(TARGET_LAYOUT.area) }, 'toolu_area'),
        ],
      },
      {
        content: [
          { type: 'text', text: 'Now the notes; I look at the button closely, then submit.' },
          computer('type', { text: NOTES }, 'toolu_notes'),
          computer('zoom', { region }, 'toolu_zoom'),
          computer('left_click', { coordinate: submit }, 'toolu_submit'),
        ],
      },
      { content: [{ type: 'text', text: SUMMARY }] },
    ];
    const model = await startAnthropicServer({ replies });
    try {
      const dataDir = mkdtempSync(join(scratch, 'data-'));
      writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ ...(screen.imageConfig ? { image: screen.imageConfig } : {}), memory: { model: { baseUrl: memoryModel.url } } }));
      const run = await runMnemo(
        ['run', 'Fill in the form with Ada Lovelace and submit it', '--base-url', model.url, '--model', 'claude-sonnet-4-6', '--family', 'anthropic', '--data-dir', dataDir, '--json', '--non-interactive'],
        { env: { DISPLAY: screen.display, ANTHROPIC_API_KEY: 'sk-ant-e2e-test-key', ANTHROPIC_BASE_URL: '' } },
      );
      const events = jsonLines(run.stdout);
      expect(run.code, run.stderr).toBe(0);

      // Where the effects land: the page got the name, the notes and the click on Submit.
      const state = await pageServer.state();
      expect(state.field.value).toBe(NAME);
      expect(state.area.value).toBe(NOTES);
      await pageServer.waitForType('click', (event) => event.target === 'btn-center');
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 3, summary: SUMMARY });
      expect(events.filter((event) => event.type === 'thought-delta').length).toBeGreaterThan(0);

      // What Claude was sent: the image as its display, the provider check, every call answered.
      expect(model.probes).toHaveLength(1);
      expect(model.requests).toHaveLength(3);
      for (const request of model.requests) {
        expect(request.headers['anthropic-beta']).toBe('computer-use-2025-11-24');
        expect(request.body.tools[0]).toMatchObject({ type: 'computer_20251124', display_width_px: screen.image.width, display_height_px: screen.image.height });
      }
      const second = model.requests[1]!.body;
      // The first reply goes back as it came, the thinking and its signature included.
      expect(second.messages[1].content[0]).toEqual(THINKING);
      const firstResults = lastToolResults(second);
      expect(firstResults.map((result) => [result.tool_use_id, result.is_error ?? false])).toEqual([
        ['toolu_field', false],
        ['toolu_name', false],
        ['toolu_area', false],
      ]);
      const shots = firstResults.map((result) => anthropicImagesIn(result)[0]!);
      for (const shot of shots) expect(await decodeImage(shot)).toMatchObject(screen.image);
      // A screenshot after each call: the one after typing shows the name, the one before did not.
      expect(shots[1]!.data).not.toBe(shots[0]!.data);

      const thirdResults = lastToolResults(model.requests[2]!.body);
      expect(thirdResults.map((result) => result.tool_use_id)).toEqual(['toolu_notes', 'toolu_zoom', 'toolu_submit']);
      const zoomed = await decodeImage(anthropicImagesIn(thirdResults[1])[0]!);
      // The zoom is the region at the screen's own resolution, larger than in the image.
      const scale = screen.screen.width / screen.image.width;
      expect(Math.abs(zoomed.width - 80 * scale)).toBeLessThanOrEqual(2);
      expect(Math.abs(zoomed.height - 40 * scale)).toBeLessThanOrEqual(2);

      // The record: the step screenshots and the captures after the calls beside them.
      const [session] = readdirSync(join(dataDir, 'sessions'));
      const files = readdirSync(join(dataDir, 'sessions', session!, 'screenshots')).sort();
      expect(files).toEqual(['step-0001-after-1.jpg', 'step-0001-after-2.jpg', 'step-0001.jpg', 'step-0002-after-1.jpg', 'step-0002-after-2.jpg', 'step-0002.jpg', 'step-0003.jpg']);
      const meta = JSON.parse(readFileSync(join(dataDir, 'sessions', session!, 'session.json'), 'utf8'));
      expect(meta).toMatchObject({ status: 'finished', family: 'anthropic', model: 'claude-sonnet-4-6' });
    } finally {
      await model.close();
    }
  });
}

describe('on the 1280x800 test display, sent as 960x600', () => {
  formTask(testDisplayScreen);
});

describe('on a 1920x1080 display, sent as 1280x720', () => {
  formTask(largeScreen);
});
