/**
 * A recorded patch compared with the live screen at one place: its difference and NCC with the
 * recording, for the decision of decide.ts (does the target agree where it was, or where the
 * previous target moved to?).
 *
 * Exactly first. Then with two tolerances a real screen needs:
 * - what is inside the element (its face, less a thin inner edge) is left out: a field's frame and
 *   surroundings agree whatever was typed into it before, and the values typed are parameters;
 * - within a pixel each way, after a 3x3 box blur: the screen is scaled to the model's image by a
 *   factor that is rarely whole (1280 → 960), so an element moved by whole screen pixels lands a
 *   fraction of an image pixel off, which turns a thin border into two fainter lines (no exact
 *   comparison agrees then, at any whole offset).
 * The best of these counts. Pure functions of decoded pixels.
 */
import type { Rect } from '../../shared/frame';
import { DEFAULT_DIVERGENCE_THRESHOLDS, regionDifference, type GreyImage } from '../replay/divergence';
import { agrees, type PlaceCheck } from './decide';
import { crop, nccAt } from './template-match';

/** Left out of the element's inside: the edge this thick stays, with its border (in image pixels). */
const INNER_EDGE = 2;

const NOWHERE: PlaceCheck = { mean: 1, changed: 1, ncc: 0 };

/** `a` better than `b`: agreeing beats not agreeing; then the higher NCC. */
const better = (a: PlaceCheck, b: PlaceCheck) => (agrees(a) !== agrees(b) ? agrees(a) : a.ncc > b.ncc);

/**
 * The patch compared with the live screen with its top-left corner at (x, y). `inside`: the
 * element's face in patch pixels, when it has one.
 */
export function compareAt(live: GreyImage, patch: GreyImage, x: number, y: number, inside?: Rect | null): PlaceCheck {
  const rx = Math.round(x);
  const ry = Math.round(y);
  const fits = (dx: number, dy: number) => rx + dx >= 0 && ry + dy >= 0 && rx + dx + patch.width <= live.width && ry + dy + patch.height <= live.height;
  if (!fits(0, 0)) return NOWHERE;
  const here = crop(live, { x: rx, y: ry, width: patch.width, height: patch.height });
  let best: PlaceCheck = { ...regionDifference(patch, here, DEFAULT_DIVERGENCE_THRESHOLDS.pixelTolerance), ncc: nccAt(here, patch, 0, 0) };
  if (agrees(best)) return best;
  const hole = inside && inside.width >= 3 * INNER_EDGE && inside.height >= 3 * INNER_EDGE ? { x: inside.x + INNER_EDGE, y: inside.y + INNER_EDGE, width: inside.width - 2 * INNER_EDGE, height: inside.height - 2 * INNER_EDGE } : null;
  if (hole) {
    const ring = ringCheck(patch, here, hole);
    if (ring && better(ring, best)) best = ring;
  }
  const recorded = smooth(patch, hole);
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      if (!fits(dx, dy)) continue;
      const there = smooth(crop(live, { x: rx + dx, y: ry + dy, width: patch.width, height: patch.height }), hole);
      const check = hole ? ringCheck(recorded, there, hole) : { ...regionDifference(recorded, there, DEFAULT_DIVERGENCE_THRESHOLDS.pixelTolerance), ncc: nccAt(there, recorded, 0, 0) };
      if (check && better(check, best)) best = check;
    }
  }
  return best;
}

/**
 * A 3x3 box blur; with `hole`, its pixels are first set to one grey (the same for both images
 * compared), so what is inside does not bleed into the ring around it.
 */
function smooth(image: GreyImage, hole: Rect | null): GreyImage {
  const { width, height } = image;
  let source = image.pixels;
  if (hole) {
    source = new Uint8Array(image.pixels);
    for (let y = hole.y; y < hole.y + hole.height; y++) source.fill(128, y * width + hole.x, y * width + hole.x + hole.width);
  }
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      let count = 0;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(height - 1, y + 1); yy++) {
        for (let xx = Math.max(0, x - 1); xx <= Math.min(width - 1, x + 1); xx++) {
          sum += source[yy * width + xx] as number;
          count++;
        }
      }
      pixels[y * width + x] = Math.round(sum / count);
    }
  }
  return { width, height, pixels };
}

/** The difference and NCC of two same-sized images over their pixels outside `hole`. */
function ringCheck(a: GreyImage, b: GreyImage, hole: Rect): PlaceCheck | null {
  const tolerance = DEFAULT_DIVERGENCE_THRESHOLDS.pixelTolerance * 255;
  // Sums over the ring: its pixels, of a and b, their squares and products, the differences.
  const sum = { n: 0, a: 0, b: 0, aa: 0, bb: 0, ab: 0, difference: 0, changed: 0 };
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (x >= hole.x && x < hole.x + hole.width && y >= hole.y && y < hole.y + hole.height) continue;
      const va = a.pixels[y * a.width + x] as number;
      const vb = b.pixels[y * b.width + x] as number;
      const d = Math.abs(va - vb);
      sum.n++;
      sum.a += va;
      sum.b += vb;
      sum.aa += va * va;
      sum.bb += vb * vb;
      sum.ab += va * vb;
      sum.difference += d;
      if (d > tolerance) sum.changed++;
    }
  }
  const { n } = sum;
  if (n < 50) return null;
  const variance = (sum.aa - (sum.a * sum.a) / n) * (sum.bb - (sum.b * sum.b) / n);
  return { mean: sum.difference / (n * 255), changed: sum.changed / n, ncc: variance > 0 ? (sum.ab - (sum.a * sum.b) / n) / Math.sqrt(variance) : 0 };
}
