/**
 * What a model-family parser returns. Parsers are pure functions of the reply: they never throw
 * for a bad reply, they return a failure whose reason names the problem (docs/architecture.md:
 * failures are values), so the loop can record it and show it to the model.
 */
import type { Action } from '../../../shared/actions';
import type { Size } from '../../../shared/frame';
import type { COORDINATE_SPACES, MODEL_FAMILIES, UI_TARS_VERSIONS } from '../../../shared/model-families';
import type { SmartResizeSettings } from '../../../shared/settings';

/** Width and height of an image, in pixels (the shared Size, named for what it measures here). */
export type ImageSize = Readonly<Size>;

export type ModelFamily = (typeof MODEL_FAMILIES)[number];
/** '1.0' also covers the Doubao UI-TARS models: both write coordinates relative to 0–1000. */
export type UiTarsVersion = (typeof UI_TARS_VERSIONS)[number];
export type CoordinateSpace = (typeof COORDINATE_SPACES)[number];
/** The bounds of a smart resize; any left out are UI-TARS-1.5's (Qwen2.5-VL's sides, a larger floor). */
export type SmartResizeOptions = SmartResizeSettings;

export interface ParseFailure {
  readonly ok: false;
  /** Why the reply cannot be used, e.g. `unknown action "foo"` or `click without a point`. */
  readonly reason: string;
}

/**
 * A reply that parsed: the model's thought and its actions in the shared wire format (defaults
 * filled, keys canonical). Coordinates are pixels of the image the family's options describe.
 * Each family adds its own extras (UI-TARS reflection, OpenAI call ids and safety checks, ...).
 */
export type ParsedReply<Extras extends object = object> = {
  readonly ok: true;
  readonly thought: string | null;
  readonly actions: Action[];
} & Extras;

export type ReplyParse<Extras extends object = object> = ParsedReply<Extras> | ParseFailure;

/** A rectangle in pixels of the image the model saw. */
export interface ImageRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * What the loop captures right after one of a prediction's actions, for the model's next request:
 * the screen, a region of it at up to full resolution (in pixels of the step's image), or where the
 * pointer is. Generic: a family whose protocol answers each call with what followed it asks for these.
 */
export type CaptureRequest = { afterAction: number } & ({ kind: 'screen' } | { kind: 'region'; region: ImageRect } | { kind: 'pointer' });

// ---------------------------------------------------------------------------------------------
// The calls of the protocols that answer each call: what the next request answers them with.

/** One `tool_use` of a reply and the actions it became. */
export interface AnthropicCall {
  id: string;
  /**
   * The tool: `computer` (the older tool), a toolset member (`left_click`, `zoom`, ...), or one of
   * Mnemo's (`ask_user`, `save_fact`, `query_long_term_memory`, `run_workflow`).
   */
  name: string;
  /** The computer action (`left_click`, `zoom`, ...): the older tool's `action`, or the toolset member. */
  action: string | null;
  /** `computer` for a call to the computer toolset: its answer must say so too. */
  toolset?: 'computer';
  firstAction: number;
  actionCount: number;
}

export interface SafetyCheck {
  id: string;
  code: string | null;
  message: string | null;
}

export interface CuaCall {
  /** `computer`: answered with a `computer_call_output` (the new screenshot); `function`: with a `function_call_output`. */
  kind?: 'computer' | 'function';
  /** To answer with a `computer_call_output` (or `function_call_output`). */
  callId: string;
  /** Index of the call's (first) action in `actions`. */
  actionIndex: number;
  /** How many actions the call became, when not one: a GA call's batch of `actions`, keys pressed around a move. */
  actionCount?: number;
  /** To acknowledge (after the user accepts) in the `computer_call_output`. */
  pendingSafetyChecks: SafetyCheck[];
}

export interface GeminiCall {
  name: string;
  /** The call's id, echoed in its response (newer models send one). */
  id: string | null;
  /** `computer`: answered with the screenshot; `function` (Mnemo's own): with the step's result. */
  kind: 'computer' | 'function';
  /** The first of this call's actions in `actions`, and how many it became. */
  actionIndex: number;
  actionCount: number;
  /** The safety decision the user must accept before the call runs. */
  safety: SafetyCheck | null;
}

/** A space as it applies to one image: the space, the image sent, and the resize bounds if any. */
export interface CoordinateFrame {
  readonly space: CoordinateSpace;
  /** The image the model was sent, in its pixels. */
  readonly image: ImageSize;
  /** For `smart-resize`: the bounds of the model's own resize (UI-TARS-1.5's by default). */
  readonly smartResize?: SmartResizeOptions | undefined;
}
