/**
 * The grounding check's pure part: synthetic targets (one labelled button at a random place of an
 * image of the run's size), the picture of each as SVG, and the scoring that finds the coordinate
 * space explaining a model's answers. Rendering and asking the model are in grounding-check.ts.
 *
 * A space explains an answer when the point, read in that space for the image sent, lies inside
 * the target. The detected space is the one with the most such answers. A tie goes to the
 * configured space unless another explains the answers clearly better (their points are nearer
 * the targets' centres): at 1280x800 the smart resize is 1288x812, and both explain nearly any
 * answer, so only the distances tell a model that writes in one from one that writes in the other.
 * Where no space explains any answer, none is detected but the configured one: the model misses.
 */
import type { Point } from '../../shared/actions';
import type { Size } from '../../shared/frame';
import { COORDINATE_SPACES, modelToImage, type CoordinateFrame, type CoordinateSpace, type ModelCoordinates, type ImageSize } from './families';

export interface TargetRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GroundingTarget extends TargetRect {
  /** The button's text: what the model is asked to click. */
  label: string;
}

/** One target and what the model answered, as `--json` prints it (pixels of the image sent). */
export interface GroundingSample {
  target: TargetRect;
  /** The answer read in the detected space; null when the reply held no point. */
  answer: Point | null;
}

export type SpaceCounts = Record<CoordinateSpace, number>;

/** `mnemo check-model --grounding --json`, exactly. */
export interface GroundingReport {
  configured: CoordinateSpace;
  detected: CoordinateSpace;
  targets: number;
  hits: SpaceCounts;
  /** Mean distance from the answers (read in the detected space) to the targets' centres, in screen pixels; null without answers. */
  meanErrorPx: number | null;
  samples: GroundingSample[];
}

/** Words on the buttons: short, common, all different from one another. */
export const GROUNDING_LABELS = ['Submit', 'Cancel', 'Save', 'Open', 'Next', 'Apply', 'Search', 'Continue', 'Send', 'Delete', 'Export', 'Settings'] as const;

/** What the model is asked, in its own protocol, for each target. */
export function groundingTask(target: GroundingTarget): string {
  return `Click the button labelled "${target.label}". Click it once; do nothing else.`;
}

/** The button's size for an image: about a tenth of its width, big enough to read. */
export function buttonSize(image: ImageSize): Size {
  return {
    width: Math.round(Math.min(240, Math.max(72, image.width * 0.1))),
    height: Math.round(Math.min(72, Math.max(28, image.height * 0.06))),
  };
}

/** `count` targets at random places of the image (whole pixels, a margin from the edges). */
export function placeTargets(image: ImageSize, count: number, random: () => number = Math.random): GroundingTarget[] {
  const size = buttonSize(image);
  const margin = Math.round(Math.min(image.width, image.height) * 0.02);
  const span = (extent: number, side: number) => Math.max(0, extent - side - 2 * margin);
  return Array.from({ length: count }, (_, index) => ({
    x: margin + Math.floor(random() * (span(image.width, size.width) + 1)),
    y: margin + Math.floor(random() * (span(image.height, size.height) + 1)),
    ...size,
    label: GROUNDING_LABELS[Math.floor(random() * GROUNDING_LABELS.length)] ?? GROUNDING_LABELS[index % GROUNDING_LABELS.length] ?? 'Submit',
  }));
}

/** A random source from a seed (mulberry32): the same targets for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The colour of the button: the one thing on the picture in it. */
export const BUTTON_COLOUR = { r: 0x1f, g: 0x6f, b: 0xeb } as const;

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The synthetic screenshot: a plain screen and the one labelled button. */
export function targetSvg(image: ImageSize, target: GroundingTarget): string {
  const hex = `#${[BUTTON_COLOUR.r, BUTTON_COLOUR.g, BUTTON_COLOUR.b].map((value) => value.toString(16).padStart(2, '0')).join('')}`;
  const fontSize = Math.round(target.height * 0.42);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${image.width}" height="${image.height}" viewBox="0 0 ${image.width} ${image.height}">`,
    `<rect width="${image.width}" height="${image.height}" fill="#f4f5f7"/>`,
    `<rect x="${target.x}" y="${target.y}" width="${target.width}" height="${target.height}" rx="${Math.round(target.height / 8)}" fill="${hex}"/>`,
    `<text x="${target.x + target.width / 2}" y="${target.y + target.height / 2}" font-family="DejaVu Sans, Arial, Helvetica, sans-serif" font-size="${fontSize}" fill="#ffffff" text-anchor="middle" dominant-baseline="central">${escapeXml(target.label)}</text>`,
    '</svg>',
  ].join('');
}

