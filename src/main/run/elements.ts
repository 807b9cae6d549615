/**
 * The run's elements: what the accessibility tree says about the actions of a run (issue 30).
 *
 * - The step's snapshot (`look`), taken with the observation when the elements aid is on: the
 *   numbers `click_element` and `type_into` name are its numbers.
 * - `click_element(n)` and `type_into(n, text)` act where the tree says element n is now (its ref
 *   read again): a ref the tree no longer has is a `stale_element` failure, never a click
 *   somewhere else.
 * - Every click names the element it hit ("clicked push button "Submit""), from the step's
 *   snapshot while the screen is as it was, else from one bounded query.
 * - Checked outcomes: after typing into an editable element its value is read back (a password
 *   field's length only); after a click on a toggle its checked state. A mismatch is part of the
 *   result (`check`, ok false), told to the model and shown in the step.
 *
 * Reading the tree is never worth failing an action for: a query that fails or runs out of time
 * leaves the result as the operator gave it.
 */
import type { Action, ActionOf, ScreenPoint } from '../../shared/actions';
import { actionFailure, type ActedElement, type ActionResult, type ActionSuccess, type OutcomeCheck } from '../../shared/action-result';
import type { Element, ElementSnapshot, SnapshotResult } from '../../shared/elements';
import type { Frame, Rect } from '../../shared/frame';
import { elementAt } from '../operator/a11y/element-query';
import type { PointLookup, ReadBack, RefResolution, SnapshotOptions } from '../operator/a11y/snapshot';
import { imageToScreen, screenFrame } from '../operator/geometry';
import { changesScreen } from './batch-guard';

/** What the run asks of the accessibility tree (an ElementReader of the run's display). */
export interface ElementSource {
  snapshot(options?: SnapshotOptions): Promise<SnapshotResult>;
  /** The element holding the keyboard focus, by one query (undefined when it cannot be said so cheaply). */
  focused?(budgetMs?: number): Promise<Element | undefined>;
  resolve(element: Pick<Element, 'ref' | 'role' | 'name' | 'nameFrom'>): Promise<RefResolution>;
  readBack(element: Pick<Element, 'ref' | 'role' | 'name' | 'nameFrom'>): Promise<ReadBack>;
  /** The element under a screen point, by a few queries instead of a snapshot (absent: a snapshot is taken). */
  elementAt?(point: ScreenPoint, budgetMs?: number): Promise<PointLookup>;
  /** The named elements a ref's element sits in, outermost first (`role:name`): what tells two alike apart. */
  ancestry?(ref: string): Promise<string[]>;
}

/** Carries out one plain action on the desktop (the operator's execute). */
export type ActOnDesktop = (action: Action, frame: Frame) => Promise<ActionResult>;

export interface RunElementsOptions {
  /** The step's snapshot: how long it may take before it is cut. */
  stepBudgetMs: number;
  /** One query for the element under a click or the focus, when the step has no snapshot that still holds. */
  queryBudgetMs: number;
  /** How long a read-back waits for the application to show the expected value or state (polled). */
  readBackMs: number;
  pollMs: number;
}

export const DEFAULT_RUN_ELEMENTS_OPTIONS: RunElementsOptions = { stepBudgetMs: 1500, queryBudgetMs: 1000, readBackMs: 3000, pollMs: 50 };

/** Roles whose click flips a checked (or pressed) state. */
const TOGGLE_ROLES = new Set(['check box', 'toggle button', 'radio button', 'check menu item', 'radio menu item', 'switch']);
/** Roles whose text is typed into. */
const EDITABLE_ROLES = new Set(['entry', 'text', 'password text', 'combo box', 'spin button', 'date editor', 'terminal', 'document text']);
const PASSWORD_ROLE = 'password text';

export type LookResult = { ok: true; snapshot: ElementSnapshot } | { ok: false; message: string; /** The first failure of the run: say it (later ones are not said again). */ first: boolean };

