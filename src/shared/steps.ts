/**
 * The one fold from a run's events to its steps: what `mnemo show`, the session reader, the
 * report and the app's timeline all display. Pure, so the renderer folds live events with the same
 * code the CLI uses on a recorded session.
 */
import type { Action } from './actions';
import type { ActionResult } from './action-result';
import type { Actor, AgentEvent, AgentEventOf, ScreenshotRef, StepErrorKind, StepTimings, UsageSummary } from './events';
import type { Frame } from './frame';
import type { WorkflowDecisionKind } from './workflow-run';

export interface StepQuestion {
  /** The `seq` of the ask-user event: the question's id. */
  id: number;
  kind: string;
  question: string;
  answer: string | null;
  /** False while the question waits for its answer. */
  answered: boolean;
}

export interface StepView {
  step: number;
  /** Who did the step: the agent, or the user by hand while the run was taken over. */
  actor: Actor;
  screenshot: ScreenshotRef | null;
  frame: Frame | null;
  /** The model's thought, once its reply arrived. */
  thought: string | null;
  /** The thought as it streamed in (the last attempt's), before the reply was complete. */
  streamedThought: string;
  actions: Action[];
  /** One per executed action, in order (fewer than `actions` when the step ended early). */
  results: ActionResult[];
  /** The index in `actions` of each of `results` (the memory and control actions have none). */
  resultIndexes: number[];
  /** The actions from `from` on were not run (`count` of them), and why; null when every action ran or the step simply ended. */
  notRun: { from: number; count: number; reason: string } | null;
  /**
   * What the step spent: its step-finished's usage (every model call of the step, failed ones
   * included), until then (and in records made before step-finished carried it) its prediction's.
   */
  usage: UsageSummary | null;
  /** Model or capture errors during the step. */
  errors: Array<{ kind: StepErrorKind; message: string }>;
  notes: string[];
  questions: StepQuestion[];
  /** Null when the step never finished (the run was interrupted during it). */
  durationMs: number | null;
  /** Cost of the run up to the end of this step. */
  costUsd: number | null;
  timings: StepTimings | null;
  /** The memory events of the step, as they were. */
  memory: Array<AgentEventOf<'memory'>>;
  /** When the step started (ms since the epoch), or null. */
  startedAt: number | null;
  /** In a workflow run: how the step was done (replayed, refound, grounded, stopped), how, and its model calls. */
  workflow: { decision: WorkflowDecisionKind; how: string; modelCalls: number } | null;
}

export function emptyStep(step: number): StepView {
  return {
    step,
    actor: 'agent',
    screenshot: null,
    frame: null,
    thought: null,
    streamedThought: '',
    actions: [],
    results: [],
    resultIndexes: [],
    notRun: null,
    usage: null,
    errors: [],
    notes: [],
    questions: [],
    durationMs: null,
    costUsd: null,
    timings: null,
    memory: [],
    startedAt: null,
    workflow: null,
  };
}

/**
 * Adds one event to its step's view (creating the view through `at`). Returns false for events
 * that belong to no step (the run's start and end, events before step 1).
 */
