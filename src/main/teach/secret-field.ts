/**
 * Is the field the user typed into a password field? In a run the model says so in its thought;
 * in a demonstration the words next to the field say it (its label, its placeholder), read offline
 * and judged with the words a run's masking uses (run/masking.ts). What such a field took is
 * recorded masked, as in a run.
 *
 * Where the field is: the click that focused it says so. A field reached with the keyboard (Tab)
 * has no click; then the typing itself shows where it went. The places the screen changed while
 * the user typed (the typed characters or dots, the focus ring) are each read, and the text is a
 * secret when the words next to any of them name one: masking a field too many loses its text
 * from the recording (it becomes a secret to give at run time), one too few keeps a password in
 * the files.
 */
import type { Point } from '../../shared/actions';
import type { Rect } from '../../shared/frame';
import { namesASecret } from '../run/masking';
import { decodeGrey, type GreyImage } from '../replay/divergence';
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

export interface ChangeOptions {
  /** The side of a grid cell, in pixels: changes closer than this join into one place. */
  cell: number;
  /** Grey levels a pixel must move by to count as changed (above JPEG's noise). */
  tolerance: number;
  /** Changed pixels a cell needs to count as changed. */
  minPixels: number;
  /** A change over more than this share of the cells is a new screen, not typing: no place. */
  maxShare: number;
  /** Places returned at most, largest first. */
  maxPlaces: number;
}

export const DEFAULT_CHANGE_OPTIONS: ChangeOptions = { cell: 8, tolerance: 40, minPixels: 3, maxShare: 0.2, maxPlaces: 4 };

/**
 * The places where `after` differs from `before` (same size): the boxes of the groups of
 * neighbouring changed cells, largest first. None when nothing changed, the sizes differ, or so
 * much changed that the screen is another one.
 */
export function changedPlaces(before: GreyImage, after: GreyImage, options: ChangeOptions = DEFAULT_CHANGE_OPTIONS): Rect[] {
  if (before.width !== after.width || before.height !== after.height) return [];
  const { cell, tolerance, minPixels } = options;
  const columns = Math.ceil(before.width / cell);
  const rows = Math.ceil(before.height / cell);
  const changedCount = new Uint16Array(columns * rows);
  for (let y = 0; y < before.height; y++) {
    const rowStart = y * before.width;
    const cellRow = Math.floor(y / cell) * columns;
    for (let x = 0; x < before.width; x++) {
      const i = rowStart + x;
      if (Math.abs((before.pixels[i] as number) - (after.pixels[i] as number)) > tolerance) changedCount[cellRow + Math.floor(x / cell)]! += 1;
    }
  }
  const changed = changedCount.map((count) => (count >= minPixels ? 1 : 0));
  const total = changed.reduce((sum, value) => sum + value, 0);
  if (total === 0 || total > options.maxShare * columns * rows) return [];
  const seen = new Uint8Array(columns * rows);
  const places: Array<{ box: Rect; cells: number }> = [];
  for (let start = 0; start < changed.length; start++) {
    if (!changed[start] || seen[start]) continue;
    // A flood over the changed cells, diagonals included.
    let [left, top, right, bottom, cells] = [columns, rows, 0, 0, 0];
    const stack = [start];
    seen[start] = 1;
    while (stack.length > 0) {
      const index = stack.pop() as number;
      const cx = index % columns;
      const cy = Math.floor(index / columns);
      [left, top, right, bottom, cells] = [Math.min(left, cx), Math.min(top, cy), Math.max(right, cx), Math.max(bottom, cy), cells + 1];
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = cx + dx;
          const ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= columns || ny >= rows) continue;
          const next = ny * columns + nx;
          if (changed[next] && !seen[next]) {
            seen[next] = 1;
            stack.push(next);
          }
        }
      }
    }
    const x = left * cell;
    const y = top * cell;
    places.push({ box: { x, y, width: Math.min(before.width, (right + 1) * cell) - x, height: Math.min(before.height, (bottom + 1) * cell) - y }, cells });
  }
  return places
    .sort((a, b) => b.cells - a.cells)
    .slice(0, options.maxPlaces)
    .map((place) => place.box);
}

/**
 * Where to read for the labels of what typing changed from `before` to `after` (encoded images of
 * one size): each changed place and the reach of a label around it. The place is read whole, not
 * the element at its centre: the dots and a focus ring that moved from a neighbouring field join
 * into one place whose centre may lie in the neighbour.
 */
export async function typedRegions(before: Buffer, after: Buffer): Promise<Rect[]> {
  const grey = await decodeGrey(after);
  return changedPlaces(await decodeGrey(before), grey).map((place) => textRegion(place, grey));
}

/** Do the words in any of `regions` of `image` name a secret? */
export async function anyRegionNamesASecret(image: Buffer, regions: readonly Rect[], reader: TextReader): Promise<boolean> {
  for (const region of regions) {
    if (isSecretField((await reader.read(image, region, 'region')).map((word) => word.text))) return true;
  }
  return false;
}
