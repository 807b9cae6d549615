/**
 * What executing one action did, as a value. The operator never throws for an expected failure:
 * the loop records the result and, where useful, shows it to the model.
 */
import { z } from 'zod';
import { ACTION_TYPES, ScreenPointSchema, type ActionType, type ScreenPoint } from './actions';

const ActionTypeSchema = z.enum(ACTION_TYPES as [ActionType, ...ActionType[]]);

export type ActionErrorKind =
  /** The mouse was in the fail-safe corner: this and every further action is refused until reset. */
  | 'user_abort'
  /** A coordinate lies outside the image (or the screen) it refers to. */
  | 'out_of_bounds'
  /** The action is well-formed JSON but cannot be carried out as given. */
  | 'invalid_action'
  /** The platform has no way to perform this (a key it cannot press, for example). */
  | 'unsupported'
  /** The input or capture layer failed underneath us. */
  | 'input_failed'
  /** No display to act on. */
  | 'no_display'
  /** Cancelled through an AbortSignal. */
  | 'aborted'
  /** The element named (by its number or ref) is no longer in the accessibility tree: read it again. */
  | 'stale_element';

export interface ActionError {
  kind: ActionErrorKind;
  message: string;
}

/** The element an action hit, as the accessibility tree named it (when the display has one). */
export interface ActedElement {
  role: string;
  name: string;
  /** Its number in the step's snapshot, when it had one. */
  n?: number;
  /** Screen logical px when it was acted on. */
  bounds: { x: number; y: number; width: number; height: number };
  /** The named elements it is inside, outermost first (`role:name` each): what a workflow refinds it by, with its role and name. */
  path?: string[];
}

/**
 * What reading the element back after the action found: a field's value (`value`), a password
 * field's length only (`length`), a toggle's checked state (`checked`). `ok: false` is a mismatch,
 * told to the model and shown in the step.
 */
export interface OutcomeCheck {
  kind: 'value' | 'length' | 'checked';
  ok: boolean;
  /** For the model and the person: what was expected and what was found (never a password's text). */
  message: string;
  /** `value`: what the field holds, as read back (masked in the record as the message is: a run's secrets never in it). */
  value?: string;
  /** `length`: how many characters the field holds (all a password field or a secret is read back as). */
  length?: number;
}

export interface ActionSuccess {
  ok: true;
  type: ActionType;
  /** Screen points (logical px) the action touched, first to last. */
  points?: ScreenPoint[];
  /** A human-readable note (what was typed and how, for example). */
  detail?: string;
  durationMs: number;
  /** The element the action hit, when the tree knows it ("clicked push button 'Submit'"). */
  element?: ActedElement;
  /** The read-back after typing into or toggling an element. */
  check?: OutcomeCheck;
}

export interface ActionFailure {
  ok: false;
  type?: ActionType;
  error: ActionError;
}

export type ActionResult = ActionSuccess | ActionFailure;

export function actionFailure(kind: ActionErrorKind, message: string, type?: ActionType): ActionFailure {
  return type === undefined ? { ok: false, error: { kind, message } } : { ok: false, type, error: { kind, message } };
}

// ---------------------------------------------------------------------------------------------
// Schema, for results read back from a session record or received over IPC.

export const ActionErrorKindSchema = z.enum(['user_abort', 'out_of_bounds', 'invalid_action', 'unsupported', 'input_failed', 'no_display', 'aborted', 'stale_element']);

const RectSchema = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });
export const ActedElementSchema = z.object({ role: z.string(), name: z.string(), n: z.number().int().positive().optional(), bounds: RectSchema, path: z.array(z.string()).optional() });
export const OutcomeCheckSchema = z.object({ kind: z.enum(['value', 'length', 'checked']), ok: z.boolean(), message: z.string(), value: z.string().optional(), length: z.number().int().nonnegative().optional() });

export const ActionResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    type: ActionTypeSchema,
    points: z.array(ScreenPointSchema).optional(),
    detail: z.string().optional(),
    durationMs: z.number(),
    element: ActedElementSchema.optional(),
    check: OutcomeCheckSchema.optional(),
  }),
  z.object({
    ok: z.literal(false),
    type: ActionTypeSchema.optional(),
    error: z.object({ kind: ActionErrorKindSchema, message: z.string() }),
  }),
]) satisfies z.ZodType<ActionResult>;
