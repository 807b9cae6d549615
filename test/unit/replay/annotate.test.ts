/**
 * annotateScreenshot draws with sharp: these tests decode the PNG it returns and look at pixels,
 * where the marks should be and where they should not.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { Action } from '../../../src/shared/actions';
import type { ActionResult } from '../../../src/shared/action-result';
import { actionOverlaySvg, annotateScreenshot, BUTTON_COLOURS } from '../../../src/main/replay/annotate';
import { LABEL_TEXT_LIMIT } from '../../../src/shared/describe-action';
import { makeScreenshot } from '../../fixtures/session-fixture';

interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

type Rgb = [number, number, number];

const GREY = { r: 110, g: 110, b: 110 };

async function decode(image: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

function rgb(image: Pixels, x: number, y: number): Rgb {
  const offset = (Math.round(y) * image.width + Math.round(x)) * image.channels;
  return [image.data[offset] as number, image.data[offset + 1] as number, image.data[offset + 2] as number];
}

function hex(colour: string): Rgb {
  return [1, 3, 5].map((start) => parseInt(colour.slice(start, start + 2), 16)) as Rgb;
}

const distance = (a: Rgb, b: Rgb): number => Math.max(...a.map((value, index) => Math.abs(value - (b[index] as number))));

/** Every pixel that differs from the original by more than `tolerance` in some channel. */
function changedPixels(before: Pixels, after: Pixels, tolerance = 24): Array<{ x: number; y: number }> {
  expect([after.width, after.height]).toEqual([before.width, before.height]);
  const changed: Array<{ x: number; y: number }> = [];
  for (let y = 0; y < before.height; y++) {
    for (let x = 0; x < before.width; x++) {
      if (distance(rgb(before, x, y), rgb(after, x, y)) > tolerance) changed.push({ x, y });
    }
  }
  return changed;
}

async function annotate(actions: Action[], results?: Array<ActionResult | undefined>, size = { width: 400, height: 300 }) {
  const original = await makeFlat(size);
  const png = await annotateScreenshot(original, actions, results);
  const before = await decode(original);
  const after = await decode(png);
  return { original, png, before, after, changed: changedPixels(before, after) };
}

function makeFlat(size: { width: number; height: number }): Promise<Buffer> {
  return sharp({ create: { ...size, channels: 3, background: GREY } }).jpeg({ quality: 90 }).toBuffer();
}

const click = (x: number, y: number, button: 'left' | 'right' | 'middle' = 'left'): Action => ({ type: 'click', x, y, button });
const failure = (kind: 'out_of_bounds' | 'input_failed' = 'input_failed'): ActionResult => ({ ok: false, type: 'click', error: { kind, message: 'it failed' } });
const success = (type: Action['type']): ActionResult => ({ ok: true, type, durationMs: 5 });

