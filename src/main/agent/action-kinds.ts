/**
 * What the agent does with one action of a step, by kind, as a table of values (the MCP tools
 * are one too): a saved workflow to run next, a fact to save, the long-term memory to ask, a
 * control action (done, give up, ask the user), and everything else, which acts on the desktop.
 * `AgentRun.act` only walks the step's actions and hands each to its kind; a kind is one entry
 * here, the action types it takes and what it does with one.
 */
import { ACTION_TYPES, CONTROL_ACTION_TYPES, type Action, type ActionOf, type ActionType } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import type { Observation } from '../operator/capture';
import type { ScreenFingerprint } from '../operator/screen-diff';
import type { ActionReport, ActionsNotRun, PredictionSuccess } from '../model/types';
import type { CaptureRequest } from '../model/families';
import type { PointSpeaker } from '../model/speak';
import type { AskRequest } from '../run/ask';
import { changesScreen, type BatchLooks } from '../run/batch-guard';
import type { Ending } from '../run/ending';
import type { RunLifecycle } from '../run/lifecycle';
import type { StepErrorKind } from '../../shared/events';
import { describeResult, type StepCapture } from './completed-step';
import type { RepetitionVerdict } from './repetition';

/** After an action: on to the next one, or the step ends here (and the run with it, when `ending` says how). */
export type AfterAction = { next: true } | { next: false; ending: Ending | undefined };

const NEXT: AfterAction = { next: true };
const endStep = (ending?: Ending): AfterAction => ({ next: false, ending });

/** What the step's actions came to so far: what the step's value and the model's next request are made of. */
export class StepAccount {
  /** How each action went, in a line (the step's outcome). */
  readonly results: string[] = [];
  /** One per action carried out on the desktop. */
  readonly actionResults: ActionResult[] = [];
  /** For the model: how each action the loop reached went. */
  readonly reports: ActionReport[] = [];
  /** What the model asked to see after which action. */
  readonly captures: StepCapture[] = [];
  notRun: ActionsNotRun | undefined;

  said(result: string, report: ActionReport): void {
    this.results.push(result);
    this.reports.push(report);
  }
}

/** One step's acting: what every action of it is judged and carried out against. */
export interface StepActs {
  readonly prediction: PredictionSuccess;
  readonly observation: Observation;
  /** The screen the model saw, and the latest look during the batch (run/batch-guard.ts). */
  readonly batch: BatchLooks;
  /** What the model is told of a point, in its own coordinates for the image it saw. */
  readonly speak: PointSpeaker;
  /** The screen before the step, for the repetition check. */
  readonly screenBefore: Promise<ScreenFingerprint | undefined>;
  readonly account: StepAccount;
  /** The actions from `from` on are not run: recorded, and said to the model in its own protocol. */
  skipFrom(from: number, reason: string): void;
  /** The acting is over (its time is the step's `act` timing). */
  doneActing(): void;
}

/** One action of the step: as the model wrote it, as it is shown (masked), and its place in the batch. */
export interface ActionTurn<A extends Action = Action> {
  action: A;
  shown: Action;
  index: number;
}

/** What a kind may ask of the run it acts in (AgentRun answers). */
export interface ActingAgent {
  readonly life: RunLifecycle;
  readonly step: number;
  /** Whether saved workflows can run here. */
  readonly hasWorkflows: boolean;
  /** Told to the model with its next request. */
  tellModel(text: string): void;
  note(message: string): void;
  /** The workflow runs once this step is over; its steps follow as steps of the run. */
  runWorkflowNext(action: ActionOf<'run_workflow'>): void;
  saveFact(action: ActionOf<'save_fact'>): Promise<string>;
  recall(hint: string): Promise<string>;
  ask(request: AskRequest): Promise<string | null>;
  /** Asks before a sensitive action; the ending when the user says no. */
  confirm(action: Action, prediction: PredictionSuccess): Promise<Ending | undefined>;
  checkRepetition(action: Action, screen: ScreenFingerprint | undefined): RepetitionVerdict;
  zoomInto(action: ActionOf<'zoom'>, observation: Observation): void;
  captureAfter(request: CaptureRequest, observation: Observation, batch: BatchLooks): Promise<StepCapture>;
  /** Counts an error in a row; the ending when there have been too many. */
  countError(kind: StepErrorKind, message: string, emitEvent?: boolean): Ending | undefined;
}

export interface ActionKind {
  readonly name: string;
  readonly types: readonly ActionType[];
  act(turn: ActionTurn, step: StepActs, agent: ActingAgent): Promise<AfterAction>;
}

/** One kind; the table hands it only actions of its own types, so the narrowing holds. */
function defineKind<T extends ActionType>(name: string, types: readonly T[], act: (turn: ActionTurn<ActionOf<T>>, step: StepActs, agent: ActingAgent) => Promise<AfterAction>): ActionKind {
  return { name, types, act: act as ActionKind['act'] };
}

const workflowKind = defineKind('workflow', ['run_workflow'], async ({ action, index }, step, agent) => {
  if (!agent.hasWorkflows) {
    const said = 'run_workflow is not available in this run: no saved workflows here';
    step.account.said(said, { ok: false, error: said });
    agent.tellModel(said);
    return NEXT;
  }
  // Its steps follow this one as steps of the run: this step ends here.
  agent.runWorkflowNext(action);
  const dropped = step.prediction.actions.length - index - 1;
  const said = `the workflow "${action.name}" runs next${dropped > 0 ? `; the ${dropped} action${dropped === 1 ? '' : 's'} after it in your reply ${dropped === 1 ? 'was' : 'were'} not done` : ''}`;
  step.account.said(said, { ok: true, detail: `${said}; its report follows` });
  step.skipFrom(index + 1, `the workflow "${action.name}" runs instead`);
  return endStep();
});

