/**
 * A step's recorded element found again in a snapshot of the tree, and the point to act at on it.
 * Pure functions; the runner reads the snapshot and, for look-alikes, their paths.
 *
 * Found by role and name (as a person would say it: "the push button Submit"), the named elements
 * around it (`path`) telling apart two of one role and name, and the recorded box only then
 * (nearest, most alike in size): a restyled or moved page keeps its roles and names, not its
 * pixels. Role and name are compared as `--find` compares them (case and spacing aside).
 */
import type { Point } from '../../shared/actions';
import type { Element } from '../../shared/elements';
import type { Rect } from '../../shared/frame';
import type { WorkflowElement } from '../../shared/workflow';

const fold = (text: string) => text.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();

/** The snapshot's elements with the recorded one's role and name: the candidates, in reading order. */
export function sameRoleAndName(elements: readonly Element[], recorded: WorkflowElement): Element[] {
  const role = fold(recorded.role);
  const name = fold(recorded.name);
  return elements.filter((element) => fold(element.role) === role && fold(element.name) === name);
}

/** `push button "Submit"`, for messages. */
export function elementLabel(element: Pick<WorkflowElement, 'role' | 'name'>): string {
  return `${element.role} ${JSON.stringify(element.name)}`;
}

export type ElementChoice = { ok: true; element: Element; how: string } | { ok: false; why: string };

/**
 * The one candidate that is the recorded element: the only one; else those whose path is the
 * recorded one's (when `paths` knows theirs), the nearest to the recorded box among them.
 */
export function chooseElement(recorded: WorkflowElement, candidates: readonly Element[], paths: ReadonlyMap<string, readonly string[]> = new Map()): ElementChoice {
  const label = elementLabel(recorded);
  if (candidates.length === 0) return { ok: false, why: `the element ${label} is not in the accessibility tree` };
  const [only] = candidates;
  if (candidates.length === 1 && only) return { ok: true, element: only, how: `the element ${label} found in the accessibility tree` };
  const samePath = candidates.filter((candidate) => sameList(paths.get(candidate.ref), recorded.path));
  const pool = samePath.length > 0 ? samePath : candidates;
  const nearest = [...pool].sort((a, b) => unlikeness(a.bounds, recorded.bounds) - unlikeness(b.bounds, recorded.bounds))[0] as Element;
  const told = samePath.length === 1 ? 'the one inside the same named elements' : `the one nearest its recorded place${samePath.length > 1 ? ' inside the same named elements' : ''}`;
  return { ok: true, element: nearest, how: `the element ${label} found in the accessibility tree (${candidates.length} alike: ${told})` };
}

function sameList(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return a !== undefined && a.length === b.length && a.every((item, i) => item === b[i]);
}

/** How far apart two boxes are: their centres' distance plus their difference in size. */
function unlikeness(a: Rect, b: Rect): number {
  const centre = (rect: Rect) => ({ x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 });
  const [ca, cb] = [centre(a), centre(b)];
  return Math.hypot(ca.x - cb.x, ca.y - cb.y) + Math.abs(a.width - b.width) + Math.abs(a.height - b.height);
}

/**
 * Where to act on the element now: at the same share of its box as the recorded point was of the
 * recorded box (a field clicked near its left edge is clicked near its left edge again), within it.
 * `recordedBox` and `box` are in the pixels of their images (the recorded one, the live one).
 */
export function pointOnElement(recordedPoint: Point, recordedBox: Rect, box: Rect): Point {
  const share = (value: number, start: number, size: number) => (size > 0 ? Math.min(1, Math.max(0, (value - start) / size)) : 0.5);
  const sx = share(recordedPoint.x, recordedBox.x, recordedBox.width);
  const sy = share(recordedPoint.y, recordedBox.y, recordedBox.height);
  // Inside by half a pixel at least: a share of 1 would be the edge's outside.
  const inside = (start: number, size: number, at: number) => Math.min(start + size - 0.5, Math.max(start + 0.5, start + at * size));
  return { x: Math.round(inside(box.x, box.width, sx)), y: Math.round(inside(box.y, box.height, sy)) };
}

/** A box of the recorded screen in the recorded image's pixels: the workflow's scale, image over screen. */
export function recordedImageBox(bounds: Rect, scale: { x: number; y: number }): Rect {
  return { x: bounds.x * scale.x, y: bounds.y * scale.y, width: bounds.width * scale.x, height: bounds.height * scale.y };
}
