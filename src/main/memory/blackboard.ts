/**
 * The blackboard (seed 000, UFO3): memory shared by every agent in the process and kept across
 * runs. Four sections, each a `MemoryItemList`:
 *
 *   questions     every ask-user exchange with its answer
 *   requests      every task given
 *   trajectories  steps worth sharing: step, subtask, action, status, user confirmation
 *   screenshots   the ones the model asked to keep, with its reason (capped; the oldest go first)
 *
 * `blackboardToPrompt` renders it in the seed's order, leaving out empty sections and sending at
 * most a few images. Screenshots are kept by path; their bytes are read only when a prompt needs
 * them.
 *
 * UFO documents a file-backed blackboard but never writes it; this one is: give it a
 * `BlackboardPersistence` (`FileBlackboardStore`: a JSON snapshot plus a JSONL log of changes in
 * the data directory) and every change is logged; `openBlackboard` loads it back at start.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDir, writeEmptyPrivate } from '../disk/files';
import { StoreWriter } from '../disk/store-writer';
import { describeWriteFailure } from '../disk/write-failure';
import { z } from 'zod';
import type { ModelImage } from '../model/types';
import { type BlackboardDict, BlackboardDictSchema, type BlackboardSection, type MemoryChange, type MemoryChangeListener } from './events';
import { type JsonValue, MemoryItemList, MemoryItem, type MemoryItemData } from './trace';
import { parseJsonOrUndefined } from '../../shared/json';
import { loadSharp } from '../image/sharp';

export const BLACKBOARD_SECTIONS = ['questions', 'requests', 'trajectories', 'screenshots'] as const satisfies readonly BlackboardSection[];

/** The keys of a screenshot item (UFO's ImageMemoryItemNames, without the base64 copy). */
export const ImageMemoryItemNames = { METADATA: 'metadata', IMAGE_PATH: 'image_path' } as const;

/** The seed's prompt headings, in its order. */
export const BLACKBOARD_PROMPT_HEADINGS = {
  blackboard: '[Blackboard:]',
  questions: '[Questions & Answers:]',
  requests: '[Request History:]',
  trajectories: '[Step Trajectories Completed Previously:]',
  screenshots: '[Screenshots Kept:]',
} as const;

/** What may be written to a section: an item, its fields, or a text (stored as `{text}`). */
export type BlackboardData = MemoryItem | MemoryItemData | string;

/** Suggested fields of the sections' items (any other field is kept too). */
export interface QuestionEntry extends MemoryItemData {
  question: string;
  answer: string | null;
}
export interface RequestEntry extends MemoryItemData {
  request: string;
}
export interface TrajectoryEntry extends MemoryItemData {
  step: number;
  subtask?: string;
  action?: string;
  status?: string;
  user_confirmation?: string | null;
}

export type BlackboardPromptPart = { type: 'text'; text: string } | { type: 'image'; path: string; metadata: JsonValue };

export interface BlackboardOptions {
  /** Screenshots kept; adding one more drops the oldest. Default 10. */
  maxScreenshots: number;
  /** Images in `blackboardToPrompt` (the most recent). Default 3. */
  maxPromptImages: number;
  /**
   * Items of each text section in the prompt (the most recent), so a board that grows run after
   * run keeps the prompt bounded; null for all. The board itself keeps everything. Default 20.
   */
  maxPromptItems: number | null;
}

export const DEFAULT_BLACKBOARD_OPTIONS: BlackboardOptions = { maxScreenshots: 10, maxPromptImages: 3, maxPromptItems: 20 };

export type BlackboardOp =
  | { op: 'add'; section: BlackboardSection; item: MemoryItemData }
  | { op: 'set'; section: BlackboardSection; items: MemoryItemData[] }
  | { op: 'replace'; blackboard: BlackboardDict };

export type PersistOutcome = { ok: true } | { ok: false; error: string };

/** Where the blackboard's changes go. `record` must not block; `flush` waits for the writes. */
export interface BlackboardPersistence {
  record(op: BlackboardOp, state: BlackboardDict): void;
  flush(): Promise<PersistOutcome>;
}

export interface BlackboardDeps {
  onChange?: MemoryChangeListener | undefined;
  persistence?: BlackboardPersistence | undefined;
  /** The content to start with (e.g. loaded from disk); not logged again. */
  initial?: BlackboardDict | undefined;
}

