/**
 * The elements aid in words (model.elements `list` and `marks`): the active window's interactive
 * elements as one numbered list for a step's prompt, each line its number (`n` as in the
 * snapshot, so the marks drawn on the image and click_element agree), role, name, value and the
 * states that change what an action does. Pure: the families put the text where their prompt
 * has its current screenshot.
 *
 * Bounded: a window of thousands of elements would cost more tokens than the screenshot, so the
 * list stops at `maxChars` and says how many were left out.
 */
import type { Element, ElementSnapshot } from '../../shared/elements';
import type { ImagePoint, Point } from '../../shared/actions';
import { imageToModel, type CoordinateFrame } from './families/coordinates';
import type { PredictInput } from './types';

/** About 800 tokens at the pruner's 3 characters a token: the size of one screenshot. */
export const DEFAULT_ELEMENT_LIST_CHARS = 2_400;
const NAME_CHARS = 60;
const VALUE_CHARS = 40;

/** A field whose text is never read (snapshot.ts does not ask for it; this never says one either). */
const PASSWORD_ROLE = 'password text';

/** The states worth a word: the ones that change what clicking or typing does. */
const SAID_STATES = ['focused', 'checked', 'indeterminate', 'pressed', 'selected', 'expanded', 'read only', 'required', 'invalid entry'] as const;

export interface ElementListOptions {
  /**
   * The family can name elements by number (it has click_element and type_into): the heading says
   * so in one line. Without, each line gives the element's centre in the model's coordinates.
   */
  byNumber: boolean;
  /** The centre of an element's image box as the model writes it (speak.ts); used when not `byNumber`. */
  pointOf?: ((point: ImagePoint) => Point) | undefined;
  /** The list's length in characters at most (DEFAULT_ELEMENT_LIST_CHARS). */
  maxChars?: number | undefined;
  /** The numbers are drawn on the screenshot too (`marks`): the heading says so. */
  marked?: boolean | undefined;
}

/** The elements the aid offers: interactive ones, in the snapshot's reading order. */
export function aidedElements(snapshot: ElementSnapshot): Element[] {
  return snapshot.elements.filter((element) => element.interactive);
}

/** One line for one element: `6. push button "Submit" (focused)`. */
export function elementLine(element: Element, pointOf?: (point: ImagePoint) => Point): string {
  const parts = [`${element.n}. ${element.role}`];
  if (element.name.trim() !== '') parts.push(quoted(element.name, NAME_CHARS));
  if (element.value !== undefined && element.role !== PASSWORD_ROLE && element.value !== '') parts.push(`= ${quoted(element.value, VALUE_CHARS)}`);
  const states = statesOf(element);
  if (states.length > 0) parts.push(`(${states.join(', ')})`);
  if (pointOf && element.imageBounds) {
    const box = element.imageBounds;
    const centre = pointOf({ x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) } as ImagePoint);
    parts.push(`at (${centre.x}, ${centre.y})`);
  }
  return parts.join(' ');
}

function statesOf(element: Element): string[] {
  const said: string[] = SAID_STATES.filter((state) => element.states.includes(state));
  // Interactive elements say `enabled`; one without it cannot be used, which the model must know.
  if (!element.states.includes('enabled') && !element.states.includes('sensitive')) said.push('disabled');
  return said;
}

function quoted(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat);
}

/** The heading, kept short (it is paid at every step): which window, and how to use the numbers. */
function headingOf(snapshot: ElementSnapshot, options: ElementListOptions): string {
  const name = snapshot.window.name.replace(/\s+/g, ' ').trim();
  const window = name !== '' ? `"${name}" (${snapshot.window.app})` : snapshot.window.app;
  const marked = options.marked ? ', numbered on the screenshot' : '';
  const use = options.byNumber ? ' Name one by its number with click_element {n} or type_into {n, text}.' : options.pointOf ? ' Each with its centre point.' : '';
  return `Interactive elements of ${window}${marked}, from the accessibility tree.${use}`;
}

/**
 * The list for a step's prompt, or null when the window has no interactive element (nothing to
 * say). Lines past `maxChars` are left out and counted in a last line.
 */
export function elementListText(snapshot: ElementSnapshot, options: ElementListOptions): string | null {
  const elements = aidedElements(snapshot);
  if (elements.length === 0) return null;
  const limit = options.maxChars ?? DEFAULT_ELEMENT_LIST_CHARS;
  const lines = [headingOf(snapshot, options)];
  let length = lines[0]?.length ?? 0;
  let shown = 0;
  for (const element of elements) {
    const line = elementLine(element, options.byNumber ? undefined : options.pointOf);
    if (length + 1 + line.length > limit) break;
    lines.push(line);
    length += 1 + line.length;
    shown++;
  }
  const cut = elements.length - shown;
  if (cut > 0) lines.push(`(${cut} more not listed${snapshot.truncated ? '' : ': the list is cut to keep the prompt short'})`);
  if (snapshot.truncated) lines.push(`(The window was read only in part: the tree took too long or held too many elements.)`);
  return lines.join('\n');
}

/**
 * How a family reads the list: by number (it has click_element and type_into), or by point in the
 * coordinates it writes for the current screenshot (`frame`).
 */
export type ElementReading = { byNumber: true } | { byNumber: false; frame: CoordinateFrame };

/**
 * Whether the snapshot's image boxes are boxes of this observation: not when the observation is a
 * zoomed region, or an image of another size than the one the snapshot was mapped onto. Then no
 * mark is drawn and no point given (the numbers still name the elements).
 */
export function boxesFitObservation(input: Pick<PredictInput, 'elements' | 'observation' | 'zoom'>): boolean {
  const frame = input.elements?.snapshot.frame;
  if (input.zoom) return false;
  return frame === undefined || (frame.image.width === input.observation.width && frame.image.height === input.observation.height);
}

/** The list for a step's prompt when the aid is on (`PredictInput.elements`), else null. */
export function elementsPromptOf(input: Pick<PredictInput, 'elements' | 'observation' | 'zoom'>, reading: ElementReading): string | null {
  const aid = input.elements;
  if (!aid) return null;
  const fits = boxesFitObservation(input);
  const pointOf = reading.byNumber || !fits ? undefined : (point: ImagePoint) => imageToModel(point, reading.frame);
  return elementListText(aid.snapshot, { byNumber: reading.byNumber, pointOf, marked: aid.mode === 'marks' && fits });
}
