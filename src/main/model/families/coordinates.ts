/**
 * The coordinate spaces a model may answer in, and the mapping between each and the pixels of the
 * image it was sent. Both directions live here: the parsers bring a model's point into the image
 * (and from there the operator brings it onto the screen), and everything Mnemo tells a model
 * about a point it acted on goes back out through the same space, so a model only ever reads
 * coordinates of the kind it writes.
 *
 * The Qwen-VL smart resize lives here too: it is the grid of the `smart-resize` space (UI-TARS-1.5,
 * Qwen2.5-VL and the models built on it answer in pixels of their own resized copy of the image).
 */
import { actionPoints, type Action, type Point } from '../../../shared/actions';
import { COORDINATE_SPACES, type ModelCoordinates } from '../../../shared/model-families';
import { describePoint, describeSize, unreadableReply, mapPoint, mapActionPoints } from './common';
import type { CoordinateFrame, CoordinateSpace, ImageSize, ParseFailure, SmartResizeOptions } from './types';

export type { CoordinateFrame, CoordinateSpace, SmartResizeOptions };

export { COORDINATE_SPACES, type ModelCoordinates };

/** The frame of a model's coordinates for one image. */
export function frameFor(coordinates: ModelCoordinates, image: ImageSize): CoordinateFrame {
  return { space: coordinates.space, image, ...(coordinates.smartResize ? { smartResize: coordinates.smartResize } : {}) };
}

const RELATIVE_1000: ImageSize = { width: 1000, height: 1000 };
const RELATIVE_1: ImageSize = { width: 1, height: 1 };

/** The extent of the model's coordinates for this image: the grid its answers are written on. */
export function gridOf(frame: CoordinateFrame): ImageSize {
  switch (frame.space) {
    case 'image':
      return frame.image;
    case 'smart-resize':
      return smartResize(frame.image.width, frame.image.height, frame.smartResize);
    case 'relative-1000':
      return RELATIVE_1000;
    case 'relative-1':
      return RELATIVE_1;
  }
}

/** A point as the model wrote it → pixels of the image it was sent (not rounded). */
export function modelToImage(point: Point, frame: CoordinateFrame): Point {
  return frame.space === 'image' ? point : mapPoint(point, gridOf(frame), frame.image);
}

/**
 * A point of the image sent → the model's own coordinates, rounded as the model writes them:
 * whole numbers on the pixel and 0-1000 grids, three decimals on 0-1.
 */
export function imageToModel(point: Point, frame: CoordinateFrame): Point {
  const mapped = frame.space === 'image' ? point : mapPoint(point, frame.image, gridOf(frame));
  const round = frame.space === 'relative-1' ? (value: number) => Math.round(value * 1000) / 1000 : Math.round;
  return { x: round(mapped.x), y: round(mapped.y) };
}

/** Whether a point the model wrote lies on its grid (the far edge included). */
export function onGrid(point: Point, frame: CoordinateFrame): boolean {
  const grid = gridOf(frame);
  return point.x >= 0 && point.y >= 0 && point.x <= grid.width && point.y <= grid.height;
}

/** The grid in words, for a parse error: `the 1280x800 image`, `the 1000x1000 relative range`. */
export function describeGrid(frame: CoordinateFrame): string {
  switch (frame.space) {
    case 'image':
      return `the ${describeSize(frame.image)} image`;
    case 'smart-resize':
      return `the ${describeSize(gridOf(frame))} image of the model's smart resize`;
    case 'relative-1000':
      return `the ${describeSize(RELATIVE_1000)} relative range`;
    case 'relative-1':
      return 'the 0-1 relative range';
  }
}

/** How the model is told to write a point of this frame: the families' prompts and tools, the reground prompt. */
export function describeCoordinates(frame: CoordinateFrame): string {
  switch (frame.space) {
    case 'image':
      return `pixels of the current screenshot (${describeSize(frame.image)}), origin at its top-left corner`;
    case 'smart-resize':
      return `pixels of the current screenshot as you see it (after your resize: ${describeSize(gridOf(frame))}), origin at its top-left corner`;
    case 'relative-1000':
      return 'thousandths of the current screenshot (0-1000): x from 0 (left edge) to 1000 (right edge), y from 0 (top) to 1000 (bottom)';
    case 'relative-1':
      return 'fractions of the current screenshot (0-1): x from 0 (left edge) to 1 (right edge), y from 0 (top) to 1 (bottom)';
  }
}

/**
 * A point the model wrote, checked to lie on its grid and brought into pixels of the image. On the
 * relative grids the result is rounded to whole pixels (the grid is coarser than a pixel anyway).
 */