export function foldStepEvent(event: AgentEvent, at: (step: number) => StepView, streamAttempts?: Map<number, number>): boolean {
  if (!('step' in event) || event.step < 1) return false;
  const view = at(event.step);
  switch (event.type) {
    case 'step-started':
      view.startedAt = event.at;
      if (event.actor === 'user') view.actor = 'user';
      break;
    case 'observation':
      view.screenshot = event.screenshot;
      view.frame = event.frame;
      break;
    case 'thought-delta': {
      // A retry restarts the stream: what the earlier attempt wrote is dropped.
      if (streamAttempts && streamAttempts.get(event.step) !== event.attempt) {
        streamAttempts.set(event.step, event.attempt);
        view.streamedThought = '';
      }
      view.streamedThought += event.delta;
      break;
    }
    case 'prediction':
      view.thought = event.thought;
      view.actions = event.actions;
      view.usage = event.usage;
      break;
    case 'action':
      // The agent's actions come with its prediction; the user's, one by one.
      if (event.actor === 'user') view.actions.push(event.action);
      break;
    case 'action-result':
      view.results.push(event.result);
      view.resultIndexes.push(event.index);
      break;
    case 'actions-not-run':
      view.notRun = { from: event.from, count: event.count, reason: event.reason };
      break;
    case 'taken-over':
      view.notes.push('the user took over');
      break;
    case 'handed-back':
      view.notes.push(event.note === null ? 'the user handed back' : `the user handed back: ${event.note}`);
      break;
    case 'model-error':
      view.errors.push({ kind: event.kind, message: event.message });
      break;
    case 'note':
      view.notes.push(event.message);
      break;
    case 'ask-user':
      view.questions.push({ id: event.seq, kind: event.kind, question: event.question, answer: null, answered: false });
      break;
    case 'user-answer': {
      // The answer names its question; records made before it did are matched by kind, in order.
      const open = event.questionId !== undefined ? view.questions.find((q) => q.id === event.questionId) : view.questions.find((q) => !q.answered && q.kind === event.kind);
      if (open) {
        open.answer = event.answer;
        open.answered = true;
      }
      break;
    }
    case 'step-finished':
      view.durationMs = event.durationMs;
      view.costUsd = event.costUsd;
      if (event.usage) view.usage = event.usage;
      view.timings = event.timings ?? null;
      break;
    case 'memory':
      view.memory.push(event);
      break;
    case 'workflow-step':
      view.workflow = { decision: event.decision, how: event.how, modelCalls: event.modelCalls };
      break;
    default:
      break;
  }
  return true;
}

/**
 * How each of a step's actions went: ran (with its result; none for what the agent answers itself,
 * a fact saved, a question asked), or not run (with why), in order.
 */
export type ActionOutcome = { action: Action; ran: true; result: ActionResult | null } | { action: Action; ran: false; why: string };

/** Actions the agent answers itself (no desktop, no result event): they ran when they were reached. */
const ANSWERED_BY_THE_AGENT = new Set<Action['type']>(['finished', 'ask_user', 'fail', 'query_long_term_memory', 'save_fact', 'run_workflow']);

/**
 * The step's actions with their outcomes, for the inspector and the report: those with a result
 * ran; those the step recorded as not run, with its reason; the agent's own (a fact saved, a
 * question) ran; any other is "not reached" (the step ended before it: the run finished, stopped
 * or failed there).
 */
export function actionOutcomes(view: Pick<StepView, 'actions' | 'results' | 'resultIndexes' | 'notRun'>): ActionOutcome[] {
  return view.actions.map((action, index) => {
    const at = view.resultIndexes.indexOf(index);
    if (at >= 0) return { action, ran: true, result: view.results[at] ?? null };
    if (view.notRun !== null && index >= view.notRun.from) return { action, ran: false, why: view.notRun.reason };
    return ANSWERED_BY_THE_AGENT.has(action.type) ? { action, ran: true, result: null } : { action, ran: false, why: 'not reached' };
  });
}

/** Each action's result at its own index: null where it did not run or the agent answered it itself. */
export function resultsAtActions(view: Pick<StepView, 'actions' | 'results' | 'resultIndexes' | 'notRun'>): Array<ActionResult | null> {
  return actionOutcomes(view).map((outcome) => (outcome.ran ? outcome.result : null));
}

/** Folds an event stream into one view per step, in step order. */
export function stepsOf(events: Iterable<AgentEvent>): StepView[] {
  const steps = new Map<number, StepView>();
  const attempts = new Map<number, number>();
  const at = (step: number) => {
    let view = steps.get(step);
    if (!view) {
      view = emptyStep(step);
      steps.set(step, view);
    }
    return view;
  };
  for (const event of events) foldStepEvent(event, at, attempts);
  return [...steps.values()].sort((a, b) => a.step - b.step);
}
