/**
 * Has the screen diverged from the recording? Before a recorded step is replayed, the live capture
 * (taken with the recorded capture size) is compared with the step's recorded screenshot twice:
 *
 * - as a whole, on small greyscale thumbnails: the mean difference and the share of thumbnail
 *   pixels that changed. This catches another window in front, another page, a dialog.
 * - around each point the step's actions target, at full image resolution: a square patch. This
 *   catches a moved or missing element even when the rest of the screen is the same: a form moved
 *   by 100 px changes a few percent of the screen but nearly all of the patch under the click.
 *
 * What legitimately differs between a recording and its replay stays under the thresholds: JPEG
 * noise, a blinking caret (one pixel wide), text that changed elsewhere on the screen (a log, a
 * clock). The mouse pointer is not in the captures. Field values typed by earlier steps are the
 * same in both, since the same steps typed them.
 *
 * Everything here is a pure function of decoded greyscale pixels, except `decodeGrey`.
 */
import { loadSharp } from '../image/sharp';
import type { Point } from '../../shared/actions';
import type { Rect, Size } from '../../shared/frame';

/** One byte of grey per pixel, rows top to bottom. */
export interface GreyImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

export interface DivergenceThresholds {
  /** Whole screen: the mean grey difference of the thumbnails (0 same … 1 inverted) above which it diverges. */
  screenMean: number;
  /** Whole screen: the share of thumbnail pixels changed by more than `pixelTolerance` above which it diverges. */
  screenChanged: number;
  /** Thumbnail width for the whole-screen comparison (its height keeps the aspect ratio). */
  thumbnailWidth: number;
  /** Side of the square compared around each target point, in pixels of the recorded image. */
  patchSize: number;
  /** Patch: the mean grey difference above which it diverges. */
  patchMean: number;
  /** Patch: the share of pixels changed by more than `pixelTolerance` above which it diverges. */
  patchChanged: number;
  /** A pixel counts as changed when its grey differs by more than this (0…1). */
  pixelTolerance: number;
}

/**
 * Defaults, from measurements on the instrumented form page in kiosk Chromium (960x600 JPEG images
 * of a 1280x800 screen; test/desktop/replay.test.ts prints them) and on generated images
 * (test/unit/replay/divergence.test.ts):
 * - an unchanged replay: screen ≤ 1.2 % mean and ≤ 4 % changed, all of it in the page's event log
 *   (its lines differ: sequence numbers, interleaving); patches 0.0 % / 0.0 %;
 * - a caret blinking inside a patch: 0.1 % mean, 0.4 % changed;
 * - a log box of a fifth of the screen rewritten line by line: screen 2.5 % mean, 11 % changed;
 * - the form moved by (-80, 140) px: screen 0.9 % / 1.8 % (no divergence as a whole), the patch under
 *   the old field 3.3 % / 5.2 % (a white field against the #f4f4f0 page differs by only 12 grey
 *   levels: its borders make the changed share); moved by 10 px down: 3.9 % / 10 %.
 * The patch limits sit between the two, a factor ~2.5 from a moved field and 5-20 from a caret.
 * A move that leaves the same pixels under a target (a wide field shifted sideways) is no
 * divergence: the recorded click still lands on the same element.
 */
export const DEFAULT_DIVERGENCE_THRESHOLDS: DivergenceThresholds = {
  screenMean: 0.04,
  screenChanged: 0.2,
  thumbnailWidth: 160,
  patchSize: 96,
  patchMean: 0.02,
  patchChanged: 0.02,
  pixelTolerance: 0.1,
};

export interface Difference {
  /** Mean absolute grey difference, 0…1. */
  mean: number;
  /** Share of pixels whose grey differs by more than the tolerance, 0…1. */
  changed: number;
}

/** A point an action targets, in pixels of the recorded image. */
export interface Target {
  point: Point;
  /** Names the target in messages, e.g. `click at (697, 64)`. */
  label: string;
}

export interface PatchCheck extends Difference {
  target: Target;
  /** The compared square, clamped to the image. */
  rect: Rect;
  diverged: boolean;
}

export interface DivergenceReport {
  diverged: boolean;
  /** The recorded and live images differ in size: nothing else could be compared. */
  sizeMismatch: { recorded: Size; live: Size } | null;
  screen: Difference & { diverged: boolean };
  patches: PatchCheck[];
}

/** Decodes an encoded image (JPEG, PNG) to greyscale pixels at its own size. */
export async function decodeGrey(image: Buffer): Promise<GreyImage> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(image).greyscale().raw().toBuffer({ resolveWithObject: true });
  // greyscale() leaves one channel, but an alpha channel would make two: keep the first.
  if (info.channels === 1) return { width: info.width, height: info.height, pixels: new Uint8Array(data.buffer, data.byteOffset, data.length) };
  const pixels = new Uint8Array(info.width * info.height);
  for (let i = 0; i < pixels.length; i++) pixels[i] = data[i * info.channels] as number;
  return { width: info.width, height: info.height, pixels };
}

