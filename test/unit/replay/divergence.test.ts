/**
 * The divergence check on generated screens: a form page drawn as SVG at 1280x800, encoded as the
 * agent records it (960x600 JPEG, quality 80), decoded again. What changes between a recording and
 * its replay without mattering (a caret, text elsewhere) stays under the defaults; a moved form,
 * another screen, another size do not.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  assessDivergence,
  decodeGrey,
  DEFAULT_DIVERGENCE_THRESHOLDS,
  describeDivergence,
  patchRect,
  regionDifference,
  summarizeMeasurements,
  thumbnail,
  type GreyImage,
  type Target,
} from '../../../src/main/replay/divergence';
import { REPLAY_HELP } from '../../../src/main/cli/program/replay';

const SCREEN = { width: 1280, height: 800 };
const IMAGE = { width: 960, height: 600 };
const toImage = (p: { x: number; y: number }) => ({ x: (p.x * IMAGE.width) / SCREEN.width, y: (p.y * IMAGE.height) / SCREEN.height });

interface Scene {
  /** The form's offset in screen px. */
  shift?: { dx: number; dy: number };
  /** A caret in the field (the focused field blinks it on and off). */
  caret?: boolean;
  /** Seed of the "text" in the log box: different seeds, different lines. */
  logSeed?: number;
  /** Text typed in the field, as dark bars (one per character). */
  fieldText?: number;
  /** Another screen altogether. */
  terminal?: boolean;
}

/** Bars standing for a line of monospace text: glyph-sized dark marks whose pattern follows the seed. */
function textBars(x: number, y: number, chars: number, seed: number): string {
  let out = '';
  let state = seed * 9301 + 49297;
  for (let i = 0; i < chars; i++) {
    state = (state * 9301 + 49297) % 233280;
    const height = 4 + (state % 6);
    if (state % 7 === 0) continue; // a space
    out += `<rect x="${x + i * 7}" y="${y + 10 - height}" width="5" height="${height}" fill="#333"/>`;
  }
  return out;
}

