/**
 * Several displays on one desktop. Xvfb cannot show two RandR monitors, so the display list is
 * given (the left and right halves of the real 1280x800 screen) and everything else is real: the
 * nut-js grab of each region, the screenshot-desktop path, the union for "all", and input mapped
 * onto the second display.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DisplayInfo } from '../../src/shared/frame';
import { ScreenCapture } from '../../src/main/operator/capture';
import { DesktopOperator } from '../../src/main/operator/desktop-operator';
import { imageFrame } from '../../src/main/operator/geometry';
import { loadNut, type NutModule } from '../../src/main/operator/nut';
import { normalizeDisplays } from '../../src/main/operator/displays';
import { adoptDisplay, runX, xdotool } from '../fixtures/desktop/display';

const LEFT: DisplayInfo = { index: 0, id: 'left', name: 'left', bounds: { x: 0, y: 0, width: 640, height: 800 }, scaleFactor: 1, primary: true };
const RIGHT: DisplayInfo = { index: 1, id: 'right', name: 'right', bounds: { x: 640, y: 0, width: 640, height: 800 }, scaleFactor: 1, primary: false };

let display: string;
let nut: NutModule;
let painter: ChildProcess | undefined;

/** Average colour of an encoded image region. */
async function colourAt(image: Buffer, left: number, top: number, size = 20): Promise<[number, number, number]> {
  const { data } = await sharp(image).extract({ left, top, width: size, height: size }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const sum = [0, 0, 0];
  for (let i = 0; i < data.length; i += 3) for (let c = 0; c < 3; c++) sum[c]! += data[i + c]!;
  const n = data.length / 3;
  return [Math.round(sum[0]! / n), Math.round(sum[1]! / n), Math.round(sum[2]! / n)];
}

beforeAll(async () => {
  // nut-js reads DISPLAY when it loads.
  display = adoptDisplay();
  const loaded = await loadNut();
  if (!loaded.ok) throw new Error(loaded.message);
  nut = loaded.nut;
  // A pure blue window covering the right half: the right display is blue, the left is not.
  painter = spawn('xterm', ['-bg', '#0000ff', '-fg', '#0000ff', '-title', 'mnemo-right-half', '-geometry', '80x50+640+0', '-e', 'sleep', '600'], {
    env: { ...process.env, DISPLAY: display },
    stdio: 'ignore',
  });
  await xdotool(display, ['search', '--sync', '--onlyvisible', '--name', '^mnemo-right-half$']);
  await new Promise((resolve) => setTimeout(resolve, 300));
});

afterAll(() => {
  painter?.kill();
});

describe('capturing one display of several', () => {
  for (const source of ['nut-js', 'screenshot-desktop'] as const) {
    it(`captures each display's own region (${source})`, async () => {
      const capture = new ScreenCapture({ nut, listDisplays: async () => [LEFT, RIGHT] });
      const right = await capture.capture({ display: 1, format: 'png', source });
      expect(right.ok).toBe(true);
      if (!right.ok) return;
      expect(right.observation.frame).toMatchObject({ displayId: 'right', bounds: RIGHT.bounds, captured: { width: 640, height: 800 } });
      expect(await colourAt(right.observation.image, 100, 100)).toEqual([0, 0, 255]);
      const left = await capture.capture({ display: 0, format: 'png', source });
      expect(left.ok).toBe(true);
      if (left.ok) expect(await colourAt(left.observation.image, 600, 100)).not.toEqual([0, 0, 255]);
    });
  }

  it('captures all displays as one image of the union', async () => {
    const capture = new ScreenCapture({ nut, listDisplays: async () => [LEFT, RIGHT] });
    const all = await capture.capture({ display: 'all', format: 'png', maxWidth: 2000 });
    expect(all.ok).toBe(true);
    if (!all.ok) return;
    expect(all.observation.frame).toMatchObject({ displayId: 'all', bounds: { x: 0, y: 0, width: 1280, height: 800 }, image: { width: 1280, height: 800 } });
    expect(await colourAt(all.observation.image, 700, 100)).toEqual([0, 0, 255]);
  });

  it('names a display that does not exist', async () => {
    const capture = new ScreenCapture({ nut, listDisplays: async () => [LEFT, RIGHT] });
    expect(await capture.capture({ display: 2 })).toEqual({ ok: false, message: 'no display 2: there are 2 displays (0-1)' });
  });
});

describe('acting on the second display', () => {
  it('maps image coordinates onto that display', async () => {
    const operator = new DesktopOperator(nut);
    await runX(display, 'xdotool', ['mousemove', '100', '700']);
    const frame = imageFrame(RIGHT.bounds, { width: 320, height: 400 }, RIGHT.id);
    // Image pixel (160, 200) covers logical (320-321, 400-401) of the right display: its centre.
    const result = await operator.execute({ type: 'mouse_move', x: 160, y: 200 }, frame);
    expect(result).toMatchObject({ ok: true, points: [{ x: 961, y: 401 }] });
    const location = await xdotool(display, ['getmouselocation', '--shell']);
    expect(location).toMatch(/X=961\nY=401/);
  });
});

describe('display lists from the platform', () => {
  it('keeps bounds, marks the primary, and falls back to one screen', () => {
    const reported = [
      { id: 'eDP-1', name: 'eDP-1', width: 1920, height: 1080, offsetX: 0, offsetY: 0, primary: false },
      { id: 'HDMI-1', name: 'HDMI-1', width: 2560, height: 1440, offsetX: 1920, offsetY: -180, primary: true },
    ];
    expect(normalizeDisplays(reported, { width: 1, height: 1 }, {})).toEqual([
      { index: 0, id: 'eDP-1', name: 'eDP-1', bounds: { x: 0, y: 0, width: 1920, height: 1080 }, scaleFactor: 1, primary: false },
      { index: 1, id: 'HDMI-1', name: 'HDMI-1', bounds: { x: 1920, y: -180, width: 2560, height: 1440 }, scaleFactor: 1, primary: true },
    ]);
    expect(normalizeDisplays([{ id: 1, left: -1280, top: 0, width: 1280, height: 1024, dpiScale: 1.25 }], { width: 1, height: 1 }, {})).toEqual([
      { index: 0, id: '1', name: '1', bounds: { x: -1280, y: 0, width: 1280, height: 1024 }, scaleFactor: 1.25, primary: true },
    ]);
    expect(normalizeDisplays([], { width: 1440, height: 900 }, { MNEMO_SCALE_FACTOR: '2' })).toEqual([
      { index: 0, id: 'screen', name: 'screen', bounds: { x: 0, y: 0, width: 1440, height: 900 }, scaleFactor: 2, primary: true },
    ]);
  });
});
