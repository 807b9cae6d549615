/**
 * The step trace (seed 000, UFO3's Memory and MemoryItem): one `MemoryItem` per step, kept in
 * order by a `MemoryItemList` (the seed's `Memory`), filtered by keys or steps for the prompt, serialised to JSON and back.
 *
 * Unlike UFO, where the list of keys lives on the MemoryItem class and so grows for every item at
 * once, each item here knows only its own keys. Values are JSON: a screenshot is a path, never
 * bytes. Every change to a `MemoryItemList` is reported to its `onChange` listener.
 */
import type { Action } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import type { JsonObject, JsonValue, MemoryChange, MemoryItemData } from '../../shared/memory';

export type { JsonObject, JsonValue, MemoryItemData };


/** The fields the seed lists, as data keys (the seed's spelling, since they are stored). */
export const MEMORY_ITEM_FIELDS = [
  'step',
  'screenshot',
  'action',
  'arguments',
  'results',
  'observation',
  'control_text',
  'request',
  'response',
  'parsed_response',
  'cost',
  'error',
] as const;
export type MemoryItemField = (typeof MEMORY_ITEM_FIELDS)[number];


function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** One step: keyed values, each item with its own keys, in the order they were first set. */
export class MemoryItem {
  private readonly values = new Map<string, JsonValue>();
  /** The fields as one frozen copy, made when first asked for and kept until a field changes. */
  private frozenDict: Readonly<MemoryItemData> | null = null;

  constructor(values?: MemoryItemData) {
    if (values) this.addValuesFromDict(values);
  }

  /** Sets one field; `undefined` removes it. */
  setValue(key: string, value: JsonValue | undefined): void {
    this.frozenDict = null;
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, value);
  }

  addValuesFromDict(values: MemoryItemData): void {
    for (const [key, value] of Object.entries(values)) this.setValue(key, value);
  }

  getValue(key: string): JsonValue | undefined {
    return this.values.get(key);
  }

  getValues(keys: readonly string[]): Record<string, JsonValue | undefined> {
    return Object.fromEntries(keys.map((key) => [key, this.values.get(key)]));
  }

  /** This item's keys (not every item's). */
  get attributes(): string[] {
    return [...this.values.keys()];
  }

  /** The `step` field, when it is a number. */
  get step(): number | undefined {
    const step = this.values.get('step');
    return typeof step === 'number' ? step : undefined;
  }

  /** Only the given keys that this item has. */
  filter(keys: readonly string[]): MemoryItemData {
    const wanted = new Set(keys);
    return structuredClone(Object.fromEntries([...this.values].filter(([key]) => wanted.has(key)))) as MemoryItemData;
  }

  /** A copy of the fields: changing it does not change the item. */
  toDict(): MemoryItemData {
    return structuredClone(Object.fromEntries(this.values)) as MemoryItemData;
  }

  /**
   * The fields, read-only: the same frozen copy until a field changes. A board of thousands of
   * items is read whole at every change (persisted, reported, rendered); copying each item every
   * time made that cost grow with everything the board ever held.
   */
  frozen(): Readonly<MemoryItemData> {
    this.frozenDict ??= deepFreeze(this.toDict());
    return this.frozenDict;
  }

  fromDict(data: MemoryItemData): void {
    this.addValuesFromDict(data);
  }

  toJson(): string {
    return JSON.stringify(this.toDict());
  }

  /** `JSON.stringify` of an item writes its fields. */
  toJSON(): MemoryItemData {
    return this.toDict();
  }
}

export interface MemoryOptions {
  /**
   * Keep at most this many items, dropping the oldest (UFO's docs suggest 100 for long sessions).
   * Default: no bound.
   */
  maxItems?: number | null;
  onChange?: (change: MemoryChange) => void;
}

export type MemoryParseResult = { ok: true; memory: MemoryItemList } | { ok: false; error: string };

/** A trace of MemoryItems, oldest first. */
export class MemoryItemList {
  private items: MemoryItem[] = [];
  private readonly maxItems: number | null;
  private readonly onChange: ((change: MemoryChange) => void) | undefined;

  constructor(options: MemoryOptions = {}) {
    const max = options.maxItems ?? null;
    if (max !== null && (!Number.isInteger(max) || max < 1)) throw new RangeError(`maxItems must be a positive integer, got ${max}`);
    this.maxItems = max;
    this.onChange = options.onChange;
  }

  /** Appends an item (a MemoryItem or its fields) and returns it. */
  addMemoryItem(item: MemoryItem | MemoryItemData): MemoryItem {
    const added = item instanceof MemoryItem ? item : new MemoryItem(item);
    this.items.push(added);
    const dropped = this.maxItems !== null && this.items.length > this.maxItems ? this.items.splice(0, this.items.length - this.maxItems).length : 0;
    this.report({ kind: 'trace', op: 'add', step: added.step ?? null, item: added.toDict(), length: this.items.length, dropped });
    return added;
  }

  /** The most recent item, or null when empty. */
  getLatestItem(): MemoryItem | null {
    return this.items.at(-1) ?? null;
  }

