/**
 * What a model-family parser returns. Parsers are pure functions of the reply: they never throw
 * for a bad reply, they return a failure whose reason names the problem (docs/architecture.md:
 * failures are values), so the loop can record it and show it to the model.
 */
import { type Action } from '../../../shared/actions';
import { type Size } from '../../../shared/frame';
import { MODEL_FAMILIES } from '../../../shared/settings';

/** Width and height of an image, in pixels (the shared Size, named for what it measures here). */
export type ImageSize = Readonly<Size>;

export { MODEL_FAMILIES };
export type ModelFamily = (typeof MODEL_FAMILIES)[number];

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