export class Blackboard {
  private readonly sections: Record<BlackboardSection, MemoryItemList>;
  private readonly options: BlackboardOptions;
  private readonly onChange: MemoryChangeListener | undefined;
  /** Agents that share this board and show its changes, for as long as they run. */
  private readonly subscribers = new Set<MemoryChangeListener>();
  private readonly persistence: BlackboardPersistence | undefined;
  /** Set while a whole-board change runs: its section changes are reported once, at the end. */
  private batching = false;

  constructor(options: Partial<BlackboardOptions> = {}, deps: BlackboardDeps = {}) {
    this.options = { ...DEFAULT_BLACKBOARD_OPTIONS, ...options };
    if (!Number.isInteger(this.options.maxScreenshots) || this.options.maxScreenshots < 1) {
      throw new RangeError(`maxScreenshots must be a whole number ≥ 1, got ${this.options.maxScreenshots}`);
    }
    this.onChange = deps.onChange;
    this.persistence = deps.persistence;
    const section = (name: BlackboardSection, maxItems: number | null) =>
      new MemoryItemList({ maxItems, onChange: (change) => this.sectionChanged(name, change) });
    this.sections = {
      questions: section('questions', null),
      requests: section('requests', null),
      trajectories: section('trajectories', null),
      screenshots: section('screenshots', this.options.maxScreenshots),
    };
    if (deps.initial) this.batch(() => this.load(deps.initial as BlackboardDict), false);
  }

  /** Reports every later change to `listener` too; returns the unsubscribe. */
  subscribe(listener: MemoryChangeListener): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  private notify(change: MemoryChange): void {
    this.onChange?.(change);
    for (const listener of this.subscribers) listener(change);
  }

  get questions(): MemoryItemList {
    return this.sections.questions;
  }

  get requests(): MemoryItemList {
    return this.sections.requests;
  }

  get trajectories(): MemoryItemList {
    return this.sections.trajectories;
  }

  get screenshots(): MemoryItemList {
    return this.sections.screenshots;
  }

  /** Adds to one section; a text is stored as `{text}`. */
  addData(data: BlackboardData, section: BlackboardSection): MemoryItem {
    const item = typeof data === 'string' ? new MemoryItem({ text: data }) : data instanceof MemoryItem ? data : new MemoryItem(data);
    return this.sections[section].addMemoryItem(item);
  }

  addQuestions(questions: QuestionEntry | BlackboardData): MemoryItem {
    return this.addData(questions, 'questions');
  }

  addRequests(requests: RequestEntry | BlackboardData): MemoryItem {
    return this.addData(requests, 'requests');
  }

  addTrajectories(trajectories: TrajectoryEntry | BlackboardData): MemoryItem {
    return this.addData(trajectories, 'trajectories');
  }

  /** Keeps a screenshot by path, with metadata (e.g. `{step, reason}`); the oldest beyond the cap go. */
  addImage(screenshotPath: string, metadata: JsonValue = null): MemoryItem {
    return this.sections.screenshots.addMemoryItem(
      new MemoryItem({ [ImageMemoryItemNames.METADATA]: metadata, [ImageMemoryItemNames.IMAGE_PATH]: screenshotPath }),
    );
  }

  /**
   * The blackboard for the model, in the seed's order: questions, requests, trajectories, then the
   * most recent screenshots (each its metadata, then the image). Empty sections are left out; an
   * empty blackboard gives no parts.
   */
  blackboardToPrompt(options: { maxImages?: number; maxItems?: number | null } = {}): BlackboardPromptPart[] {
    if (this.isEmpty()) return [];
    const parts: BlackboardPromptPart[] = [{ type: 'text', text: BLACKBOARD_PROMPT_HEADINGS.blackboard }];
    const maxItems = options.maxItems === undefined ? this.options.maxPromptItems : options.maxItems;
    for (const name of ['questions', 'requests', 'trajectories'] as const) {
      const memory = this.sections[name];
      if (memory.isEmpty()) continue;
      const items = maxItems === null ? memory.listContent : maxItems > 0 ? memory.listContent.slice(-maxItems) : [];
      parts.push({ type: 'text', text: `${BLACKBOARD_PROMPT_HEADINGS[name]}\n ${JSON.stringify(items)}` });
    }
    const maxImages = options.maxImages ?? this.options.maxPromptImages;
    const shown = maxImages > 0 ? this.sections.screenshots.listContent.slice(-maxImages) : [];
    for (const screenshot of shown) {
      parts.push({ type: 'text', text: JSON.stringify(screenshot[ImageMemoryItemNames.METADATA] ?? '') });
      parts.push({ type: 'image', path: String(screenshot[ImageMemoryItemNames.IMAGE_PATH] ?? ''), metadata: screenshot[ImageMemoryItemNames.METADATA] ?? null });
    }
    return parts;
  }

