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
