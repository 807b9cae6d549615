/**
 * The evidence a workflow keeps to find a step's target again, and how it is read back:
 *
 * - the patch: the element under the point, found by its face (the region of the point's colour
 *   around it: a field's inside, a button's face) with a thin margin for its border. A whole
 *   element is unique where a square inside it would slide along a wide field; a thin margin
 *   keeps out what lies around it, which need not move with it. A point on no bounded element
 *   (the region runs away) gets a square around it.
 * - the text on it and near it: the words of its face (a button's caption) and those just beside
 *   it (a field's label), each with its offset from the point. They tell look-alikes apart, and
 *   find an element whose looks changed.
 *
 * Pure functions of decoded pixels and OCR words.
 */
import type { Point } from '../../shared/actions';
import type { Rect, Size } from '../../shared/frame';
import type { TextAnchor } from '../../shared/workflow';
import type { GreyImage } from '../replay/divergence';
import { clampRect, normalizeWord, type OcrWord } from './ocr';

export interface PatchOptions {
  /** Grey levels a pixel of the element's face may differ from the point's colour. */
  tolerance: number;
  /** Added around the element's face on every side (its border). */
  margin: number;
  /** Smallest patch (a small icon still gets some context). */
  minSize: Size;
  /** A face bigger than this share of the image is a background or a panel, not an element. */
  maxShare: { width: number; height: number };
  /** The square used when the point is on no bounded element. */
  square: number;
}

export const DEFAULT_PATCH_OPTIONS: PatchOptions = {
  tolerance: 10,
  margin: 3,
  minSize: { width: 48, height: 24 },
  maxShare: { width: 0.6, height: 0.45 },
  square: 96,
};

/**
 * The colour of the point's surroundings and a pixel of it near the point: of the pixels within
 * 4 px, the one with the most others within the tolerance (a caption's strokes lose to the face
 * they are drawn on), nearest the point on a tie.
 */
function seedOf(image: GreyImage, point: Point, tolerance: number): { x: number; y: number; grey: number } {
  const px = Math.min(image.width - 1, Math.max(0, Math.round(point.x)));
  const py = Math.min(image.height - 1, Math.max(0, Math.round(point.y)));
  const near: Array<{ x: number; y: number; grey: number }> = [];
  for (let y = Math.max(0, py - 4); y <= Math.min(image.height - 1, py + 4); y++) {
    for (let x = Math.max(0, px - 4); x <= Math.min(image.width - 1, px + 4); x++) near.push({ x, y, grey: image.pixels[y * image.width + x] as number });
  }
  let best = { x: px, y: py, grey: image.pixels[py * image.width + px] as number, support: -1, distance: Infinity };
  for (const pixel of near) {
    const support = near.filter((other) => Math.abs(other.grey - pixel.grey) <= tolerance / 2).length;
    const distance = (pixel.x - px) ** 2 + (pixel.y - py) ** 2;
    if (support > best.support || (support === best.support && distance < best.distance)) best = { ...pixel, support, distance };
  }
  return best;
}

/** The region of pixels within `tolerance` of the seed's grey connected to it; null once it outgrows `limit`. */
function fill(image: GreyImage, seed: { x: number; y: number; grey: number }, tolerance: number, limit: Size, seen: Uint8Array): { box: Rect; pixels: number } | null {
  const stack = [seed.y * image.width + seed.x];
  seen[stack[0] as number] = 1;
  let minX = seed.x;
  let maxX = seed.x;
  let minY = seed.y;
  let maxY = seed.y;
  let pixels = 0;
  let tooBig = false;
  while (stack.length > 0) {
    const at = stack.pop() as number;
    pixels++;
    const x = at % image.width;
    const y = (at - x) / image.width;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    // Past the limit the region is still filled (marked seen), only not answered.
    if (maxX - minX + 1 > limit.width || maxY - minY + 1 > limit.height) tooBig = true;
    if (x > 0) visit(at - 1);
    if (x < image.width - 1) visit(at + 1);
    if (y > 0) visit(at - image.width);
    if (y < image.height - 1) visit(at + image.width);
  }
  function visit(next: number): void {
    if (seen[next] || Math.abs((image.pixels[next] as number) - seed.grey) > tolerance) return;
    seen[next] = 1;
    stack.push(next);
  }
  return tooBig ? null : { box: { x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1 }, pixels };
}