  /** The prompt as text only (for a system prompt): screenshots are listed by metadata and path. */
  blackboardToText(): string {
    if (this.isEmpty()) return '';
    const lines = this.blackboardToPrompt({ maxImages: 0 }).map((part) => (part.type === 'text' ? part.text : ''));
    if (!this.sections.screenshots.isEmpty()) {
      lines.push(`${BLACKBOARD_PROMPT_HEADINGS.screenshots}\n ${JSON.stringify(this.sections.screenshots.listContent)}`);
    }
    return lines.join('\n');
  }

  /** The board's content; its items are read-only (frozen) and shared, not copied. */
  blackboardToDict(): BlackboardDict {
    return {
      questions: this.sections.questions.frozenContent,
      requests: this.sections.requests.frozenContent,
      trajectories: this.sections.trajectories.frozenContent,
      screenshots: this.sections.screenshots.frozenContent,
    };
  }

  blackboardToJson(): string {
    return JSON.stringify(this.blackboardToDict());
  }

  /** Replaces the content (a missing section becomes empty, as in the seed). */
  blackboardFromDict(blackboard: Partial<BlackboardDict>): void {
    this.batch(() => this.load(blackboard), true);
  }

  isEmpty(): boolean {
    return BLACKBOARD_SECTIONS.every((name) => this.sections[name].isEmpty());
  }

  clear(): void {
    this.batch(() => {
      for (const name of BLACKBOARD_SECTIONS) this.sections[name].clear();
    }, true);
  }

  /** Waits for the persisted writes so far; a failed write is the outcome, not a throw. */
  flush(): Promise<PersistOutcome> {
    return this.persistence ? this.persistence.flush() : Promise.resolve({ ok: true });
  }

  private load(blackboard: Partial<BlackboardDict>): void {
    for (const name of BLACKBOARD_SECTIONS) this.sections[name].fromListOfDicts(blackboard[name] ?? []);
  }

  private batch(change: () => void, record: boolean): void {
    this.batching = true;
    try {
      change();
    } finally {
      this.batching = false;
    }
    const state = this.blackboardToDict();
    if (record) this.persistence?.record({ op: 'replace', blackboard: state }, state);
    this.notify({ kind: 'blackboard', snapshot: state });
  }

  private sectionChanged(section: BlackboardSection, change: MemoryChange): void {
    if (this.batching || change.kind !== 'trace') return;
    const state = this.blackboardToDict();
    const op: BlackboardOp =
      change.op === 'add' && change.dropped === 0 && change.item !== null
        ? { op: 'add', section, item: change.item }
        : { op: 'set', section, items: state[section] };
    this.persistence?.record(op, state);
    this.notify({ kind: 'blackboard', snapshot: state });
  }
}

/** A parsed value as a blackboard dict (missing sections empty), or why it is not one. */
export function parseBlackboardDict(value: unknown): { ok: true; blackboard: BlackboardDict } | { ok: false; error: string } {
  const parsed = BlackboardDictSchema.partial().safeParse(value);
  if (!parsed.success) return { ok: false, error: `not a blackboard: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const data = parsed.data as Partial<BlackboardDict>;
  return {
    ok: true,
    blackboard: { questions: data.questions ?? [], requests: data.requests ?? [], trajectories: data.trajectories ?? [], screenshots: data.screenshots ?? [] },
  };
}

/** Reads a kept screenshot for a prompt; a missing or unreadable file is a value. */
export async function readPromptImage(path: string): Promise<{ ok: true; image: ModelImage } | { ok: false; error: string }> {
  try {
    const image = await readFile(path);
    const sharp = await loadSharp();
    const metadata = await sharp(image).metadata();
    const mime = metadata.format === 'png' ? 'image/png' : metadata.format === 'jpeg' ? 'image/jpeg' : null;
    if (mime === null) return { ok: false, error: `${path} is not a PNG or JPEG image (${metadata.format ?? 'unknown format'})` };
    return { ok: true, image: { image, mime, width: metadata.width ?? 0, height: metadata.height ?? 0 } };
  } catch (error) {
    return { ok: false, error: `cannot read the screenshot ${path}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

// ---------------------------------------------------------------------------------------------
// The file-backed store: `<dataDir>/blackboard/blackboard.json` (a snapshot, written atomically)
// and `blackboard.jsonl` (the changes since, one JSON object a line, each with a sequence number).
// Loading takes the snapshot and replays the log lines newer than it; a corrupt line (a crash
// mid-write) is skipped with a warning. Every `rewriteEvery` changes the snapshot is rewritten and
// the log emptied; a crash between the two is harmless, since replay skips lines the snapshot has.
// A write that fails (a full disk) leaves no half file: the snapshot goes through a temporary file
// and a rename, an append that did not fit is cut back. It is reported at once (`onWriteFailure`),
// and the next change writes a whole snapshot, so the file catches up once the disk has room.

const SNAPSHOT_FILE = 'blackboard.json';
const LOG_FILE = 'blackboard.jsonl';

const SectionSchema = z.enum(BLACKBOARD_SECTIONS);
const ItemSchema = z.record(z.string(), z.json());
const LogLineSchema = z.intersection(
  z.object({ seq: z.number().int().positive(), at: z.number() }),
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), section: SectionSchema, item: ItemSchema }),
    z.object({ op: z.literal('set'), section: SectionSchema, items: z.array(ItemSchema) }),
    z.object({ op: z.literal('replace'), blackboard: BlackboardDictSchema }),
  ]),
);
const SnapshotSchema = z.object({ version: z.literal(1), seq: z.number().int().nonnegative(), savedAt: z.number(), blackboard: BlackboardDictSchema });