export function readModelPoint(point: Point, frame: CoordinateFrame): { ok: true; point: Point } | ParseFailure {
  if (!onGrid(point, frame)) return unreadableReply(`coordinates ${describePoint(point)} outside ${describeGrid(frame)}`);
  const mapped = modelToImage(point, frame);
  const relative = frame.space === 'relative-1000' || frame.space === 'relative-1';
  return { ok: true, point: relative ? { x: Math.round(mapped.x), y: Math.round(mapped.y) } : mapped };
}

/** An action whose points the model wrote → the same action in pixels of the image (not checked). */
export function actionToImage(action: Action, frame: CoordinateFrame): Action {
  return frame.space === 'image' ? action : mapActionPoints(action, (point) => modelToImage(point, frame));
}

/** An action in pixels of the image → the same action as the model would write it. */
export function actionToModel(action: Action, frame: CoordinateFrame): Action {
  return mapActionPoints(action, (point) => imageToModel(point, frame));
}

// ---------------------------------------------------------------------------------------------
// The Qwen-VL smart resize (UI-TARS-1.5, Qwen2.5-VL and the models built on them)

/** The bounds UI-TARS-1.5 uses. */
export const UI_TARS_1_5_RESIZE = {
  factor: 28,
  minPixels: 100 * 28 * 28,
  maxPixels: 16384 * 28 * 28,
} as const satisfies Required<SmartResizeOptions>;

/** Qwen2.5-VL refuses images more elongated than this. */
export const SMART_RESIZE_MAX_RATIO = 200;

/** Python's round(): halves go to the even neighbour, as in the reference implementation. */
function roundHalfToEven(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (fraction > 0.5) return floor + 1;
  if (fraction < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * The size the model sees an image of `width` x `height` at: each side rounded to a multiple of
 * `factor`, then scaled (keeping the aspect ratio) so the total stays within [minPixels, maxPixels].
 * Throws RangeError for sizes no image has (not positive, or more elongated than 200:1): a bug of
 * the caller, not a model reply.
 */
export function smartResize(width: number, height: number, options: SmartResizeOptions = {}): ImageSize {
  const factor = options.factor ?? UI_TARS_1_5_RESIZE.factor;
  const minPixels = options.minPixels ?? UI_TARS_1_5_RESIZE.minPixels;
  const maxPixels = options.maxPixels ?? UI_TARS_1_5_RESIZE.maxPixels;
  if (!(width > 0 && height > 0 && Number.isFinite(width) && Number.isFinite(height))) {
    throw new RangeError(`smartResize: image size ${width}x${height} is not positive`);
  }
  if (Math.max(width, height) / Math.min(width, height) > SMART_RESIZE_MAX_RATIO) {
    throw new RangeError(`smartResize: aspect ratio of ${width}x${height} exceeds ${SMART_RESIZE_MAX_RATIO}`);
  }
  let resizedHeight = Math.max(factor, roundHalfToEven(height / factor) * factor);
  let resizedWidth = Math.max(factor, roundHalfToEven(width / factor) * factor);
  if (resizedHeight * resizedWidth > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    resizedHeight = Math.max(factor, Math.floor(height / beta / factor) * factor);
    resizedWidth = Math.max(factor, Math.floor(width / beta / factor) * factor);
  } else if (resizedHeight * resizedWidth < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    resizedHeight = Math.ceil((height * beta) / factor) * factor;
    resizedWidth = Math.ceil((width * beta) / factor) * factor;
  }
  return { width: resizedWidth, height: resizedHeight };
}

/**
 * A point of the smart-resized image mapped back onto the image that was sent (not rounded): the
 * `smart-resize` space's `modelToImage`, for callers that have no frame at hand.
 */
export function fromSmartResized(point: Point, sent: ImageSize, options: SmartResizeOptions = {}): Point {
  return modelToImage(point, { space: 'smart-resize', image: sent, smartResize: options });
}

/** The reason an action's points are off the model's grid, or null when every one is on it. */
export function checkActionOnGrid(action: Action, frame: CoordinateFrame): string | null {
  for (const point of actionPoints(action)) {
    if (!onGrid(point, frame)) return `coordinates ${describePoint(point)} outside ${describeGrid(frame)}`;
  }
  return null;
}

/**
 * Actions as the model wrote them → pixels of the image, each point checked to lie on the model's
 * grid first (the first problem is the failure).
 */
export function actionsToImage(actions: readonly Action[], frame: CoordinateFrame): { ok: true; actions: Action[] } | ParseFailure {
  for (const action of actions) {
    const problem = checkActionOnGrid(action, frame);
    if (problem !== null) return unreadableReply(problem);
  }
  return { ok: true, actions: actions.map((action) => actionToImage(action, frame)) };
}

/** Pixels of the image: the frame of every protocol that declares the image as the display. */
export function pixelFrame(image: ImageSize): CoordinateFrame {
  return { space: 'image', image };
}
