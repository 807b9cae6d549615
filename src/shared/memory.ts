/**
 * Every memory change as a small serialisable value, so the app can show the layers live and the
 * session record can replay them: the step trace, the three layers, screenshot pruning, the
 * blackboard and the conversation tiers. Each memory part takes an `onChange` listener and calls it
 * after every change it makes.
 *
 * Shared (pure) so the AgentEvent union, the app and the CLI can carry it.
 *
 * `MemorySnapshot` is the state at one moment (the shape `mnemo memory show --json` prints);
 * `buildMemorySnapshot` folds a run's changes into it, the last change of each kind winning.
 */
import { z } from 'zod';
import { applyLineSplices, lineSplices } from './line-splices';
// ---------------------------------------------------------------------------------------------
// The schemas are the source of truth: every type below is inferred from them, so what a run
// emits, what a record holds and what the reader accepts cannot drift apart.

const JsonSchema = z.json();
export type JsonValue = z.infer<typeof JsonSchema>;
export type JsonObject = { [key: string]: JsonValue };

/**
 * One item of the step trace or the blackboard, as a JSON object. The seed's fields (`step`,
 * `screenshot`, `action`, `arguments`, `results`, `observation`, `control_text`, `request`,
 * `response`, `parsed_response`, `cost`, `error`) and any custom field: a board kept for years
 * holds items written by earlier versions, so the record is read as any JSON object. A field may
 * be left undefined where an item is built (it is not written).
 */
const ItemSchema = z.record(z.string(), JsonSchema.optional());
export type MemoryItemData = z.infer<typeof ItemSchema>;

const LayersViewSchema = z.object({
  /** The step in progress. */
  pending: z.string(),
  /** Finished steps not yet summarised. */
  recent: z.string(),
  /** The compressed history. */
  summary: z.string(),
});
export type LayersView = z.infer<typeof LayersViewSchema>;

const ConversationMessageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  /** A task given to the agent, or any other message. */
  kind: z.enum(['task', 'message']),
});
export type ConversationMessage = z.infer<typeof ConversationMessageSchema>;

/**
 * One fact as a memory event carries it: small, never the whole store. `change` says what a save
 * did (added, superseded the old value, extended a multiple fact, or found it already stored).
 */
const FactBriefSchema = z.object({
  id: z.string(),
  subject: z.string(),
  scope: z.string(),
  keyword: z.string(),
  values: z.array(z.string()),
  change: z.enum(['added', 'superseded', 'extended', 'unchanged']).optional(),
});
export type FactBrief = z.infer<typeof FactBriefSchema>;

/** The blackboard as data (`blackboardToDict`): four lists of MemoryItem dicts. */
export const BlackboardDictSchema = z.object({
  questions: z.array(ItemSchema),
  requests: z.array(ItemSchema),
  trajectories: z.array(ItemSchema),
  screenshots: z.array(ItemSchema),
});
export type BlackboardDict = z.infer<typeof BlackboardDictSchema>;
export type BlackboardSection = keyof BlackboardDict;

/** How a list changed: `drop` items gone from its start, then `add` appended at its end. */
function listDeltaSchema<T extends z.ZodType>(item: T) {
  return z.object({ drop: z.number().int().nonnegative(), add: z.array(item) });
}
/** The shape every `listDeltaSchema` infers, for code generic over the item type. */
export interface ListDelta<T> {
  drop: number;
  add: T[];
}

/** The parts of memory that reach the system prompt, each as one section. */
export const PROMPT_SECTION_NAMES = ['layers', 'blackboard', 'conversation', 'workingMemory', 'facts'] as const;
export type PromptSectionName = (typeof PROMPT_SECTION_NAMES)[number];

/**
 * One memory section of the last system prompt: its budget, what it cost, what went in and what
 * was left out (kept in memory, not in this prompt).
 */