/** `push button "Submit"`: an element as the model and the person are told of it. */
export function nameOfElement(element: Pick<Element, 'role' | 'name'>): string {
  return element.name.trim() === '' ? element.role : `${element.role} ${JSON.stringify(element.name)}`;
}

export class RunElements {
  /** The latest snapshot and whether an action since may have changed what it shows. */
  private current: { snapshot: ElementSnapshot; dated: boolean } | undefined;
  private failedBefore = false;
  /**
   * The editable element the last click hit: typing next goes there, though the tree may report
   * the focus moving a moment after the click (so the focus is polled for, not read once).
   */
  private clickedField: Element | undefined;
  private readonly options: RunElementsOptions;

  constructor(
    private readonly source: ElementSource,
    options: Partial<RunElementsOptions> = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.options = { ...DEFAULT_RUN_ELEMENTS_OPTIONS, ...options };
  }

  /**
   * The tree as a saved workflow reads it to refind its steps' elements (a run_workflow inside
   * the run): undefined when the source cannot say an element's ancestry.
   */
  get workflowTree(): { snapshot: ElementSource['snapshot']; ancestry: (ref: string) => Promise<string[]> } | undefined {
    const { source } = this;
    const ancestry = source.ancestry?.bind(source);
    return ancestry ? { snapshot: (options) => source.snapshot(options), ancestry } : undefined;
  }

  /** The snapshot the step's element numbers are of; undefined when the step has none. */
  get snapshot(): ElementSnapshot | undefined {
    return this.current?.snapshot;
  }

  /**
   * The step's snapshot, taken with its observation, its `imageBounds` on the observation's image.
   * A failure is a value; only the run's first one asks to be said.
   */
  async look(frame: Frame): Promise<LookResult> {
    this.current = undefined;
    this.clickedField = undefined;
    const taken = await this.source.snapshot({ frame, budgetMs: this.options.stepBudgetMs });
    if (taken.ok) {
      this.current = { snapshot: taken.snapshot, dated: false };
      return { ok: true, snapshot: taken.snapshot };
    }
    const first = !this.failedBefore;
    this.failedBefore = true;
    return { ok: false, message: taken.message, first };
  }

  /** A snapshot someone else took and numbered (an MCP client's): the numbers of the next actions are its. */
  adopt(snapshot: ElementSnapshot): void {
    this.current = { snapshot, dated: false };
  }

  /** A step without the aid: no numbers to act on, and the last snapshot says nothing of this screen. */
  forget(): void {
    this.current = undefined;
  }

  /** Carries the action out with `act`, naming the element it hit and reading back what it changed. */
  async execute(action: Action, frame: Frame, act: ActOnDesktop): Promise<ActionResult> {
    let result: ActionResult;
    switch (action.type) {
      case 'click_element':
      case 'type_into':
        result = await this.onElement(action, frame, act);
        break;
      case 'click':
      case 'double_click':
      case 'triple_click':
        result = await this.click(action, frame, act);
        break;
      case 'type':
        result = await this.type(action, frame, act);
        break;
      default:
        result = await act(action, frame);
    }
    if (this.current && changesScreen(action)) this.current.dated = true;
    return result;
  }

