/**
 * Reground: a recorded step whose target moved is done again with the model. The request is an
 * ordinary `VisionModel.predict` call, so every family works without a special format:
 *
 * - the history holds the recorded step as the model's own earlier turn: the recorded screenshot,
 *   then the recorded thought and actions (the family renders them in its own coordinates);
 * - the feedback says the screen has changed (with the measured difference) and asks for the same
 *   actions on the same elements, in the model's own coordinates of the current screenshot, or `fail`;
 * - the observation is the live screenshot.
 *
 * The recorded screenshot goes whole rather than as a crop around the target: the model sees the
 * element in its context, and the recorded coordinates point at it. The reply's actions are
 * executed in place of the recorded ones. One attempt: a reply without usable actions ends the
 * replay with the reason (the model client already retries HTTP faults).
 */
import { isControlAction, type Action } from '../../shared/actions';
import type { ModelImage, PredictInput, PredictionSuccess, ThoughtListener, Usage, VisionModel } from '../model/types';
import { describeAction } from '../../shared/describe-action';
import { coordinateFrameOf, describeCoordinates, pointSpeaker } from '../model/speak';

export interface RegroundRequest {
  /** The recorded run's task. */
  task: string;
  step: number;
  thought: string | null;
  /** The recorded actions, in pixels of `recorded`. */
  actions: readonly Action[];
  /** The recorded screenshot; null when the recording lost it (the actions go as text only). */
  recorded: ModelImage | null;
  live: ModelImage;
  /** What diverged, in words (see describeDivergence). */
  difference: string;
}

export type RegroundResult =
  | { ok: true; prediction: PredictionSuccess; actions: Action[] }
  | { ok: false; reason: string; aborted: boolean; usage: Usage | undefined };

/**
 * The request for one regrounded step. `model` says which coordinates the model writes: the
 * recorded actions are described, and the answer asked for, in those (the recorded actions are
 * in pixels of the recorded screenshot).
 */
export function regroundInput(request: RegroundRequest, model: Pick<VisionModel, 'coordinateFrame'> = {}): PredictInput {
  const recordedImage = request.recorded ?? request.live;
  const speak = pointSpeaker(model, recordedImage);
  const recordedActions = request.actions.map((action) => describeAction(action, speak)).join(', then ');
  const answerIn = describeCoordinates(coordinateFrameOf(model, request.live));
  return {
    task: `Redo one recorded step on the current screen. The recorded run's task was: ${request.task}`,
    history: [
      {
        step: request.step,
        thought: request.thought,
        actions: [...request.actions],
        results: 'done (recorded)',
        ...(request.recorded ? { screenshot: request.recorded } : { screenshotPlaceholder: `[The recorded screenshot of step ${request.step} is missing]` }),
      },
    ],
    observation: request.live,
    feedback:
      `That was step ${request.step} of a recording: on ${request.recorded ? 'the screenshot above' : 'the recorded screen'} you did ${recordedActions}. ` +
      `The screen has changed since: ${request.difference}. ` +
      `Find the same element(s) on the current screenshot below and do the same action(s) on them, with coordinates in ${answerIn}. Type the same text. Do only this step. If the element is not on the screen, answer with fail and say why.`,
  };
}

export async function reground(model: VisionModel, request: RegroundRequest, signal: AbortSignal, onThought?: ThoughtListener): Promise<RegroundResult> {
  const prediction = await model.predict(regroundInput(request, model), signal, onThought);
  if (!prediction.ok) {
    const aborted = prediction.error.kind === 'aborted' || signal.aborted;
    return { ok: false, reason: `${prediction.error.kind}: ${prediction.error.message}`, aborted, usage: prediction.usage };
  }
  const refusal = prediction.actions.find((action) => action.type === 'fail');
  if (refusal?.type === 'fail') return { ok: false, reason: `the model did not find it: ${refusal.reason}`, aborted: false, usage: prediction.usage };
  const question = prediction.actions.find((action) => action.type === 'ask_user');
  if (question?.type === 'ask_user') return { ok: false, reason: `the model asked instead: ${question.question}`, aborted: false, usage: prediction.usage };
  const actions = prediction.actions.filter((action) => !isControlAction(action));
  if (actions.length === 0) return { ok: false, reason: 'the model answered without an action', aborted: false, usage: prediction.usage };
  return { ok: true, prediction, actions };
}