const PromptSectionBaseSchema = z.object({
  name: z.enum(PROMPT_SECTION_NAMES),
  /** Estimated tokens the section may take; null: bounded by its own limits (the layers). */
  budgetTokens: z.number().nonnegative().nullable(),
  usedTokens: z.number().nonnegative(),
  /** Entries shown and left out. */
  shown: z.number().int().nonnegative(),
  omitted: z.number().int().nonnegative(),
  /** What was left out, in words ('' when nothing was). */
  leftOut: z.string(),
});
const PromptSectionSchema = PromptSectionBaseSchema.extend({
  /** The text that went into the prompt ('' when the section was empty). */
  text: z.string(),
});
export type PromptSectionView = z.infer<typeof PromptSectionSchema>;
const LineSpliceSchema = z.object({ at: z.number().int().nonnegative(), remove: z.number().int().nonnegative(), insert: z.array(z.string()) });
/** A section as it changed: its text as line splices when it had one before, else whole. */
const PromptSectionDeltaSchema = PromptSectionBaseSchema.extend({ text: z.string().optional(), lines: z.array(LineSpliceSchema).optional() });
export type PromptSectionDelta = z.infer<typeof PromptSectionDeltaSchema>;

/** The memory part of the last system prompt. */
const PromptViewSchema = z.object({ sections: z.array(PromptSectionSchema), totalTokens: z.number().nonnegative() });
export type PromptView = z.infer<typeof PromptViewSchema>;

/** Blackboard items a run's events carry at most per section: the newest; the board keeps all. */
export const BLACKBOARD_VIEW_ITEMS = 100;

const BlackboardCountsSchema = z.object({ questions: z.number(), requests: z.number(), trajectories: z.number(), screenshots: z.number() }).partial();

const flags = {
  /** A memory model call is in flight (the layers' summarisation, the conversation's manager). */
  compressing: z.boolean(),
  /** The last failure of that call, until one succeeds. */
  lastError: z.string().nullable(),
};

export const MemoryChangeSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('trace'),
    op: z.enum(['add', 'delete', 'clear', 'load']),
    /** The step added or deleted; null for clear and load. */
    step: z.number().nullable(),
    /** The item added (null for other ops). */
    item: ItemSchema.nullable(),
    /** Items in the trace after the change. */
    length: z.number().int().nonnegative(),
    /** Items removed by this change (the max-items bound, a delete, a clear). */
    dropped: z.number().int().nonnegative(),
  }),
  LayersViewSchema.extend({ kind: z.literal('layers'), ...flags }),
  z.object({
    kind: z.literal('pruning'),
    /** Steps whose screenshot the model's input does not carry (a placeholder stands in). */
    prunedSteps: z.array(z.number()),
    /** Steps left out of the model's input altogether (the history window, the hard limit). */
    droppedSteps: z.array(z.number()),
    /** Images in the model's input, the current screenshot included. */
    imagesKept: z.number().int().nonnegative(),
    estimatedTokens: z.number().nonnegative(),
    thresholdTokens: z.number().nonnegative(),
    /** The token hard limit removed something. */
    hardLimitApplied: z.boolean(),
  }),
  z.object({ kind: z.literal('blackboard'), snapshot: BlackboardDictSchema }),
  /** What changed on the blackboard since the last change of the run (what runs emit; see MemoryDeltaEncoder). */
  z.object({
    kind: z.literal('blackboard-delta'),
    sections: z.object({ questions: listDeltaSchema(ItemSchema), requests: listDeltaSchema(ItemSchema), trajectories: listDeltaSchema(ItemSchema), screenshots: listDeltaSchema(ItemSchema) }).partial(),
    /** Items before the newest BLACKBOARD_VIEW_ITEMS of a section (kept, not carried), when that changed. */
    earlier: BlackboardCountsSchema.optional(),
  }),
  /** The memory sections of the system prompt as the model was last sent them. */
  PromptViewSchema.extend({ kind: z.literal('prompt') }),
  /** The prompt's sections as they changed since the last prompt of the run (what runs emit). */
  z.object({ kind: z.literal('prompt-delta'), sections: z.array(PromptSectionDeltaSchema), totalTokens: z.number().nonnegative() }),
  /** Pruning as it changed: the steps newly pruned or dropped, not the whole growing lists again. */
  z.object({
    kind: z.literal('pruning-delta'),
    pruned: listDeltaSchema(z.number()),
    dropped: listDeltaSchema(z.number()),
    imagesKept: z.number().int().nonnegative(),
    estimatedTokens: z.number().nonnegative(),
    thresholdTokens: z.number().nonnegative(),
    hardLimitApplied: z.boolean(),
  }),
  /** The layers that changed since the last change of the run (the others are as they were). */
  LayersViewSchema.partial().extend({
    kind: z.literal('layers-delta'),
    /** The recent layer's lines, when it only gained lines at the end or lost some at the start. */
    recentLines: listDeltaSchema(z.string()).optional(),
    ...flags,
  }),
  z.object({
    kind: z.literal('conversation-delta'),
    context: listDeltaSchema(ConversationMessageSchema).optional(),
    shortTerm: listDeltaSchema(z.string()).optional(),
    longTerm: listDeltaSchema(z.string()).optional(),
    ...flags,
  }),
  z.object({
    kind: z.literal('conversation'),
    context: z.array(ConversationMessageSchema),
    shortTerm: z.array(z.string()),
    longTerm: z.array(z.string()),
    ...flags,
  }),
  z.object({
    kind: z.literal('facts'),
    /** `loaded`: put in the prompt at the start of a task; `saved`: written to the fact store. */
    op: z.enum(['loaded', 'saved']),
    /** What brought the facts: the task's prompt, the model's save_fact action, auto-detection after the task. */
    source: z.enum(['prompt', 'save_fact', 'auto-detect']),
    facts: z.array(FactBriefSchema),
    /** Estimated prompt tokens the loaded facts take (0 for saves). */
    tokens: z.number().nonnegative(),
    /** Why the load or save failed (storage unreachable, a reply that could not be read); null when it worked. */
    error: z.string().nullable(),
  }),
  z.object({
    kind: z.literal('working-memory'),
    /** `loaded` into the prompt at the start of a task; `updated` after it. */
    op: z.enum(['loaded', 'updated']),
    conversationId: z.string(),
    /** The conversation's working memory (one summary, bounded by the model). */
    memory: z.string(),
    /** The working memory agent's status string after an update (`success`, `error: ...`); null for loads. */
    status: z.string().nullable(),
    error: z.string().nullable(),
  }),
]);
export type MemoryChange = z.infer<typeof MemoryChangeSchema>;

