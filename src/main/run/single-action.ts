/**
 * One action on the desktop, as a run of one step: what a caller that acts a step at a time (the
 * MCP server's `act`) does, with everything a run of the agent has. The session records the
 * screen the coordinates refer to (the observation), the action and its result; the confirmation
 * rules of the run's context ask before it (and refuse without a yes); the record is written before it acts; a typed
 * secret is masked; the fail-safe, cancellation and a lost display end it as they end a run.
 *
 * A peer of the agent and the replayer on the run lifecycle: no model, no memory.
 */
import type { Action } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import type { AgentEvent } from '../../shared/events';
import { ZERO_USAGE } from '../../shared/events';
import type { Frame } from '../../shared/frame';
import { screenFrame } from '../operator/geometry';
import { internalError, type Ending } from './ending';
import type { RunLifecycle } from './lifecycle';
import { isSecretTyping } from './masking';

/**
 * What the action's coordinates are pixels of: a screenshot the caller took (recorded as the
 * step's observation), or the screen itself (logical px of the whole desktop, as `mnemo act`
 * takes them; a capture of the desktop at its own size is recorded).
 */
export type ActionBasis = { kind: 'image'; image: Buffer; mime: 'image/jpeg' | 'image/png'; frame: Frame } | { kind: 'screen' };

export interface SingleActionRequest {
  /** The session's task, in words (`act: click at (10, 20)`). */
  task: string;
  action: Action;
  basis: ActionBasis;
}

/** The single step's number. */
const STEP = 1;

/** The events of one action on the run's context, ending with run-finished (status finished when it succeeded). */
export function runSingleAction(request: SingleActionRequest, life: RunLifecycle): AsyncIterable<AgentEvent> {
  void execute(life, request);
  return life.events;
}

async function execute(life: RunLifecycle, request: SingleActionRequest): Promise<void> {
  let ending: Ending;
  let steps = 0;
  try {
    life.emit({ type: 'run-started', task: request.task, model: 'none', family: 'none', limits: { maxSteps: 1, maxCostUsd: null } });
    steps = STEP;
    const started = life.clock();
    life.emit({ type: 'step-started', step: STEP });
    ending = await actOnce(life, request);
    life.finishStep(STEP, life.clock() - started);
  } catch (error) {
    ending = internalError(error);
  }
  await life.finish(ending, steps);
}

async function actOnce(life: RunLifecycle, request: SingleActionRequest): Promise<Ending> {
  const { action } = request;
  const frame = await observe(life, request.basis);
  if (typeof frame === 'string') return { status: 'failed', reason: frame };
  if (isSecretTyping(action, null) && (action.type === 'type' || action.type === 'type_into')) life.secrets.add(action.text);
  // Said as the replayer says a recorded step: a prediction of no model, so every reader (the step
  // fold, show, the report, replay) sees the step's action as it sees a run's.
  life.emit({ type: 'prediction', step: STEP, thought: null, actions: [action], usage: { ...ZERO_USAGE }, attempts: 0 });

  const refusal = await life.confirm(STEP, action);
  if (refusal) return life.signal.aborted ? { status: 'aborted', reason: 'stopped while a confirmation waited for its answer' } : refusal;
  const unrecorded = await life.checkpoint();
  if (unrecorded) return unrecorded;
  const result = await life.execute(STEP, 0, action, frame);
  return endingOf(result);
}

/** Records what the coordinates are pixels of; returns the frame to act through, or why it cannot. */
async function observe(life: RunLifecycle, basis: ActionBasis): Promise<Frame | string> {
  if (basis.kind === 'image') {
    record(life, basis.image, basis.mime, basis.frame);
    return basis.frame;
  }
  // The whole desktop, not made smaller (no size limit a capture could reach), so the record's
  // pixels are the screen's where a pixel is a pixel (X11).
  const captured = await life.operator.observe({ display: 'all', maxWidth: UNLIMITED, maxHeight: UNLIMITED, format: 'jpeg', quality: 80 });
  if (!captured.ok) return `could not capture the screen: ${captured.message}`;
  const { image, frame } = captured.observation;
  record(life, image, 'image/jpeg', frame);
  return screenFrame(frame.bounds, 'all');
}

const UNLIMITED = 1_000_000;

function record(life: RunLifecycle, image: Buffer, mime: 'image/jpeg' | 'image/png', frame: Frame): void {
  const screenshot = life.recorder.saveScreenshot(STEP, image, mime, frame.image);
  life.emit({ type: 'observation', step: STEP, screenshot, frame });
}

function endingOf(result: ActionResult): Ending {
  if (result.ok) return { status: 'finished', reason: `done: ${result.type}${result.detail ? ` (${result.detail})` : ''}` };
  const { kind, message } = result.error;
  if (kind === 'user_abort') return { status: 'aborted', reason: `fail-safe: ${message}` };
  if (kind === 'aborted') return { status: 'aborted', reason: 'stopped during the action' };
  if (kind === 'no_display') return { status: 'failed', reason: `the display is gone: ${message}` };
  return { status: 'failed', reason: `${result.type ?? 'the action'} failed (${kind}): ${message}` };
}
