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
import { applyLineSplices, lineSplices, type LineSplice } from './line-splices';
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** The seed's fields with their types; any other key is a custom field. */
export interface MemoryItemData {
  step?: number;
  /** A path (relative to the session folder, or absolute), never the image. */
  screenshot?: string;
  /** The action's name, e.g. `click`, or several joined by `, `. */
  action?: string;
  arguments?: JsonObject;
  results?: JsonValue[];
  observation?: string;
  control_text?: string;
  request?: string;
  response?: string;
  parsed_response?: JsonObject;
  cost?: number;
  error?: string | null;
  [custom: string]: JsonValue | undefined;
}


export interface LayersView {
  /** The step in progress. */
  pending: string;
  /** Finished steps not yet summarised. */
  recent: string;
  /** The compressed history. */
  summary: string;
}

export interface ConversationMessage {
  role: 'user' | 'assistant';
  content: string;
  /** A task given to the agent, or any other message. */
  kind: 'task' | 'message';
}

/**
 * One fact as a memory event carries it: small, never the whole store. `change` says what a save
 * did (added, superseded the old value, extended a multiple fact, or found it already stored).
 */
export interface FactBrief {
  id: string;
  subject: string;
  scope: string;
  keyword: string;
  values: string[];
  change?: 'added' | 'superseded' | 'extended' | 'unchanged';
}

/** The blackboard as data (`blackboardToDict`): four lists of MemoryItem dicts. */
export interface BlackboardDict {
  questions: MemoryItemData[];
  requests: MemoryItemData[];
  trajectories: MemoryItemData[];
  screenshots: MemoryItemData[];
}

/** How a list changed: `drop` items gone from its start, then `add` appended at its end. */
export interface ListDelta<T> {
  drop: number;
  add: T[];
}

export type BlackboardSection = keyof BlackboardDict;

/** The parts of memory that reach the system prompt, each as one section. */
export const PROMPT_SECTION_NAMES = ['layers', 'blackboard', 'conversation', 'workingMemory', 'facts'] as const;
export type PromptSectionName = (typeof PROMPT_SECTION_NAMES)[number];

/**
 * One memory section of the last system prompt: its budget, what it cost, what went in and what
 * was left out (kept in memory, not in this prompt).
 */
export interface PromptSectionView {
  name: PromptSectionName;
  /** Estimated tokens the section may take; null: bounded by its own limits (the layers). */
  budgetTokens: number | null;
  usedTokens: number;
  /** Entries shown and left out. */
  shown: number;
  omitted: number;
  /** What was left out, in words ('' when nothing was). */
  leftOut: string;
  /** The text that went into the prompt ('' when the section was empty). */
  text: string;
}

/** A section as it changed: its text as line splices when it had one before, else whole. */
export type PromptSectionDelta = Omit<PromptSectionView, 'text'> & { text?: string; lines?: LineSplice[] };

/** The memory part of the last system prompt. */
export interface PromptView {
  sections: PromptSectionView[];
  totalTokens: number;
}

/** Blackboard items a run's events carry at most per section: the newest; the board keeps all. */
export const BLACKBOARD_VIEW_ITEMS = 100;

