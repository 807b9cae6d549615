/**
 * Points as a model reads them. A model is told about the points it acted on (the history, its
 * tool results, the memory layers, the reground prompt) in the coordinates it writes, for the
 * image it saw: never in screen pixels, which it never saw (on a 1920x1200 screen sent as
 * 1280x800, its click at (640, 400) must come back as (640, 400), not (960, 600)).
 */
import type { ImagePoint, Point } from '../../shared/actions';
import { imageToModel, type CoordinateFrame } from './families/coordinates';
import type { ImageSize } from './families/types';
import type { VisionModel } from './types';

/** The frame a model answers in for an image of this size; pixels of the image when it does not say. */
export function coordinateFrameOf(model: Pick<VisionModel, 'coordinateFrame'>, image: ImageSize): CoordinateFrame {
  const size = { width: image.width, height: image.height };
  return model.coordinateFrame?.(size) ?? { space: 'image', image: size };
}

/** Turns a point of the image into the point the model would write for it. */
export type PointSpeaker = (point: ImagePoint) => Point;

export function pointSpeaker(model: Pick<VisionModel, 'coordinateFrame'>, image: ImageSize): PointSpeaker {
  const frame = coordinateFrameOf(model, image);
  return (point) => imageToModel(point, frame);
}

/** How the coordinates of a frame are named in an instruction to the model (one wording, coordinates.ts). */
export { describeCoordinates } from './families/coordinates';
