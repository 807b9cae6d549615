/**
 * The seam between the agent loop and the models: what a model is given (the task, the history,
 * the new screenshot) and what it returns (a thought, actions, usage, the raw reply), as values.
 * A reply that does not parse, an HTTP error, a timeout or a stop are all `ok: false` predictions
 * (docs/architecture.md: failures are values); `predict` throws only for bugs.
 */
import { type Action } from '../../shared/actions';
import { type CuaCall, type ImageSize, type ModelFamily, type SafetyCheck, type UiTarsVersion } from './families';

export type ImageMime = 'image/jpeg' | 'image/png';

/** An encoded image and its size in pixels. */
export interface ModelImage {
  image: Buffer;
  mime: ImageMime;
  width: number;
  height: number;
}

/** One earlier step, as the model is reminded of it. */
export interface StepRecord {
  step: number;
  thought: string | null;
  /** In pixels of the image the model saw at that step. */
  actions: Action[];
  /** A short text of what happened, e.g. `clicked (640, 400)` or `typing failed: ...`. */
  results: string;
  /** The screenshot the model saw when it chose this step's actions; undefined once pruned. */
  screenshot?: ModelImage | undefined;
  /** Sent instead of a pruned screenshot, e.g. `[Screenshot removed - Step 3]`. */
  screenshotPlaceholder?: string | undefined;
  /**
   * The step's `Prediction.raw`. UI-TARS replays it as its own turn (else the turn is written from
   * the thought and actions); OpenAI computer use chains on the last step's reply (its response id
   * and call ids), and without one starts a new response with the history as text.
   */
  reply?: string | undefined;
}

export interface PredictInput {
  task: string;
  /** Extra system text: memory layers, blackboard, facts. */
  system?: string | undefined;
  /** Earlier steps, oldest first. */
  history: readonly StepRecord[];
  /** The screenshot to act on; the actions returned are in its pixels. */
  observation: ModelImage;
  /** A note for the model, sent as a user message: a parse error of its last reply, a user answer. */
  feedback?: string | undefined;
  /**
   * OpenAI computer use: the pending safety checks of the last step the user accepted (the action
   * ran), sent back as `acknowledged_safety_checks`.
   */
  acknowledgedSafetyChecks?: readonly SafetyCheck[] | undefined;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** 0 when the model has no price (`priced: false`). */
  costUsd: number;
  priced: boolean;
  /** False when the server reported no usage (tokens are then 0). */
  reported: boolean;
}

export const MODEL_ERROR_KINDS = ['parse', 'http', 'timeout', 'network', 'aborted', 'auth', 'not_found'] as const;
export type ModelErrorKind = (typeof MODEL_ERROR_KINDS)[number];

export interface ModelError {
  kind: ModelErrorKind;
  /** For the user and, for `parse`, for the model: names the problem. */
  message: string;
  /** The HTTP status, when there was a response. */
  status?: number | undefined;
  /** The reply as received, for `parse`. */
  raw?: string | undefined;
}

export type PredictionExtras =
  | { family: 'tools'; toolCallIds: string[]; finishReason: string | null }
  | {
      family: 'ui-tars';
      version: UiTarsVersion;
      reflection: string | null;
      actionSummary: string | null;
      /** The image size the model's coordinates were read in (after the smart resize for 1.5). */
      modelImage: ImageSize;
    }
  | { family: 'openai-cua'; responseId: string | null; calls: CuaCall[] };

export interface PredictionSuccess {
  ok: true;
  thought: string | null;
  /** In pixels of `PredictInput.observation.image`. */
  actions: Action[];
  usage: Usage;
  /**
   * The reply as received, for the record and for `StepRecord.reply`: the UI-TARS text, the
   * assistant message as JSON (tools), the response as JSON (OpenAI computer use).
   */
  raw: string;
  /** The model refused; `actions` is then one `fail`, which ends the run. */
  refusal: string | null;
  /**
   * OpenAI computer use: checks the user must accept before the actions run (those actions carry
   * `confirm: true`); pass the accepted ones back as `acknowledgedSafetyChecks`.
   */
  pendingSafetyChecks: SafetyCheck[];
  /** HTTP attempts made (1 without retries). */
  attempts: number;
  extras: PredictionExtras;
}

export interface PredictionFailure {
  ok: false;
  error: ModelError;
  /** Tokens spent on a reply that did not parse. */
  usage?: Usage | undefined;
  attempts: number;
}

export type Prediction = PredictionSuccess | PredictionFailure;

/**
 * Receives the thought as it streams. `attempt` counts HTTP attempts from 1: when a retry restarts
 * the stream, deltas come with the new number and the text shown so far should be dropped. The
 * deltas of the last attempt join to `Prediction.thought`.
 */
export type ThoughtListener = (delta: string, attempt: number) => void;

export interface VisionModel {
  readonly family: ModelFamily;
  /** The model name sent to the endpoint. */
  readonly model: string;
  predict(input: PredictInput, signal?: AbortSignal, onThought?: ThoughtListener): Promise<Prediction>;
}
