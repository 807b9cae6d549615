/**
 * What a recorded session gives to replay: per step, the actions that ran successfully in the
 * recording (in order), the screenshot and frame they were chosen on, and when the step started.
 * Actions that failed or never ran, and steps that ran nothing (a reply that did not parse, a
 * question), are not replayed.
 */
import { actionPoints, isElementAction, type Action, type ActionOf, type ScreenPoint } from '../../shared/actions';
import { screenToImage } from '../operator/geometry';
import type { ScreenshotRef } from '../../shared/events';
import type { Frame } from '../../shared/frame';
import { MASK } from '../run/masking';
import type { SessionRecord } from '../store/session-reader';
import type { Target } from './divergence';
import { describeAction } from '../../shared/describe-action';

export interface PlannedAction {
  /** As recorded: in pixels of the recorded image; a secret's text is the mask. */
  action: Action;
  /** Typed text the recording masks: it cannot be replayed without the user. */
  secret: boolean;
}

export interface PlannedStep {
  step: number;
  /** When the step started in the recording (ms since the epoch). */
  startedAt: number | null;
  screenshot: ScreenshotRef | null;
  frame: Frame | null;
  thought: string | null;
  actions: PlannedAction[];
  /** Recorded actions left out, with why (they failed in the recording). */
  skipped: string[];
  /** The step ended the recorded run as done, with the model's summary. */
  finished: { summary: string | null } | null;
}

/** The points of the step's actions, for the patch comparison (a drag: where it starts and ends). */
export function targetsOf(actions: readonly PlannedAction[]): Target[] {
  const targets: Target[] = [];
  for (const { action } of actions) {
    const points = actionPoints(action);
    const used = points.length > 2 ? [points[0], points.at(-1)] : points;
    for (const point of used) {
      if (!point) continue;
      const label = `${action.type.replace(/_/g, ' ')} at (${Math.round(point.x)}, ${Math.round(point.y)})`;
      targets.push({ point, label: used.length > 1 ? `${label} (${point === used[0] ? 'start' : 'end'})` : label });
    }
  }
  return targets;
}

export function planReplay(session: SessionRecord): PlannedStep[] {
  const startedAt = new Map<number, number>();
  const results = new Map<number, Array<{ index: number; action: Action; ok: boolean; message: string | null; points: readonly ScreenPoint[] }>>();
  let finishedRun: { step: number; summary: string | null } | null = null;
  for (const event of session.events) {
    if (event.type === 'step-started') startedAt.set(event.step, event.at);
    else if (event.type === 'action-result') {
      const list = results.get(event.step) ?? [];
      list.push({ index: event.index, action: event.action, ok: event.result.ok, message: event.result.ok ? null : event.result.error.message, points: event.result.ok ? (event.result.points ?? []) : [] });
      results.set(event.step, list);
    } else if (event.type === 'run-finished' && event.status === 'finished') finishedRun = { step: event.steps, summary: event.summary };
  }

  const plan: PlannedStep[] = [];
  for (const view of session.steps) {
    const ran = (results.get(view.step) ?? []).sort((a, b) => a.index - b.index);
    const actions: PlannedAction[] = [];
    const skipped = ran.filter((r) => !r.ok).map((r) => `the recorded ${describeAction(r.action)} failed in the recording (${r.message ?? 'no reason'}): not replayed`);
    for (const r of ran.filter((r) => r.ok)) {
      // An element's number meant something only in its run: replayed where it was clicked.
      const planned = isElementAction(r.action) ? pointerActionsOf(r.action, r.points, view.frame) : [r.action];
      if (planned === undefined) skipped.push(`the recorded ${describeAction(r.action)} has no point it was clicked at: not replayed`);
      for (const action of planned ?? []) actions.push({ action, secret: (action.type === 'type' || action.type === 'type_into') && action.text === MASK });
    }
    const finished =
      finishedRun !== null && finishedRun.step === view.step && view.actions.some((action) => action.type === 'finished') ? { summary: finishedRun.summary } : null;
    if (actions.length === 0 && finished === null) continue;
    plan.push({
      step: view.step,
      startedAt: startedAt.get(view.step) ?? null,
      screenshot: view.screenshot,
      frame: view.frame,
      thought: view.thought,
      actions,
      skipped,
      finished,
    });
  }
  return plan;
}

/**
 * A recorded `click_element` or `type_into` as the pointer and keys that did it: a click where the
 * element was (in pixels of the step's recorded image), then for `type_into` select all and type.
 * Undefined when the record has no point or no frame to place it on.
 */
export function pointerActionsOf(action: ActionOf<'click_element' | 'type_into'>, points: readonly ScreenPoint[], frame: Frame | null): Action[] | undefined {
  const [clicked] = points;
  if (!clicked || !frame) return undefined;
  const at = screenToImage(clicked, frame);
  const click: Action = { type: 'click', x: Math.round(at.x), y: Math.round(at.y), button: 'left' };
  if (action.type === 'click_element') return [click];
  return [click, { type: 'hotkey', keys: ['ctrl', 'a'] }, { type: 'type', text: action.text, ...(action.secret ? { secret: true } : {}) }];
}