describe('annotateScreenshot', () => {
  it('returns a PNG of the same size and leaves the input untouched', async () => {
    const original = await makeScreenshot({ r: 40, g: 60, b: 90 });
    const copy = Buffer.from(original);
    const png = await annotateScreenshot(original, [click(100, 80)]);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const meta = await sharp(png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 640, 400]);
    expect(original.equals(copy)).toBe(true);
    // Pure: the same inputs give the same bytes.
    expect((await annotateScreenshot(original, [click(100, 80)])).equals(png)).toBe(true);
  });

  it('marks a click with a ring and a dot at the point, and nothing far from it', async () => {
    const { before, after, changed } = await annotate([click(120, 90)]);
    expect(changed.length).toBeGreaterThan(50);
    const farthest = Math.max(...changed.map((p) => Math.hypot(p.x - 120, p.y - 90)));
    expect(farthest).toBeLessThan(20);
    // The dot in the middle has the left button's colour; the ring leaves a gap of the original.
    expect(distance(rgb(after, 120, 90), hex(BUTTON_COLOURS.left))).toBeLessThan(40);
    // Between the dot and the ring, a band of the original image.
    const bands = Array.from({ length: 20 }, (_, r) => changed.filter((p) => Math.floor(Math.hypot(p.x - 120, p.y - 90)) === r).length);
    const gap = bands.findIndex((count, r) => count === 0 && bands.slice(0, r).some(Boolean) && bands.slice(r).some(Boolean));
    expect(gap, `changed pixels by distance: ${bands.join(' ')}`).toBeGreaterThan(0);
    expect(distance(rgb(before, 300, 250), rgb(after, 300, 250))).toBe(0);
  });

  it('colours the marker by button', async () => {
    for (const button of ['left', 'right', 'middle'] as const) {
      const { after } = await annotate([click(200, 150, button)]);
      const colour = rgb(after, 200, 150);
      expect(distance(colour, hex(BUTTON_COLOURS[button])), `${button}: ${colour}`).toBeLessThan(40);
      for (const other of (['left', 'right', 'middle'] as const).filter((b) => b !== button)) {
        expect(distance(colour, hex(BUTTON_COLOURS[other]))).toBeGreaterThan(60);
      }
    }
  });

  it('shows double and triple clicks with more rings', async () => {
    // Measured up and to the left of the point, away from the "×2" label (placed right and below).
    const reach = async (type: 'click' | 'double_click' | 'triple_click') => {
      const { changed } = await annotate([{ type, x: 200, y: 150, button: 'left' }]);
      return Math.max(...changed.filter((p) => p.x <= 200 && p.y <= 150).map((p) => Math.hypot(p.x - 200, p.y - 150)));
    };
    const [single, double, triple] = [await reach('click'), await reach('double_click'), await reach('triple_click')];
    expect(double).toBeGreaterThan(single + 1.5);
    expect(triple).toBeGreaterThan(double + 1.5);
  });

  it('draws a drag as an arrow along its path, not straight from start to end', async () => {
    const path = [
      { x: 40, y: 250 },
      { x: 200, y: 250 },
      { x: 200, y: 60 },
    ];
    const { after, before, changed } = await annotate([{ type: 'drag', path, button: 'left' }]);
    const colour = hex(BUTTON_COLOURS.left);
    for (const [x, y] of [
      [80, 250],
      [120, 250],
      [160, 250],
      [200, 200],
      [200, 150],
      [200, 100],
    ] as const) {
      // The line is a couple of pixels wide around the path: the best pixel next to the point.
      const nearest = Math.min(...[-1, 0, 1].flatMap((dy) => [-1, 0, 1].map((dx) => distance(rgb(after, x + dx, y + dy), colour))));
      expect(nearest, `(${x}, ${y})`).toBeLessThan(40);
    }
    // The straight line from start to end stays untouched: the arrow follows the path.
    expect(distance(rgb(after, 120, 155), rgb(before, 120, 155))).toBe(0);
    // The arrowhead: wider than the line just before the tip.
    const headWidth = changed.filter((p) => p.y === 66).length;
    const lineWidth = changed.filter((p) => p.y === 150).length;
    expect(headWidth).toBeGreaterThan(lineWidth);
    expect(changed.every((p) => p.x <= 215 && p.y >= 50)).toBe(true);
  });

  it('draws a scroll arrow in the scroll direction', async () => {
    const column = async (direction: 'up' | 'down') => {
      const { changed } = await annotate([{ type: 'scroll', x: 200, y: 150, direction, amount: 3 }]);
      const inColumn = changed.filter((p) => p.x === 200);
      return { below: inColumn.filter((p) => p.y > 155).length, above: inColumn.filter((p) => p.y < 145).length };
    };
    const down = await column('down');
    expect(down.below).toBeGreaterThan(8);
    expect(down.above).toBe(0);
    const up = await column('up');
    expect(up.above).toBeGreaterThan(8);
  });

  it('labels typed text beside the field just clicked', async () => {
    const alone = await annotate([click(100, 80)]);
    const typed = await annotate([click(100, 80), { type: 'type', text: 'hello' }]);
    const region = (p: { x: number; y: number }) => p.x > 120 && p.x < 300 && p.y > 80 && p.y < 150;
    expect(alone.changed.filter(region)).toHaveLength(0);
    expect(typed.changed.filter(region).length).toBeGreaterThan(100);
  });

  it('puts the label of a key press in the top-left corner when nothing was clicked', async () => {
    const { changed } = await annotate([{ type: 'hotkey', keys: ['ctrl', 's'] }]);
    expect(changed.length).toBeGreaterThan(100);
    expect(changed.every((p) => p.x < 200 && p.y < 60)).toBe(true);
  });

  it('puts a red cross where an action failed', async () => {
    const isRed = ([r, g, b]: Rgb) => r > 180 && g < 90 && b < 90;
    const failed = await annotate([click(150, 120)], [failure('out_of_bounds')]);
    expect(isRed(rgb(failed.after, 150, 120))).toBe(true);
    const fine = await annotate([click(150, 120)], [success('click')]);
    expect(isRed(rgb(fine.after, 150, 120))).toBe(false);

    // An action without a point: the cross goes on its label.
    const redCount = (pixels: Awaited<ReturnType<typeof annotate>>) => pixels.changed.filter((p) => isRed(rgb(pixels.after, p.x, p.y))).length;
    expect(redCount(await annotate([{ type: 'hotkey', keys: ['ctrl', 'q'] }], [failure()]))).toBeGreaterThan(10);
    expect(redCount(await annotate([{ type: 'hotkey', keys: ['ctrl', 'q'] }], [success('hotkey')]))).toBe(0);
  });

  it('draws a click outside the image on its edge, failed', async () => {
    const { changed, after } = await annotate([click(900, 100)], [failure('out_of_bounds')]);
    expect(changed.some((p) => p.x >= 395)).toBe(true);
    expect(rgb(after, 399, 100)[0]).toBeGreaterThan(180);
  });

  it('scales the markers with the image', async () => {
    const reach = async (size: { width: number; height: number }) => {
      const centre = { x: size.width / 2, y: size.height / 2 };
      const { changed } = await annotate([click(centre.x, centre.y)], undefined, size);
      return Math.max(...changed.map((p) => Math.hypot(p.x - centre.x, p.y - centre.y)));
    };
    const small = await reach({ width: 400, height: 300 });
    const large = await reach({ width: 1600, height: 1200 });
    expect(large / small).toBeGreaterThan(3);
    expect(large / small).toBeLessThan(5);
  });
});

