/**
 * What one step produced, as one value: the loop builds it once at the end of the step and hands
 * it to the history (what the model is reminded of) and to the memory (trace, layers, blackboard).
 * Everything in it is already masked.
 */
import { actionPoints, type Action, type Point } from '../../shared/actions';
import { formatPoint } from '../../shared/describe-action';
import type { PointSpeaker } from '../model/speak';
import type { ActionResult } from '../../shared/action-result';
import type { ScreenshotRef } from '../../shared/events';
import type { ActionReport, ActionsNotRun, CapturedAfter, ZoomedRegion } from '../model/types';

export interface CompletedStep {
  step: number;
  task: string;
  thought: string | null;
  actions: Action[];
  /** One per executed action. */
  results: ActionResult[];
  /** What happened, in a line: for the recent layer and the model's history. */
  outcome: string;
  /** The screenshot the model saw, by reference. */
  screenshot: ScreenshotRef | null;
  /** The model's raw reply (UI-TARS replays it as its own turn, OpenAI computer use chains on it). */
  reply?: string;
  /** How each action the loop reached went, for the model (absent when the reply was not used). */
  reports?: ActionReport[];
  /** What was captured after actions, as the prediction asked; images by reference. */
  captures?: StepCapture[];
  /** The actions from `from` on were not run, and why. */
  notRun?: ActionsNotRun;
  /** The screenshot was a region the model zoomed into. */
  zoom?: ZoomedRegion;
  costUsd: number;
  success: boolean;
  error?: string;
}

/**
 * What an action did, in a line for the model and the memory: the point is the one the model
 * aimed at, in its own coordinates (`speak`), never the screen point it landed on.
 */
export function describeResult(action: Action, result: ActionResult, speak: PointSpeaker): string {
  if (!result.ok) return `${action.type} failed (${result.error.kind}): ${result.error.message}`;
  const [aimed] = actionPoints(action);
  const at = aimed && result.points?.length ? ` at ${formatPoint(speak(aimed))}` : '';
  return `${action.type}${at} done${result.detail ? `: ${result.detail}` : ''}`;
}

/** A capture after one of the step's actions, its image kept by reference. */
export interface StepCapture {
  afterAction: number;
  kind: CapturedAfter['kind'];
  screenshot?: ScreenshotRef;
  /** In pixels of the step's image. */
  pointer?: Point;
  error?: string;
}