const saveFactKind = defineKind('save fact', ['save_fact'], async ({ action }, step, agent) => {
  const saved = await agent.saveFact(action);
  agent.note(saved);
  step.account.said(saved, { ok: true, detail: saved });
  agent.tellModel(saved);
  return NEXT;
});

const recallKind = defineKind('recall', ['query_long_term_memory'], async ({ action }, step, agent) => {
  const answer = await agent.recall(action.hint);
  agent.note(`long-term memory on "${action.hint}": ${answer}`);
  const recalled = `Long-term memory on "${action.hint}": ${answer}`;
  step.account.said(`asked the long-term memory about "${action.hint}"`, { ok: true, detail: recalled });
  agent.tellModel(recalled);
  return NEXT;
});

const controlKind = defineKind('control', CONTROL_ACTION_TYPES, async ({ action }, step, agent) => {
  if (action.type === 'finished') return endStep({ status: 'finished', reason: 'the model reported the task done', summary: action.summary || null });
  if (action.type === 'fail') {
    const { refusal } = step.prediction;
    return endStep(refusal !== null ? { status: 'failed', reason: `the model refused: ${refusal}` } : { status: 'failed', reason: `the model gave up: ${action.reason}` });
  }
  const answer = await agent.ask({ kind: 'question', question: action.question });
  if (agent.life.signal.aborted) return endStep({ status: 'aborted', reason: 'stopped by the user while a question waited for its answer' });
  if (answer === null) return endStep({ status: 'failed', reason: `the model asked "${action.question}" and no answer came` });
  const answered = `The user answered your question "${action.question}": ${answer}`;
  step.account.said(`asked the user "${action.question}"`, { ok: true, detail: answered });
  agent.tellModel(answered);
  return NEXT;
});

/** The action types the kinds above take; every other acts on the desktop. */
const NOT_ON_THE_DESKTOP = new Set<ActionType>([workflowKind, saveFactKind, recallKind, controlKind].flatMap((kind) => kind.types));

const desktopKind = defineKind('desktop', ACTION_TYPES.filter((type) => !NOT_ON_THE_DESKTOP.has(type)), async ({ action, shown, index }, step, agent) => {
  const { life } = agent;
  const refusal = await agent.confirm(action, step.prediction);
  if (refusal) return endStep(life.signal.aborted ? { status: 'aborted', reason: 'stopped by the user while a confirmation waited for its answer' } : refusal);

  const verdict = agent.checkRepetition(action, await step.screenBefore);
  if (verdict.kind === 'stuck') {
    agent.note(verdict.message);
    return endStep({ status: 'stuck', reason: verdict.message });
  }
  if (verdict.kind === 'note') {
    agent.note(verdict.message);
    agent.tellModel(verdict.message);
  }

  // No action without a record of everything before it, the step's earlier actions included.
  const unrecorded = await life.checkpoint();
  if (unrecorded) return endStep(unrecorded);
  const { account, observation, speak } = step;
  const result = await life.execute(agent.step, index, action, observation.frame, shown);
  account.actionResults.push(result);
  account.said(describeResult(shown, result, speak), result.ok ? { ok: true, ...(result.detail ? { detail: result.detail } : {}) } : { ok: false, error: result.error.message });
  if (changesScreen(action)) step.batch.acted();
  // A read-back that found something else than the action meant (checked outcomes): the model must hear it.
  if (result.ok && result.check && !result.check.ok) {
    agent.note(`read back after ${action.type}: ${result.check.message}`);
    agent.tellModel(`Read back after your action ${index + 1} (${action.type}): ${result.check.message}`);
  }
  if (result.ok && action.type === 'zoom') agent.zoomInto(action, observation);
  if (result.ok) for (const request of step.prediction.captures ?? []) if (request.afterAction === index) account.captures.push(await agent.captureAfter(request, observation, step.batch));
  if (result.ok) return NEXT;

  step.doneActing();
  if (result.error.kind === 'user_abort') return endStep({ status: 'aborted', reason: `fail-safe: ${result.error.message}` });
  if (result.error.kind === 'aborted' || life.signal.aborted) return endStep({ status: 'aborted', reason: 'stopped by the user during an action' });
  if (result.error.kind === 'no_display') return endStep({ status: 'failed', reason: `the display is gone: ${result.error.message}` });
  agent.tellModel(`Your action ${action.type} failed: ${result.error.message}`);
  // The rest of this step's actions were planned for a screen that did not come about.
  step.skipFrom(index + 1, `action ${index + 1} (${action.type}) failed`);
  return endStep(agent.countError('action', describeResult(shown, result, speak), false));
});

/** The kinds, each action type in exactly one. */
export const ACTION_KINDS: readonly ActionKind[] = [workflowKind, saveFactKind, recallKind, controlKind, desktopKind];

const KIND_OF_TYPE = new Map<ActionType, ActionKind>(ACTION_KINDS.flatMap((kind) => kind.types.map((type) => [type, kind] as const)));

/** The kind that acts on `action`. */
export function kindOf(action: Action): ActionKind {
  // Every type of the action schema is in the table (the desktop kind takes the rest).
  return KIND_OF_TYPE.get(action.type) ?? desktopKind;
}