/** The board after one logged change (used to load a log back, from a file or Redis). */
export function applyBlackboardOp(blackboard: BlackboardDict, op: BlackboardOp): BlackboardDict {
  if (op.op === 'replace') return op.blackboard;
  if (op.op === 'set') return { ...blackboard, [op.section]: op.items };
  return { ...blackboard, [op.section]: [...blackboard[op.section], op.item] };
}

/** A logged change read back from storage, or null when it is not one. */
export function parseBlackboardOp(value: unknown): BlackboardOp | null {
  const parsed = LogLineSchema.safeParse(value);
  return parsed.success ? (parsed.data as unknown as BlackboardOp) : null;
}

export function blackboardDirectory(dataDir: string): string {
  return join(dataDir, 'blackboard');
}

export interface BlackboardLoad {
  blackboard: BlackboardDict;
  /** Problems found and skipped (a corrupt snapshot, corrupt log lines). */
  warnings: string[];
}

export interface FileBlackboardStoreOptions {
  /** Changes between snapshots. Default 100. */
  rewriteEvery?: number;
  now?: () => number;
  /** Told when a write fails, at once (once, until a write succeeds again). */
  onWriteFailure?: ((message: string) => void) | undefined;
  /** What the files are written through (the redaction policy applied); default: as it is. */
  writer?: StoreWriter | undefined;
}

export class FileBlackboardStore implements BlackboardPersistence {
  readonly directory: string;
  private readonly rewriteEvery: number;
  private readonly now: () => number;
  private seq = 0;
  private sinceSnapshot = 0;
  /** The log read at load ends in half a line (a crash mid-write): the next line starts on a new one. */
  private tornTail = false;
  private writes: Promise<void> = Promise.resolve();
  /** Why the file misses something, until a snapshot catches up. */
  private failure: string | null = null;
  /** The last write failed: said once, not again for every write after it. */
  private failing = false;
  private readonly onWriteFailure: ((message: string) => void) | undefined;
  private readonly writer: StoreWriter;

  constructor(dataDir: string, options: FileBlackboardStoreOptions = {}) {
    this.directory = blackboardDirectory(dataDir);
    this.rewriteEvery = options.rewriteEvery ?? 100;
    this.now = options.now ?? Date.now;
    this.onWriteFailure = options.onWriteFailure;
    this.writer = options.writer ?? StoreWriter.asIs;
  }

  get snapshotPath(): string {
    return join(this.directory, SNAPSHOT_FILE);
  }

  get logPath(): string {
    return join(this.directory, LOG_FILE);
  }

  /** The stored blackboard (empty when nothing is stored yet). Call once, before recording. */
  async load(): Promise<BlackboardLoad> {
    const warnings: string[] = [];
    let blackboard: BlackboardDict = { questions: [], requests: [], trajectories: [], screenshots: [] };
    let snapshotSeq = 0;
    const snapshotText = await readIfPresent(this.snapshotPath, warnings);
    if (snapshotText !== null) {
      const snapshot = SnapshotSchema.safeParse(parseJsonOrUndefined(snapshotText));
      if (snapshot.success) {
        blackboard = snapshot.data.blackboard as BlackboardDict;
        snapshotSeq = snapshot.data.seq;
      } else {
        warnings.push(`${SNAPSHOT_FILE} is corrupt and was ignored; only the changes in ${LOG_FILE} were loaded`);
      }
    }
    let lastSeq = snapshotSeq;
    const logText = await readIfPresent(this.logPath, warnings);
    let lines = 0;
    for (const [index, line] of (logText ?? '').split('\n').entries()) {
      if (line.trim() === '') continue;
      const parsed = LogLineSchema.safeParse(parseJsonOrUndefined(line));
      if (!parsed.success) {
        warnings.push(`${LOG_FILE} line ${index + 1} is corrupt and was skipped`);
        continue;
      }
      lines += 1;
      const entry = parsed.data;
      lastSeq = Math.max(lastSeq, entry.seq);
      if (entry.seq <= snapshotSeq) continue;
      blackboard = applyBlackboardOp(blackboard, entry as BlackboardOp);
    }
    this.seq = lastSeq;
    this.sinceSnapshot = lines;
    this.tornTail = logText !== null && logText !== '' && !logText.endsWith('\n');
    return { blackboard, warnings };
  }