/** The memory at one moment: what `mnemo memory show <session-id> --json` prints. */
export const MemorySnapshotSchema = z.object({
  layers: LayersViewSchema,
  prunedSteps: z.array(z.number()),
  blackboard: BlackboardDictSchema,
  /** Items of each blackboard section older than those in `blackboard` (kept on disk or in Redis). */
  blackboardEarlier: BlackboardCountsSchema,
  /** The memory part of the last system prompt; null before the first one. */
  prompt: PromptViewSchema.nullable(),
  conversation: z.object({
    context: z.array(ConversationMessageSchema),
    shortTerm: z.array(z.string()),
    longTerm: z.array(z.string()),
  }),
  /** Facts put in the prompt at the start, facts saved during and after the run, the last failure. */
  facts: z.object({ loaded: z.array(FactBriefSchema), saved: z.array(FactBriefSchema), lastError: z.string().nullable() }),
  /** The conversation's working memory as last loaded or updated. */
  workingMemory: z.object({ conversationId: z.string().nullable(), memory: z.string(), status: z.string().nullable() }),
});
export type MemorySnapshot = z.infer<typeof MemorySnapshotSchema>;

export type MemoryChangeKind = MemoryChange['kind'];
export type MemoryChangeOf<K extends MemoryChangeKind> = Extract<MemoryChange, { kind: K }>;
export type MemoryChangeListener = (change: MemoryChange) => void;

export function emptyMemorySnapshot(): MemorySnapshot {
  return {
    layers: { pending: '', recent: '', summary: '' },
    prunedSteps: [],
    blackboard: { questions: [], requests: [], trajectories: [], screenshots: [] },
    blackboardEarlier: {},
    prompt: null,
    conversation: { context: [], shortTerm: [], longTerm: [] },
    facts: { loaded: [], saved: [], lastError: null },
    workingMemory: { conversationId: null, memory: '', status: null },
  };
}

