/**
 * Claude's computer-use actions carried out on the real display: the loop in process (the real
 * DesktopOperator and nut-js, the real `@anthropic-ai/sdk` against the scripted Anthropic server,
 * a real session recorder) on the instrumented page in kiosk Chromium. The 1280x800 screen is sent
 * as 960x600 images, so every coordinate the scripted model writes is an image pixel; the effects
 * are checked where they land (the page), and what the model was told back in the next request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventOf } from '../../src/shared/events';
import { ModelSettingsSchema } from '../../src/shared/settings';
import { createVisionModel } from '../../src/main/model';
import { createDesktopOperator, type DesktopOperator } from '../../src/main/operator/desktop-operator';
import { FileRunRecorder } from '../../src/main/store/run-recorder';
import { DeviceAgent } from '../../src/main/agent/device-agent';
import * as claude from '../fixtures/anthropic-server';
import { xdotool } from '../fixtures/desktop/display';
import { screenshotOnFailure, useKioskPage } from '../fixtures/desktop/kiosk-page';
import { centreOf, sliderPoint, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { runContext } from '../fixtures/run-context';

const page = useKioskPage();
screenshotOnFailure(page, 'anthropic-actions');

/** The screen is 1280x800; the model sees 960x600. */
const IMAGE = { width: 960, height: 600 };
const toImage = (p: { x: number; y: number }): [number, number] => [Math.round((p.x * IMAGE.width) / 1280), Math.round((p.y * IMAGE.height) / 800)];

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-anthropic-actions-'));
let operator: DesktopOperator;
const servers: claude.AnthropicServer[] = [];