const faceLimit = (image: Size, options: PatchOptions): Size => ({ width: Math.floor(image.width * options.maxShare.width), height: Math.floor(image.height * options.maxShare.height) });

/** The face of the element under the point, or null when the region of its colour runs past an element's size. */
export function elementFace(image: GreyImage, point: Point, options: PatchOptions = DEFAULT_PATCH_OPTIONS): Rect | null {
  const seed = seedOf(image, point, options.tolerance);
  return fill(image, seed, options.tolerance, faceLimit(image, options), new Uint8Array(image.width * image.height))?.box ?? null;
}

/** The patch kept for a target: the element's face with a margin, or a square around the point. */
export function patchAround(image: GreyImage, point: Point, options: PatchOptions = DEFAULT_PATCH_OPTIONS): { patch: Rect; face: Rect | null } {
  const face = elementFace(image, point, options);
  if (!face) return { patch: clampRect({ x: point.x - options.square / 2, y: point.y - options.square / 2, width: options.square, height: options.square }, image), face: null };
  const width = Math.max(options.minSize.width, face.width + 2 * options.margin);
  const height = Math.max(options.minSize.height, face.height + 2 * options.margin);
  const centre = { x: face.x + face.width / 2, y: face.y + face.height / 2 };
  return { patch: clampRect({ x: Math.round(centre.x - width / 2), y: Math.round(centre.y - height / 2), width, height }, image), face };
}

/**
 * The faces on a screen that could be the recorded one restyled: regions of one colour whose size
 * is within a factor of `size` and which fill most of their box (a face with a caption on it),
 * most alike in size first.
 */
export function facesLike(image: GreyImage, size: Size, options: PatchOptions = DEFAULT_PATCH_OPTIONS, limit = 8): Rect[] {
  const seen = new Uint8Array(image.width * image.height);
  const faces: Array<{ box: Rect; unlike: number }> = [];
  const biggest = { width: Math.min(faceLimit(image, options).width, size.width * 2), height: Math.min(faceLimit(image, options).height, size.height * 2) };
  for (let at = 0; at < seen.length; at++) {
    if (seen[at]) continue;
    const x = at % image.width;
    const region = fill(image, { x, y: (at - x) / image.width, grey: image.pixels[at] as number }, options.tolerance, biggest, seen);
    if (!region) continue;
    const { box } = region;
    const unlike = Math.abs(Math.log(box.width / size.width)) + Math.abs(Math.log(box.height / size.height));
    if (box.width < size.width / 2 || box.height < size.height / 2 || region.pixels < 0.6 * box.width * box.height) continue;
    faces.push({ box, unlike });
  }
  return faces
    .sort((a, b) => a.unlike - b.unlike)
    .slice(0, limit)
    .map((face) => face.box);
}

/** How far around the patch words are read as its labels. */
export const TEXT_REACH = 40;

/** A word counts as a label when its box is within this many pixels of the element's face. */
export const LABEL_REACH = 24;

/** Words read with less confidence than this are not kept as anchors. */
export const MIN_WORD_CONFIDENCE = 55;

/** At most this many words per target: the nearest. */
export const MAX_TEXT_ANCHORS = 4;

const gap = (a: Rect, b: Rect) => Math.hypot(Math.max(0, a.x - (b.x + b.width), b.x - (a.x + a.width)), Math.max(0, a.y - (b.y + b.height), b.y - (a.y + a.height)));
const inside = (word: Rect, face: Rect) => gap(word, face) === 0 && word.x >= face.x - 2 && word.x + word.width <= face.x + face.width + 2;