  private async onElement(action: ActionOf<'click_element' | 'type_into'>, frame: Frame, act: ActOnDesktop): Promise<ActionResult> {
    const started = this.now();
    const list = this.current?.snapshot;
    if (!list) return actionFailure('stale_element', `there is no element list for this screen, so element ${action.n} cannot be found: look again (the next screenshot comes with its elements)`, action.type);
    const element = list.elements.find((candidate) => candidate.n === action.n);
    if (!element) return actionFailure('invalid_action', `there is no element ${action.n} in this step's list (1 to ${list.elements.length})`, action.type);
    const now = await this.source.resolve(element);
    if (!now.ok) {
      const why = /is stale: (.*?)(?:; take a new snapshot)?$/.exec(now.message)?.[1] ?? now.message;
      return actionFailure('stale_element', `element ${action.n} (${nameOfElement(element)}) is stale: ${why}; look again at the next screenshot and its elements before acting on it`, action.type);
    }
    const target = clickPoint(now.bounds, frame.bounds);
    if (!target) return actionFailure('out_of_bounds', `element ${action.n} (${nameOfElement(element)}) is not on the screen the step shows`, action.type);
    const acted: ActedElement = { role: element.role, name: element.name, n: element.n, bounds: now.bounds };
    // Its centre, in the screen's own pixels: nothing is lost to the model image's scale.
    const onScreen = screenFrame(frame.bounds, frame.displayId, frame.scaleFactor);
    const pointAt = { x: target.x - frame.bounds.x, y: target.y - frame.bounds.y };
    const toggled = action.type === 'click_element' ? toggleState(element.role, now.states) : undefined;
    const clicked = await act({ type: 'click', x: pointAt.x, y: pointAt.y, button: 'left' }, onScreen);
    if (!clicked.ok) return { ...clicked, type: action.type };
    if (action.type === 'click_element') {
      const check = toggled === undefined ? undefined : await this.checkToggle(element, toggled);
      return success(action.type, clicked, started, this.now(), `clicked ${nameOfElement(element)}`, acted, check);
    }
    // type_into: what the field held is replaced (select all, then type).
    const selected = await act({ type: 'hotkey', keys: ['ctrl', 'a'] }, onScreen);
    if (!selected.ok) return { ...selected, type: action.type };
    const typed = await act({ type: 'type', text: action.text, ...(action.secret ? { secret: true } : {}) }, onScreen);
    if (!typed.ok) return { ...typed, type: action.type };
    const check = await this.checkTyped(element, action.text, action.secret === true, { replaced: true });
    return success(action.type, clicked, started, this.now(), `typed ${[...action.text].length} characters into ${nameOfElement(element)}`, acted, check);
  }

  private async click(action: ActionOf<'click' | 'double_click' | 'triple_click'>, frame: Frame, act: ActOnDesktop): Promise<ActionResult> {
    const mapped = imageToScreen({ x: action.x, y: action.y }, frame);
    const hit = mapped.ok ? await this.elementUnder(mapped.point) : undefined;
    const toggled = hit && action.type === 'click' && action.button === 'left' ? toggleState(hit.element.role, hit.element.states) : undefined;
    const result = await act(action, frame);
    this.clickedField = result.ok && hit && isEditable(hit.element) ? hit.element : undefined;
    if (!result.ok || !hit) return result;
    const { element, numbered } = hit;
    const acted: ActedElement = { role: element.role, name: element.name, ...(numbered ? { n: element.n } : {}), bounds: element.bounds };
    const check = toggled === undefined ? undefined : await this.checkToggle(element, toggled);
    const verb = action.type === 'click' ? 'clicked' : action.type === 'double_click' ? 'double-clicked' : 'triple-clicked';
    return withElement(result, `${verb} ${nameOfElement(element)}`, acted, check);
  }

  private async type(action: ActionOf<'type'>, frame: Frame, act: ActOnDesktop): Promise<ActionResult> {
    const focused = await this.focusedField();
    // Only when the tree says where the text goes, and the text is one a field keeps as typed (Enter and Tab act instead).
    const before = focused && !/[\n\t\r]/.test(action.text) ? await this.source.readBack(focused) : undefined;
    const result = await act(action, frame);
    if (!result.ok || !focused || !before?.ok) return result;
    const check = await this.checkTyped(focused, action.text, action.secret === true, { replaced: false, before });
    return withElement(result, `typed into ${nameOfElement(focused)}`, { role: focused.role, name: focused.name, bounds: before.bounds }, check);
  }

