/**
 * A snapshot of the active window's elements, read live from the applications over AT-SPI.
 *
 * How, and why so (each found by trying):
 * - Live calls only, never the `Cache` interface: an application's cache goes stale after a
 *   navigation, and would describe the page before.
 * - The active window only: `showing` ignores window stacking (an element of a window behind
 *   another still says it shows), so elements of other windows would be reported as on screen.
 *   The active window is the one whose state says `active`; else the one holding the focus; else
 *   the only window that shows.
 * - Collection.GetMatches where the application has it (one query for everything that shows, a
 *   few milliseconds for a form); a walk of the tree otherwise, descending only into what shows.
 * - Bounded time: past its budget a snapshot stops asking, keeps what it has, and says it was cut.
 *   One call that hangs costs at most its own time limit (AtspiClient).
 * - A password field's text is never asked for.
 */
import type { Frame, Rect } from '../../../shared/frame';
import type { Element, ElementSnapshot, SnapshotFailureKind, SnapshotResult, SnapshotWindow } from '../../../shared/elements';
import { REGISTRY, type AtspiClient, type ObjectAddress } from './atspi-client';
import { CONTAINER_ROLES, hasState, isInteractive, PASSWORD_ROLE, State, stateNames, TEXT_FIELD_ROLES } from './atspi-constants';
import { contains, elementAt as elementInList, imageBoundsOf, intersects } from './element-query';
import { nameFromLabels, ownName } from './label-names';

export interface SnapshotOptions {
  /** The image the model sees: each element's box is given on it too (`imageBounds`). */
  frame?: Frame;
  /** How long the snapshot may take before it is cut (default 2000 ms). */
  budgetMs?: number;
  /** The most elements it holds (default 500). */
  maxElements?: number;
  /** `auto` (default): Collection where the window has it, else a walk; `walk`: always walk (to compare, and for tests). */
  method?: 'auto' | 'walk';
}

export const DEFAULT_SNAPSHOT_BUDGET_MS = 2000;
export const DEFAULT_MAX_ELEMENTS = 500;
/** The most objects asked about: what a Collection query may return, or a walk may visit. */
const MAX_CANDIDATES = 8000;
/** Children of one object looked at in a walk (a list that manages thousands of rows shows a few). */
const MAX_CHILDREN = 400;
/** Calls in flight at once: enough to keep an application busy, few enough to stop soon at the deadline. */
const BATCH = 256;
const MAX_VALUE_CHARS = 500;
/** Roles whose value is a number (the Value interface). */
const NUMERIC_ROLES = new Set(['slider', 'spin button', 'progress bar', 'scroll bar', 'dial', 'level bar']);

const PATH_PREFIX = '/org/a11y/atspi/accessible/';
const COLLECTION_INTERFACE = 'org.a11y.atspi.Collection';

/** A ref names an object by its application and path: `:1.42/137` (the usual path shortened). */
export function refOf(address: ObjectAddress): string {
  return address.path.startsWith(PATH_PREFIX) ? `${address.app}/${address.path.slice(PATH_PREFIX.length)}` : `${address.app}${address.path}`;
}

export function addressOfRef(ref: string): ObjectAddress | undefined {
  const slash = ref.indexOf('/');
  if (slash <= 0) return undefined;
  const app = ref.slice(0, slash);
  const rest = ref.slice(slash + 1);
  if (rest === '') return undefined;
  return { app, path: rest.includes('/') ? `/${rest}` : `${PATH_PREFIX}${rest}` };
}

export type RefResolution =
  | { ok: true; bounds: Rect; states: string[] }
  | { ok: false; kind: 'stale'; message: string };

/**
 * An element read back after an action: its box and states, and what it holds now: a field's
 * text (`value`), or for a password field only how many characters (`length`), never the text.
 */
export type ReadBack =
  | { ok: true; bounds: Rect; states: string[]; value?: string; length?: number }
  | { ok: false; kind: 'stale'; message: string };

/**
 * The element under a screen point (`ElementReader.elementAt`): found by asking the applications
 * down from the active window (`point`), or, where they cannot say, from a snapshot (`snapshot`);
 * `element` undefined when nothing of the active window is there.
 */
export type PointLookup =
  | { ok: true; element: Element | undefined; method: 'point' | 'snapshot'; /** The active window the point was looked for in. */ window: SnapshotWindow }
  | { ok: false; kind: SnapshotFailureKind; message: string };

