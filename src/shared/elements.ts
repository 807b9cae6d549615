/**
 * Elements: what the accessibility tree says is on the screen, as one snapshot of the active
 * window. The same shape is printed by `mnemo elements --json` and will travel to the model, the
 * step record and the window, so it is declared once here with its schema.
 *
 * Bounds are in the screen's logical pixels (`bounds`) and, when the snapshot was given the frame
 * of the image the model sees, in that image's pixels too (`imageBounds`). A `ref` names one
 * element for as long as the tree keeps it; resolving a ref the tree no longer has is a value
 * (`stale`), never an exception.
 */
import { z } from 'zod';
import { FrameSchema } from './frame';

const RectSchema = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

export const ElementSchema = z.object({
  /** 1, 2, 3… in reading order: the number a person or a model uses for it in this snapshot. */
  n: z.number().int().positive(),
  /** Names the element for as long as the tree keeps it (its application and object). */
  ref: z.string(),
  /** The AT-SPI role name: "push button", "entry", "password text", "check box"… */
  role: z.string(),
  name: z.string(),
  /**
   * `label`: the tree gives the element no name of its own, and this one is the label beside it
   * (a field a program only laid a label next to); the tree's own name for it is empty.
   */
  nameFrom: z.literal('label').optional(),
  /** What it holds (a field's text, a slider's number); never for a password field. */
  value: z.string().optional(),
  /** AT-SPI state names: "focused", "editable", "checked", "enabled"… */
  states: z.array(z.string()),
  bounds: RectSchema,
  imageBounds: RectSchema.optional(),
  /** Something a user acts on (a button, a field, a box), not only text to read. */
  interactive: z.boolean(),
});
export type Element = z.infer<typeof ElementSchema>;

export const SnapshotWindowSchema = z.object({
  app: z.string(),
  role: z.string(),
  name: z.string(),
  bounds: RectSchema,
  /** How it was taken for the active one: its own `active` state, the focus inside it, or being the only window showing. */
  chosenBy: z.enum(['active', 'focus', 'only']),
});
export type SnapshotWindow = z.infer<typeof SnapshotWindowSchema>;

export const ElementSnapshotSchema = z.object({
  display: z.string(),
  /** When it was read (ms since the epoch) and how long that took. */
  takenAt: z.number(),
  elapsedMs: z.number(),
  /** `collection`: one query the application answered; `walk`: the tree walked, pruned to what shows. */
  method: z.enum(['collection', 'walk']),
  window: SnapshotWindowSchema,
  elements: z.array(ElementSchema),
  /** Cut short: it took longer than its time budget (`time`) or held more elements than its limit (`count`); what it has is kept. */
  truncated: z.object({ reason: z.enum(['time', 'count']), limit: z.number() }).optional(),
  /** The image the `imageBounds` are in. */
  frame: FrameSchema.optional(),
});
export type ElementSnapshot = z.infer<typeof ElementSnapshotSchema>;

/** Why there is no snapshot: no accessibility bus on the display, no window to read, or the bus failed. */
export type SnapshotFailureKind = 'no_bus' | 'no_window' | 'failed';
export type SnapshotResult = { ok: true; snapshot: ElementSnapshot } | { ok: false; kind: SnapshotFailureKind; message: string };