  record(op: BlackboardOp, state: BlackboardDict): void {
    this.seq += 1;
    this.sinceSnapshot += 1;
    // Appended after half a line, a whole line would be read back as part of the corrupt one.
    const line = `${this.tornTail ? '\n' : ''}${JSON.stringify({ seq: this.seq, at: this.now(), ...op })}\n`;
    this.tornTail = false;
    const rewrite = this.sinceSnapshot >= this.rewriteEvery;
    const seq = this.seq;
    // The state is copied now: it is the board as of this sequence number.
    const snapshot = rewrite ? structuredClone(state) : null;
    if (rewrite) this.sinceSnapshot = 0;
    this.enqueue(async () => {
      await makePrivateDir(this.directory);
      await this.writer.append(this.logPath, line);
      if (snapshot) await this.writeSnapshot(seq, snapshot);
    }, LOG_FILE);
  }

  /** Writes a snapshot of the given state now and empties the log. */
  rewrite(state: BlackboardDict): Promise<PersistOutcome> {
    const seq = this.seq;
    const snapshot = structuredClone(state);
    this.sinceSnapshot = 0;
    this.enqueue(async () => {
      await makePrivateDir(this.directory);
      await this.writeSnapshot(seq, snapshot);
    }, SNAPSHOT_FILE);
    return this.flush();
  }

  /** The whole board, synced, then the log emptied: the file holds everything again. */
  private async writeSnapshot(seq: number, snapshot: BlackboardDict): Promise<void> {
    await this.writer.writeText(this.snapshotPath, `${JSON.stringify({ version: 1, seq, savedAt: this.now(), blackboard: snapshot })}\n`, { sync: true });
    await writeEmptyPrivate(this.logPath);
    this.failure = null;
  }

  async flush(): Promise<PersistOutcome> {
    await this.writes;
    return this.failure === null ? { ok: true } : { ok: false, error: this.failure };
  }

  private enqueue(write: () => Promise<void>, what: string): void {
    this.writes = this.writes.then(write).then(
      () => {
        this.failing = false;
      },
      (error: unknown) => {
        this.failure = `the blackboard could not be saved: ${describeWriteFailure(error, this.directory, what)}`;
        // The next change writes the whole board, so the file catches up once there is room.
        this.sinceSnapshot = this.rewriteEvery;
        if (this.failing) return;
        this.failing = true;
        this.onWriteFailure?.(this.failure);
      },
    );
  }
}

/** Where a blackboard is persisted and loaded back from (the data directory, or Redis). */
export interface LoadableBlackboardStore extends BlackboardPersistence {
  load(): Promise<BlackboardLoad>;
}

export interface OpenedBlackboard<S extends LoadableBlackboardStore = FileBlackboardStore> {
  blackboard: Blackboard;
  store: S;
  warnings: string[];
}

/** The data directory's blackboard (or the given store's), loaded, with every further change saved there. */
export async function openBlackboard<S extends LoadableBlackboardStore = FileBlackboardStore>(
  dataDir: string,
  options: Partial<BlackboardOptions> & FileBlackboardStoreOptions = {},
  deps: { onChange?: MemoryChangeListener | undefined; store?: S | undefined } = {},
): Promise<OpenedBlackboard<S>> {
  // Without a store of its own, the data directory's files (S is then FileBlackboardStore).
  const store = deps.store ?? (new FileBlackboardStore(dataDir, options) as unknown as S);
  const loaded = await store.load();
  const blackboard = new Blackboard(options, { onChange: deps.onChange, persistence: store, initial: loaded.blackboard });
  return { blackboard, store, warnings: loaded.warnings };
}

/** A file's text; null when it does not exist, or cannot be read (then with a warning). */
async function readIfPresent(path: string, warnings: string[]): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      warnings.push(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return null;
  }
}