describe('actionOverlaySvg', () => {
  const size = { width: 640, height: 400 };

  it('keeps masked text masked and never shows a secret', () => {
    const svg = actionOverlaySvg(size, [
      { type: 'type', text: '********', secret: true },
      { type: 'type', text: 'hunter2', secret: true },
    ]);
    expect(svg).toContain('********');
    expect(svg).not.toContain('hunter2');
  });

  it('cuts long text with an ellipsis and shows newlines as \\n', () => {
    const long = `${'a'.repeat(LABEL_TEXT_LIMIT)}TAIL`;
    const svg = actionOverlaySvg(size, [{ type: 'type', text: `${long}\nnext` }]);
    expect(svg).toContain(`${'a'.repeat(LABEL_TEXT_LIMIT)}…`);
    expect(svg).not.toContain('TAIL');
    expect(actionOverlaySvg(size, [{ type: 'type', text: 'one\ntwo' }])).toContain('one\\ntwo');
  });

  it('escapes text so that it stays text', () => {
    const svg = actionOverlaySvg(size, [{ type: 'type', text: '</text><script>alert(1)</script>' }]);
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('marks each action, its failure and the actions that never ran', () => {
    const svg = actionOverlaySvg(size, [click(10, 10), click(20, 20), { type: 'finished', summary: '' }, click(30, 30)], [success('click'), failure()]);
    expect(svg.match(/class="marker /g)).toHaveLength(4);
    expect(svg).toMatch(/<g class="marker marker-click" data-action="1" data-failed="true"/);
    expect(svg).toMatch(/<g class="marker marker-click" data-action="3" data-executed="false"/);
    // A control action never has a result: it is not "never ran".
    expect(svg).toMatch(/<g class="marker marker-finished" data-action="2">/);
  });

  it('has a namespace only when standalone (the HTML parser adds it itself)', () => {
    expect(actionOverlaySvg(size, [])).not.toContain('xmlns');
    expect(actionOverlaySvg(size, [], undefined, { standalone: true })).toContain('xmlns="http://www.w3.org/2000/svg"');
  });
});