export function inside(point: Point, rect: TargetRect): boolean {
  return point.x >= rect.x && point.y >= rect.y && point.x <= rect.x + rect.width && point.y <= rect.y + rect.height;
}

function centreOf(rect: TargetRect): Point {
  return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
}

/** What the scoring needs: the image sent, the screen it stands for, the model's resize bounds. */
export interface ScoringGeometry {
  image: ImageSize;
  screen: Size;
  smartResize?: ModelCoordinates['smartResize'];
}

function frameOf(space: CoordinateSpace, geometry: ScoringGeometry): CoordinateFrame {
  return { space, image: geometry.image, ...(geometry.smartResize ? { smartResize: geometry.smartResize } : {}) };
}

/** Distance on the screen between a point of the image and a target's centre. */
function screenDistance(point: Point, target: TargetRect, geometry: ScoringGeometry): number {
  const centre = centreOf(target);
  const dx = ((point.x - centre.x) * geometry.screen.width) / geometry.image.width;
  const dy = ((point.y - centre.y) * geometry.screen.height) / geometry.image.height;
  return Math.hypot(dx, dy);
}

export interface SpaceScore {
  hits: number;
  /** Screen pixels, over the answers there were; null without any. */
  meanErrorPx: number | null;
}

/** How well one space explains the answers (each as the model wrote it, or null). */
export function scoreSpace(space: CoordinateSpace, targets: readonly TargetRect[], answers: readonly (Point | null)[], geometry: ScoringGeometry): SpaceScore {
  const frame = frameOf(space, geometry);
  let hits = 0;
  let total = 0;
  let answered = 0;
  targets.forEach((target, index) => {
    const answer = answers[index];
    if (answer === null || answer === undefined) return;
    const point = modelToImage(answer, frame);
    if (inside(point, target)) hits += 1;
    total += screenDistance(point, target, geometry);
    answered += 1;
  });
  return { hits, meanErrorPx: answered > 0 ? total / answered : null };
}

/** The space that explains the answers best (see the module comment for ties). */
export function detectSpace(scores: Readonly<Record<CoordinateSpace, SpaceScore>>, configured: CoordinateSpace): CoordinateSpace {
  const error = (space: CoordinateSpace) => scores[space].meanErrorPx ?? Number.POSITIVE_INFINITY;
  const best = Math.max(...COORDINATE_SPACES.map((space) => scores[space].hits));
  // No space explains a single answer: the model misses whatever it writes in, and the nearest
  // miss would name a space by chance (where the targets happened to be).
  if (best === 0) return configured;
  const candidates = COORDINATE_SPACES.filter((space) => scores[space].hits === best);
  const nearest = candidates.reduce((a, b) => (error(b) < error(a) ? b : a));
  if (!Number.isFinite(error(nearest))) return configured;
  if (candidates.includes(configured) && error(configured) <= 1.5 * error(nearest) + 2) return configured;
  return nearest;
}

/** The report of a check: hits in every space, the detected one, the samples read in it. */
export function scoreGrounding(targets: readonly GroundingTarget[], answers: readonly (Point | null)[], configured: CoordinateSpace, geometry: ScoringGeometry): { report: GroundingReport; scores: Record<CoordinateSpace, SpaceScore> } {
  const scores = Object.fromEntries(COORDINATE_SPACES.map((space) => [space, scoreSpace(space, targets, answers, geometry)])) as Record<CoordinateSpace, SpaceScore>;
  const detected = detectSpace(scores, configured);
  const frame = frameOf(detected, geometry);
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    scores,
    report: {
      configured,
      detected,
      targets: targets.length,
      hits: Object.fromEntries(COORDINATE_SPACES.map((space) => [space, scores[space].hits])) as SpaceCounts,
      meanErrorPx: scores[detected].meanErrorPx === null ? null : round(scores[detected].meanErrorPx as number),
      samples: targets.map((target, index) => {
        const answer = answers[index] ?? null;
        const point = answer === null ? null : modelToImage(answer, frame);
        return { target: { x: target.x, y: target.y, width: target.width, height: target.height }, answer: point === null ? null : { x: round(point.x), y: round(point.y) } };
      }),
    },
  };
}