  /** Every item reduced to the given keys (an item without a key simply lacks it). */
  filterMemoryFromKeys(keys: readonly string[]): MemoryItemData[] {
    return this.items.map((item) => item.filter(keys));
  }

  /** The items whose `step` is one of the given steps, as fields. */
  filterMemoryFromSteps(steps: readonly number[]): MemoryItemData[] {
    const wanted = new Set(steps);
    return this.items.filter((item) => item.step !== undefined && wanted.has(item.step)).map((item) => item.toDict());
  }

  /** Removes the items of one step; returns how many were removed. */
  deleteMemoryByStep(step: number): number {
    const before = this.items.length;
    this.items = this.items.filter((item) => item.step !== step);
    const removed = before - this.items.length;
    if (removed > 0) this.report({ kind: 'trace', op: 'delete', step, item: null, length: this.items.length, dropped: removed });
    return removed;
  }

  /** Replaces the content. */
  load(items: readonly MemoryItem[]): void {
    this.items = [...items];
    if (this.maxItems !== null && this.items.length > this.maxItems) this.items = this.items.slice(-this.maxItems);
    this.report({ kind: 'trace', op: 'load', step: null, item: null, length: this.items.length, dropped: 0 });
  }

  clear(): void {
    const dropped = this.items.length;
    this.items = [];
    this.report({ kind: 'trace', op: 'clear', step: null, item: null, length: 0, dropped });
  }

  get content(): readonly MemoryItem[] {
    return this.items;
  }

  get listContent(): MemoryItemData[] {
    return this.items.map((item) => item.toDict());
  }

  /** The items' fields, read-only (see MemoryItem.frozen): no copy of any item is made. */
  get frozenContent(): Array<Readonly<MemoryItemData>> {
    return this.items.map((item) => item.frozen());
  }

  get length(): number {
    return this.items.length;
  }

  isEmpty(): boolean {
    return this.items.length === 0;
  }

  toListOfDicts(): MemoryItemData[] {
    return this.listContent;
  }

  /** Replaces the content with items built from the dicts. */
  fromListOfDicts(data: readonly MemoryItemData[]): void {
    this.load(data.map((fields) => new MemoryItem(fields)));
  }

  toJson(): string {
    return JSON.stringify(this.listContent);
  }

  toJSON(): MemoryItemData[] {
    return this.listContent;
  }

  /** A MemoryItemList from `toJson()` text; a failure (not JSON, not a list of objects) is a value. */
  static fromJson(text: string, options: MemoryOptions = {}): MemoryParseResult {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ok: false, error: `the memory is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
    }
    const items = memoryItemsOf(value);
    if (!items.ok) return items;
    const memory = new MemoryItemList(options);
    memory.items = items.items.map((fields) => new MemoryItem(fields));
    if (memory.maxItems !== null && memory.items.length > memory.maxItems) memory.items = memory.items.slice(-memory.maxItems);
    return { ok: true, memory };
  }

  private report(change: MemoryChange): void {
    this.onChange?.(change);
  }
}

/** Checks that a parsed value is a list of plain objects (MemoryItem dicts). */
export function memoryItemsOf(value: unknown): { ok: true; items: MemoryItemData[] } | { ok: false; error: string } {
  if (!Array.isArray(value)) return { ok: false, error: 'the memory must be a JSON list of items' };
  for (const [index, entry] of value.entries()) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      return { ok: false, error: `item ${index} of the memory is not an object` };
    }
  }
  return { ok: true, items: value as MemoryItemData[] };
}

/** What the loop knows of a finished step, to write its MemoryItem. */
export interface StepTrace {
  step: number;
  /** The saved screenshot's path (`ScreenshotRef.path`). */
  screenshot?: string | undefined;
  actions: readonly Action[];
  results: readonly ActionResult[];
  /** The model's thought. */
  observation?: string | null | undefined;
  /** Text read from the screen, when known (the window title, for instance). */
  controlText?: string | null | undefined;
  request: string;
  /** The model's raw reply. */
  response?: string | undefined;
  costUsd?: number | undefined;
  error?: string | null | undefined;
  /** Custom fields, stored as given. */
  extra?: Record<string, JsonValue> | undefined;
}

/** The MemoryItem of one step, in the seed's fields. */
export function stepMemoryItem(trace: StepTrace): MemoryItem {
  const actions = trace.actions.map((action) => toJson(action));
  const item = new MemoryItem({
    step: trace.step,
    ...(trace.screenshot !== undefined ? { screenshot: trace.screenshot } : {}),
    action: trace.actions.map((action) => action.type).join(', '),
    arguments: { actions },
    results: trace.results.map((result) => toJson(result)),
    ...(trace.observation != null ? { observation: trace.observation } : {}),
    ...(trace.controlText != null ? { control_text: trace.controlText } : {}),
    request: trace.request,
    ...(trace.response !== undefined ? { response: trace.response } : {}),
    parsed_response: { actions },
    cost: trace.costUsd ?? 0,
    error: trace.error ?? null,
  });
  if (trace.extra) item.addValuesFromDict(trace.extra);
  return item;
}

function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}