/** Area-average downscale to `width` pixels wide (never up), aspect ratio kept. */
export function thumbnail(image: GreyImage, width: number): GreyImage {
  if (width >= image.width) return image;
  const height = Math.max(1, Math.round((image.height * width) / image.width));
  const pixels = new Uint8Array(width * height);
  const sx = image.width / width;
  const sy = image.height / height;
  for (let oy = 0; oy < height; oy++) {
    const y0 = Math.floor(oy * sy);
    const y1 = Math.max(y0 + 1, Math.floor((oy + 1) * sy));
    for (let ox = 0; ox < width; ox++) {
      const x0 = Math.floor(ox * sx);
      const x1 = Math.max(x0 + 1, Math.floor((ox + 1) * sx));
      let sum = 0;
      for (let y = y0; y < y1; y++) {
        const row = y * image.width;
        for (let x = x0; x < x1; x++) sum += image.pixels[row + x] as number;
      }
      pixels[oy * width + ox] = Math.round(sum / ((y1 - y0) * (x1 - x0)));
    }
  }
  return { width, height, pixels };
}

/** The difference of two same-sized images inside `rect` (the whole image by default). */
export function regionDifference(a: GreyImage, b: GreyImage, pixelTolerance: number, rect: Rect = { x: 0, y: 0, width: a.width, height: a.height }): Difference {
  if (a.width !== b.width || a.height !== b.height) return { mean: 1, changed: 1 };
  const tolerance = pixelTolerance * 255;
  let total = 0;
  let changed = 0;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    const row = y * a.width;
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const d = Math.abs((a.pixels[row + x] as number) - (b.pixels[row + x] as number));
      total += d;
      if (d > tolerance) changed++;
    }
  }
  const count = rect.width * rect.height;
  if (count === 0) return { mean: 0, changed: 0 };
  return { mean: total / (count * 255), changed: changed / count };
}

/** The square of side `size` centred on `point`, shifted (not shrunk) to lie within the image. */
export function patchRect(point: Point, size: number, image: Size): Rect {
  const width = Math.min(size, image.width);
  const height = Math.min(size, image.height);
  const clamp = (value: number, max: number) => Math.min(Math.max(0, value), max);
  return {
    x: clamp(Math.round(point.x - width / 2), image.width - width),
    y: clamp(Math.round(point.y - height / 2), image.height - height),
    width,
    height,
  };
}

/** Compares the live screen with the recorded one, as a whole and around each target. */
export function assessDivergence(
  recorded: GreyImage,
  live: GreyImage,
  targets: readonly Target[],
  thresholds: DivergenceThresholds = DEFAULT_DIVERGENCE_THRESHOLDS,
): DivergenceReport {
  if (recorded.width !== live.width || recorded.height !== live.height) {
    return {
      diverged: true,
      sizeMismatch: { recorded: { width: recorded.width, height: recorded.height }, live: { width: live.width, height: live.height } },
      screen: { mean: 1, changed: 1, diverged: true },
      patches: [],
    };
  }
  const whole = regionDifference(thumbnail(recorded, thresholds.thumbnailWidth), thumbnail(live, thresholds.thumbnailWidth), thresholds.pixelTolerance);
  const screen = { ...whole, diverged: whole.mean > thresholds.screenMean || whole.changed > thresholds.screenChanged };
  const patches = targets.map((target): PatchCheck => {
    const rect = patchRect(target.point, thresholds.patchSize, recorded);
    const difference = regionDifference(recorded, live, thresholds.pixelTolerance, rect);
    return { target, rect, ...difference, diverged: difference.mean > thresholds.patchMean || difference.changed > thresholds.patchChanged };
  });
  return { diverged: screen.diverged || patches.some((patch) => patch.diverged), sizeMismatch: null, screen, patches };
}

const percent = (value: number) => `${(value * 100).toFixed(value < 0.1 ? 1 : 0)}%`;

function describeDifference(difference: Difference, meanLimit: number, changedLimit: number): string {
  const mean = `mean difference ${percent(difference.mean)}${difference.mean > meanLimit ? ` > ${percent(meanLimit)}` : ''}`;
  const changed = `${percent(difference.changed)} of pixels changed${difference.changed > changedLimit ? ` > ${percent(changedLimit)}` : ''}`;
  return `${mean}, ${changed}`;
}

/**
 * What diverged, in words: `around the click at (697, 64) the screen differs from the recording
 * (mean difference 4.6% > 3.0%, 5.2% of pixels changed > 3.0%)`. Lists only what diverged.
 */
export function describeDivergence(report: DivergenceReport, thresholds: DivergenceThresholds = DEFAULT_DIVERGENCE_THRESHOLDS): string {
  if (report.sizeMismatch) {
    const { recorded, live } = report.sizeMismatch;
    return `the screen is captured at ${live.width}x${live.height}, the recording at ${recorded.width}x${recorded.height}`;
  }
  const parts: string[] = [];
  for (const patch of report.patches) {
    if (!patch.diverged) continue;
    parts.push(`around the ${patch.target.label} the screen differs from the recording (${describeDifference(patch, thresholds.patchMean, thresholds.patchChanged)})`);
  }
  if (report.screen.diverged) {
    parts.push(`the whole screen differs from the recording (${describeDifference(report.screen, thresholds.screenMean, thresholds.screenChanged)})`);
  }
  return parts.length > 0 ? parts.join('; ') : 'the screen matches the recording';
}

/** Every measurement, diverged or not, for the record: `screen 0.3%/0.1%, click at (697, 64) 4.6%/5.2%`. */
export function summarizeMeasurements(report: DivergenceReport): string {
  if (report.sizeMismatch) return 'sizes differ';
  const item = (name: string, difference: Difference) => `${name} ${percent(difference.mean)} mean, ${percent(difference.changed)} changed`;
  return [item('screen', report.screen), ...report.patches.map((patch) => item(patch.target.label, patch))].join('; ');
}