/** An element-at-point query's default time: a few round trips, against a snapshot's whole window. */
export const DEFAULT_POINT_BUDGET_MS = 1000;
/** The deepest an element-at-point descent goes (a page's nesting is far shallower). */
const MAX_POINT_DEPTH = 64;
/** Parents an application's hit test skipped that are looked at again (a button around its text, a link around its words). */
const MAX_SKIPPED_PARENTS = 8;

interface Described {
  address: ObjectAddress;
  role: string;
  states: number[];
  name: string;
  bounds: Rect;
}

interface FoundWindow extends SnapshotWindow {
  address: ObjectAddress;
  /** Its application answers Collection queries (GTK and Chromium do; some toolkits do not). */
  collection: boolean;
}

class Deadline {
  constructor(
    private readonly at: number,
    private readonly now: () => number,
  ) {}
  get passed(): boolean {
    return this.now() >= this.at;
  }
  get remainingMs(): number {
    return Math.max(1, this.at - this.now());
  }
}

export class ElementReader {
  /** Role numbers to names, learnt from the applications (the same for all of them). */
  private readonly roleNames = new Map<number, string>();

  constructor(
    private readonly client: AtspiClient,
    /** The display read, as snapshots name it. */
    private readonly display: string,
    private readonly now: () => number = () => performance.now(),
    private readonly wallClock: () => number = Date.now,
  ) {}

