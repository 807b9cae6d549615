/**
 * Finding a recorded patch on the live screen: normalised cross-correlation (NCC) of greyscale
 * pixels, 1 for the same picture up to brightness and contrast, 0 for nothing in common.
 *
 * Fast enough to run before a step (tens of milliseconds on a 960x600 image):
 * 1. coarse: both images area-averaged by a factor that keeps this pass to a few million
 *    multiply-adds, every position scored, window sums from integral images (one pass each);
 * 2. the best few coarse peaks, apart from each other by half the template, refined scale by
 *    scale (halving the factor) in a small window around each, up to full scale.
 *
 * The answer is every refined peak, best first: the caller judges a clear winner from a close
 * second (ambiguous) and a poor best (restyled, or gone). Pure functions of decoded pixels.
 */
import type { Rect } from '../../shared/frame';
import type { GreyImage } from '../replay/divergence';

export interface Match {
  /** Top-left corner of the template in the image, full-scale pixels. */
  x: number;
  y: number;
  score: number;
}

export interface TemplateSearchOptions {
  /** Peaks answered (twice as many are followed at the coarser scales). Default 4. */
  peaks?: number;
  /** Multiply-adds of the exhaustive pass at the coarsest scale to aim for. Default 3 million. */
  coarseWork?: number;
  /** Search only here (full-scale pixels): the template must fit inside. Default: the whole image. */
  within?: Rect;
}

/** A template with its mean removed, ready to correlate. */
interface Prepared {
  width: number;
  height: number;
  /** Pixel minus the template's mean. */
  centred: Float64Array;
  /** Sum of squares of `centred`. */
  energy: number;
}

function prepare(template: GreyImage): Prepared {
  const n = template.width * template.height;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += template.pixels[i] as number;
  const mean = sum / n;
  const centred = new Float64Array(n);
  let energy = 0;
  for (let i = 0; i < n; i++) {
    const value = (template.pixels[i] as number) - mean;
    centred[i] = value;
    energy += value * value;
  }
  return { width: template.width, height: template.height, centred, energy };
}

/** Summed-area tables of the pixels and their squares, (w+1)x(h+1). */
interface Integrals {
  stride: number;
  sum: Float64Array;
  squares: Float64Array;
}

function integrals(image: GreyImage): Integrals {
  const stride = image.width + 1;
  const sum = new Float64Array(stride * (image.height + 1));
  const squares = new Float64Array(stride * (image.height + 1));
  for (let y = 0; y < image.height; y++) {
    let rowSum = 0;
    let rowSquares = 0;
    for (let x = 0; x < image.width; x++) {
      const value = image.pixels[y * image.width + x] as number;
      rowSum += value;
      rowSquares += value * value;
      const at = (y + 1) * stride + x + 1;
      sum[at] = (sum[at - stride] as number) + rowSum;
      squares[at] = (squares[at - stride] as number) + rowSquares;
    }
  }
  return { stride, sum, squares };
}

function windowSum(table: Float64Array, stride: number, x: number, y: number, width: number, height: number): number {
  const a = y * stride + x;
  const b = (y + height) * stride + x;
  return (table[b + width] as number) - (table[b] as number) - (table[a + width] as number) + (table[a] as number);
}

/** Variance below this (grey levels²) is a flat window: it correlates with nothing. */
const FLAT = 4;

/** NCC of the template at one position (top-left x, y), with the image's integrals. */
function scoreAt(image: GreyImage, table: Integrals, template: Prepared, x: number, y: number): number {
  const n = template.width * template.height;
  if (template.energy < FLAT * n) return 0;
  const sum = windowSum(table.sum, table.stride, x, y, template.width, template.height);
  const squares = windowSum(table.squares, table.stride, x, y, template.width, template.height);
  const variance = squares - (sum * sum) / n;
  if (variance < FLAT * n) return 0;
  let cross = 0;
  for (let ty = 0; ty < template.height; ty++) {
    const row = (y + ty) * image.width + x;
    const trow = ty * template.width;
    for (let tx = 0; tx < template.width; tx++) cross += (template.centred[trow + tx] as number) * (image.pixels[row + tx] as number);
  }
  return cross / Math.sqrt(template.energy * variance);
}

/** NCC of `template` placed with its top-left corner at (x, y); 0 where it does not fit or either is flat. */
export function nccAt(image: GreyImage, template: GreyImage, x: number, y: number): number {
  if (x < 0 || y < 0 || x + template.width > image.width || y + template.height > image.height) return 0;
  const window = crop(image, { x, y, width: template.width, height: template.height });
  return scoreAt(window, integrals(window), prepare(template), 0, 0);
}

/** A rectangle of the image (clamped to it). */
export function crop(image: GreyImage, rect: Rect): GreyImage {
  const x0 = Math.max(0, Math.round(rect.x));
  const y0 = Math.max(0, Math.round(rect.y));
  const width = Math.max(0, Math.min(image.width - x0, Math.round(rect.width)));
  const height = Math.max(0, Math.min(image.height - y0, Math.round(rect.height)));
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) pixels.set(image.pixels.subarray((y0 + y) * image.width + x0, (y0 + y) * image.width + x0 + width), y * width);
  return { width, height, pixels };
}

