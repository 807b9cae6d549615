/**
 * Is the field the user typed into a password field? In a run the model says so in its thought;
 * in a demonstration the words next to the field say it (its label, its placeholder), read offline
 * from the screenshot of the click that focused it, and judged with the words a run's masking
 * uses (run/masking.ts). What such a field took is recorded masked, as in a run.
 */
import type { Point } from '../../shared/actions';
import { namesASecret } from '../run/masking';
import { decodeGrey } from '../replay/divergence';
import { patchAround, textRegion } from '../workflow/anchors';
import type { TextReader } from '../workflow/ocr';

/** The words on and around the element under `point` (pixels of the encoded image). */
export async function wordsNearField(image: Buffer, point: Point, reader: TextReader): Promise<string[]> {
  const grey = await decodeGrey(image);
  const { patch } = patchAround(grey, point);
  const words = await reader.read(image, textRegion(patch, grey), 'region');
  return words.map((word) => word.text);
}

/** Do the words near a field name a secret? */
export function isSecretField(words: readonly string[]): boolean {
  return namesASecret(words.join(' '));
}
