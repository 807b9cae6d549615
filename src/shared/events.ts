/**
 * What a run tells the world, step by step: one serialisable union, streamed live to the UI and
 * the CLI and appended to the session record. Screenshots travel by reference, never as pixels.
 */
import type { Action } from './actions';
import type { ActionResult } from './action-result';
import type { Frame } from './frame';
import type { MemoryChange } from './memory';

/** A screenshot saved by the recorder: where it is, never its bytes. */
export interface ScreenshotRef {
  /** Stable id within the session, e.g. `step-0003`. */
  id: string;
  /** Path relative to the session folder. */
  path: string;
  width: number;
  height: number;
  mime: 'image/jpeg' | 'image/png';
}

export interface UsageSummary {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export type RunStatus =
  /** The model said the task is done. */
  | 'finished'
  /** The model gave up, or errors piled up. */
  | 'failed'
  /** The same action on an unchanged screen, again and again. */
  | 'stuck'
  /** Max steps or max cost reached. */
  | 'limit'
  /** The user stopped it: Ctrl+C, the stop button, the fail-safe corner. */
  | 'aborted'
  /** The user refused a sensitive action or a safety check. */
  | 'refused';

export type AskKind = 'question' | 'confirmation' | 'safety_check';

interface Base {
  runId: string;
  /** Milliseconds since the epoch. */
  at: number;
}

export type AgentEvent =
  | (Base & {
      type: 'run-started';
      task: string;
      model: string;
      family: string;
      limits: { maxSteps: number; maxCostUsd: number | null };
    })
  | (Base & { type: 'step-started'; step: number })
  | (Base & { type: 'observation'; step: number; screenshot: ScreenshotRef; frame: Frame })
  | (Base & { type: 'thought-delta'; step: number; delta: string; attempt: number })
  | (Base & {
      type: 'prediction';
      step: number;
      thought: string | null;
      actions: Action[];
      usage: UsageSummary;
      attempts: number;
    })
  | (Base & {
      type: 'model-error';
      step: number;
      kind: string;
      message: string;
      /** How many in a row, and how many are allowed before the run ends. */
      consecutive: number;
      limit: number;
    })
  | (Base & { type: 'action'; step: number; index: number; action: Action })
  | (Base & { type: 'action-result'; step: number; index: number; action: Action; result: ActionResult })
  | (Base & { type: 'note'; step: number; message: string })
  | (Base & { type: 'ask-user'; step: number; kind: AskKind; question: string; action?: Action })
  | (Base & { type: 'user-answer'; step: number; kind: AskKind; answer: string | null })
  /** A memory part changed: the step trace, the layers, pruning, the blackboard, the conversation. */
  | (Base & { type: 'memory'; step: number; change: MemoryChange })
  | (Base & { type: 'paused'; step: number })
  | (Base & { type: 'resumed'; step: number })
  | (Base & {
      type: 'step-finished';
      step: number;
      durationMs: number;
      /** Cost of the run so far. */
      costUsd: number;
    })
  | (Base & {
      type: 'run-finished';
      status: RunStatus;
      /** Why it ended, in words a user understands. */
      reason: string;
      summary: string | null;
      steps: number;
      usage: UsageSummary;
    });

export type AgentEventType = AgentEvent['type'];
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;

/** An event as its producer writes it; the run id and the time are added when it is emitted. */
export type AgentEventInput = AgentEvent extends infer E ? (E extends unknown ? Omit<E, 'runId' | 'at'> : never) : never;

/** Two usages added up. */
export function sumUsage(a: UsageSummary, b: UsageSummary): UsageSummary {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd };
}
