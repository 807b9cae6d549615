/**
 * Proves the desktop harness itself, with xdotool as the input source (not nut-js), so that a failure in
 * the action-fidelity suite can be blamed on the input layer and not on the targets:
 * the kiosk page fills the screen at 0,0, the page reports real input where it lands, and the xterm
 * runs what is typed into it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEventServer, type EventServer } from '../fixtures/desktop/event-server';
import { launchKiosk, type Kiosk } from '../fixtures/desktop/chromium';
import { launchXterm, type Xterm } from '../fixtures/desktop/xterm';
import { displaySize, failureScreenshot, requireDisplay, xdotool } from '../fixtures/desktop/display';
import { centreOf, sliderPoint, TARGET_LAYOUT, TARGET_SCREEN } from '../fixtures/desktop/layout';

let display: string;
let server: EventServer;
let kiosk: Kiosk | undefined;

const x = (...args: string[]) => xdotool(display, args);
/** Moves, then clicks: two xdotool calls, like a real pointer that arrives before it presses. */
async function clickAt(point: { x: number; y: number }, button = 1): Promise<void> {
  await x('mousemove', String(point.x), String(point.y));
  await x('click', String(button));
}

beforeAll(async () => {
  display = requireDisplay();
  server = await startEventServer();
  // One Chromium for the whole file: starting it is the slow part.
  kiosk = await launchKiosk(server, { display });
});

afterAll(async () => {
  await kiosk?.close();
  await server?.close();
});

beforeEach(({ task, onTestFailed }) => {
  onTestFailed(async () => {
    await failureScreenshot(display, `harness-${task.name}`);
  });
});

describe('kiosk target page', () => {
  beforeEach(async () => {
    await kiosk!.focus();
    await server.reset();
    server.clear();
  });

  it('fills the screen at 0,0 with CSS pixels equal to screen pixels', async () => {
    const screen = await displaySize(display);
    expect(screen).toEqual(TARGET_SCREEN);
    expect(kiosk!.fillsScreen).toBe(true);
    expect(kiosk!.viewport).toMatchObject({ innerWidth: screen.width, innerHeight: screen.height, devicePixelRatio: 1 });
    // Measured from a screenshot, not from window.screenX: client (0,0) is screen (0,0), no infobar.
    expect(kiosk!.calibration).toMatchObject({ offsetX: 0, offsetY: 0, scaleX: 1, scaleY: 1 });
    // The page's own rects and the documented layout agree.
    expect(kiosk!.ready.rects).toEqual(TARGET_LAYOUT);
  });

  it('reports an xdotool click on the centre button where it landed', async () => {
    const target = centreOf(kiosk!.ready.rects['btn-center']);
    const screenPoint = kiosk!.toScreen(target);
    await clickAt(screenPoint);
    const click = await server.waitForType('click', (e) => e.target === 'btn-center');
    expect(click).toMatchObject({ button: 0, detail: 1, clientX: target.x, clientY: target.y, screenX: screenPoint.x, screenY: screenPoint.y });
    expect(server.events().filter((e) => e.type === 'mousedown' || e.type === 'mouseup').map((e) => `${e.type}@${'target' in e ? e.target : ''}`)).toEqual([
      'mousedown@btn-center',
      'mouseup@btn-center',
    ]);
  });

  it('reports double, right and middle clicks on the pad', async () => {
    const point = { x: 300, y: 200 };
    await x('mousemove', String(point.x), String(point.y));
    await x('click', '--repeat', '2', '--delay', '80', '1');
    await server.waitForType('dblclick', (e) => e.target === 'pad' && e.clientX === point.x && e.clientY === point.y && e.detail === 2);
    await x('click', '3');
    const menu = await server.waitForType('contextmenu', (e) => e.target === 'pad');
    expect(menu.blocked).toBe(true); // no native menu to grab the pointer
    await x('click', '2');
    await server.waitForType('auxclick', (e) => e.button === 1 && e.target === 'pad');
  });

  it('receives xdotool typing in #field, and Ctrl+A selects all of it', async () => {
    await clickAt(kiosk!.toScreen(centreOf(kiosk!.ready.rects.field)));
    await server.waitForType('focusin', (e) => e.target === 'field');
    await x('type', '--delay', '15', 'hello');
    await server.waitForType('input', (e) => e.target === 'field' && e.value === 'hello');
    expect((await server.state()).field.value).toBe('hello');

    const since = server.mark(); // the caret after typing was a selection report too
    await x('key', 'ctrl+a');
    const selection = await server.waitForType('selection', (e) => e.target === 'field', { since });
    expect(selection).toMatchObject({ selectionStart: 0, selectionEnd: 5, valueLength: 5, selectedText: 'hello' });
  });

  it('moves the slider to the value under the click (documented geometry)', async () => {
    for (const value of [0, 75, 100, 25]) {
      await clickAt(kiosk!.toScreen(sliderPoint(value, kiosk!.ready.rects.slider)));
      await server.waitForType('change', (e) => e.target === 'slider' && e.value === String(value));
    }
    expect((await server.state()).slider.value).toBe(25);
  });

  it('scrolls #scroller with the wheel, vertically and with shift horizontally', async () => {
    await x('mousemove', '930', '350');
    await x('click', '5'); // wheel down
    const down = await server.waitForType('scroll', (e) => e.scrollTop > 0);
    expect(down.scrollLeft).toBe(0);
    await x('keydown', 'shift');
    await x('click', '5');
    await x('keyup', 'shift');
    const right = await server.waitForType('scroll', (e) => e.scrollLeft > 0);
    expect(right.scrollTop).toBe(down.scrollTop);
  });

  it('calibrates from a screenshot without generating any input event', async () => {
    const since = server.mark();
    const calibration = await kiosk!.calibrate();
    expect(calibration).toMatchObject({ offsetX: 0, offsetY: 0, scaleX: 1, scaleY: 1 });
    await server.settle(100);
    const input = server.events().filter((e) => e.index >= since && /^(mouse|key|click|dblclick|wheel|contextmenu|auxclick|input)/.test(e.type));
    expect(input).toEqual([]);
  });

  it('names the last events when waitFor times out', async () => {
    await clickAt({ x: 60, y: 30 }); // btn-tl
    await server.waitForType('click', (e) => e.target === 'btn-tl');
    await expect(server.waitForType('click', (e) => e.target === 'nowhere', { timeoutMs: 200 })).rejects.toThrow(/Timed out after 200 ms[\s\S]*click \{"target":"btn-tl"/);
  });
});

describe('xterm target', () => {
  let xterm: Xterm | undefined;
  const file = join(tmpdir(), `mnemo-harness-${randomUUID()}`);

  beforeAll(async () => {
    xterm = await launchXterm({ display });
  });

  afterAll(async () => {
    await xterm?.close();
    rmSync(file, { force: true });
  });

  it('runs a command typed with xdotool', async () => {
    const before = xterm!.prompts();
    await xdotool(display, ['type', '--delay', '10', `echo hi > ${file}\n`]);
    expect(await xterm!.waitForPrompt(before)).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('hi\n');
  });
});