export type MemoryChange =
  | {
      kind: 'trace';
      op: 'add' | 'delete' | 'clear' | 'load';
      /** The step added or deleted; null for clear and load. */
      step: number | null;
      /** The item added (null for other ops). */
      item: MemoryItemData | null;
      /** Items in the trace after the change. */
      length: number;
      /** Items removed by this change (the max-items bound, a delete, a clear). */
      dropped: number;
    }
  | (LayersView & {
      kind: 'layers';
      /** A summarisation call is in flight. */
      compressing: boolean;
      /** The last summarisation failure, until one succeeds. */
      lastError: string | null;
    })
  | {
      kind: 'pruning';
      /** Steps whose screenshot the model's input does not carry (a placeholder stands in). */
      prunedSteps: number[];
      /** Steps left out of the model's input altogether (the history window, the hard limit). */
      droppedSteps: number[];
      /** Images in the model's input, the current screenshot included. */
      imagesKept: number;
      estimatedTokens: number;
      thresholdTokens: number;
      /** The token hard limit removed something. */
      hardLimitApplied: boolean;
    }
  | { kind: 'blackboard'; snapshot: BlackboardDict }
  /** What changed on the blackboard since the last change of the run (what runs emit; see MemoryChangeCompactor). */
  | {
      kind: 'blackboard-delta';
      sections: Partial<Record<BlackboardSection, ListDelta<MemoryItemData>>>;
      /** Items before the newest BLACKBOARD_VIEW_ITEMS of a section (kept, not carried), when that changed. */
      earlier?: Partial<Record<BlackboardSection, number>>;
    }
  /** The memory sections of the system prompt as the model was last sent them. */
  | ({ kind: 'prompt' } & PromptView)
  /** The prompt's sections as they changed since the last prompt of the run (what runs emit). */
  | { kind: 'prompt-delta'; sections: PromptSectionDelta[]; totalTokens: number }
  /** The layers that changed since the last change of the run (the others are as they were). */
  | (Partial<LayersView> & {
      kind: 'layers-delta';
      /** The recent layer's lines, when it only gained lines at the end or lost some at the start. */
      recentLines?: ListDelta<string>;
      compressing: boolean;
      lastError: string | null;
    })
  /** Pruning as it changed: the steps newly pruned or dropped, not the whole growing lists again. */
  | {
      kind: 'pruning-delta';
      pruned: ListDelta<number>;
      dropped: ListDelta<number>;
      imagesKept: number;
      estimatedTokens: number;
      thresholdTokens: number;
      hardLimitApplied: boolean;
    }
  | {
      kind: 'conversation-delta';
      context?: ListDelta<ConversationMessage>;
      shortTerm?: ListDelta<string>;
      longTerm?: ListDelta<string>;
      compressing: boolean;
      lastError: string | null;
    }
  | {
      kind: 'conversation';
      context: ConversationMessage[];
      shortTerm: string[];
      longTerm: string[];
      /** A memory manager call is in flight. */
      compressing: boolean;
      lastError: string | null;
    }
  | {
      kind: 'facts';
      /** `loaded`: put in the prompt at the start of a task; `saved`: written to the fact store. */
      op: 'loaded' | 'saved';
      /** What brought the facts: the task's prompt, the model's save_fact action, auto-detection after the task. */
      source: 'prompt' | 'save_fact' | 'auto-detect';
      facts: FactBrief[];
      /** Estimated prompt tokens the loaded facts take (0 for saves). */
      tokens: number;
      /** Why the load or save failed (storage unreachable, a reply that could not be read); null when it worked. */
      error: string | null;
    }
  | {
      kind: 'working-memory';
      /** `loaded` into the prompt at the start of a task; `updated` after it. */
      op: 'loaded' | 'updated';
      conversationId: string;
      /** The conversation's working memory (one summary, bounded by the model). */
      memory: string;
      /** The working memory agent's status string after an update (`success`, `error: ...`); null for loads. */
      status: string | null;
      error: string | null;
    };

export type MemoryChangeKind = MemoryChange['kind'];
export type MemoryChangeOf<K extends MemoryChangeKind> = Extract<MemoryChange, { kind: K }>;
export type MemoryChangeListener = (change: MemoryChange) => void;

/** The memory at one moment: what `mnemo memory show <session-id> --json` prints. */
export interface MemorySnapshot {
  layers: LayersView;
  prunedSteps: number[];
  blackboard: BlackboardDict;
  /** Items of each blackboard section older than those in `blackboard` (kept on disk or in Redis). */
  blackboardEarlier: Partial<Record<BlackboardSection, number>>;
  /** The memory part of the last system prompt; null before the first one. */
  prompt: PromptView | null;
  conversation: {
    context: ConversationMessage[];
    shortTerm: string[];
    longTerm: string[];
  };
  /** Facts put in the prompt at the start, facts saved during and after the run, the last failure. */
  facts: { loaded: FactBrief[]; saved: FactBrief[]; lastError: string | null };
  /** The conversation's working memory as last loaded or updated. */
  workingMemory: { conversationId: string | null; memory: string; status: string | null };
}

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
  return [...list.slice(delta.drop), ...structuredClone(delta.add)];
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
export class MemoryChangeCompactor {
  private layers: LayersView = { pending: '', recent: '', summary: '' };
  private pruning: { pruned: number[]; dropped: number[] } = { pruned: [], dropped: [] };
  private blackboard: BlackboardDict = { questions: [], requests: [], trajectories: [], screenshots: [] };
  private conversation: MemorySnapshot['conversation'] = { context: [], shortTerm: [], longTerm: [] };
  private earlier: Partial<Record<BlackboardSection, number>> = {};
  private prompt = new Map<PromptSectionName, PromptSectionView>();
  private flags = { layers: '', conversation: '' };

  /** The change to emit, or null when nothing a reader could see changed. */
  compact(change: MemoryChange): MemoryChange | null {
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

// ---------------------------------------------------------------------------------------------
// Schemas, to read changes back from a session record (validated at that boundary).

const ItemSchema = z.record(z.string(), z.json());
const ConversationMessageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  kind: z.enum(['task', 'message']),
});
const FactBriefSchema = z.object({
  id: z.string(),
  subject: z.string(),
  scope: z.string(),
  keyword: z.string(),
  values: z.array(z.string()),
  change: z.enum(['added', 'superseded', 'extended', 'unchanged']).optional(),
});
function listDeltaSchema<T extends z.ZodType>(item: T) {
  return z.object({ drop: z.number().int().nonnegative(), add: z.array(item) });
}
export const BlackboardDictSchema = z.object({
  questions: z.array(ItemSchema),
  requests: z.array(ItemSchema),
  trajectories: z.array(ItemSchema),
  screenshots: z.array(ItemSchema),
});