/** The snapshot after one more change (a new object; the old one is not changed). */
export function applyMemoryChange(snapshot: MemorySnapshot, change: MemoryChange): MemorySnapshot {
  switch (change.kind) {
    case 'layers':
      return { ...snapshot, layers: { pending: change.pending, recent: change.recent, summary: change.summary } };
    case 'pruning':
      return { ...snapshot, prunedSteps: [...change.prunedSteps] };
    case 'blackboard':
      return { ...snapshot, blackboard: structuredClone(change.snapshot), blackboardEarlier: {} };
    case 'prompt':
      return { ...snapshot, prompt: { sections: structuredClone(change.sections), totalTokens: change.totalTokens } };
    case 'prompt-delta': {
      const before = new Map((snapshot.prompt?.sections ?? []).map((section) => [section.name, section]));
      const sections = change.sections.map(({ lines, text, ...rest }): PromptSectionView => ({
        ...rest,
        text: text ?? (lines ? applyLineSplices(linesOf(before.get(rest.name)?.text ?? ''), lines).join('\n') : (before.get(rest.name)?.text ?? '')),
      }));
      return { ...snapshot, prompt: { sections, totalTokens: change.totalTokens } };
    }
    case 'conversation':
      return {
        ...snapshot,
        conversation: { context: structuredClone(change.context), shortTerm: [...change.shortTerm], longTerm: [...change.longTerm] },
      };
    case 'facts': {
      const facts = { ...snapshot.facts, lastError: change.error ?? snapshot.facts.lastError };
      if (change.op === 'loaded') facts.loaded = structuredClone(change.facts);
      else facts.saved = [...snapshot.facts.saved.filter((fact) => !change.facts.some((saved) => saved.id === fact.id)), ...structuredClone(change.facts)];
      return { ...snapshot, facts };
    }
    case 'working-memory':
      return {
        ...snapshot,
        workingMemory: change.error !== null && change.memory === '' ? { ...snapshot.workingMemory, status: change.status } : { conversationId: change.conversationId, memory: change.memory, status: change.status },
      };
    case 'blackboard-delta': {
      const blackboard = { ...snapshot.blackboard };
      for (const [section, delta] of Object.entries(change.sections) as Array<[BlackboardSection, ListDelta<MemoryItemData>]>) {
        blackboard[section] = applyListDelta(blackboard[section], delta);
      }
      return { ...snapshot, blackboard, blackboardEarlier: change.earlier ? { ...snapshot.blackboardEarlier, ...change.earlier } : snapshot.blackboardEarlier };
    }
    case 'layers-delta':
      return {
        ...snapshot,
        layers: {
          pending: change.pending ?? snapshot.layers.pending,
          recent: change.recentLines ? applyListDelta(linesOf(snapshot.layers.recent), change.recentLines).join('\n') : (change.recent ?? snapshot.layers.recent),
          summary: change.summary ?? snapshot.layers.summary,
        },
      };
    case 'pruning-delta':
      return { ...snapshot, prunedSteps: applyListDelta(snapshot.prunedSteps, change.pruned) };
    case 'conversation-delta':
      return {
        ...snapshot,
        conversation: {
          context: change.context ? applyListDelta(snapshot.conversation.context, change.context) : snapshot.conversation.context,
          shortTerm: change.shortTerm ? applyListDelta(snapshot.conversation.shortTerm, change.shortTerm) : snapshot.conversation.shortTerm,
          longTerm: change.longTerm ? applyListDelta(snapshot.conversation.longTerm, change.longTerm) : snapshot.conversation.longTerm,
        },
      };
    case 'trace':
      // The trace is the session record itself; the snapshot shows the memory built from it.
      return snapshot;
  }
}

function linesOf(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}

export function applyListDelta<T>(list: readonly T[], delta: ListDelta<T>): T[] {
  // One new array (not a slice, a copy of it and the added items' own array): the window applies thousands.
  const next = list.slice(delta.drop);
  for (const item of delta.add) next.push(copyJson(item));
  return next;
}

