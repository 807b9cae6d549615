/**
 * `mnemo elements`: the active window's elements as the accessibility tree has them, with their
 * boxes on the screen and on the image the model would see of the display (the frame
 * `mnemo screenshot` prints, with the same limits). `--at X,Y` and `--find "role:name"` answer
 * with one element (`--at` by an element-at-point query, without a snapshot of the window). A display without an accessibility bus is a message saying how to have one
 * (exit 1); Mnemo then works from pixels alone.
 */
import type { Element, ElementSnapshot, SnapshotWindow } from '../../../shared/elements';
import type { Frame } from '../../../shared/frame';
import { describeElement, findElements, imageBoundsOf, parseFindQuery } from '../../operator/a11y/element-query';
import type { PointLookup } from '../../operator/a11y/snapshot';
import { fitImageSize } from '../../operator/geometry';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { operatorOrExplain } from '../operator-setup';

export interface ElementsOptions {
  json?: boolean;
  display?: number;
  at?: { x: number; y: number };
  find?: string;
  maxWidth?: number;
  maxHeight?: number;
  maxPixels?: number;
  budget?: number;
}

export async function elementsCommand(options: ElementsOptions): Promise<void> {
  if (options.at && options.find !== undefined) throw new InvalidInputError('--at and --find each pick one element: give one of them');
  const query = options.find !== undefined ? parseFindQuery(options.find) : undefined;
  if (query && !query.ok) throw new InvalidInputError(query.message);

  const frame = await modelFrame(options);
  if (!frame) {
    process.exitCode = ExitCode.errorResult;
    return;
  }
  const { openElementReader } = await import('../../operator/a11y/open-reader');
  const opening = await openElementReader(process.env);
  if (!opening.ok) {
    process.stderr.write(`mnemo: ${opening.message}\n  to read elements: ${opening.fix}\n`);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  if (options.at) {
    // One element-at-point query, not a snapshot of the whole window (a large page's costs half a second).
    const { DEFAULT_SNAPSHOT_BUDGET_MS } = await import('../../operator/a11y/snapshot');
    const found = await opening.opened.reader.elementAt(options.at, options.budget ?? DEFAULT_SNAPSHOT_BUDGET_MS).finally(() => opening.opened.close());
    const picked = found.ok ? pickedAt(found, options.at, frame) : ({ ok: false, message: found.message } as const);
    printPicked(picked, options.json === true);
    return;
  }
  const taken = await opening.opened.reader.snapshot({ frame, ...(options.budget ? { budgetMs: options.budget } : {}) }).finally(() => opening.opened.close());
  if (!taken.ok) {
    process.stderr.write(`mnemo: ${taken.message}\n`);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  const snapshot = taken.snapshot;
  if (snapshot.truncated) process.stderr.write(`mnemo: ${truncationNote(snapshot)}\n`);

  if (query) {
    printPicked(pickFound(snapshot, query.ok ? query.query : { role: '', name: '' }, options.find ?? ''), options.json === true);
    return;
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(snapshot)}\n`);
    return;
  }
  const { window } = snapshot;
  const { x, y, width, height } = window.bounds;
  process.stdout.write(`${window.role} "${window.name}" of ${window.app || 'an unnamed application'} at ${x},${y} ${width}x${height}: ${snapshot.elements.length} elements in ${snapshot.elapsedMs} ms (${snapshot.method})\n`);
  for (const element of snapshot.elements) process.stdout.write(`${describeElement(element)}${imageNote(element)}\n`);
}

type Picked = { ok: true; element: Element; note?: string } | { ok: false; message: string };

function printPicked(picked: Picked, json: boolean): void {
  if (!picked.ok) {
    process.stderr.write(`mnemo: ${picked.message}\n`);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  if (picked.note) process.stderr.write(`mnemo: ${picked.note}\n`);
  process.stdout.write(json ? `${JSON.stringify(picked.element)}\n` : `${describeElement(picked.element)}${imageNote(picked.element)}\n`);
}

function windowWords(window: SnapshotWindow): string {
  return `the active window (${window.role} "${window.name}")`;
}

/** The element the query found, its box put on the model's image as a snapshot's are. */
function pickedAt(found: Extract<PointLookup, { ok: true }>, point: { x: number; y: number }, frame: Frame): Picked {
  if (!found.element) return { ok: false, message: `no element of ${windowWords(found.window)} is at ${point.x},${point.y}` };
  const { imageBounds: _stale, ...element } = found.element;
  void _stale;
  const imageBounds = imageBoundsOf(element.bounds, frame);
  return { ok: true, element: { ...element, ...(imageBounds ? { imageBounds } : {}) } };
}

function pickFound(snapshot: ElementSnapshot, query: { role: string; name: string }, text: string): Picked {
  const [first, ...others] = findElements(snapshot.elements, query);
  if (!first) return { ok: false, message: `no element of ${windowWords(snapshot.window)} matches "${text}"` };
  const note = others.length > 0 ? `${others.length} more match "${text}": ${others.map((element) => element.n).join(', ')} (the first printed)` : undefined;
  return { ok: true, element: first, ...(note ? { note } : {}) };
}

function imageNote(element: Element): string {
  if (!element.imageBounds) return ' (off the image)';
  const { x, y, width, height } = element.imageBounds;
  return ` (image ${x},${y} ${width}x${height})`;
}

function truncationNote(snapshot: ElementSnapshot): string {
  const cut = snapshot.truncated;
  if (!cut) return '';
  return cut.reason === 'time'
    ? `the snapshot was cut after its ${cut.limit} ms budget: it holds the ${snapshot.elements.length} elements read by then (--budget gives it longer)`
    : `the snapshot was cut at ${cut.limit} elements`;
}

/** The frame of the image the model would see of the display, or undefined once the reason is printed. */
async function modelFrame(options: ElementsOptions): Promise<Frame | undefined> {
  const operator = await operatorOrExplain();
  if (!operator) return undefined;
  const listed = await operator.displays().finally(() => operator.close());
  if (!listed.ok) {
    process.stderr.write(`mnemo: ${listed.message}\n`);
    return undefined;
  }
  const display = options.display === undefined ? listed.displays.find((candidate) => candidate.primary) : listed.displays[options.display];
  if (!display) {
    process.stderr.write(`mnemo: there is no display ${options.display} (mnemo displays lists them)\n`);
    return undefined;
  }
  const anyLimit = options.maxWidth ?? options.maxHeight ?? options.maxPixels;
  const limits = {
    ...(options.maxWidth ?? anyLimit === undefined ? { maxWidth: options.maxWidth ?? 1280 } : {}),
    ...(options.maxHeight ? { maxHeight: options.maxHeight } : {}),
    ...(options.maxPixels ? { maxPixels: options.maxPixels } : {}),
  };
  const physical = { width: Math.round(display.bounds.width * display.scaleFactor), height: Math.round(display.bounds.height * display.scaleFactor) };
  const image = fitImageSize(physical, limits);
  return { displayId: display.id, bounds: display.bounds, scaleFactor: display.scaleFactor, captured: physical, image: { ...image, format: 'jpeg' } };
}