const PromptSectionBaseSchema = z.object({
  name: z.enum(PROMPT_SECTION_NAMES),
  budgetTokens: z.number().nonnegative().nullable(),
  usedTokens: z.number().nonnegative(),
  shown: z.number().int().nonnegative(),
  omitted: z.number().int().nonnegative(),
  leftOut: z.string(),
});
const PromptSectionSchema = PromptSectionBaseSchema.extend({ text: z.string() });
const LineSpliceSchema = z.object({ at: z.number().int().nonnegative(), remove: z.number().int().nonnegative(), insert: z.array(z.string()) });
const BlackboardCountsSchema = z.object({ questions: z.number(), requests: z.number(), trajectories: z.number(), screenshots: z.number() }).partial();

export const MemoryChangeSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('trace'),
    op: z.enum(['add', 'delete', 'clear', 'load']),
    step: z.number().nullable(),
    item: ItemSchema.nullable(),
    length: z.number().int().nonnegative(),
    dropped: z.number().int().nonnegative(),
  }),
  z.object({
    kind: z.literal('layers'),
    pending: z.string(),
    recent: z.string(),
    summary: z.string(),
    compressing: z.boolean(),
    lastError: z.string().nullable(),
  }),
  z.object({
    kind: z.literal('pruning'),
    prunedSteps: z.array(z.number()),
    droppedSteps: z.array(z.number()),
    imagesKept: z.number().int().nonnegative(),
    estimatedTokens: z.number().nonnegative(),
    thresholdTokens: z.number().nonnegative(),
    hardLimitApplied: z.boolean(),
  }),
  z.object({ kind: z.literal('blackboard'), snapshot: BlackboardDictSchema }),
  z.object({
    kind: z.literal('blackboard-delta'),
    sections: z.object({ questions: listDeltaSchema(ItemSchema), requests: listDeltaSchema(ItemSchema), trajectories: listDeltaSchema(ItemSchema), screenshots: listDeltaSchema(ItemSchema) }).partial(),
    earlier: BlackboardCountsSchema.optional(),
  }),
  z.object({ kind: z.literal('prompt'), sections: z.array(PromptSectionSchema), totalTokens: z.number().nonnegative() }),
  z.object({
    kind: z.literal('prompt-delta'),
    sections: z.array(PromptSectionBaseSchema.extend({ text: z.string().optional(), lines: z.array(LineSpliceSchema).optional() })),
    totalTokens: z.number().nonnegative(),
  }),
  z.object({
    kind: z.literal('pruning-delta'),
    pruned: listDeltaSchema(z.number()),
    dropped: listDeltaSchema(z.number()),
    imagesKept: z.number().int().nonnegative(),
    estimatedTokens: z.number().nonnegative(),
    thresholdTokens: z.number().nonnegative(),
    hardLimitApplied: z.boolean(),
  }),
  z.object({
    kind: z.literal('layers-delta'),
    pending: z.string().optional(),
    recent: z.string().optional(),
    recentLines: listDeltaSchema(z.string()).optional(),
    summary: z.string().optional(),
    compressing: z.boolean(),
    lastError: z.string().nullable(),
  }),
  z.object({
    kind: z.literal('conversation-delta'),
    context: listDeltaSchema(ConversationMessageSchema).optional(),
    shortTerm: listDeltaSchema(z.string()).optional(),
    longTerm: listDeltaSchema(z.string()).optional(),
    compressing: z.boolean(),
    lastError: z.string().nullable(),
  }),
  z.object({
    kind: z.literal('conversation'),
    context: z.array(ConversationMessageSchema),
    shortTerm: z.array(z.string()),
    longTerm: z.array(z.string()),
    compressing: z.boolean(),
    lastError: z.string().nullable(),
  }),
  z.object({
    kind: z.literal('facts'),
    op: z.enum(['loaded', 'saved']),
    source: z.enum(['prompt', 'save_fact', 'auto-detect']),
    facts: z.array(FactBriefSchema),
    tokens: z.number().nonnegative(),
    error: z.string().nullable(),
  }),
  z.object({
    kind: z.literal('working-memory'),
    op: z.enum(['loaded', 'updated']),
    conversationId: z.string(),
    memory: z.string(),
    status: z.string().nullable(),
    error: z.string().nullable(),
  }),
]);

export const MemorySnapshotSchema = z.object({
  layers: z.object({ pending: z.string(), recent: z.string(), summary: z.string() }),
  prunedSteps: z.array(z.number()),
  blackboard: BlackboardDictSchema,
  blackboardEarlier: BlackboardCountsSchema,
  prompt: z.object({ sections: z.array(PromptSectionSchema), totalTokens: z.number().nonnegative() }).nullable(),
  conversation: z.object({
    context: z.array(ConversationMessageSchema),
    shortTerm: z.array(z.string()),
    longTerm: z.array(z.string()),
  }),
  facts: z.object({ loaded: z.array(FactBriefSchema), saved: z.array(FactBriefSchema), lastError: z.string().nullable() }),
  workingMemory: z.object({ conversationId: z.string().nullable(), memory: z.string(), status: z.string().nullable() }),
});

/** A recorded value as a MemoryChange, or null when it is not one. */
export function parseMemoryChange(value: unknown): MemoryChange | null {
  const parsed = MemoryChangeSchema.safeParse(value);
  return parsed.success ? (parsed.data as MemoryChange) : null;
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