/**
 * A copy of JSON data, which is all an event carries: what structuredClone makes of it, at a
 * fraction of its cost per call (a window folding a 2,000-step session applies 6,000 deltas).
 */
function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  const fields = value as Record<string, unknown>;
  // The keys alone (not an array of [key, value] pairs for each object copied).
  for (const key of Object.keys(fields)) {
    // An own "__proto__" (JSON.parse makes one) stays a field, as structuredClone keeps it.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: copyJson(fields[key]), enumerable: true, writable: true, configurable: true });
    else copy[key] = copyJson(fields[key]);
  }
  return copy as T;
}

/**
 * The delta from one list to the next, for lists that grow at the end and lose items at the start
 * (bounded sections, compressed tiers): the fewest items dropped from the start such that what is
 * left begins the new list. Anything else (a reorder, an edit) is a drop of all and an add of all.
 * Null when nothing changed.
 */
export function listDelta<T>(previous: readonly T[], next: readonly T[]): ListDelta<T> | null {
  const key = (item: T) => JSON.stringify(item);
  const before = previous.map(key);
  const after = next.map(key);
  for (let drop = 0; drop <= before.length; drop++) {
    const kept = before.length - drop;
    if (kept > after.length) continue;
    let prefix = true;
    for (let i = 0; i < kept && prefix; i++) prefix = before[drop + i] === after[i];
    if (!prefix) continue;
    if (drop === 0 && kept === after.length) return null;
    return { drop, add: next.slice(kept) as T[] };
  }
  return { drop: before.length, add: [...next] };
}

/**
 * Turns the full states the memory parts report into the small changes a run emits: each event
 * then carries what changed (a new trajectory, the pending line), not the whole blackboard or
 * conversation, so a window following a run receives a few hundred bytes per step however long
 * it has run. The first change of each kind is a delta from empty: the whole state once.
 */
export class MemoryDeltaEncoder {
  private layers: LayersView = { pending: '', recent: '', summary: '' };
  private pruning: { pruned: number[]; dropped: number[] } = { pruned: [], dropped: [] };
  private blackboard: BlackboardDict = { questions: [], requests: [], trajectories: [], screenshots: [] };
  private conversation: MemorySnapshot['conversation'] = { context: [], shortTerm: [], longTerm: [] };
  private earlier: Partial<Record<BlackboardSection, number>> = {};
  private prompt = new Map<PromptSectionName, PromptSectionView>();
  private flags = { layers: '', conversation: '' };

