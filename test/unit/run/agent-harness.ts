/**
 * Runs a DeviceAgent on the fakes: a scripted model, the fake operator, the in-memory recorder and
 * scripted answers to its questions; collects the live stream and hands back everything a test
 * looks at.
 */
import type { AgentEvent } from '../../../src/shared/events';
import { DeviceAgent, type DeviceAgentDeps, type PendingQuestion } from '../../../src/main/agent/device-agent';
import { DEFAULT_AGENT_OPTIONS, type AgentLimits, type AgentOptions } from '../../../src/main/agent/settings';
import type { ConfirmationRule } from '../../../src/main/run/confirmation';
import { PauseGate } from '../../../src/main/run/pause-gate';
import type { SettleOptions } from '../../../src/main/run/settle';
import type { Takeover } from '../../../src/main/run/takeover';
import type { RunElements } from '../../../src/main/run/elements';
import type { ImageLimits } from '../../../src/main/model/types';
import type { CoordinateSpace } from '../../../src/main/model/families/coordinates';
import { runContext } from '../../fixtures/run-context';
import { collect, FakeOperator, MemoryRecorder, recordingAsker, runFinished, ScriptedModel, type ModelTurn } from '../../fixtures/fakes';

/** The screen counts as settled at the second look: no real waiting. */
export const FAST_SETTLE: SettleOptions = { intervalMs: 1, timeoutMs: 200, threshold: 0.003 };

/** The default limits with some changed. */
export function limits(changed: Partial<AgentLimits>): AgentLimits {
  return { ...DEFAULT_AGENT_OPTIONS.limits, ...changed };
}

export type Answers = Array<string | null> | ((question: PendingQuestion, signal: AbortSignal) => string | null | Promise<string | null>);

/** Answers nothing until the run is stopped, then null: a user who walks away, as LiveRun's askUser does on stop. */
export const UNTIL_STOPPED: Answers = (_question, signal) =>
  new Promise((resolve) => {
    if (signal.aborted) resolve(null);
    else signal.addEventListener('abort', () => resolve(null), { once: true });
  });

export interface AgentSetup {
  turns?: ModelTurn[];
  /** The model's turn once `turns` are used up. */
  then?: ModelTurn;
  /** The largest image the model takes. */
  imageLimits?: ImageLimits;
  /** The coordinates the model answers in (pixels of the image when absent). */
  coordinates?: CoordinateSpace;
  options?: Partial<AgentOptions>;
  operator?: FakeOperator;
  recorder?: MemoryRecorder;
  /** Answers to the run's questions, in order; a question beyond them goes unanswered (null). */
  answers?: Answers;
  preflight?: DeviceAgentDeps['preflight'];
  memory?: DeviceAgentDeps['memory'];
  takeover?: Takeover;
  /** The run's confirmation rules (the settings' agent.confirmationRules). */
  confirmationRules?: ConfirmationRule[];
  task?: string;
  /** The accessibility tree of the run's display (run/elements.ts); absent: pixels only. */
  elements?: RunElements;
  /** Sees each event as it streams, with the run's controls. */
  onEvent?: (event: AgentEvent, controls: AgentControls) => void;
}

export interface AgentControls {
  agent: DeviceAgent;
  /** The run's pause gate (the launcher shares it with the run's handle). */
  gate: PauseGate;
  stop: () => void;
}

export interface AgentRun extends AgentControls {
  model: ScriptedModel;
  operator: FakeOperator;
  recorder: MemoryRecorder;
  /** The questions put to the user, with the id they were asked under. */
  questions: PendingQuestion[];
  /** The live stream until run-finished, and that event. */
  done: Promise<{ events: AgentEvent[]; end: Extract<AgentEvent, { type: 'run-finished' }> }>;
}

export function startAgent(setup: AgentSetup = {}): AgentRun {
  const model = new ScriptedModel(setup.turns ?? [], setup.then, setup.imageLimits);
  const space = setup.coordinates;
  if (space) model.coordinateFrame = (image) => ({ space, image });
  const operator = setup.operator ?? new FakeOperator();
  const recorder = setup.recorder ?? new MemoryRecorder();
  const questions: PendingQuestion[] = [];
  const answers = setup.answers ?? [];
  const controller = new AbortController();
  const gate = new PauseGate();
  const life = runContext(
    { operator, recorder, askUser: recordingAsker(questions, answers), gate, ...(setup.takeover ? { takeover: setup.takeover } : {}), ...(setup.confirmationRules ? { confirmationRules: setup.confirmationRules } : {}), ...(setup.elements ? { elements: setup.elements } : {}) },
    controller.signal,
  );
  const agent = new DeviceAgent(
    {
      model,
      ...(setup.preflight ? { preflight: setup.preflight } : {}),
      ...(setup.memory ? { memory: setup.memory } : {}),
    },
    { settle: FAST_SETTLE, ...setup.options },
  );
  const controls: AgentControls = { agent, gate, stop: () => controller.abort() };
  const done = collect(agent.run(setup.task ?? 'Do the task', life), (event) => setup.onEvent?.(event, controls)).then((events) => ({
    events,
    end: runFinished(events),
  }));
  return { ...controls, model, operator, recorder, questions, done };
}

/** Starts a run and waits for its end. */
export async function runAgent(setup: AgentSetup = {}) {
  const run = startAgent(setup);
  const { events, end } = await run.done;
  return { ...run, events, end };
}