  /**
   * The element under a screen point: from the step's snapshot while it holds (its number then
   * said), else by one element-at-point query (a few round trips, where a snapshot of a large page
   * takes half a second), else a snapshot.
   */
  private async elementUnder(point: ScreenPoint): Promise<{ element: Element; numbered: boolean } | undefined> {
    if ((!this.current || this.current.dated) && this.source.elementAt) {
      const found = await this.source.elementAt(point, this.options.queryBudgetMs);
      return found.ok && found.element ? { element: found.element, numbered: false } : undefined;
    }
    const elements = await this.elementsNow();
    if (!elements) return undefined;
    const element = elementAt(elements.list, point);
    return element ? { element, numbered: elements.numbered } : undefined;
  }

  /**
   * The editable element holding the focus, if the tree says there is one: from the step's list
   * while it holds, else a focus query (a snapshot where the tree has none). Right after a click on
   * a field the query is repeated until the tree has the focus on an editable element.
   */
  private async focusedField(): Promise<Element | undefined> {
    const editable = (element: Element | undefined): element is Element => element !== undefined && element.states.includes('focused') && isEditable(element);
    const clicked = this.clickedField;
    this.clickedField = undefined;
    if ((!this.current || this.current.dated) && this.source.focused) {
      const query = () => (this.source.focused as NonNullable<ElementSource['focused']>)(this.options.queryBudgetMs);
      const focused = clicked ? await this.poll(editable, query) : await query();
      if (focused) return editable(focused) ? namedAsClicked(focused, clicked) : undefined;
    }
    const elements = await this.elementsNow();
    return elements?.list.find(editable);
  }

  private async elementsNow(): Promise<{ list: readonly Element[]; numbered: boolean } | undefined> {
    if (this.current && !this.current.dated) return { list: this.current.snapshot.elements, numbered: true };
    const taken = await this.source.snapshot({ budgetMs: this.options.queryBudgetMs });
    return taken.ok ? { list: taken.snapshot.elements, numbered: false } : undefined;
  }

  /** After a click on a toggle: its state flipped (a radio button: it is now checked). */
  private async checkToggle(element: Element, before: boolean): Promise<OutcomeCheck | undefined> {
    const expected = element.role.startsWith('radio') ? true : !before;
    const read = await this.poll((now) => now.ok && toggleState(element.role, now.states) === expected, () => this.source.resolve(element));
    if (!read?.ok) return read ? { kind: 'checked', ok: false, message: `${nameOfElement(element)} could not be read back: ${read.message}` } : undefined;
    const state = toggleState(element.role, read.states) ?? false;
    const word = (checked: boolean) => (checked ? 'checked' : 'not checked');
    return state === expected
      ? { kind: 'checked', ok: true, message: `${nameOfElement(element)} is ${word(state)}` }
      : { kind: 'checked', ok: false, message: `${nameOfElement(element)} is still ${word(state)} after the click (expected ${word(expected)})` };
  }

