/**
 * Carrying out recorded actions on the desktop, for every re-execution (the replayer, workflows):
 * a recorded `confirm` asks the user again, nothing runs before everything before it is recorded,
 * recorded waits follow the speed, a typed secret stays out of the record, and a failed action
 * ends the run with the reason.
 */
import type { Action } from '../../shared/actions';
import { describeAction } from '../../shared/describe-action';
import type { Frame } from '../../shared/frame';
import type { ModelImage } from '../model/types';
import type { Observation } from '../operator/capture';
import type { AskRequest } from '../run/ask';
import { isAffirmative } from '../run/confirmation';
import { STOPPED, type Ending } from '../run/ending';
import type { RunLifecycle } from '../run/lifecycle';

/** One action to run, and the form it is recorded and shown in (a secret masked). */
export interface ActionToRun {
  run: Action;
  shown: Action;
}

export interface ActOptions {
  /** Recorded waits are divided by this; 0 runs them without waiting. */
  speed: number;
  /** Asks the user (a recorded confirmation). */
  ask: (request: AskRequest) => Promise<string | null>;
  /** The index of the first action within its step (events number actions from it). Default 0. */
  firstIndex?: number;
}

/** Runs the actions in order; returns how the run ends, or undefined when all went well. */
export async function actRecorded(life: RunLifecycle, step: number, actions: readonly ActionToRun[], frame: Frame, options: ActOptions): Promise<Ending | undefined> {
  for (const [i, { run, shown }] of actions.entries()) {
    if (life.signal.aborted) return STOPPED;
    if (run.confirm) {
      const answer = await options.ask({ kind: 'confirmation', question: `Step ${step}: the recording asked for confirmation before this ${run.type}. Allow ${describeAction(shown)}?`, action: shown });
      if (life.signal.aborted) return STOPPED;
      if (!isAffirmative(answer)) return { status: 'refused', reason: `the user refused the ${describeAction(shown)} of step ${step}` };
    }
    // No action without a record of everything before it, the step's earlier actions included.
    const unrecorded = await life.checkpoint();
    if (unrecorded) return unrecorded;
    const executed = run.type === 'wait' ? { ...run, ms: options.speed > 0 ? Math.round(run.ms / options.speed) : 0 } : run;
    // A secret the user typed in never reaches the record, not even inside an error message.
    const result = await life.execute(step, (options.firstIndex ?? 0) + i, executed, frame, shown);
    if (!result.ok) {
      if (result.error.kind === 'user_abort') return { status: 'aborted', reason: `fail-safe: ${result.error.message}` };
      if (result.error.kind === 'aborted' || life.signal.aborted) return { status: 'aborted', reason: 'stopped by the user during an action' };
      return { status: 'failed', reason: `step ${step}: ${describeAction(shown)} failed (${result.error.kind}): ${result.error.message}` };
    }
  }
  return undefined;
}

/** A capture as the model gets it. */
export function modelImageOf(observation: Observation): ModelImage {
  const { image, frame } = observation;
  return { image, mime: frame.image.format === 'png' ? 'image/png' : 'image/jpeg', width: frame.image.width, height: frame.image.height };
}