  async snapshot(options: SnapshotOptions = {}): Promise<SnapshotResult> {
    const started = this.now();
    const budgetMs = options.budgetMs ?? DEFAULT_SNAPSHOT_BUDGET_MS;
    const deadline = new Deadline(started + budgetMs, this.now);
    // Bounded too (applications that hang cost each call its time limit): within the budget, or
    // the default one when the budget is shorter, so a short budget cuts the elements, not the window.
    const windowLimitMs = Math.max(budgetMs, DEFAULT_SNAPSHOT_BUDGET_MS);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<{ ok: false; kind: 'failed'; message: string }>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, kind: 'failed', message: `the accessibility tree of display ${this.display} did not name its active window within ${windowLimitMs} ms (an application not answering?)` }), windowLimitMs);
    });
    const found = await Promise.race([this.activeWindow(), late]).finally(() => clearTimeout(timer));
    if (!found.ok) return found;
    const window = found.window;

    const method: ElementSnapshot['method'] = options.method !== 'walk' && window.collection ? 'collection' : 'walk';
    let cut: ElementSnapshot['truncated'];
    let candidates: ObjectAddress[];
    if (method === 'collection') {
      // No answer within the budget: cut, with nothing (a walk would take longer still).
      const matched = await this.client.matches(window.address, { states: [State.showing] }, MAX_CANDIDATES, deadline.remainingMs);
      if (matched === undefined) cut = { reason: 'time', limit: budgetMs };
      candidates = matched ?? [];
    } else {
      const walked = await this.walk(window.address, deadline);
      candidates = walked.addresses;
      if (walked.cut) cut = { reason: 'time', limit: budgetMs };
    }
    if (candidates.length >= MAX_CANDIDATES) cut ??= { reason: 'count', limit: MAX_CANDIDATES };

    const described: Described[] = [];
    for (let start = 0; start < candidates.length; start += BATCH) {
      if (deadline.passed) {
        cut = { reason: 'time', limit: budgetMs };
        break;
      }
      // Containers are never kept: their role alone is asked (describing costs three calls more).
      described.push(...(await this.describeAll(candidates.slice(start, start + BATCH), (role) => !CONTAINER_ROLES.has(role))));
    }

    const kept = inReadingOrder(described.filter((item) => keep(item, window.bounds)));
    const maxElements = options.maxElements ?? DEFAULT_MAX_ELEMENTS;
    if (kept.length > maxElements) cut ??= { reason: 'count', limit: maxElements };
    const shown = kept.slice(0, maxElements);
    const values = deadline.passed ? shown.map(() => undefined) : await Promise.all(shown.map((item) => this.valueOf(item)));
    const elements = nameFromLabels(shown.map((item, index): Element => {
      const value = values[index];
      const imageBounds = options.frame ? imageBoundsOf(item.bounds, options.frame) : undefined;
      return {
        n: index + 1,
        ref: refOf(item.address),
        role: item.role,
        name: item.name,
        ...(value !== undefined ? { value } : {}),
        states: stateNames(item.states),
        bounds: item.bounds,
        ...(imageBounds ? { imageBounds } : {}),
        interactive: isInteractive(item.role, item.states),
      };
    }));
    return {
      ok: true,
      snapshot: {
        display: this.display,
        takenAt: this.wallClock(),
        elapsedMs: Math.round(this.now() - started),
        method,
        window: describedWindow(window),
        elements,
        ...(cut ? { truncated: cut } : {}),
        ...(options.frame ? { frame: options.frame } : {}),
      },
    };
  }

  /** How many applications are on the bus; undefined when the registry does not answer. */
  async applicationCount(): Promise<number | undefined> {
    return (await this.client.children(REGISTRY))?.length;
  }

  /**
   * What the tree says of a ref now: its box and states, or `stale` when the object is gone,
   * defunct, no longer shows, or is now another element (its role or name changed).
   */
  async resolve(element: Pick<Element, 'ref' | 'role' | 'name' | 'nameFrom'>): Promise<RefResolution> {
    const stale = (why: string): RefResolution => ({ ok: false, kind: 'stale', message: `the element ${element.role} "${element.name}" (${element.ref}) is stale: ${why}; take a new snapshot` });
    const address = addressOfRef(element.ref);
    if (!address) return stale('its ref is not one a snapshot gives');
    const [described] = await this.describeAll([address]);
    if (!described) return stale('the application no longer has it');
    if (hasState(described.states, State.defunct)) return stale('it was removed');
    if (!hasState(described.states, State.showing)) return stale('it no longer shows');
    // A name taken from a label beside the element is not the tree's: the tree's own (empty) one is compared.
    if (described.role !== element.role || described.name !== ownName(element)) return stale(`it is now ${described.role} "${described.name}"`);
    return { ok: true, bounds: described.bounds, states: stateNames(described.states) };
  }

  /**
   * The named elements a ref's element is inside, outermost first, as `role:name` (a form's
   * document, its window): what tells apart two elements of one role and name, and stays when a
   * page is restyled. Unnamed containers (a page's many sections) are left out; empty when the
   * ref is stale. At most `limit` parents are asked.
   */
  async ancestry(ref: string, limit = 40): Promise<string[]> {
    const path: string[] = [];
    let address = addressOfRef(ref);
    for (let depth = 0; address && depth < limit; depth++) {
      const parent = await this.client.parent(address);
      if (!parent || parent.path === REGISTRY.path) break;
      const [described] = await this.describeAll([parent]);
      // The application itself is not part of where the element is.
      if (!described || described.role === 'application') break;
      if (described.name.trim() !== '') path.unshift(`${described.role}:${described.name}`);
      address = parent;
    }
    return path;
  }

  /**
   * The element holding the keyboard focus in the active window, as a snapshot describes it (its
   * number 1: it is the only one): one Collection query instead of a whole snapshot, for the read-back
   * of typing. Undefined when nothing holds the focus, the window has no Collection, or the tree
   * did not answer within `budgetMs`.
   */
  async focused(budgetMs = DEFAULT_SNAPSHOT_BUDGET_MS): Promise<Element | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), budgetMs)));
    const look = async (): Promise<Element | undefined> => {
      const found = await this.activeWindow();
      if (!found.ok || !found.window.collection) return undefined;
      const [address] = (await this.client.matches(found.window.address, { states: [State.focused, State.showing] }, 1, budgetMs)) ?? [];
      if (!address) return undefined;
      const [item] = await this.describeAll([address]);
      if (!item) return undefined;
      const value = await this.valueOf(item);
      return { n: 1, ref: refOf(item.address), role: item.role, name: item.name, ...(value !== undefined ? { value } : {}), states: stateNames(item.states), bounds: item.bounds, interactive: isInteractive(item.role, item.states) };
    };
    return Promise.race([look(), late]).finally(() => clearTimeout(timer));
  }

  /**
   * The element under a screen point, without a snapshot: from the active window down, each
   * application asked which of its children holds the point (Component.GetAccessibleAtPoint),
   * to the deepest; of that chain the deepest element a user acts on, else the deepest a snapshot
   * would keep (named text). A few round trips where a snapshot describes the whole window.
   *
   * The snapshot answers instead (`method: "snapshot"`) where the descent cannot: the window's
   * application does not answer the question, the descent stops at a document or a container with
   * nothing in it there (a page's hit test answered from a stale cache), or the element found has no name of
   * its own (a field named only by the label beside it, which a snapshot supplies). Bounded
   * by `budgetMs`, the fallback included: past it, a failure as a value.
   */
  async elementAt(point: { x: number; y: number }, budgetMs = DEFAULT_POINT_BUDGET_MS): Promise<PointLookup> {
    const deadline = new Deadline(this.now() + budgetMs, this.now);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<PointLookup>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, kind: 'failed', message: `the accessibility tree of display ${this.display} did not say what is at ${point.x},${point.y} within ${budgetMs} ms` }), budgetMs);
    });
    return Promise.race([this.descendTo(point, deadline), late]).finally(() => clearTimeout(timer));
  }

  private async descendTo(point: { x: number; y: number }, deadline: Deadline): Promise<PointLookup> {
    const found = await this.activeWindow();
    if (!found.ok) return found;
    const { window } = found;
    const answer = (element: Element | undefined): PointLookup => ({ ok: true, element, method: 'point', window: describedWindow(window) });
    if (window.bounds.width > 0 && !contains(window.bounds, point)) return answer(undefined);
    const chain: ObjectAddress[] = [];
    let current = window.address;
    for (let depth = 0; depth < MAX_POINT_DEPTH && !deadline.passed; depth++) {
      const child = await this.client.accessibleAtPoint(current, point, deadline.remainingMs);
      // The window's application does not answer the question: the snapshot knows.
      if (child === undefined && depth === 0) return this.fromSnapshot(point, deadline);
      if (!child || (child.app === current.app && child.path === current.path)) break;
      chain.push(child);
      current = child;
    }
    const chained = await this.withSkippedParents(await this.describeAll(chain), window.address);
    const described = chained.filter((item) => keep(item, window.bounds) && contains(item.bounds, point));
    const interactive = described.filter((item) => isInteractive(item.role, item.states));
    const item = interactive[interactive.length - 1] ?? described[described.length - 1];
    if (!item) {
      // Chromium answers a page's hit test from the last one it made (asynchronously) while that
      // one's box holds the point: often the whole document, or a section. Stopped at a document
      // or a container, the descent may have been told too little: the snapshot knows.
      const last = chained[chained.length - 1];
      return last && (last.role.startsWith('document') || CONTAINER_ROLES.has(last.role)) ? this.fromSnapshot(point, deadline) : answer(undefined);
    }
    // Only a snapshot sees the label beside a field the tree leaves unnamed.
    if (item.name.trim() === '' && isInteractive(item.role, item.states)) return this.fromSnapshot(point, deadline);
    const value = await this.valueOf(item);
    return answer({ n: 1, ref: refOf(item.address), role: item.role, name: item.name, ...(value !== undefined ? { value } : {}), states: stateNames(item.states), bounds: item.bounds, interactive: isInteractive(item.role, item.states) });
  }

  /**
   * An application may answer a hit test with its deepest element at once, skipping levels:
   * Chromium's page gives the text inside a button, not the button. When the deepest found is
   * not something a user acts on, its parents the descent skipped are put back (at most
   * MAX_SKIPPED_PARENTS), so the button it is part of can be chosen.
   */
  private async withSkippedParents(chain: Described[], window: ObjectAddress): Promise<Described[]> {
    const deepest = chain[chain.length - 1];
    if (!deepest || isInteractive(deepest.role, deepest.states)) return chain;
    const known = new Set([refOf(window), ...chain.map((item) => refOf(item.address))]);
    const skipped: ObjectAddress[] = [];
    let address: ObjectAddress | undefined = deepest.address;
    while (skipped.length < MAX_SKIPPED_PARENTS) {
      address = await this.client.parent(address);
      if (!address || known.has(refOf(address))) break;
      skipped.unshift(address);
    }
    if (skipped.length === 0) return chain;
    return [...chain.slice(0, -1), ...(await this.describeAll(skipped)), deepest];
  }

  private async fromSnapshot(point: { x: number; y: number }, deadline: Deadline): Promise<PointLookup> {
    const taken = await this.snapshot({ budgetMs: deadline.remainingMs });
    if (!taken.ok) return taken;
    return { ok: true, element: elementInList(taken.snapshot.elements, point), method: 'snapshot', window: taken.snapshot.window };
  }

  /** `resolve`, and what the element holds now (a password field: its length only). */
  async readBack(element: Pick<Element, 'ref' | 'role' | 'name' | 'nameFrom'>): Promise<ReadBack> {
    const resolved = await this.resolve(element);
    if (!resolved.ok) return resolved;
    const address = addressOfRef(element.ref) as ObjectAddress;
    if (element.role === PASSWORD_ROLE) {
      const length = await this.client.characterCount(address);
      return { ...resolved, ...(length !== undefined ? { length } : {}) };
    }
    const text = await this.client.text(address);
    return { ...resolved, ...(text !== undefined ? { value: text } : {}) };
  }

  private async activeWindow(): Promise<{ ok: true; window: FoundWindow } | { ok: false; kind: 'no_window' | 'failed'; message: string }> {
    const apps = await this.client.children(REGISTRY);
    if (apps === undefined) return { ok: false, kind: 'failed', message: `the accessibility registry of display ${this.display} did not answer` };
    const windowLists = await Promise.all(apps.map((app) => this.client.children(app)));
    const windows = windowLists.flatMap((list) => list ?? []);
    const states = await Promise.all(windows.map((window) => this.client.states(window)));
    const showing = windows.filter((_, index) => {
      const set = states[index];
      return set !== undefined && hasState(set, State.showing) && !hasState(set, State.defunct);
    });
    const stateOf = (window: ObjectAddress) => states[windows.indexOf(window)] ?? [];
    const active = showing.filter((window) => hasState(stateOf(window), State.active));
    let chosen: ObjectAddress | undefined;
    let chosenBy: SnapshotWindow['chosenBy'] = 'active';
    if (active.length === 1) chosen = active[0];
    else {
      // Several claim to be active (one of them stale) or none does (no window manager): the focus decides.
      const pool = active.length > 1 ? active : showing;
      const focused = await Promise.all(pool.map((window) => this.client.matches(window, { states: [State.focused, State.showing] }, 1)));
      const holder = pool.find((_, index) => (focused[index]?.length ?? 0) > 0);
      if (holder) {
        chosen = holder;
        chosenBy = active.length > 1 ? 'active' : 'focus';
      } else if (active.length > 1) chosen = active[active.length - 1];
      else {
        const sized = await Promise.all(showing.map((window) => this.client.extents(window)));
        const visible = showing.filter((_, index) => (sized[index]?.width ?? 0) > 0 && (sized[index]?.height ?? 0) > 0);
        if (visible.length === 1) {
          chosen = visible[0];
          chosenBy = 'only';
        }
      }
    }
    if (!chosen) {
      const what = showing.length === 0 ? 'no application window shows' : `${showing.length} windows show and none is active or holds the focus`;
      return { ok: false, kind: 'no_window', message: `no active window on display ${this.display} in the accessibility tree (${apps.length} applications): ${what}` };
    }
    const [[described], appName, interfaces] = await Promise.all([this.describeAll([chosen]), this.client.name({ app: chosen.app, path: REGISTRY.path }), this.client.interfaces(chosen)]);
    return {
      ok: true,
      window: {
        address: chosen,
        collection: interfaces?.includes(COLLECTION_INTERFACE) ?? false,
        app: appName ?? '',
        role: described?.role ?? 'window',
        name: described?.name ?? '',
        bounds: described?.bounds ?? { x: 0, y: 0, width: 0, height: 0 },
        chosenBy,
      },
    };
  }

  /** The showing descendants of `root` in document order, visiting only what shows. */
  private async walk(root: ObjectAddress, deadline: Deadline): Promise<{ addresses: ObjectAddress[]; cut: boolean }> {
    interface Visited {
      address: ObjectAddress;
      key: number[];
    }
    const found: Visited[] = [];
    let frontier: Visited[] = [{ address: root, key: [] }];
    while (frontier.length > 0 && found.length < MAX_CANDIDATES) {
      const next: Visited[] = [];
      for (let start = 0; start < frontier.length; start += BATCH) {
        if (deadline.passed) return { addresses: inOrder(found), cut: true };
        const batch = frontier.slice(start, start + BATCH);
        const childLists = await Promise.all(batch.map((parent) => this.client.children(parent.address)));
        const children = batch.flatMap((parent, index) => (childLists[index] ?? []).slice(0, MAX_CHILDREN).map((address, position): Visited => ({ address, key: [...parent.key, position] })));
        const childStates = await Promise.all(children.map((child) => this.client.states(child.address)));
        children.forEach((child, index) => {
          const set = childStates[index];
          if (!set || !hasState(set, State.showing)) return;
          found.push(child);
          next.push(child);
        });
      }
      frontier = next;
    }
    return { addresses: inOrder(found), cut: false };

    function inOrder(visited: Visited[]): ObjectAddress[] {
      return [...visited].sort((a, b) => compareKeys(a.key, b.key)).map((item) => item.address);
    }
  }

  /** Role, states, name and box of each object, those whose role `wanted` refuses left out after their role. */
  private async describeAll(addresses: readonly ObjectAddress[], wanted: (role: string) => boolean = () => true): Promise<Described[]> {
    const roles = await Promise.all(addresses.map((address) => this.client.role(address)));
    // Role names, learnt once per role number from the first object that has it.
    const unknown = new Map<number, ObjectAddress>();
    roles.forEach((role, index) => {
      if (role !== undefined && !this.roleNames.has(role) && !unknown.has(role)) unknown.set(role, addresses[index] as ObjectAddress);
    });
    await Promise.all(
      [...unknown].map(async ([role, address]) => {
        const name = await this.client.roleName(address);
        if (name !== undefined) this.roleNames.set(role, name);
      }),
    );
    const chosen = addresses.flatMap((address, index) => {
      const number = roles[index];
      if (number === undefined) return [];
      const role = this.roleNames.get(number) ?? `role ${number}`;
      return wanted(role) ? [{ address, role }] : [];
    });
    const answers = await Promise.all(chosen.map(({ address }) => Promise.all([this.client.states(address), this.client.name(address), this.client.extents(address)])));
    const described: Described[] = [];
    chosen.forEach(({ address, role }, index) => {
      const [states, name, bounds] = answers[index] ?? [];
      if (states === undefined || bounds === undefined) return;
      described.push({ address, role, states, name: name ?? '', bounds });
    });
    return described;
  }

  private async valueOf(item: Described): Promise<string | undefined> {
    if (item.role === PASSWORD_ROLE) return undefined;
    if (NUMERIC_ROLES.has(item.role) && item.role !== 'spin button') {
      const number = await this.client.currentValue(item.address);
      return number === undefined ? undefined : String(number);
    }
    if (TEXT_FIELD_ROLES.has(item.role) || hasState(item.states, State.editable)) {
      const text = await this.client.text(item.address);
      return text === undefined ? undefined : text.slice(0, MAX_VALUE_CHARS);
    }
    return undefined;
  }
}