async function render(scene: Scene = {}): Promise<GreyImage> {
  const { dx = 0, dy = 0 } = scene.shift ?? {};
  let body: string;
  if (scene.terminal) {
    body = `<rect width="1280" height="800" fill="#1e1e1e"/>${Array.from({ length: 30 }, (_, i) => textBars(20, 20 + i * 24, 120, i + 7)).join('').replace(/#333/g, '#ddd')}`;
  } else {
    const log = Array.from({ length: 15 }, (_, i) => textBars(136, 526 + i * 13, 140, (scene.logSeed ?? 1) * 100 + i)).join('');
    const field = `<rect x="${710 + dx}" y="${70 + dy}" width="440" height="32" fill="#fff" stroke="#667" stroke-width="1"/>`;
    const label = textBars(710 + dx, 52 + dy, 6, 3);
    const typed = scene.fieldText ? textBars(718 + dx, 78 + dy, scene.fieldText, 5) : '';
    const caretX = 718 + dx + (scene.fieldText ?? 0) * 7;
    const caret = scene.caret ? `<rect x="${caretX}" y="${75 + dy}" width="1" height="22" fill="#000"/>` : '';
    const area = `<rect x="${710 + dx}" y="${120 + dy}" width="440" height="110" fill="#fff" stroke="#667" stroke-width="1"/>`;
    const button = `<rect x="${590 + dx}" y="${380 + dy}" width="100" height="40" rx="4" fill="#f4e3c0" stroke="#335" stroke-width="2"/>${textBars(620 + dx, 393 + dy, 6, 9)}`;
    body = [
      `<rect width="1280" height="800" fill="#f4f4f0"/>`,
      `<rect x="130" y="70" width="440" height="280" fill="#fffdf6" stroke="#557" stroke-width="2" stroke-dasharray="6 4"/>`,
      `<rect x="710" y="250" width="440" height="200" fill="#fff" stroke="#667"/>`,
      `<rect x="130" y="520" width="1020" height="210" fill="#fafafa" stroke="#bbb"/>`,
      log,
      field,
      label,
      typed,
      caret,
      area,
      button,
    ].join('');
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${SCREEN.width}" height="${SCREEN.height}">${body}</svg>`;
  const jpeg = await sharp(Buffer.from(svg)).resize(IMAGE.width, IMAGE.height, { fit: 'fill', kernel: 'lanczos3' }).jpeg({ quality: 80 }).toBuffer();
  return decodeGrey(jpeg);
}

const FIELD = toImage({ x: 930, y: 86 });
const AREA = toImage({ x: 930, y: 175 });
const BUTTON = toImage({ x: 640, y: 400 });
const targets: Target[] = [
  { point: FIELD, label: 'click at field' },
  { point: AREA, label: 'click at area' },
  { point: BUTTON, label: 'click at button' },
];

describe('assessDivergence on a form page', () => {
  it('the same screen does not diverge', async () => {
    const a = await render({ fieldText: 12 });
    const b = await render({ fieldText: 12 });
    const report = assessDivergence(a, b, targets);
    expect(report.diverged).toBe(false);
    expect(report.screen.mean).toBeLessThan(0.001);
    for (const patch of report.patches) expect(patch.mean).toBeLessThan(0.001);
  });

  it('a blinking caret inside the patch does not diverge', async () => {
    // The caret at the start of an empty field, right under a click on the field's left part.
    const caretTarget: Target = { point: toImage({ x: 740, y: 86 }), label: 'click near the caret' };
    const on = await render({ caret: true });
    const off = await render({ caret: false });
    const report = assessDivergence(on, off, [caretTarget, ...targets]);
    expect(report.diverged).toBe(false);
    const [nearCaret] = report.patches;
    expect(nearCaret!.mean).toBeGreaterThan(0); // it is measured, just small
    expect(nearCaret!.mean).toBeLessThan(DEFAULT_DIVERGENCE_THRESHOLDS.patchMean / 5);
    expect(nearCaret!.changed).toBeLessThan(DEFAULT_DIVERGENCE_THRESHOLDS.patchChanged / 2);
  });

  it('different text elsewhere on the screen (a log) does not diverge', async () => {
    const recorded = await render({ logSeed: 1, fieldText: 12 });
    const live = await render({ logSeed: 2, fieldText: 12 });
    const report = assessDivergence(recorded, live, targets);
    expect(regionDifference(recorded, live, 0.1).changed).toBeGreaterThan(0.01); // the log did change
    expect(report.diverged).toBe(false);
    // A whole log box rewritten (a fifth of the screen, every line different) is the worst case here.
    expect(report.screen.mean).toBeLessThan(DEFAULT_DIVERGENCE_THRESHOLDS.screenMean);
    expect(report.screen.changed).toBeLessThan(DEFAULT_DIVERGENCE_THRESHOLDS.screenChanged);
  });

  for (const shift of [
    { dx: 0, dy: 100 },
    { dx: 0, dy: -40 },
    { dx: -80, dy: 140 },
    { dx: 100, dy: 100 },
  ]) {
    it(`the form moved by (${shift.dx}, ${shift.dy}) diverges under the targets while the screen as a whole stays close`, async () => {
      const recorded = await render();
      const live = await render({ shift });
      const report = assessDivergence(recorded, live, targets);
      expect(report.diverged).toBe(true);
      expect(report.screen.diverged).toBe(false);
      expect(report.patches.map((patch) => patch.diverged)).toEqual([true, true, true]);
      expect(describeDivergence(report)).toMatch(/^around the click at field the screen differs from the recording \(mean difference [\d.]+%( > 2\.0%)?, [\d.]+% of pixels changed( > 2\.0%)?\)/);
    });
  }

  it('a small move that leaves the same pixels under the target is no divergence: the click lands on the same element', async () => {
    // The field is 440 px wide: moved 20 px right, the patch around its centre is still all field.
    const report = assessDivergence(await render(), await render({ shift: { dx: 20, dy: 0 } }), [targets[0]!]);
    expect(report.diverged).toBe(false);
  });

  it('another screen altogether diverges as a whole', async () => {
    const report = assessDivergence(await render(), await render({ terminal: true }), []);
    expect(report.diverged).toBe(true);
    expect(report.screen.diverged).toBe(true);
    expect(report.screen.mean).toBeGreaterThan(0.3);
    expect(describeDivergence(report)).toMatch(/^the whole screen differs from the recording/);
  });

  it('another image size is a divergence that says so', async () => {
    const recorded = await render();
    const small = await decodeGrey(await sharp({ create: { width: 800, height: 500, channels: 3, background: '#f4f4f0' } }).jpeg().toBuffer());
    const report = assessDivergence(recorded, small, targets);
    expect(report.diverged).toBe(true);
    expect(report.sizeMismatch).toEqual({ recorded: IMAGE, live: { width: 800, height: 500 } });
    expect(describeDivergence(report)).toBe('the screen is captured at 800x500, the recording at 960x600');
  });

  it('thresholds are the caller’s: raised, the moved form passes', async () => {
    const recorded = await render();
    const live = await render({ shift: { dx: 0, dy: 100 } });
    const loose = { ...DEFAULT_DIVERGENCE_THRESHOLDS, patchMean: 0.5, patchChanged: 0.9 };
    expect(assessDivergence(recorded, live, targets, loose).diverged).toBe(false);
    const strict = { ...DEFAULT_DIVERGENCE_THRESHOLDS, screenMean: 0.001 };
    expect(assessDivergence(recorded, live, [], strict).screen.diverged).toBe(true);
  });

  it('summarizes every measurement for the record', async () => {
    const report = assessDivergence(await render(), await render({ shift: { dx: 0, dy: 100 } }), [targets[0]!]);
    expect(summarizeMeasurements(report)).toMatch(/^screen [\d.]+% mean, [\d.]+% changed; click at field [\d.]+% mean, [\d.]+% changed$/);
  });
});

describe('helpers', () => {
  const image = (width: number, height: number, fill: (x: number, y: number) => number): GreyImage => {
    const pixels = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels[y * width + x] = fill(x, y);
    return { width, height, pixels };
  };

  it('patchRect centres the square on the point and shifts it inside the image at the edges', () => {
    expect(patchRect({ x: 480, y: 300 }, 96, IMAGE)).toEqual({ x: 432, y: 252, width: 96, height: 96 });
    expect(patchRect({ x: 3, y: 598 }, 96, IMAGE)).toEqual({ x: 0, y: 504, width: 96, height: 96 });
    expect(patchRect({ x: 960, y: 0 }, 96, IMAGE)).toEqual({ x: 864, y: 0, width: 96, height: 96 });
    expect(patchRect({ x: 10, y: 10 }, 96, { width: 50, height: 40 })).toEqual({ x: 0, y: 0, width: 50, height: 40 });
  });

  it('thumbnail averages areas and never upscales', () => {
    const stripes = image(8, 4, (x) => (x % 2 === 0 ? 0 : 200));
    expect(Array.from(thumbnail(stripes, 4).pixels)).toEqual(new Array(8).fill(100));
    expect(thumbnail(stripes, 16)).toBe(stripes);
  });

  it('regionDifference: mean on 0..1 and the share of pixels over the tolerance', () => {
    const a = image(10, 10, () => 100);
    const b = image(10, 10, (x, y) => (x < 5 && y < 2 ? 100 + 51 : 100));
    expect(regionDifference(a, b, 0.1)).toEqual({ mean: (10 * 51) / (100 * 255), changed: 0.1 });
    expect(regionDifference(a, b, 0.1, { x: 5, y: 0, width: 5, height: 10 })).toEqual({ mean: 0, changed: 0 });
    expect(regionDifference(a, image(5, 5, () => 0), 0.1)).toEqual({ mean: 1, changed: 1 });
  });
});

describe('the defaults', () => {
  it('are the ones `mnemo replay --help` lists', () => {
    for (const [key, value] of Object.entries(DEFAULT_DIVERGENCE_THRESHOLDS)) expect(REPLAY_HELP).toMatch(new RegExp(`\\b${key} ${String(value).replace('.', '\\.')}\\b`));
  });
});
