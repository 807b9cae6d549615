/** The loop's limits and guards, with the defaults a user gets without configuring anything. */
import type { ElementsAidMode } from '../../shared/settings';
import type { CaptureOptions } from '../operator/capture';
import { DEFAULT_SETTLE, type SettleOptions } from '../run/settle';
import type { RunMemoryOptions } from './run-memory';

export interface AgentLimits {
  maxSteps: number;
  /** Stop once the run has cost this much (USD); null for no limit. */
  maxCostUsd: number | null;
  /** Model, capture and action errors in a row before the run ends. */
  maxConsecutiveErrors: number;
  /** Unparseable replies sent back to the model in a row before the run ends. */
  maxParseRetries: number;
}

export interface AgentOptions {
  limits: AgentLimits;
  /** Screenshots in each request, the current one included; older steps get a placeholder. */
  keepScreenshots: number;
  settle: SettleOptions;
  capture: CaptureOptions;
  /** Layer budgets, pruning (keepScreenshots above is its screenshot count), trace bound. */
  memory?: RunMemoryOptions;
  /**
   * The elements aid (model.elements): `list` or `marks` take the active window's snapshot with
   * each observation for the model (when the run's context reads the display's tree); `off` (the
   * default) sends pixels only.
   */
  elements?: ElementsAidMode;
}

export const DEFAULT_AGENT_OPTIONS: AgentOptions = {
  limits: { maxSteps: 50, maxCostUsd: null, maxConsecutiveErrors: 3, maxParseRetries: 3 },
  keepScreenshots: 3,
  settle: DEFAULT_SETTLE,
  capture: { maxWidth: 1280, format: 'jpeg', quality: 80 },
};

/** The largest image a model takes (`VisionModel.imageLimits`). */
export interface ImageLimitOptions {
  maxWidth?: number | undefined;
  maxHeight?: number | undefined;
  maxPixels?: number | undefined;
}

/** The capture options kept within the model's image limits as well as the user's (the smaller of each wins). */
export function withinImageLimits(capture: CaptureOptions, limits: ImageLimitOptions | undefined): CaptureOptions {
  if (!limits) return capture;
  const smaller = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
  const tightened = {
    maxWidth: smaller(capture.maxWidth, limits.maxWidth),
    maxHeight: smaller(capture.maxHeight, limits.maxHeight),
    maxPixels: smaller(capture.maxPixels, limits.maxPixels),
  };
  return { ...capture, ...Object.fromEntries(Object.entries(tightened).filter(([, value]) => value !== undefined)) };
}
