/**
 * Questions asked of a snapshot, as pure functions: which element is under a point, which one a
 * "role:name" query means, and where an element's screen box lies on the model's image.
 */
import type { Frame, Rect } from '../../../shared/frame';
import type { Element } from '../../../shared/elements';

export interface FindQuery {
  /** Empty: any role. */
  role: string;
  name: string;
}

/**
 * `role:name` (`push button:Submit`, `entry:User name`), `:name` or just `name` for any role,
 * `role:` for the first of a role. Roles hold spaces, names may hold colons: the first colon splits.
 */
export function parseFindQuery(text: string): { ok: true; query: FindQuery } | { ok: false; message: string } {
  const colon = text.indexOf(':');
  const role = colon < 0 ? '' : text.slice(0, colon).trim();
  const name = (colon < 0 ? text : text.slice(colon + 1)).trim();
  if (role === '' && name === '') return { ok: false, message: `--find needs "role:name", a role and or a name (for example "push button:Submit"), got "${text}"` };
  return { ok: true, query: { role, name } };
}

const fold = (text: string) => text.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The elements a query matches, best first: a name equal to the query's (case and spacing aside)
 * before one that only contains it; then interactive before not, then reading order.
 */
export function findElements(elements: readonly Element[], query: FindQuery): Element[] {
  const role = fold(query.role);
  const name = fold(query.name);
  const scored: Array<{ element: Element; score: number }> = [];
  for (const element of elements) {
    if (role !== '' && fold(element.role) !== role) continue;
    const own = fold(element.name);
    const score = name === '' ? 1 : own === name ? 2 : own.includes(name) ? 1 : 0;
    if (score === 0) continue;
    scored.push({ element, score: score * 2 + (element.interactive ? 1 : 0) });
  }
  return scored.sort((a, b) => b.score - a.score || a.element.n - b.element.n).map(({ element }) => element);
}

export function contains(rect: Rect, point: { x: number; y: number }): boolean {
  return point.x >= rect.x && point.y >= rect.y && point.x < rect.x + rect.width && point.y < rect.y + rect.height;
}

/**
 * The element under a screen point: of those whose box holds it, an interactive one before one
 * that is only text, then the smallest (the innermost: a button inside a toolbar).
 */
export function elementAt(elements: readonly Element[], point: { x: number; y: number }): Element | undefined {
  let best: Element | undefined;
  for (const element of elements) {
    if (!contains(element.bounds, point)) continue;
    if (!best || better(element, best)) best = element;
  }
  return best;
}

function better(candidate: Element, current: Element): boolean {
  if (candidate.interactive !== current.interactive) return candidate.interactive;
  return area(candidate.bounds) < area(current.bounds);
}

const area = (rect: Rect) => rect.width * rect.height;

/**
 * A screen box on the model's image: the image pixels it covers (rounded outwards), clipped to
 * the image; undefined when none of it is on the frame's display.
 */
export function imageBoundsOf(bounds: Rect, frame: Frame): Rect | undefined {
  const sx = frame.image.width / frame.bounds.width;
  const sy = frame.image.height / frame.bounds.height;
  const left = Math.max(0, Math.floor((bounds.x - frame.bounds.x) * sx));
  const top = Math.max(0, Math.floor((bounds.y - frame.bounds.y) * sy));
  const right = Math.min(frame.image.width, Math.ceil((bounds.x + bounds.width - frame.bounds.x) * sx));
  const bottom = Math.min(frame.image.height, Math.ceil((bounds.y + bounds.height - frame.bounds.y) * sy));
  if (right <= left || bottom <= top) return undefined;
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** Whether two boxes overlap at all. */
export function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** One line per element, as `mnemo elements` prints them. */
export function describeElement(element: Element): string {
  const { x, y, width, height } = element.bounds;
  const value = element.value !== undefined ? ` = ${JSON.stringify(element.value)}` : '';
  const states = element.states.length > 0 ? ` [${element.states.join(', ')}]` : '';
  return `${element.n}. ${element.role} ${JSON.stringify(element.name)}${value} at ${x},${y} ${width}x${height}${states}`;
}
