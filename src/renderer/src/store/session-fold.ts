/**
 * One session as the window shows it, folded from its events: the run's header and state, one
 * StepView per step (the shared fold of src/shared/steps.ts, so the timeline says what `mnemo
 * show` and the report say), the run's totals (the shared fold of src/shared/run-totals.ts, the
 * one the recorder and the CLI use) and the memory (src/shared/memory.ts, deltas included).
 *
 * `withEvents` copies only what a batch touches: the steps array (pointers) and the steps the
 * events belong to. A live run's events arrive a few at a time and a 2,000-step session opens
 * in one batch, through the same code.
 */
import type { Action } from '../../../shared/actions';
import type { AgentEvent, AskKind, RunStatus } from '../../../shared/events';
import { applyMemoryChange, emptyMemorySnapshot, type BlackboardSection, type MemoryChangeOf, type MemorySnapshot } from '../../../shared/memory';
import { addEventsToTotals, NO_TOTALS, type RunTotals } from '../../../shared/run-totals';
import { emptyStep, foldStepEvent, type StepView } from '../../../shared/steps';
import { addToWorkflowReport, type WorkflowReport } from '../../../shared/workflow-report';

/** A question the run asked and nobody answered yet. */
export interface AskedQuestion {
  /** The ask-user event's `seq`: the question's id. */
  id: number;
  kind: AskKind;
  question: string;
  action: Action | null;
}

export interface RunSummary {
  task: string;
  model: string;
  family: string;
  maxSteps: number | null;
  maxCostUsd: number | null;
  conversationId: string | null;
  replayOf: string | null;
  startedAt: number | null;
  endedAt: number | null;
  /** 'running' until the run-finished event. */
  status: RunStatus | 'running';
  reason: string | null;
  summary: string | null;
  paused: boolean;
  /** The user holds the run (between its takeover and hand-back events). */
  takenOver: boolean;
  pendingQuestion: AskedQuestion | null;
  /** The finished steps' tokens and cost (the run's, once it ended). */
  totals: RunTotals;
  lastEventAt: number | null;
  /** A workflow run: the workflow's name and its report so far (the shared fold: the CLI's figures). */
  workflow: { name: string; report: WorkflowReport } | null;
}

export interface MemoryState {
  snapshot: MemorySnapshot;
  /** The last pruning report: which screenshots the model's input carries. */
  pruning: MemoryChangeOf<'pruning'> | null;
  layersCompressing: boolean;
  layersError: string | null;
  conversationCompressing: boolean;
  conversationError: string | null;
  traceLength: number;
  /**
   * For each blackboard item, the step of this session that added it; null for what the board
   * held before (it is shared and outlives runs: the first change of a run carries it whole).
   */
  boardSteps: Record<BlackboardSection, Array<number | null>>;
  /** A blackboard change of this session was seen (the next ones are its own additions). */
  boardSeen: boolean;
}

export interface SessionData {
  id: string;
  run: RunSummary;
  /** Ascending by step number. */
  steps: StepView[];
  memory: MemoryState;
  lastSeq: number;
  /** Which attempt's thought each step streams (a retry restarts the stream). */
  streamAttempts: Map<number, number>;
}

export function emptySession(id: string): SessionData {
  return {
    id,
    run: {
      task: '',
      model: '',
      family: '',
      maxSteps: null,
      maxCostUsd: null,
      conversationId: null,
      replayOf: null,
      startedAt: null,
      endedAt: null,
      status: 'running',
      reason: null,
      summary: null,
      paused: false,
      takenOver: false,
      pendingQuestion: null,
      totals: NO_TOTALS,
      lastEventAt: null,
      workflow: null,
    },
    steps: [],
    memory: {
      snapshot: emptyMemorySnapshot(),
      pruning: null,
      layersCompressing: false,
      layersError: null,
      conversationCompressing: false,
      conversationError: null,
      traceLength: 0,
      boardSteps: { questions: [], requests: [], trajectories: [], screenshots: [] },
      boardSeen: false,
    },
    lastSeq: 0,
    streamAttempts: new Map(),
  };
}

/** A copy of a step the fold may change without touching the original. */
function copyStep(step: StepView): StepView {
  return {
    ...step,
    // A user's step gets its actions one by one.
    actions: [...step.actions],
    results: [...step.results],
    resultIndexes: [...step.resultIndexes],
    errors: [...step.errors],
    notes: [...step.notes],
    questions: step.questions.map((question) => ({ ...question })),
    memory: [...step.memory],
  };
}

/** Where step `n` is in an ascending array, or where it would go (negative: -(insertion index) - 1). */
function findStep(steps: readonly StepView[], n: number): number {
  if (steps[n - 1]?.step === n) return n - 1;
  const last = steps.length - 1;
  if (last < 0 || (steps[last] as StepView).step < n) return -(last + 1) - 1;
  let low = 0;
  let high = last;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = (steps[middle] as StepView).step;
    if (at === n) return middle;
    if (at < n) low = middle + 1;
    else high = middle - 1;
  }
  return -low - 1;
}

