/**
 * Coordinate mapping between the model's image and the screen.
 *
 * The model sees an image of `frame.image` pixels covering `frame.bounds` (logical px). An image
 * pixel (x, y) stands for the logical area it was sampled from; we aim at that area's centre, so a
 * point maps to the same physical spot whatever the downscale. A point outside the image is an
 * error value: clamping it would click somewhere the model did not mean.
 */
import { screenPoint, type ImagePoint, type Point, type ScreenPoint } from '../../shared/actions';
import type { Frame, Rect, Size } from '../../shared/frame';

export type MapResult = { ok: true; point: ScreenPoint } | { ok: false; message: string };

/** Logical px per image px along each axis. */
function ratios(frame: Frame): { rx: number; ry: number } {
  return { rx: frame.bounds.width / frame.image.width, ry: frame.bounds.height / frame.image.height };
}

function describeImage(frame: Frame): string {
  return `${frame.image.width}x${frame.image.height}`;
}

/** Model-image point → integer logical screen point, or an error naming the point and the image. */
export function imageToScreen(point: ImagePoint, frame: Frame): MapResult {
  const { x, y } = point;
  if (!Number.isFinite(x) || !Number.isFinite(y)) {
    return { ok: false, message: `coordinates (${x}, ${y}) are not finite numbers` };
  }
  // The image is the rectangle [0, width] × [0, height]: its far edge still belongs to it (a
  // relative 1000 of UI-TARS lands there) and maps to the last pixel, as the parsers agree.
  if (x < 0 || y < 0 || x > frame.image.width || y > frame.image.height) {
    return {
      ok: false,
      message: `point (${x}, ${y}) is outside the ${describeImage(frame)} image (valid: 0 ≤ x ≤ ${frame.image.width}, 0 ≤ y ≤ ${frame.image.height})`,
    };
  }
  const { rx, ry } = ratios(frame);
  const localX = Math.min(Math.floor((x + 0.5) * rx), frame.bounds.width - 1);
  const localY = Math.min(Math.floor((y + 0.5) * ry), frame.bounds.height - 1);
  return { ok: true, point: screenPoint({ x: frame.bounds.x + localX, y: frame.bounds.y + localY }) };
}

/**
 * A rectangle of the model's image → the logical screen rectangle it covers (rounded outwards,
 * kept on the frame's bounds): what a model's zoom region is on the screen.
 */
export function imageRectToScreen(rect: Rect, frame: Frame): Rect {
  const { rx, ry } = ratios(frame);
  const { bounds } = frame;
  const left = Math.max(0, Math.floor(rect.x * rx));
  const top = Math.max(0, Math.floor(rect.y * ry));
  const right = Math.min(bounds.width, Math.ceil((rect.x + rect.width) * rx));
  const bottom = Math.min(bounds.height, Math.ceil((rect.y + rect.height) * ry));
  return { x: bounds.x + left, y: bounds.y + top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/** Logical screen point → model-image point (fractional; the centre of the logical pixel). */
export function screenToImage(point: ScreenPoint, frame: Frame): ImagePoint {
  const { rx, ry } = ratios(frame);
  return {
    x: (point.x - frame.bounds.x + 0.5) / rx - 0.5,
    y: (point.y - frame.bounds.y + 0.5) / ry - 0.5,
  };
}

/** Logical → physical pixels on the frame's display (for drawing on the full-resolution capture). */
export function logicalToPhysical(point: Point, frame: Frame): Point {
  return {
    x: (point.x - frame.bounds.x) * frame.scaleFactor,
    y: (point.y - frame.bounds.y) * frame.scaleFactor,
  };
}

export interface ImageSizeLimits {
  maxWidth?: number;
  maxHeight?: number;
  /** Upper bound on width × height (some models bill or resize by pixel count). */
  maxPixels?: number;
}

/**
 * The largest size within the limits that keeps the source's aspect ratio, never upscaling.
 * Sides are rounded down so every limit holds; each side is at least 1 px.
 */
export function fitImageSize(source: Size, limits: ImageSizeLimits): Size {
  let scale = 1;
  if (limits.maxWidth !== undefined) scale = Math.min(scale, limits.maxWidth / source.width);
  if (limits.maxHeight !== undefined) scale = Math.min(scale, limits.maxHeight / source.height);
  if (limits.maxPixels !== undefined) {
    scale = Math.min(scale, Math.sqrt(limits.maxPixels / (source.width * source.height)));
  }
  if (scale >= 1) return { width: source.width, height: source.height };
  let width = Math.max(1, Math.floor(source.width * scale));
  let height = Math.max(1, Math.floor(source.height * scale));
  // Floating error can leave width × height one row over maxPixels; shave until it fits.
  while (limits.maxPixels !== undefined && width * height > limits.maxPixels && width > 1 && height > 1) {
    if (width / source.width > height / source.height) width -= 1;
    else height -= 1;
  }
  return { width, height };
}

/** A frame in which coordinates are the screen's own logical pixels over `bounds`. */
export function screenFrame(bounds: Rect, displayId = 'screen', scaleFactor = 1): Frame {
  return {
    displayId,
    bounds,
    scaleFactor,
    captured: { width: Math.round(bounds.width * scaleFactor), height: Math.round(bounds.height * scaleFactor) },
    image: { width: bounds.width, height: bounds.height, format: 'png' },
  };
}

/** A frame for an image of `image` pixels covering `bounds`, as `mnemo act --image WxH` means it. */
export function imageFrame(bounds: Rect, image: Size, displayId = 'screen', scaleFactor = 1): Frame {
  return {
    ...screenFrame(bounds, displayId, scaleFactor),
    image: { width: image.width, height: image.height, format: 'png' },
  };
}

/** The smallest rectangle that contains every given one (the virtual desktop of several displays). */
export function unionRect(rects: readonly Rect[]): Rect {
  if (rects.length === 0) throw new Error('unionRect needs at least one rectangle');
  const left = Math.min(...rects.map((r) => r.x));
  const top = Math.min(...rects.map((r) => r.y));
  const right = Math.max(...rects.map((r) => r.x + r.width));
  const bottom = Math.max(...rects.map((r) => r.y + r.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}
