/**
 * "Has the screen changed?" on tiny greyscale thumbnails: cheap enough to ask several times per
 * step, blind to a blinking caret, sensitive to anything a user would call a change.
 */
export interface ScreenFingerprint {
  width: number;
  height: number;
  /** One byte of grey per pixel. */
  pixels: Uint8Array;
}

/** Mean absolute difference of two fingerprints, 0 (identical) to 1 (inverted). */
export function screenDifference(a: ScreenFingerprint, b: ScreenFingerprint): number {
  if (a.width !== b.width || a.height !== b.height) return 1;
  let total = 0;
  for (let i = 0; i < a.pixels.length; i++) total += Math.abs((a.pixels[i] as number) - (b.pixels[i] as number));
  return total / (a.pixels.length * 255);
}

/** Below this difference two screens count as the same (a caret blink is ~0.0005 at 96x60). */
export const UNCHANGED_THRESHOLD = 0.003;

export function sameScreen(a: ScreenFingerprint | undefined, b: ScreenFingerprint | undefined, threshold = UNCHANGED_THRESHOLD): boolean {
  return a !== undefined && b !== undefined && screenDifference(a, b) < threshold;
}

/**
 * The share of the cells within `radius` of a point (fractions of the display, 0-1 on each axis)
 * whose grey changed by at least `level` (0-255), 0 to 1: did the screen change where an action is
 * about to aim? A share, not a mean: a white field sliding off a light page changes each cell it
 * covered by only a few levels, and a mean over the neighbourhood would call that unchanged.
 */
export function changedCellsNear(a: ScreenFingerprint, b: ScreenFingerprint, at: { x: number; y: number }, radius: number, level: number): number {
  if (a.width !== b.width || a.height !== b.height) return 1;
  const cx = Math.min(a.width - 1, Math.max(0, Math.floor(at.x * a.width)));
  const cy = Math.min(a.height - 1, Math.max(0, Math.floor(at.y * a.height)));
  let changed = 0;
  let cells = 0;
  for (let y = Math.max(0, cy - radius); y <= Math.min(a.height - 1, cy + radius); y++) {
    for (let x = Math.max(0, cx - radius); x <= Math.min(a.width - 1, cx + radius); x++) {
      const i = y * a.width + x;
      if (Math.abs((a.pixels[i] as number) - (b.pixels[i] as number)) >= level) changed++;
      cells++;
    }
  }
  return changed / cells;
}