/**
 * The words near a target worth keeping: confident, two characters or more, not typed content
 * (`exclude`: typed texts, which change from run to run); on the face (`caption`) or within
 * LABEL_REACH of it (`labels`); nearest first.
 */
export function textAnchors(words: { caption: readonly OcrWord[]; labels: readonly OcrWord[] }, point: Point, face: Rect | null, exclude: readonly string[]): TextAnchor[] {
  const excluded = new Set(exclude.flatMap((text) => text.split(/\s+/)).map(normalizeWord).filter((word) => word !== ''));
  const usable = (word: OcrWord) => word.confidence >= MIN_WORD_CONFIDENCE && normalizeWord(word.text).length >= 2 && !excluded.has(normalizeWord(word.text));
  const region = face ?? { x: point.x, y: point.y, width: 1, height: 1 };
  const candidates = [
    ...words.caption.filter(usable).map((word) => ({ word, inside: true })),
    ...words.labels.filter((word) => usable(word) && !inside(word.box, region) && gap(word.box, region) <= LABEL_REACH).map((word) => ({ word, inside: false })),
  ];
  return candidates
    .map(({ word, inside: on }) => ({
      text: word.text,
      dx: Math.round(word.box.x + word.box.width / 2 - point.x),
      dy: Math.round(word.box.y + word.box.height / 2 - point.y),
      confidence: Math.round(word.confidence),
      inside: on,
    }))
    .sort((a, b) => Number(b.inside) - Number(a.inside) || Math.hypot(a.dx, a.dy) - Math.hypot(b.dx, b.dy))
    .slice(0, MAX_TEXT_ANCHORS);
}

export interface TextLocation {
  point: Point;
  /** The anchor words found in agreement there. */
  words: string[];
  /** How many of them are on the element itself (its caption). */
  inside: number;
}

/** Positions within this many pixels are the same place (word boxes are read a few pixels apart). */
const SAME_PLACE = 12;

/**
 * Where the words of `anchors` put the target on a screen whose words are `words`: each word read
 * that matches an anchor votes for (its centre − the anchor's offset); the place with the most
 * distinct words wins. Null when no word matches, or when two places tie (the text is ambiguous).
 */
export function locateByText(anchors: readonly TextAnchor[], words: readonly OcrWord[]): TextLocation | null {
  const places: Array<{ points: Point[]; words: Map<string, boolean> }> = [];
  for (const anchor of anchors) {
    const wanted = normalizeWord(anchor.text);
    for (const word of words) {
      if (normalizeWord(word.text) !== wanted) continue;
      const point = { x: word.box.x + word.box.width / 2 - anchor.dx, y: word.box.y + word.box.height / 2 - anchor.dy };
      const place = places.find((candidate) => candidate.points.some((p) => Math.hypot(p.x - point.x, p.y - point.y) <= SAME_PLACE));
      if (place) {
        place.points.push(point);
        place.words.set(wanted, anchor.inside || (place.words.get(wanted) ?? false));
      } else places.push({ points: [point], words: new Map([[wanted, anchor.inside]]) });
    }
  }
  places.sort((a, b) => b.words.size - a.words.size);
  const [best, second] = places;
  if (!best || (second && second.words.size === best.words.size)) return null;
  const centre = { x: mean(best.points.map((p) => p.x)), y: mean(best.points.map((p) => p.y)) };
  return { point: { x: Math.round(centre.x), y: Math.round(centre.y) }, words: [...best.words.keys()], inside: [...best.words.values()].filter(Boolean).length };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The region read for a target's labels: its patch and TEXT_REACH around it, within the image. */
export function textRegion(patch: Rect, image: Size): Rect {
  return clampRect({ x: patch.x - TEXT_REACH, y: patch.y - TEXT_REACH, width: patch.width + 2 * TEXT_REACH, height: patch.height + 2 * TEXT_REACH }, image);
}