/** Area average by an integer factor (the remainder at the right and bottom edges dropped). */
export function downscale(image: GreyImage, factor: number): GreyImage {
  if (factor <= 1) return image;
  const width = Math.floor(image.width / factor);
  const height = Math.floor(image.height / factor);
  const pixels = new Uint8Array(width * height);
  const area = factor * factor;
  for (let oy = 0; oy < height; oy++) {
    for (let ox = 0; ox < width; ox++) {
      let sum = 0;
      for (let y = oy * factor; y < (oy + 1) * factor; y++) {
        const row = y * image.width;
        for (let x = ox * factor; x < (ox + 1) * factor; x++) sum += image.pixels[row + x] as number;
      }
      pixels[oy * width + ox] = Math.round(sum / area);
    }
  }
  return { width, height, pixels };
}

/** Every position of `template` in `image` scored, then the best `count` peaks at least `apart` from each other. */
function peaksOf(image: GreyImage, template: Prepared, count: number, apart: { x: number; y: number }, area: Rect): Match[] {
  const table = integrals(image);
  const maxX = Math.min(image.width - template.width, area.x + area.width - template.width);
  const maxY = Math.min(image.height - template.height, area.y + area.height - template.height);
  const scored: Match[] = [];
  for (let y = Math.max(0, area.y); y <= maxY; y++) {
    for (let x = Math.max(0, area.x); x <= maxX; x++) {
      const score = scoreAt(image, table, template, x, y);
      if (score > 0) scored.push({ x, y, score });
    }
  }
  return distinct(scored, apart, count);
}

/** Keeps the best peaks at least `apart` from each other. */
function distinct(matches: Match[], apart: { x: number; y: number }, count: number): Match[] {
  const sorted = [...matches].sort((a, b) => b.score - a.score);
  const peaks: Match[] = [];
  for (const candidate of sorted) {
    if (peaks.some((peak) => Math.abs(peak.x - candidate.x) < apart.x && Math.abs(peak.y - candidate.y) < apart.y)) continue;
    peaks.push(candidate);
    if (peaks.length >= count) break;
  }
  return peaks;
}

/**
 * The scales searched, coarse to full, each about half the one before (6 → 3 → 1, 8 → 4 → 2 → 1).
 * The coarsest keeps the exhaustive pass near `coarseWork` multiply-adds (the work falls with the
 * fourth power of the factor) and at least 4 pixels each way of the template.
 */
export function pyramidFactors(image: { width: number; height: number }, template: { width: number; height: number }, coarseWork: number): number[] {
  const wanted = Math.max(1, Math.floor(((image.width * image.height * template.width * template.height) / coarseWork) ** 0.25));
  let factor = Math.min(wanted, Math.max(1, Math.floor(Math.min(template.width, template.height) / 4)));
  const factors = [factor];
  while (factor > 1) {
    factor = Math.max(1, Math.floor(factor / 2));
    factors.push(factor);
  }
  return factors;
}

/**
 * Where `template` appears in `image`: the refined peaks, best first, each apart from the others
 * by at least half the template. Empty when the template does not fit or has no contrast.
 *
 * Every position is scored at the coarsest scale only; each finer scale looks again around the
 * best peaks of the one before, in a window as wide as the step between the two scales.
 */
export function searchTemplate(image: GreyImage, template: GreyImage, options: TemplateSearchOptions = {}): Match[] {
  const area = options.within ?? { x: 0, y: 0, width: image.width, height: image.height };
  if (template.width > area.width || template.height > area.height || template.width === 0 || template.height === 0) return [];
  if (prepare(template).energy < FLAT * template.width * template.height) return [];
  const count = options.peaks ?? 4;
  const apart = { x: Math.max(1, Math.ceil(template.width / 2)), y: Math.max(1, Math.ceil(template.height / 2)) };
  const factors = pyramidFactors(area, template, options.coarseWork ?? 3e6);
  let peaks: Match[] = [];
  let previous = 0;
  for (const [level, factor] of factors.entries()) {
    const scaledImage = downscale(image, factor);
    const scaledTemplate = prepare(downscale(template, factor));
    const scaledArea = { x: Math.ceil(area.x / factor), y: Math.ceil(area.y / factor), width: Math.floor(area.width / factor), height: Math.floor(area.height / factor) };
    const scaledApart = { x: Math.max(1, Math.ceil(apart.x / factor)), y: Math.max(1, Math.ceil(apart.y / factor)) };
    // More peaks at coarse scales: a true match may rank lower before it is refined.
    const keep = level === factors.length - 1 ? count : level === 0 ? count * 3 : count * 2;
    if (level === 0) {
      peaks = peaksOf(scaledImage, scaledTemplate, keep, scaledApart, scaledArea);
    } else {
      const table = integrals(scaledImage);
      const ratio = previous / factor;
      const reach = Math.ceil(ratio) + 1;
      const maxX = Math.min(scaledImage.width - scaledTemplate.width, scaledArea.x + scaledArea.width - scaledTemplate.width);
      const maxY = Math.min(scaledImage.height - scaledTemplate.height, scaledArea.y + scaledArea.height - scaledTemplate.height);
      const refined: Match[] = [];
      for (const peak of peaks) {
        const cx = Math.round(peak.x * ratio);
        const cy = Math.round(peak.y * ratio);
        let best: Match | null = null;
        for (let y = Math.max(scaledArea.y, cy - reach); y <= Math.min(maxY, cy + reach); y++) {
          for (let x = Math.max(scaledArea.x, cx - reach); x <= Math.min(maxX, cx + reach); x++) {
            const score = scoreAt(scaledImage, table, scaledTemplate, x, y);
            if (best === null || score > best.score) best = { x, y, score };
          }
        }
        if (best && best.score > 0) refined.push(best);
      }
      peaks = distinct(refined, scaledApart, keep);
    }
    previous = factor;
  }
  return peaks;
}
