/**
 * Draws what a step did onto its screenshot: a ring and dot where it clicked (coloured by button,
 * one ring more per extra click), an arrow along a drag, a scroll arrow, labels for typed text and
 * keys, and a red cross where an action failed.
 *
 * One SVG overlay serves two uses: composited by sharp into a PNG (inspection), and inlined over
 * the image in the HTML report, where it scales with the image. Coordinates are pixels of the
 * step's screenshot (the model-ready image), which is the overlay's own coordinate space.
 */
import { loadSharp } from '../image/sharp';
import { dragPath, isControlAction, type Action, type MouseButton, type Point } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import type { Size } from '../../shared/frame';
import { shownTypedText, truncate } from '../../shared/describe-action';

/** Results by action position: `results[i]` is what `actions[i]` did, `undefined` if it never ran. */
export type ResultSlots = ReadonlyArray<ActionResult | null | undefined>;

export const BUTTON_COLOURS: Readonly<Record<MouseButton, string>> = { left: '#ff9f0a', right: '#bf5af2', middle: '#30d158' };
export const MOVE_COLOUR = '#64d2ff';
export const SCROLL_COLOUR = '#0a84ff';
export const KEY_COLOUR = '#ffd60a';
export const CONTROL_COLOUR = '#e5e5ea';
export const FAILURE_COLOUR = '#ff1f1f';

/** Longest typed text (in characters) a label shows before it is cut with an ellipsis. */

export interface OverlayOptions {
  /** Add the SVG namespace: needed by a standalone SVG (sharp); the HTML parser adds it itself. */
  standalone?: boolean;
  /** Extra class names for the root element. */
  className?: string;
}

interface Scale {
  /** The unit every marker is measured in: about 1/90 of the image's short side. */
  u: number;
  stroke: number;
  halo: number;
  font: number;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Drawing {
  size: Size;
  scale: Scale;
  labels: Box[];
}

function scaleFor(size: Size): Scale {
  const u = Math.max(1.5, Math.min(size.width, size.height) / 90);
  const stroke = Math.max(2, u * 0.45);
  return { u, stroke, halo: stroke + 2 * Math.max(1, u * 0.25), font: Math.max(10, Math.round(u * 1.7)) };
}

const n = (value: number): string => String(Math.round(Number(value) * 10) / 10);

function wholePixels(value: unknown): number {
  const number = Math.round(Number(value));
  return Number.isFinite(number) && number > 0 ? number : 1;
}

export function escapeXml(text: string): string {
  return String(text).replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] as string);
}

/** Cuts `text` to `limit` characters (whole code points), marking the cut with an ellipsis. */
function clampPoint(point: Point, size: Size): Point {
  return { x: Math.min(Math.max(point.x, 0), size.width - 1), y: Math.min(Math.max(point.y, 0), size.height - 1) };
}

function circle(centre: Point, r: number, attributes: string): string {
  return `<circle cx="${n(centre.x)}" cy="${n(centre.y)}" r="${n(r)}" ${attributes}/>`;
}

/** A ring with a dark halo, readable on any background. */
function ring(d: Drawing, centre: Point, r: number, colour: string, dashed = false): string {
  const dash = dashed ? ` stroke-dasharray="${n(d.scale.u)} ${n(d.scale.u * 0.7)}"` : '';
  return (
    circle(centre, r, `fill="none" stroke="#000" stroke-opacity="0.6" stroke-width="${n(d.scale.halo)}"${dash}`) +
    circle(centre, r, `fill="none" stroke="${colour}" stroke-width="${n(d.scale.stroke)}"${dash}`)
  );
}

function dot(d: Drawing, centre: Point, r: number, colour: string): string {
  return circle(centre, r + (d.scale.halo - d.scale.stroke) / 2, 'fill="#000" fill-opacity="0.6"') + circle(centre, r, `fill="${colour}"`);
}

function polyline(d: Drawing, points: readonly Point[], colour: string): string {
  const list = points.map((p) => `${n(p.x)},${n(p.y)}`).join(' ');
  const common = 'fill="none" stroke-linecap="round" stroke-linejoin="round"';
  return (
    `<polyline points="${list}" ${common} stroke="#000" stroke-opacity="0.6" stroke-width="${n(d.scale.halo)}"/>` +
    `<polyline points="${list}" ${common} stroke="${colour}" stroke-width="${n(d.scale.stroke)}"/>`
  );
}

