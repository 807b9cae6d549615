/**
 * The seam between the agent loop and the models: what a model is given (the task, the history,
 * the new screenshot) and what it returns (a thought, actions, usage, the raw reply), as values.
 * A reply that does not parse, an HTTP error, a timeout or a stop are all `ok: false` predictions
 * (docs/architecture.md: failures are values); `predict` throws only for bugs.
 */
import type { Action, Point } from '../../shared/actions';
import type { AnthropicCall, CaptureRequest, CoordinateFrame, CuaCall, GeminiCall, ImageSize, ModelFamily, SafetyCheck, UiTarsVersion } from './families/types';
import type { ElementSnapshot } from '../../shared/elements';

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
   * and call ids), and without one starts a new response with the history as text; Anthropic
   * replays the message's content blocks unchanged (thinking and its signature included).
   */
  reply?: string | undefined;
  /** How each action the loop reached went, in order (actions after a failure are not reached). */
  reports?: readonly ActionReport[] | undefined;
  /** What the loop captured after actions, as the prediction asked (`PredictionSuccess.captures`). */
  captures?: readonly CapturedAfter[] | undefined;
  /** The step's actions from `from` on were not run, and why (a batch stopped: the screen changed; an action failed). */
  notRun?: ActionsNotRun | undefined;
  /** The step's screenshot was a region the model zoomed into. */
  zoom?: ZoomedRegion | undefined;
}

/**
 * A screenshot that shows a region the model asked to zoom into: its corners as the model gave
 * them, in its own coordinates for the screenshot before. Points given while looking at it are
 * pixels (or the model's space) of the zoomed image, mapped back through the region.
 */
export interface ZoomedRegion {
  x: number;
  y: number;
  toX: number;
  toY: number;
}

/** Where a step's actions stopped being run, and why, in words for the model. */
export interface ActionsNotRun {
  /** The index of the first action not run. */
  from: number;
  reason: string;
}

/** How one action went, in words for the model: no screen coordinates in it. */
export type ActionReport = { ok: true; detail?: string | undefined } | { ok: false; error: string };

/** What the loop captured after an action. */
export interface CapturedAfter {
  afterAction: number;
  kind: CaptureRequest['kind'];
  /** The screen or the region; undefined once pruned (then `placeholder`) or when the capture failed. */
  image?: ModelImage | undefined;
  placeholder?: string | undefined;
  /** Where the pointer was, in pixels of the step's image (for `pointer`). */
  pointer?: Point | undefined;
  /** Why the capture failed. */
  error?: string | undefined;
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
   * OpenAI and Gemini computer use: the pending safety checks of the last step the user accepted
   * (the action ran), sent back as `acknowledged_safety_checks` (Gemini: `safety_acknowledgement`).
   */
  acknowledgedSafetyChecks?: readonly SafetyCheck[] | undefined;
  /** Saved workflows are offered in `system`: the families that declare tools declare run_workflow too. */
  workflows?: boolean | undefined;
  /** The observation is the region the model zoomed into at its last step: told as such. */
  zoom?: ZoomedRegion | undefined;
  /**
   * The size of the screen the observation was taken from (logical px): larger than the image, a
   * closer look shows more, so the families that can declare a zoom do.
   */
  screen?: { width: number; height: number } | undefined;
  /**
   * The elements aid (model.elements `list` or `marks`): the active window's snapshot taken with this
   * observation, its `imageBounds` in the observation's pixels. The families list its interactive
   * elements by number; with `marks` the numbers are drawn on the image too.
   */
  elements?: { mode: 'list' | 'marks'; snapshot: ElementSnapshot } | undefined;
}

export interface Usage {
  /** All input tokens, those written to and read from a prompt cache included. */
  inputTokens: number;
  outputTokens: number;
  /** 0 when the model has no price (`priced: false`). */
  costUsd: number;
  priced: boolean;
  /** False when the server reported no usage (tokens are then 0). */
  reported: boolean;
  /** Of the input tokens, those written to the prompt cache (absent when none). */
  cacheWriteTokens?: number;
  /** Of the input tokens, those read from the prompt cache (absent when none). */
  cacheReadTokens?: number;
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
  /** Asking again cannot help (the provider refused the computer tool itself): the run ends at once, with the fix in the message. */
  fatal?: boolean | undefined;
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
  | { family: 'openai-cua'; responseId: string | null; calls: CuaCall[] }
  | { family: 'anthropic'; messageId: string | null; stopReason: string | null; calls: AnthropicCall[] }
  | { family: 'gemini'; calls: GeminiCall[]; finishReason: string | null }
  | { family: 'pyautogui'; finishReason: string | null };

export interface PredictionSuccess {
  ok: true;
  thought: string | null;
  /** In pixels of `PredictInput.observation.image`. */
  actions: Action[];
  usage: Usage;
  /**
   * The reply as received, for the record and for `StepRecord.reply`: the UI-TARS text, the
   * assistant message as JSON (tools), the response as JSON (OpenAI computer use), the candidate's
   * content with its finish reason and usage as JSON (Gemini, a `GeminiReply`).
   */
  raw: string;
  /** The model refused; `actions` is then one `fail`, which ends the run. */
  refusal: string | null;
  /**
   * OpenAI and Gemini computer use: checks the user must accept before the actions run (those
   * actions carry `confirm: true`); pass the accepted ones back as `acknowledgedSafetyChecks`.
   */
  pendingSafetyChecks: SafetyCheck[];
  /** HTTP attempts made (1 without retries). */
  attempts: number;
  extras: PredictionExtras;
  /** What to capture after which action, for the next request (see `CaptureRequest`); none when absent. */
  captures?: CaptureRequest[] | undefined;
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

/** The largest image a model should be sent (the capture keeps within it); a long edge ≤ L is both sides ≤ L. */
export interface ImageLimits {
  maxWidth?: number;
  maxHeight?: number;
  maxPixels?: number;
}

export interface VisionModel {
  readonly family: ModelFamily;
  /** The model name sent to the endpoint. */
  readonly model: string;
  /** Images above this are scaled down by the provider without a word: the loop keeps within it. */
  readonly imageLimits?: ImageLimits | undefined;
  /**
   * The coordinates this model answers in for an image of this size (families/coordinates.ts).
   * Absent: pixels of the image. Everything Mnemo tells the model about a point goes back out
   * through it (see speak.ts); every family of src/main/model/ gives it.
   */
  coordinateFrame?(image: ImageSize): CoordinateFrame;
  predict(input: PredictInput, signal?: AbortSignal, onThought?: ThoughtListener): Promise<Prediction>;
}