  /**
   * After typing: the field holds the text (`replaced`: it is all the field holds; else it is in
   * it somewhere); a password field, or a secret, by length only and never with its text said.
   */
  private async checkTyped(element: Element, text: string, secret: boolean, how: { replaced: boolean; before?: ReadBack }): Promise<OutcomeCheck | undefined> {
    const typedLength = [...text].length;
    const byLength = element.role === PASSWORD_ROLE || secret;
    const lengthBefore = how.before?.ok ? (how.before.length ?? (how.before.value !== undefined ? [...how.before.value].length : undefined)) : undefined;
    const lengthOf = (read: ReadBack) => (read.ok ? (read.length ?? (read.value !== undefined ? [...read.value].length : undefined)) : undefined);
    const matches = (read: ReadBack): boolean => {
      if (!read.ok) return false;
      if (byLength) {
        const length = lengthOf(read);
        return length === typedLength || (!how.replaced && lengthBefore !== undefined && length === lengthBefore + typedLength);
      }
      if (read.value === undefined) return false;
      return how.replaced ? read.value === text : read.value.includes(text);
    };
    const read = await this.poll(matches, () => this.source.readBack(element));
    const field = nameOfElement(element);
    if (!read) return undefined;
    if (!read.ok) return { kind: byLength ? 'length' : 'value', ok: false, message: `${field} could not be read back after typing: ${read.message}` };
    if (byLength) {
      const length = lengthOf(read);
      if (length === undefined) return undefined;
      return matches(read)
        ? { kind: 'length', ok: true, message: `${field} holds ${length} characters, as typed`, length }
        : { kind: 'length', ok: false, message: `${field} holds ${length} characters after ${typedLength} were typed${lengthBefore !== undefined && !how.replaced ? ` (it held ${lengthBefore})` : ''}: some did not arrive, or went elsewhere`, length };
    }
    const value = read.value;
    if (value === undefined) return undefined;
    return matches(read)
      ? { kind: 'value', ok: true, message: `${field} holds ${JSON.stringify(value)}`, value }
      : { kind: 'value', ok: false, message: `${field} holds ${JSON.stringify(value)} after typing ${JSON.stringify(text)}: the text did not arrive as typed (a dropped character, an input mask, or it went to another field)`, value };
  }

  /** Reads until `done` holds or the read-back time is over; the last read (undefined when nothing could be read). */
  private async poll<R>(done: (read: R) => boolean, read: () => Promise<R>): Promise<R | undefined> {
    const deadline = this.now() + this.options.readBackMs;
    let last: R | undefined;
    for (;;) {
      last = await read();
      if (done(last) || this.now() >= deadline) return last;
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs));
    }
  }
}

/**
 * The focused field, named as the click that reached it named it: the focus query sees only the
 * tree's own name, which a field named from the label beside it lacks (label-names.ts).
 */
function namedAsClicked(focused: Element, clicked: Element | undefined): Element {
  if (!clicked || clicked.ref !== focused.ref || clicked.nameFrom === undefined) return focused;
  return { ...focused, name: clicked.name, nameFrom: clicked.nameFrom };
}

/** A field that keeps what is typed into it. */
function isEditable(element: Element): boolean {
  return EDITABLE_ROLES.has(element.role) || element.states.includes('editable');
}

/** Checked (or pressed) for a toggle's role; undefined for any other role. */
function toggleState(role: string, states: readonly string[]): boolean | undefined {
  if (!TOGGLE_ROLES.has(role)) return undefined;
  return states.includes('checked') || states.includes('pressed');
}

/** The centre of the part of a box on the screen area, in whole pixels; undefined when none of it is there. */
function clickPoint(box: Rect, area: Rect): { x: number; y: number } | undefined {
  const left = Math.max(box.x, area.x);
  const top = Math.max(box.y, area.y);
  const right = Math.min(box.x + box.width, area.x + area.width);
  const bottom = Math.min(box.y + box.height, area.y + area.height);
  if (right <= left || bottom <= top) return undefined;
  return { x: Math.floor((left + right - 1) / 2), y: Math.floor((top + bottom - 1) / 2) };
}

function success(type: 'click_element' | 'type_into', clicked: ActionSuccess, started: number, ended: number, said: string, element: ActedElement, check: OutcomeCheck | undefined): ActionResult {
  return {
    ok: true,
    type,
    ...(clicked.points ? { points: clicked.points } : {}),
    detail: withCheck(said, check),
    durationMs: Math.round(ended - started),
    element,
    ...(check ? { check } : {}),
  };
}

function withElement(result: ActionSuccess, said: string, element: ActedElement, check: OutcomeCheck | undefined): ActionResult {
  return { ...result, detail: withCheck(result.detail ? `${said}; ${result.detail}` : said, check), element, ...(check ? { check } : {}) };
}

/** The element's words, and a read-back that found a mismatch (what the model must hear). */
function withCheck(said: string, check: OutcomeCheck | undefined): string {
  return check && !check.ok ? `${said}; read back: ${check.message}` : said;
}
