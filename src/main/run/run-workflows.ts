/**
 * The seam between a model-driven run and saved workflows (procedural memory): what the agent
 * loop is given to offer them and to run one on the model's `run_workflow`. The workflow layer
 * implements it (src/main/workflow/in-run.ts); the service hands it to the run.
 */
import type { ActionOf } from '../../shared/actions';
import type { CaptureOptions } from '../operator/capture';
import type { Ending } from './ending';
import type { RunLifecycle } from './lifecycle';

/** What a `run_workflow` did: the steps it took in the run, its report for the model, and how the run must end if it must (stopped by the user). */
export interface InRunResult {
  steps: number;
  report: string;
  ending?: Ending;
}

export interface RunWorkflows {
  /** The lines of the instructions offering the saved workflows that match the task; null when none does. */
  readonly offer: string | null;
  /** Runs the action's workflow as steps `firstStep`, … of the run. */
  run(action: ActionOf<'run_workflow'>, life: RunLifecycle, firstStep: number, capture: CaptureOptions): Promise<InRunResult>;
}