/** A filled arrowhead whose tip is at `tip`, pointing away from `from`. */
function arrowhead(d: Drawing, from: Point, tip: Point, colour: string): string {
  const dx = tip.x - from.x;
  const dy = tip.y - from.y;
  const length = Math.hypot(dx, dy);
  if (length === 0) return '';
  const ux = dx / length;
  const uy = dy / length;
  const back = d.scale.u * 2.4;
  const half = d.scale.u * 1.3;
  const points = [tip, { x: tip.x - ux * back - uy * half, y: tip.y - uy * back + ux * half }, { x: tip.x - ux * back + uy * half, y: tip.y - uy * back - ux * half }];
  return `<polygon points="${points.map((p) => `${n(p.x)},${n(p.y)}`).join(' ')}" fill="${colour}" stroke="#000" stroke-opacity="0.6" stroke-width="${n(Math.max(1, d.scale.u * 0.25))}" stroke-linejoin="round"/>`;
}

/** A line along `points` ending in an arrowhead at the last point. */
function arrow(d: Drawing, points: readonly Point[], colour: string): string {
  const tip = points[points.length - 1] as Point;
  // The last point that differs from the tip gives the arrow its direction.
  const from = [...points].reverse().find((p) => p.x !== tip.x || p.y !== tip.y);
  if (!from) return dot(d, tip, d.scale.u * 0.6, colour);
  // Stop the line inside the head, so its round cap does not poke out past the tip.
  const length = Math.hypot(tip.x - from.x, tip.y - from.y);
  const cut = Math.min(length, d.scale.u * 1.2);
  const end = { x: tip.x - ((tip.x - from.x) / length) * cut, y: tip.y - ((tip.y - from.y) / length) * cut };
  return polyline(d, [...points.slice(0, -1), end], colour) + arrowhead(d, from, tip, colour);
}