  /** The change to emit, or null when nothing a reader could see changed. */
  delta(change: MemoryChange): MemoryChange | null {
    switch (change.kind) {
      case 'layers': {
        const out: Extract<MemoryChange, { kind: 'layers-delta' }> = { kind: 'layers-delta', compressing: change.compressing, lastError: change.lastError };
        if (change.pending !== this.layers.pending) out.pending = change.pending;
        if (change.summary !== this.layers.summary) out.summary = change.summary;
        if (change.recent !== this.layers.recent) {
          // Recent grows a line per step: send the line, unless the layer was rewritten.
          const lines = listDelta(linesOf(this.layers.recent), linesOf(change.recent));
          if (lines && lines.drop < linesOf(this.layers.recent).length) out.recentLines = lines;
          else out.recent = change.recent;
        }
        const flags = `${change.compressing}|${change.lastError}`;
        const changed = out.pending !== undefined || out.recent !== undefined || out.recentLines !== undefined || out.summary !== undefined || flags !== this.flags.layers;
        this.layers = { pending: change.pending, recent: change.recent, summary: change.summary };
        this.flags.layers = flags;
        return changed ? out : null;
      }
      case 'blackboard': {
        // A board kept for years holds thousands of items: the run's events carry the newest of
        // each section (and how many came before), so a session's record stays small.
        const sections: Partial<Record<BlackboardSection, ListDelta<MemoryItemData>>> = {};
        const earlier: Partial<Record<BlackboardSection, number>> = {};
        const view = { ...change.snapshot };
        for (const section of ['questions', 'requests', 'trajectories', 'screenshots'] as const) {
          const items = change.snapshot[section];
          const before = Math.max(0, items.length - BLACKBOARD_VIEW_ITEMS);
          view[section] = before > 0 ? items.slice(before) : items;
          const delta = listDelta(this.blackboard[section], view[section]);
          if (delta) sections[section] = delta;
          if (before !== (this.earlier[section] ?? 0)) earlier[section] = before;
        }
        this.blackboard = structuredClone(view);
        this.earlier = { ...this.earlier, ...earlier };
        if (Object.keys(sections).length === 0 && Object.keys(earlier).length === 0) return null;
        return { kind: 'blackboard-delta', sections, ...(Object.keys(earlier).length > 0 ? { earlier } : {}) };
      }
      case 'prompt': {
        const sections = change.sections.map((section): PromptSectionDelta => {
          const { text, ...rest } = section;
          const before = this.prompt.get(section.name);
          if (!before || before.text === '' || text === '') return section;
          return { ...rest, lines: lineSplices(linesOf(before.text), linesOf(text)) };
        });
        const unchanged = change.sections.length === this.prompt.size && change.sections.every((section) => JSON.stringify(section) === JSON.stringify(this.prompt.get(section.name)));
        this.prompt = new Map(change.sections.map((section) => [section.name, structuredClone(section)]));
        return unchanged ? null : { kind: 'prompt-delta', sections, totalTokens: change.totalTokens };
      }
      case 'conversation': {
        const context = listDelta(this.conversation.context, change.context);
        const shortTerm = listDelta(this.conversation.shortTerm, change.shortTerm);
        const longTerm = listDelta(this.conversation.longTerm, change.longTerm);
        const flags = `${change.compressing}|${change.lastError}`;
        const changed = context || shortTerm || longTerm || flags !== this.flags.conversation;
        this.conversation = { context: structuredClone(change.context), shortTerm: [...change.shortTerm], longTerm: [...change.longTerm] };
        this.flags.conversation = flags;
        if (!changed) return null;
        return {
          kind: 'conversation-delta',
          ...(context ? { context } : {}),
          ...(shortTerm ? { shortTerm } : {}),
          ...(longTerm ? { longTerm } : {}),
          compressing: change.compressing,
          lastError: change.lastError,
        };
      }
      case 'trace':
        // The item is the step's own record (its prediction, actions and results are events of
        // their own): say only that the trace changed.
        return { ...change, item: null };
      case 'pruning': {
        const pruned = listDelta(this.pruning.pruned, change.prunedSteps) ?? { drop: 0, add: [] };
        const dropped = listDelta(this.pruning.dropped, change.droppedSteps) ?? { drop: 0, add: [] };
        this.pruning = { pruned: [...change.prunedSteps], dropped: [...change.droppedSteps] };
        const { kind: _kind, prunedSteps: _pruned, droppedSteps: _dropped, ...rest } = change;
        return { kind: 'pruning-delta', pruned, dropped, ...rest };
      }
      default:
        return change;
    }
  }
}

/** The state at the end of a sequence of changes (e.g. a run's recorded memory events). */
export function buildMemorySnapshot(changes: Iterable<MemoryChange>): MemorySnapshot {
  let snapshot = emptyMemorySnapshot();
  for (const change of changes) snapshot = applyMemoryChange(snapshot, change);
  return snapshot;
}

/** Calls every listener given (undefined ones are skipped). */
export function fanOut(...listeners: Array<MemoryChangeListener | undefined>): MemoryChangeListener {
  const present = listeners.filter((listener): listener is MemoryChangeListener => listener !== undefined);
  return (change) => {
    for (const listener of present) listener(change);
  };
}

/** A recorded value as a MemoryChange, or null when it is not one. */
export function parseMemoryChange(value: unknown): MemoryChange | null {
  const parsed = MemoryChangeSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Keeps the latest snapshot as changes arrive: pass `listener` as (one of) the `onChange`s. */
export class MemorySnapshotTracker {
  private snapshot: MemorySnapshot = emptyMemorySnapshot();
  readonly listener: MemoryChangeListener = (change) => {
    this.snapshot = applyMemoryChange(this.snapshot, change);
  };

  get current(): MemorySnapshot {
    return this.snapshot;
  }
}
