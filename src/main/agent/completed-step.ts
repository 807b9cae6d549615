/**
 * What one step produced, as one value: the loop builds it once at the end of the step and hands
 * it to the history (what the model is reminded of) and to the memory (trace, layers, blackboard).
 * Everything in it is already masked.
 */
import type { Action } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import type { ScreenshotRef } from '../../shared/events';

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
  costUsd: number;
  success: boolean;
  error?: string;
}

export function describeResult(action: Action, result: ActionResult): string {
  if (!result.ok) return `${action.type} failed (${result.error.kind}): ${result.error.message}`;
  const at = result.points?.[0] ? ` at (${result.points[0].x}, ${result.points[0].y})` : '';
  return `${action.type}${at} done${result.detail ? `: ${result.detail}` : ''}`;
}
