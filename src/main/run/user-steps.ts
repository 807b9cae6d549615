/**
 * The user's steps while a run is taken over: each action of theirs becomes a step like the
 * agent's (a screenshot of what they saw, the action, its result), marked `actor: "user"`, and is
 * carried out through the run's own execute path. The action arrives in screen pixels of the
 * run's display and is carried out exactly there; the record keeps it in pixels of the image the
 * model is shown, as the agent's actions are kept, so a replay and the model read it alike.
 */
import { describeAction } from '../../shared/describe-action';
import { mapActionCoordinates, screenPoint, type Action, type ImagePoint, type Point } from '../../shared/actions';
import type { Frame, Size } from '../../shared/frame';
import type { CaptureOptions } from '../operator/capture';
import { screenFrame, screenToImage } from '../operator/geometry';
import type { RunLifecycle } from './lifecycle';
import type { InputOutcome, Takeover } from './takeover';

/** How a takeover went, for the agent's next prompt. */
export interface HandbackReport {
  /** The user's actions in pixels of the model's image (masked as recorded). */
  actions: Action[];
  /** The size of that image (the last user step's); null when the user did nothing. */
  image: Size | null;
  note: string | null;
}

/** How the model reads points: its own coordinates for a point of its image, and their name. */
export interface SpokenCoordinates {
  speak: (point: ImagePoint) => Point;
  /** e.g. `pixels of the current screenshot (1280x800)`. */
  named: string;
}

export interface TakeoverContext {
  /** The last step number used; user steps follow it. */
  step: number;
  /** How the agent captures the screen, so the user's steps are seen as the model sees them. */
  capture: CaptureOptions;
}

const user = { actor: 'user' } as const;

/**
 * Pixels of the captured display (0,0 at its top-left, as the live view shows it) to pixels of
 * the model's image of it, rounded as a model would write them.
 */
export function toImagePixels(action: Action, frame: Frame): Action {
  const { x: left, y: top } = frame.bounds;
  return screenToImagePixels(
    mapActionCoordinates(
      action,
      (x) => left + x,
      (y) => top + y,
    ),
    frame,
  );
}

/** Pixels of the desktop (the X root window's: a demonstration's) to pixels of the model's image of the frame's display, rounded. */
export function screenToImagePixels(action: Action, frame: Frame): Action {
  const { x: left, y: top } = frame.bounds;
  return mapActionCoordinates(
    action,
    (x) => Math.round(screenToImage(screenPoint({ x, y: top }), frame).x),
    (y) => Math.round(screenToImage(screenPoint({ x: left, y }), frame).y),
  );
}

/** One action of the user's, as a step of its own. */
export async function runUserStep(life: RunLifecycle, step: number, action: Action, context: TakeoverContext): Promise<{ outcome: InputOutcome; recorded?: Action; image?: Size }> {
  const started = life.clock();
  life.emit({ type: 'step-started', step, ...user });
  // The user's step spends nothing: its end repeats the run's cost so far.
  const finish = () => life.finishStep(step, life.clock() - started, undefined, 'user');
  const captured = await life.operator.observe(context.capture);
  if (!captured.ok) {
    life.emit({ type: 'note', step, message: `your action was not carried out: the screen could not be captured (${captured.message})`, ...user });
    finish();
    return { outcome: { ok: false, reason: `the screen could not be captured: ${captured.message}` } };
  }
  const { observation } = captured;
  const { frame } = observation;
  const mime = frame.image.format === 'png' ? 'image/png' : 'image/jpeg';
  const screenshot = life.recorder.saveScreenshot(step, observation.image, mime, frame.image, { fullResolution: observation.fullResolution });
  life.emit({ type: 'observation', step, screenshot, frame, ...user });
  const unrecorded = await life.checkpoint();
  if (unrecorded) {
    finish();
    return { outcome: { ok: false, reason: unrecorded.reason } };
  }
  const recorded = life.secrets.action(toImagePixels(action, frame));
  const result = await life.execute(step, 0, action, screenFrame(frame.bounds, frame.displayId, frame.scaleFactor), recorded, 'user');
  finish();
  return { outcome: { ok: true, step, result }, recorded, image: { width: frame.image.width, height: frame.image.height } };
}

/**
 * While the run is taken over: the user's actions, one step each, until the hand-back (the report
 * for the agent) or the run's end (null). Returns the last step number used.
 */
export async function serveTakeover(life: RunLifecycle, takeover: Takeover, context: TakeoverContext): Promise<{ step: number; report: HandbackReport | null }> {
  let step = context.step;
  const actions: Action[] = [];
  let image: Size | null = null;
  life.emit({ type: 'taken-over', step });
  for (;;) {
    const turn = await takeover.next(life.signal);
    if (turn.kind === 'stopped') return { step, report: null };
    if (turn.kind === 'handback') {
      life.emit({ type: 'handed-back', step, note: turn.note });
      return { step, report: { actions, image, note: turn.note } };
    }
    step++;
    const done = await runUserStep(life, step, turn.action, { ...context, step });
    if (done.recorded && done.image && done.outcome.ok && done.outcome.result.ok) {
      actions.push(done.recorded);
      image = done.image;
    }
    turn.settle(done.outcome);
  }
}

/**
 * What the agent is told after a hand-back: that the user took over, what they did (each point in
 * the coordinates the model writes, for the image it saw: `told`), and their note.
 */
export function describeHandback(report: HandbackReport, told: SpokenCoordinates): string {
  const did =
    report.actions.length === 0
      ? 'did nothing on the screen'
      : `did, in ${told.named}: ${report.actions.map((action, i) => `${i + 1}. ${describeAction(action, (point) => told.speak(point))}`).join('; ')}`;
  const note = report.note === null ? 'They left no note.' : `Their note: "${report.note}".`;
  return `The user took over the desktop and ${did}. ${note} Look at the new screenshot before you act: the screen may have changed.`;
}