/** The window as a snapshot describes it: without where it is on the bus or what it answers. */
function describedWindow(window: FoundWindow): SnapshotWindow {
  const { app, role, name, bounds, chosenBy } = window;
  return { app, role, name, bounds, chosenBy };
}

/** Kept in a snapshot: it shows inside the window, and a user acts on it or reads it. */
function keep(item: Described, window: Rect): boolean {
  if (item.bounds.width <= 0 || item.bounds.height <= 0) return false;
  if (hasState(item.states, State.defunct)) return false;
  if (window.width > 0 && !intersects(item.bounds, window)) return false;
  if (isInteractive(item.role, item.states)) return true;
  return item.name.trim() !== '' && !CONTAINER_ROLES.has(item.role);
}

/**
 * Rows top to bottom, each left to right: the order a person reads a window in, and the same
 * whichever order the application lists its objects in (GTK lists a box's children backwards).
 * A row is the elements whose vertical centres lie within half an element's height of its first.
 */
function inReadingOrder(items: readonly Described[]): Described[] {
  const centre = (item: Described) => item.bounds.y + item.bounds.height / 2;
  const byCentre = [...items].sort((a, b) => centre(a) - centre(b));
  const rows: Described[][] = [];
  for (const item of byCentre) {
    const row = rows[rows.length - 1];
    const first = row?.[0];
    const tolerance = first ? Math.max(4, Math.min(first.bounds.height, item.bounds.height) / 2) : 0;
    if (row && first && centre(item) - centre(first) <= tolerance) row.push(item);
    else rows.push([item]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.bounds.x - b.bounds.x));
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const difference = (a[index] as number) - (b[index] as number);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}