function cross(d: Drawing, centre: Point): string {
  const r = d.scale.u * 1.5;
  const path = `M${n(centre.x - r)},${n(centre.y - r)} L${n(centre.x + r)},${n(centre.y + r)} M${n(centre.x + r)},${n(centre.y - r)} L${n(centre.x - r)},${n(centre.y + r)}`;
  const width = d.scale.stroke * 1.6;
  return (
    `<path class="failure" d="${path}" fill="none" stroke="#fff" stroke-linecap="round" stroke-width="${n(width + 2 * Math.max(1, d.scale.u * 0.3))}"/>` +
    `<path d="${path}" fill="none" stroke="${FAILURE_COLOUR}" stroke-linecap="round" stroke-width="${n(width)}"/>`
  );
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * A text label beside `anchor` (right and below, or left when there is no room), moved down past
 * labels already placed. `beside` false puts it at the anchor itself (the image corner).
 */
function label(d: Drawing, anchor: Point, text: string, colour: string, beside = true): { svg: string; box: Box } {
  const { u, font } = d.scale;
  const pad = font * 0.4;
  const width = Array.from(text).length * font * 0.61 + pad * 2;
  const height = font * 1.45;
  let x = beside ? anchor.x + u * 3.2 : anchor.x;
  if (beside && x + width > d.size.width) x = anchor.x - u * 3.2 - width;
  x = Math.max(0, Math.min(x, d.size.width - width));
  const startY = Math.max(0, Math.min(beside ? anchor.y + u * 1.2 : anchor.y, d.size.height - height));
  // Past labels already placed: down first, then up from where it started.
  const step = height + 2;
  const candidates = [startY];
  for (let y = startY + step; y + height <= d.size.height; y += step) candidates.push(y);
  for (let y = startY - step; y >= 0; y -= step) candidates.push(y);
  const free = candidates.map((y) => ({ x, y, width, height })).find((candidate) => !d.labels.some((placed) => overlaps(placed, candidate)));
  const box = free ?? { x, y: startY, width, height };
  d.labels.push(box);
  const svg =
    `<g class="label">` +
    `<rect x="${n(box.x)}" y="${n(box.y)}" width="${n(width)}" height="${n(height)}" rx="${n(font * 0.3)}" fill="#000" fill-opacity="0.78" stroke="${colour}" stroke-width="${n(Math.max(1, u * 0.2))}"/>` +
    `<text x="${n(box.x + pad)}" y="${n(box.y + height / 2 + font * 0.36)}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="${n(font)}" fill="#fff">${escapeXml(text)}</text>` +
    `</g>`;
  return { svg, box };
}

function keysText(keys: readonly string[]): string {
  return keys.join('+');
}

/** The short text drawn for an action; empty when its marker says it all. */
function labelText(action: Action): string {
  switch (action.type) {
    case 'click':
    case 'double_click':
    case 'triple_click': {
      const parts = [action.modifiers?.length ? keysText(action.modifiers) : '', action.button !== 'left' ? action.button : '', action.type === 'double_click' ? '×2' : action.type === 'triple_click' ? '×3' : ''];
      return parts.filter(Boolean).join(' ');
    }
    case 'mouse_move':
      return '';
    case 'mouse_down':
      return `press ${action.button}`;
    case 'mouse_up':
      return `release ${action.button}`;
    case 'drag':
      return action.button !== 'left' ? `drag ${action.button}` : '';
    case 'scroll':
      return `scroll ${action.direction} ${action.amount}`;
    case 'type':
      return `type ${shownTypedText(action)}`;
    case 'hotkey':
      return keysText(action.keys);
    case 'key_down':
      return `hold ${keysText(action.keys)}`;
    case 'key_up':
      return `release ${keysText(action.keys)}`;
    case 'wait':
      return `wait ${action.ms} ms`;
    case 'screenshot':
      return 'screenshot';
    case 'finished':
      return action.summary ? `finished: ${truncate(action.summary)}` : 'finished';
    case 'ask_user':
      return `ask: ${truncate(action.question)}`;
    case 'fail':
      return `fail: ${truncate(action.reason)}`;
    default:
      // A type this version does not know (a newer record): its name says enough.
      return truncate(String((action as { type: unknown }).type));
  }
}

function labelColour(action: Action): string {
  switch (action.type) {
    case 'type':
    case 'hotkey':
    case 'key_down':
    case 'key_up':
      return KEY_COLOUR;
    case 'scroll':
      return SCROLL_COLOUR;
    case 'click':
    case 'double_click':
    case 'triple_click':
    case 'mouse_down':
    case 'mouse_up':
    case 'drag':
      return BUTTON_COLOURS[action.button];
    case 'mouse_move':
      return MOVE_COLOUR;
    default:
      return CONTROL_COLOUR;
  }
}

const SCROLL_VECTORS = { up: { x: 0, y: -1 }, down: { x: 0, y: 1 }, left: { x: -1, y: 0 }, right: { x: 1, y: 0 } } as const;

/** Where the pointer is after an action, if the action says. */
function pointerAfter(action: Action): Point | null {
  switch (action.type) {
    case 'click':
    case 'double_click':
    case 'triple_click':
    case 'mouse_move':
      return { x: action.x, y: action.y };
    case 'mouse_down':
    case 'mouse_up':
    case 'scroll':
      return action.x !== undefined && action.y !== undefined ? { x: action.x, y: action.y } : null;
    case 'drag':
      return dragPath(action).at(-1) ?? null;
    default:
      return null;
  }
}

/** The marker of one action (without its label), and the point its label and cross belong to. */
function marker(d: Drawing, action: Action, pointer: Point | null): { svg: string; at: Point | null } {
  const { u } = d.scale;
  switch (action.type) {
    case 'click':
    case 'double_click':
    case 'triple_click': {
      const at = clampPoint({ x: action.x, y: action.y }, d.size);
      const colour = BUTTON_COLOURS[action.button];
      const rings = action.type === 'triple_click' ? 3 : action.type === 'double_click' ? 2 : 1;
      let svg = '';
      for (let index = rings - 1; index >= 0; index--) svg += ring(d, at, u * (2.2 + index * 0.9), colour);
      return { svg: svg + dot(d, at, u * 0.5, colour), at };
    }
    case 'mouse_move': {
      const at = clampPoint({ x: action.x, y: action.y }, d.size);
      return { svg: ring(d, at, u * 1.6, MOVE_COLOUR, true) + dot(d, at, u * 0.4, MOVE_COLOUR), at };
    }
    case 'mouse_down':
    case 'mouse_up': {
      const point = pointerAfter(action) ?? pointer;
      if (!point) return { svg: '', at: null };
      const at = clampPoint(point, d.size);
      const colour = BUTTON_COLOURS[action.button];
      return { svg: ring(d, at, u * 2.2, colour, action.type === 'mouse_up') + dot(d, at, u * 0.5, colour), at };
    }
    case 'drag': {
      const path = dragPath(action).map((p) => clampPoint(p, d.size));
      const colour = BUTTON_COLOURS[action.button];
      const start = path[0] as Point;
      return { svg: ring(d, start, u * 1.2, colour) + arrow(d, path, colour), at: path.at(-1) ?? start };
    }
    case 'scroll': {
      const origin = pointerAfter(action) ?? pointer ?? { x: d.size.width / 2, y: d.size.height / 2 };
      const at = clampPoint(origin, d.size);
      const vector = SCROLL_VECTORS[action.direction];
      const length = u * (4 + Math.min(action.amount, 10) * 0.6);
      const tip = clampPoint({ x: at.x + vector.x * length, y: at.y + vector.y * length }, d.size);
      return { svg: dot(d, at, u * 0.6, SCROLL_COLOUR) + arrow(d, [at, tip], SCROLL_COLOUR), at };
    }
    default:
      return { svg: '', at: null };
  }
}

/**
 * The overlay for one step as SVG markup, `size` being the screenshot's pixel size. Each action is
 * a `<g class="marker marker-<type>" data-action="<index>">`; a failed one also carries
 * `data-failed` and a red cross; one that never ran (when results are given) is drawn faded.
 */
export function actionOverlaySvg(imageSize: Size, actions: readonly Action[], results?: ResultSlots, options: OverlayOptions = {}): string {
  // The size may come from a record: whole positive pixels only, whatever it says.
  const size = { width: wholePixels(imageSize.width), height: wholePixels(imageSize.height) };
  const d: Drawing = { size, scale: scaleFor(size), labels: [] };
  const groups: string[] = [];
  const numbered = actions.length > 1;
  // Labels without a point of their own (typed text, keys) go where the pointer last was:
  // usually the field just clicked. Before any pointer action, they stack in the top-left corner.
  let pointer: Point | null = null;
  actions.forEach((action, index) => {
    const result = results?.[index] ?? undefined;
    const failed = result !== undefined && !result.ok;
    const skipped = results !== undefined && result === undefined && !isControlAction(action);
    const drawn = marker(d, action, pointer);
    let svg = drawn.svg;
    const prefix = numbered ? `${index + 1}. ` : '';
    const text = labelText(action);
    const colour = failed ? FAILURE_COLOUR : labelColour(action);
    let labelBox: Box | null = null;
    if (text || numbered || failed) {
      const anchor = drawn.at ?? (pointer ? clampPoint(pointer, size) : { x: d.scale.u, y: d.scale.u });
      const placed = label(d, anchor, `${prefix}${text || action.type}${failed ? ` ✗ ${result.error?.kind ?? 'error'}` : ''}`, colour, drawn.at !== null || pointer !== null);
      svg += placed.svg;
      labelBox = placed.box;
    }
    if (failed) {
      const at = drawn.at ?? (labelBox ? { x: labelBox.x + d.scale.u * 1.5, y: labelBox.y + labelBox.height / 2 } : null);
      if (at) svg += cross(d, at);
    }
    const attributes = [`class="marker marker-${escapeXml(action.type)}"`, `data-action="${index}"`, failed ? 'data-failed="true"' : '', skipped ? 'data-executed="false" opacity="0.45"' : ''];
    groups.push(`<g ${attributes.filter(Boolean).join(' ')}>${svg}</g>`);
    pointer = pointerAfter(action) ?? pointer;
  });
  const namespace = options.standalone ? ' xmlns="http://www.w3.org/2000/svg"' : '';
  const className = ['overlay', options.className].filter(Boolean).join(' ');
  return (
    `<svg${namespace} class="${escapeXml(className)}" width="${size.width}" height="${size.height}" viewBox="0 0 ${size.width} ${size.height}" preserveAspectRatio="none" aria-hidden="true">` +
    groups.join('') +
    `</svg>`
  );
}

/**
 * The screenshot with the step's actions drawn on it, as PNG. Pure: the same inputs give the same
 * bytes. Throws (from sharp) only when `image` is not a decodable image.
 */
export async function annotateScreenshot(image: Buffer, actions: readonly Action[], results?: ResultSlots): Promise<Buffer> {
  const sharp = await loadSharp();
  const { width, height } = await sharp(image).metadata();
  if (!width || !height) throw new Error('the screenshot has no size');
  const svg = actionOverlaySvg({ width, height }, actions, results, { standalone: true });
  return sharp(image)
    .composite([{ input: Buffer.from(svg), left: 0, top: 0 }])
    .png()
    .toBuffer();
}