function applyRunEvent(run: RunSummary, memory: MemoryState, event: AgentEvent): void {
  run.lastEventAt = event.at;
  if (event.type === 'run-started' && event.workflow) run.workflow = { name: event.workflow.name, report: addToWorkflowReport(null, event) as WorkflowReport };
  else if (run.workflow) {
    const report = addToWorkflowReport(run.workflow.report, event);
    if (report && report !== run.workflow.report) run.workflow = { ...run.workflow, report };
  }
  switch (event.type) {
    case 'run-started':
      run.task = event.task;
      run.model = event.model;
      run.family = event.family;
      run.maxSteps = event.limits.maxSteps;
      run.maxCostUsd = event.limits.maxCostUsd;
      run.conversationId = event.conversationId ?? null;
      run.replayOf = event.replayOf ?? null;
      run.startedAt = event.at;
      break;
    case 'run-finished':
      run.status = event.status;
      run.reason = event.reason;
      run.summary = event.summary;
      run.endedAt = event.at;
      run.paused = false;
      run.takenOver = false;
      run.pendingQuestion = null;
      break;
    case 'paused':
      run.paused = true;
      break;
    case 'resumed':
      run.paused = false;
      break;
    case 'taken-over':
      run.takenOver = true;
      break;
    case 'handed-back':
      run.takenOver = false;
      break;
    case 'ask-user':
      run.pendingQuestion = { id: event.seq, kind: event.kind, question: event.question, action: event.action ?? null };
      break;
    case 'user-answer':
      // An answer names its question (older records do not: the one open is answered).
      if (event.questionId === undefined || run.pendingQuestion?.id === event.questionId) run.pendingQuestion = null;
      break;
    case 'memory': {
      const change = event.change;
      memory.snapshot = applyMemoryChange(memory.snapshot, change);
      if (change.kind === 'pruning') memory.pruning = change;
      else if (change.kind === 'layers' || change.kind === 'layers-delta') {
        memory.layersCompressing = change.compressing;
        memory.layersError = change.lastError;
      } else if (change.kind === 'conversation' || change.kind === 'conversation-delta') {
        memory.conversationCompressing = change.compressing;
        memory.conversationError = change.lastError;
      } else if (change.kind === 'trace') memory.traceLength = change.length;
      else if (change.kind === 'blackboard' || change.kind === 'blackboard-delta') linkBoardItems(memory, change, event.step);
      break;
    }
    default:
      break;
  }
}

/** Links the change's items to their step. `memory.boardSteps` is the batch's own copy (its arrays are not). */
function linkBoardItems(memory: MemoryState, change: MemoryChangeOf<'blackboard' | 'blackboard-delta'>, step: number): void {
  const own = memory.boardSeen;
  memory.boardSeen = true;
  const links = memory.boardSteps;
  if (change.kind === 'blackboard') {
    for (const section of Object.keys(links) as BlackboardSection[]) links[section] = change.snapshot[section].map(() => null);
  } else {
    const addedBy = own && step > 0 ? step : null;
    for (const [section, delta] of Object.entries(change.sections) as Array<[BlackboardSection, { drop: number; add: unknown[] }]>) {
      const kept = links[section].slice(delta.drop);
      for (let added = 0; added < delta.add.length; added++) kept.push(addedBy);
      links[section] = kept;
    }
  }
}

/** The session after a batch of its events; events at or before `lastSeq` are skipped. */
export function withEvents(data: SessionData, events: readonly AgentEvent[]): SessionData {
  const isFresh = (event: AgentEvent) => event.runId === data.id && event.seq > data.lastSeq;
  // A session's whole record is fresh: no copy of its 22,000 events.
  const fresh = events.every(isFresh) ? events : events.filter(isFresh);
  if (fresh.length === 0) return data;
  const steps = data.steps.slice();
  const copied = new Set<number>();
  const run = { ...data.run };
  // Copied once for the batch, not once for each of its events (6,000 memory events in a long session).
  const memory = { ...data.memory, boardSteps: { ...data.memory.boardSteps } };
  const at = (n: number): StepView => {
    const index = findStep(steps, n);
    if (index < 0) {
      const created = emptyStep(n);
      steps.splice(-index - 1, 0, created);
      copied.add(n);
      return created;
    }
    if (!copied.has(n)) {
      steps[index] = copyStep(steps[index] as StepView);
      copied.add(n);
    }
    return steps[index] as StepView;
  };
  let lastSeq = data.lastSeq;
  // By index: a fresh page folds before V8 optimises this loop, and an iterator allocates a result per event there.
  for (let index = 0; index < fresh.length; index++) {
    const event = fresh[index] as AgentEvent;
    foldStepEvent(event, at, data.streamAttempts);
    applyRunEvent(run, memory, event);
    lastSeq = Math.max(lastSeq, event.seq);
  }
  run.totals = addEventsToTotals(run.totals, fresh);
  return { ...data, steps, run, memory, lastSeq };
}

/** The step with number `n`, or undefined. */
export function stepAt(data: Pick<SessionData, 'steps'>, n: number): StepView | undefined {
  const index = findStep(data.steps, n);
  return index >= 0 ? data.steps[index] : undefined;
}
