/**
 * The grounding check as the run service gives it: the model the settings describe, shown
 * screenshots of the size a run would send. That size is found as a run finds it: one capture
 * of the display with the run's image settings, kept within the model's image limits. Without a
 * display the screen is taken to be 1280x800, and the result says so.
 */
import type { Size } from '../../../shared/frame';
import { withinImageLimits } from '../../agent/settings';
import { runGroundingCheck, type GroundingCheckOutcome } from '../../model/grounding-check';
import type { ImageLimits, VisionModel } from '../../model/types';
import type { CaptureOptions } from '../../operator/capture';
import { fitImageSize } from '../../operator/geometry';
import type { RunSettings } from '../../settings/settings';
import type { OperatorOpen } from '../runs/run-launcher';

export const DEFAULT_GROUNDING_TARGETS = 5;
/** The screen assumed when no display answers. */
const ASSUMED_SCREEN: Size = { width: 1280, height: 800 };

export interface RunGeometry {
  image: Size;
  screen: Size;
  note?: string;
}

/** The image a run would send and the screen it shows. */
export async function runGeometry(openOperator: (capture: CaptureOptions) => Promise<OperatorOpen>, image: RunSettings['image'], limits: ImageLimits | undefined, display?: number): Promise<RunGeometry> {
  const capture = withinImageLimits({ maxWidth: image.maxWidth, format: 'png', ...(display !== undefined ? { display } : {}) }, limits);
  const opened = await openOperator(capture);
  let problem = opened.ok ? '' : opened.message;
  if (opened.ok) {
    try {
      const observed = await opened.operator.observe(capture);
      if (observed.ok) {
        const { frame } = observed.observation;
        return { image: { width: frame.image.width, height: frame.image.height }, screen: { width: frame.bounds.width, height: frame.bounds.height } };
      }
      problem = observed.message;
    } finally {
      await opened.close?.();
    }
  }
  const fitted = fitImageSize(ASSUMED_SCREEN, capture);
  return { image: fitted, screen: ASSUMED_SCREEN, note: `no screen could be captured (${problem}); a ${ASSUMED_SCREEN.width}x${ASSUMED_SCREEN.height} screen is assumed` };
}

export interface GroundingRequest {
  targets?: number;
  display?: number;
  random?: () => number;
  signal?: AbortSignal;
}

/** The check of `model` (built from `settings`), on images of the run's size. */
export async function checkGroundingOf(model: VisionModel, settings: Pick<RunSettings, 'image' | 'model'>, openOperator: (capture: CaptureOptions) => Promise<OperatorOpen>, request: GroundingRequest = {}): Promise<GroundingCheckOutcome> {
  const geometry = await runGeometry(openOperator, settings.image, model.imageLimits, request.display);
  return runGroundingCheck(
    { model, ...(settings.model.smartResize ? { smartResize: settings.model.smartResize } : {}) },
    {
      targets: request.targets ?? DEFAULT_GROUNDING_TARGETS,
      image: geometry.image,
      screen: geometry.screen,
      ...(geometry.note ? { note: geometry.note } : {}),
      ...(request.random ? { random: request.random } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    },
  );
}
