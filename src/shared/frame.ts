/**
 * Geometry of one observation: where the captured display sits on the desktop and how the
 * model-ready image relates to it. Every action from the model is mapped through its Frame.
 */
import { z } from 'zod';

export interface Size {
  width: number;
  height: number;
}

export interface Rect extends Size {
  x: number;
  y: number;
}

export type ImageFormat = 'jpeg' | 'png';

export interface Frame {
  /** The display captured ("all" for the whole virtual desktop). */
  displayId: string;
  /** The captured area in logical pixels of the global desktop coordinate space. */
  bounds: Rect;
  /** Physical pixels per logical pixel on that display (1, 1.25, 1.5, 2, ...). */
  scaleFactor: number;
  /** Size of the raw capture in physical pixels. */
  captured: Size;
  /** Size and encoding of the image the model sees. */
  image: Size & { format: ImageFormat };
}

export interface DisplayInfo {
  /** Position in the display list: what `--display N` selects. */
  index: number;
  /** The platform's name or id for the display. */
  id: string;
  name: string;
  /** Logical pixels in the global desktop coordinate space. */
  bounds: Rect;
  scaleFactor: number;
  primary: boolean;
}

// ---------------------------------------------------------------------------------------------
// Schemas, for values read back from a session record or received over IPC.

const SizeSchema = z.object({ width: z.number(), height: z.number() });

export const FrameSchema = z.object({
  displayId: z.string(),
  bounds: SizeSchema.extend({ x: z.number(), y: z.number() }),
  scaleFactor: z.number().positive(),
  captured: SizeSchema,
  image: SizeSchema.extend({ format: z.enum(['jpeg', 'png']) }),
}) satisfies z.ZodType<Frame>;