beforeAll(async () => {
  // nut-js reads DISPLAY when it loads.
  process.env.DISPLAY = page.display;
  const loaded = await createDesktopOperator();
  if (!loaded.ok) throw new Error(loaded.message);
  operator = loaded.operator;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
beforeEach(async () => {
  await xdotool(page.display, ['mousemove', '640', '700']);
  await page.kiosk.focus();
  await page.server.reset();
  page.server.clear();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const done = claude.reply('The task is done.');

/** Runs the loop with these replies (a last one finishes); the server keeps what it was sent. */
async function run(...replies: Array<claude.ScriptedBlock[]>): Promise<{ end: AgentEventOf<'run-finished'>; server: claude.AnthropicServer }> {
  const server = await claude.startAnthropicServer({ replies: [...replies.map((calls) => claude.reply('', ...calls)), done] });
  servers.push(server);
  const model = createVisionModel(ModelSettingsSchema.parse({ baseUrl: server.url, model: 'claude-sonnet-4-6', family: 'anthropic', maxRetries: 0, timeoutMs: 20_000 }));
  const recorder = await FileRunRecorder.create(mkdtempSync(join(scratch, 'data-')), { task: 'scripted', model: model.model, family: model.family });
  const agent = new DeviceAgent(
    { model },
    { settle: { intervalMs: 50, timeoutMs: 1000, threshold: 0.003 }, capture: { maxWidth: IMAGE.width, format: 'jpeg', quality: 80 } },
  );
  const events: AgentEvent[] = [];
  for await (const event of agent.run('Do the scripted task', runContext({ operator, recorder }))) events.push(event);
  const end = events.at(-1) as AgentEventOf<'run-finished'>;
  expect(end, JSON.stringify(events.filter((event) => event.type === 'model-error' || event.type === 'action-result'))).toMatchObject({ type: 'run-finished', status: 'finished' });
  return { end, server };
}

describe("Claude's computer actions on the real display", () => {
  it('left_click_drag moves the slider from its start to its end', async () => {
    await run([claude.computer('left_click_drag', { start_coordinate: toImage(sliderPoint(50)), coordinate: toImage(sliderPoint(90)) })]);
    expect(Math.abs((await page.server.state()).slider.value - 90)).toBeLessThanOrEqual(2);
  });

  it('mouse_move, left_mouse_down, mouse_move, left_mouse_up in one reply drag the slider; each call gets its result', async () => {
    const { server } = await run([
      claude.computer('mouse_move', { coordinate: toImage(sliderPoint(50)) }, 'toolu_1'),
      claude.computer('left_mouse_down', {}, 'toolu_2'),
      claude.computer('mouse_move', { coordinate: toImage(sliderPoint(20)) }, 'toolu_3'),
      claude.computer('left_mouse_up', {}, 'toolu_4'),
    ]);
    expect(Math.abs((await page.server.state()).slider.value - 20)).toBeLessThanOrEqual(2);
    const results = claude.lastToolResults(server.requests[1]?.body);
    expect(results.map((result) => [result.tool_use_id, result.is_error ?? false])).toEqual([
      ['toolu_1', false],
      ['toolu_2', false],
      ['toolu_3', false],
      ['toolu_4', false],
    ]);
    // One screenshot each, of the image's size: after the calls, and the screen now for the last.
    for (const result of results) {
      const images = claude.anthropicImagesIn(result);
      expect(images).toHaveLength(1);
      expect(await claude.decodeImage(images[0]!)).toMatchObject(IMAGE);
    }
  });

  it('clicks hold the modifiers given in text', async () => {
    const button = toImage(centreOf(TARGET_LAYOUT['btn-center']));
    await run([claude.computer('left_click', { coordinate: button, text: 'shift' })]);
    expect(await page.server.waitForType('click', (event) => event.target === 'btn-center')).toMatchObject({ shiftKey: true, ctrlKey: false });
    page.server.clear();
    await run([claude.computer('left_click', { coordinate: button, text: 'ctrl' })]);
    expect(await page.server.waitForType('click', (event) => event.target === 'btn-center')).toMatchObject({ ctrlKey: true, shiftKey: false });
  });

  it('scroll scrolls by the amount in the direction, where the coordinate says', async () => {
    await run([claude.computer('scroll', { coordinate: toImage(centreOf(TARGET_LAYOUT.scroller)), scroll_direction: 'down', scroll_amount: 2 })]);
    // One wheel notch scrolls the scroller by 120 px.
    await expect.poll(async () => (await page.server.state()).scroller.scrollTop, { timeout: 30_000 }).toBe(240);
  });

  it('type, then key with combinations and several keys, in one reply', async () => {
    await run([
      claude.computer('left_click', { coordinate: toImage(centreOf(TARGET_LAYOUT.field)) }),
      claude.computer('type', { text: 'Hello, wörld!' }),
      claude.computer('key', { text: 'ctrl+a BackSpace' }),
      claude.computer('type', { text: 'Ada' }),
    ]);
    expect((await page.server.state()).field.value).toBe('Ada');
  });

  it('triple_click selects the whole line; hold_key keeps the key down for the duration', async () => {
    await page.server.setValue('field', 'select all of this');
    await run([claude.computer('triple_click', { coordinate: toImage(centreOf(TARGET_LAYOUT.field)) }), claude.computer('hold_key', { text: 'shift', duration: 0.4 })]);
    expect((await page.server.state()).field).toMatchObject({ selectionStart: 0, selectionEnd: 'select all of this'.length });
    const down = await page.server.waitForType('keydown', (event) => event.key === 'Shift');
    const up = await page.server.waitForType('keyup', (event) => event.key === 'Shift');
    expect(up.time - down.time).toBeGreaterThanOrEqual(350);
  });

  it('zoom returns the region at the full resolution of the screen; cursor_position tells the pointer in image pixels', async () => {
    const button = TARGET_LAYOUT['btn-center'];
    // The button in image pixels, and a little around it.
    const region = [Math.floor(((button.x - 10) * 3) / 4), Math.floor(((button.y - 10) * 3) / 4), Math.ceil(((button.x + button.width + 10) * 3) / 4), Math.ceil(((button.y + button.height + 10) * 3) / 4)];
    const pointer = toImage({ x: 300, y: 600 });
    const { server } = await run([claude.computer('zoom', { region }, 'toolu_zoom'), claude.computer('mouse_move', { coordinate: pointer }, 'toolu_move'), claude.computer('cursor_position', {}, 'toolu_where')]);
    expect(server.requests[0]?.body.tools[0]).toMatchObject({ type: 'computer_20251124', display_width_px: 960, display_height_px: 600, enable_zoom: true });
    const results = claude.lastToolResults(server.requests[1]?.body);
    const [zoomed] = claude.anthropicImagesIn(results[0]);
    // The region's screen pixels, one image pixel to one screen pixel: 4/3 of its image size.
    const screenWidth = Math.ceil((region[2]! * 4) / 3) - Math.floor((region[0]! * 4) / 3);
    const screenHeight = Math.ceil((region[3]! * 4) / 3) - Math.floor((region[1]! * 4) / 3);
    expect(await claude.decodeImage(zoomed!)).toMatchObject({ width: screenWidth, height: screenHeight });
    // It shows the button (#f4e3c0) where the button is.
    const { data, info } = await sharp(Buffer.from(zoomed!.data, 'base64')).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
    const inside = at(Math.round(screenWidth * 0.2), Math.round(screenHeight / 2));
    for (const [channel, expected] of [0xf4, 0xe3, 0xc0].entries()) expect(Math.abs((inside[channel] ?? 0) - expected)).toBeLessThanOrEqual(12);
    const [x, y] = claude.resultText(results[2]!)
      .match(/^X=(\d+),Y=(\d+)$/)
      ?.slice(1)
      .map(Number) ?? [NaN, NaN];
    expect(Math.abs(x! - pointer[0])).toBeLessThanOrEqual(1);
    expect(Math.abs(y! - pointer[1])).toBeLessThanOrEqual(1);
  });
});
