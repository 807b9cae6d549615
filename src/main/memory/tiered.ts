/**
 * Tiered conversation memory (seed 004, AutoGen's Memory Enabled Agent): the tasks and messages
 * between the user and the agent, kept in three tiers.
 *
 *   chat context (CC)   at most `maxConvoLength` messages (default 10). Past that, the oldest
 *                       `compressionRatioChat` (0.8) go to the memory manager, which extracts key
 *                       points by calling `append_to_short_term_memory`.
 *   short-term (STM)    at most `shortTermMemoryLimit` memories (10), pinned above the chat context.
 *                       Past that, the oldest `compressionRatioStm` (0.8) are worked into long-term
 *                       memory by the manager, which calls `rewrite_memory` with the whole of it.
 *   long-term (LTM)     no limit; the manager keeps it condensed. The agent asks it with
 *                       `query_long_term_memory(hint)` and gets a synthesised answer, not a copy.
 *
 * The seed hands the manager the whole long-term memory for every rewrite and every question. Here
 * that holds while it is small; past `longTermCallTokens` the manager is shown the statements a
 * ranked search (BM25) finds related to the question, or to the memories being worked in, and a
 * rewrite replaces only those: a long-term memory of thousands of statements is searched, not
 * listed, and every call stays bounded.
 *
 * As in the seed, trim_index = floor(length × ratio): the messages before it leave, the rest stay.
 * Nothing is lost: messages (or memories) leave a tier only after the manager's call succeeded; a
 * failure leaves them where they were and the next message (or `compress()`) tries again. Without
 * a model nothing is compressed.
 */
import type { ConversationMessage, MemoryChange, MemoryChangeListener } from './events';
import type { TextMessage, TextModel, TextReply, TextTool } from './text-model';
import { describeModelError, parseJsonObject } from './text-replies';
import { FactSearchIndex } from './facts/search-index';
import { tokensOf } from './prompt-section';

/** Max number of short-term memories before the oldest are moved to long-term memory. */
export const DEFAULT_SHORT_TERM_MEMORY_LIMIT = 10;
/** Share of short-term memories moved when the limit is passed (0.8: 8 of 10). */
export const DEFAULT_COMPRESSION_RATIO_STM = 0.8;
/** Max messages in the chat context (user and agent both count; at least 2). */
export const DEFAULT_MAX_CONVO_LENGTH = 10;
/** Share of the chat context moved when the limit is passed (0.8: 8 of 10). */
export const DEFAULT_COMPRESSION_RATIO_CHAT = 0.8;

export interface TieredMemoryOptions {
  maxConvoLength: number;
  compressionRatioChat: number;
  shortTermMemoryLimit: number;
  compressionRatioStm: number;
  /** How the memories name the user. Default `the user`. */
  userName: string;
  /** Long-term memory a manager call is shown at most (estimated tokens); past it, the related part. Default 2000. */
  longTermCallTokens: number;
}

export const DEFAULT_TIERED_MEMORY_OPTIONS: TieredMemoryOptions = {
  maxConvoLength: DEFAULT_MAX_CONVO_LENGTH,
  compressionRatioChat: DEFAULT_COMPRESSION_RATIO_CHAT,
  shortTermMemoryLimit: DEFAULT_SHORT_TERM_MEMORY_LIMIT,
  compressionRatioStm: DEFAULT_COMPRESSION_RATIO_STM,
  userName: 'the user',
  longTermCallTokens: 2000,
};

export const APPEND_TO_SHORT_TERM_MEMORY = 'append_to_short_term_memory';
export const REWRITE_MEMORY = 'rewrite_memory';
export const QUERY_LONG_TERM_MEMORY = 'query_long_term_memory';

/** The manager's tool for key points of a conversation section. */
export const APPEND_TO_SHORT_TERM_MEMORY_TOOL: TextTool = {
  name: APPEND_TO_SHORT_TERM_MEMORY,
  description: 'Stores a list of memories in short-term memory.',
  parameters: {
    type: 'object',
    properties: {
      memories: {
        type: 'array',
        items: { type: 'string', description: 'One thing to remember, phrased so that someone without the conversation understands it.' },
      },
    },
    required: ['memories'],
  },
};

/** The manager's tool for the whole long-term memory, rewritten with the new memories in it. */
export const REWRITE_MEMORY_TOOL: TextTool = {
  name: REWRITE_MEMORY,
  description: 'Replaces the whole long-term memory with a condensed version that holds the old and the new information.',
  parameters: {
    type: 'object',
    properties: {
      memories: {
        type: 'array',
        items: { type: 'string', description: 'One statement of the rewritten long-term memory.' },
      },
    },
    required: ['memories'],
  },
};

/** The agent's tool to recall something from long-term memory. */
export const QUERY_LONG_TERM_MEMORY_TOOL: TextTool = {
  name: QUERY_LONG_TERM_MEMORY,
  description:
    'Recalls older information from long-term memory. Check the short-term memory shown to you first; use this for what lies outside it.',
  parameters: {
    type: 'object',
    properties: { hint: { type: 'string', description: 'What you are trying to remember.' } },
    required: ['hint'],
  },
};

export const MEMORY_MANAGER_PROMPT = `You manage the memory of an assistant that operates a computer for a user. You do one of three jobs at a time.

1. A section of conversation is leaving the assistant's view. Extract every key point, fact and decision from it, each as one self-contained statement, and pass the list to append_to_short_term_memory. Miss nothing that may matter later.

2. You are shown the long-term memory and new memories to work into it. Call rewrite_memory with the whole long-term memory rewritten: merge, update or correct statements in place rather than only appending, drop what the new information contradicts, and keep it as dense as possible.

3. You are shown the long-term memory and asked what is known about something. Answer in plain words from what the memory holds, combining statements where that helps; do not copy the memory out and do not call a function. If nothing is known, say "I don't know anything about" followed by the subject.

Do not converse.`;

export interface TieredMemoryDeps {
  /** The memory manager's model (may be a second, cheaper one); null or absent: no compression. */
  model?: TextModel | null | undefined;
  onChange?: MemoryChangeListener | undefined;
  log?: ((line: string) => void) | undefined;
}

export interface TieredReport {
  /** Messages that left the chat context for short-term memory in this pass. */
  messagesMoved: number;
  /** Short-term memories worked into long-term memory in this pass. */
  memoriesMoved: number;
  error: string | null;
}

export type LongTermAnswer = { ok: true; answer: string; fromModel: boolean } | { ok: false; error: string };

/** The tiers as data, to save and restore. */
export interface TieredMemoryDict {
  context: ConversationMessage[];
  shortTerm: string[];
  longTerm: string[];
}

type Step<T> = { ok: true; value: T } | { ok: false; error: string };

export class TieredMemory {
  private chat: ConversationMessage[] = [];
  private stm: string[] = [];
  private ltm: string[] = [];
  private readonly options: TieredMemoryOptions;
  private readonly model: TextModel | null;
  private readonly onChange: MemoryChangeListener | undefined;
  private readonly subscribers = new Set<MemoryChangeListener>();
  private readonly log: (line: string) => void;
  private running: Promise<TieredReport> | null = null;
  private busy = false;
  private lastErrorText: string | null = null;
  private ltmIndex: { memory: readonly string[]; index: FactSearchIndex } | null = null;

  constructor(options: Partial<TieredMemoryOptions> = {}, deps: TieredMemoryDeps = {}) {
    this.options = { ...DEFAULT_TIERED_MEMORY_OPTIONS, ...options };
    const { maxConvoLength, shortTermMemoryLimit, compressionRatioChat, compressionRatioStm } = this.options;
    if (!Number.isInteger(maxConvoLength) || maxConvoLength < 2) throw new RangeError(`maxConvoLength must be a whole number ≥ 2, got ${maxConvoLength}`);
    if (!Number.isInteger(shortTermMemoryLimit) || shortTermMemoryLimit < 1) {
      throw new RangeError(`shortTermMemoryLimit must be a whole number ≥ 1, got ${shortTermMemoryLimit}`);
    }
    for (const [name, ratio] of [['compressionRatioChat', compressionRatioChat], ['compressionRatioStm', compressionRatioStm]] as const) {
      if (!(ratio > 0 && ratio <= 1)) throw new RangeError(`${name} must be in (0, 1], got ${ratio}`);
    }
    this.model = deps.model ?? null;
    this.onChange = deps.onChange;
    this.log = deps.log ?? (() => {});
  }

  /** A task given to the agent (a user message). */
  addTask(task: string, signal?: AbortSignal): Promise<TieredReport> {
    return this.addMessage({ role: 'user', content: task, kind: 'task' }, signal);
  }

  /** Adds a message to the chat context, then moves what is over the limits. Never rejects. */
  addMessage(message: { role: ConversationMessage['role']; content: string; kind?: ConversationMessage['kind'] }, signal?: AbortSignal): Promise<TieredReport> {
    this.chat.push({ role: message.role, content: message.content, kind: message.kind ?? 'message' });
    this.report();
    return this.compress(signal);
  }

  /** Moves messages and memories that are over the limits; also the retry after a failure. */
  async compress(signal?: AbortSignal): Promise<TieredReport> {
    while (this.running) await this.running;
    const run = this.compressOnce(signal).finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  get context(): readonly ConversationMessage[] {
    return this.chat;
  }

  get shortTerm(): readonly string[] {
    return this.stm;
  }

  get longTerm(): readonly string[] {
    return this.ltm;
  }

  get userName(): string {
    return this.options.userName;
  }

  /**
   * Long-term statements related to `text`, best first (a ranked search), at most `budgetTokens`
   * of them; the search index is kept until the memory is rewritten.
   */
  searchLongTerm(text: string, budgetTokens: number): string[] {
    if (this.ltmIndex === null || this.ltmIndex.memory !== this.ltm) {
      const index = new FactSearchIndex();
      this.ltm.forEach((memory, position) => index.set(String(position), { keyword: '', description: memory, values: [] }));
      this.ltmIndex = { memory: this.ltm, index };
    }
    const found: string[] = [];
    let used = 0;
    for (const hit of this.ltmIndex.index.search(text, { limit: 200 })) {
      const memory = this.ltm[Number(hit.id)] as string;
      const cost = tokensOf(memory) + 1;
      if (used + cost > budgetTokens) continue;
      found.push(memory);
      used += cost;
    }
    return found;
  }

  /** The long-term memory whole when it is within a manager call's share, else what bears on `text`. */
  private longTermFor(text: string): { memories: string[]; whole: boolean } {
    if (tokensOf(this.ltm.join('|')) <= this.options.longTermCallTokens) return { memories: this.ltm, whole: true };
    return { memories: this.searchLongTerm(text, this.options.longTermCallTokens), whole: false };
  }

  get compressing(): boolean {
    return this.busy;
  }

  get lastError(): string | null {
    return this.lastErrorText;
  }

  /** Short-term memory as the text pinned above the chat context; empty when there is none. */
  shortTermPrompt(): string {
    if (this.stm.length === 0) return '';
    return `Things you remember about ${this.options.userName}:\n${this.stm.map((memory) => `- ${memory}`).join('\n')}`;
  }

  /** The conversation for a model: short-term memory pinned first, then the chat context. */
  promptMessages(): TextMessage[] {
    const pinned = this.shortTermPrompt();
    return [...(pinned ? [{ role: 'system' as const, content: pinned }] : []), ...this.chat.map((message) => ({ role: message.role, content: message.content }))];
  }

  /** The same as one text (for a system prompt). */
  toPrompt(): string {
    const parts: string[] = [];
    const pinned = this.shortTermPrompt();
    if (pinned) parts.push(pinned);
    if (this.chat.length > 0) parts.push(`Conversation so far:\n${this.chat.map(renderMessage).join('\n')}`);
    return parts.join('\n\n');
  }

  /** Answers from long-term memory: the manager's synthesis, not a copy of the memory. */
  async queryLongTermMemory(hint: string, signal?: AbortSignal): Promise<LongTermAnswer> {
    const subject = hint.trim();
    if (subject === '') return { ok: false, error: 'query_long_term_memory needs a hint' };
    if (this.ltm.length === 0) return { ok: true, answer: `I don't know anything about ${subject}.`, fromModel: false };
    if (!this.model) return { ok: false, error: 'no memory model is configured to answer from long-term memory' };
    const { memories, whole } = this.longTermFor(subject);
    if (memories.length === 0) return { ok: true, answer: `I don't know anything about ${subject}.`, fromModel: false };
    const shown = whole ? `Full Long Term Memory:\n${memories.join('|')}` : `Long Term Memory (the ${memories.length} of ${this.ltm.length} statements related to the question):\n${memories.join('|')}`;
    const reply = await this.model.complete(
      {
        system: MEMORY_MANAGER_PROMPT,
        messages: [
          {
            role: 'user',
            content: `${shown}\n\nWhat do I know about: ${subject}?\n\nAnswer in plain words; do not call a function. Call ${this.options.userName} by that name, not "you".`,
          },
        ],
      },
      signal,
    );
    if (!reply.ok) return { ok: false, error: `Long-term memory lookup failed: ${describeModelError(reply.error)}` };
    const answer = (reply.text ?? '').replace(/\bTERMINATE\s*$/, '').trim();
    if (answer === '') return { ok: false, error: 'Long-term memory lookup failed: the memory manager returned no text' };
    return { ok: true, answer, fromModel: true };
  }

  /** Runs the agent's `query_long_term_memory` call (arguments as the model wrote them). */
  async handleToolCall(call: { name: string; arguments: string }, signal?: AbortSignal): Promise<LongTermAnswer> {
    if (call.name !== QUERY_LONG_TERM_MEMORY) return { ok: false, error: `unknown memory function ${call.name}` };
    const args = parseJsonObject(call.arguments);
    const hint = args?.['hint'];
    if (typeof hint !== 'string') return { ok: false, error: `${QUERY_LONG_TERM_MEMORY} needs {"hint": "..."}, got ${call.arguments}` };
    return this.queryLongTermMemory(hint, signal);
  }

  toDict(): TieredMemoryDict {
    return { context: structuredClone(this.chat), shortTerm: [...this.stm], longTerm: [...this.ltm] };
  }

  restore(dict: TieredMemoryDict): void {
    this.chat = structuredClone(dict.context);
    this.stm = [...dict.shortTerm];
    this.ltm = [...dict.longTerm];
    this.report();
  }

  clear(): void {
    this.chat = [];
    this.stm = [];
    this.ltm = [];
    this.lastErrorText = null;
    this.report();
  }

  private async compressOnce(signal: AbortSignal | undefined): Promise<TieredReport> {
    const report: TieredReport = { messagesMoved: 0, memoriesMoved: 0, error: null };
    if (!this.model) return report;
    if (this.chat.length > this.options.maxConvoLength) {
      const moved = await this.chatToShortTerm(this.model, signal);
      if (moved.ok) report.messagesMoved = moved.value;
      else report.error = moved.error;
    }
    // Also after a failure above: short-term memory left over its limit earlier is retried here.
    if (this.stm.length > this.options.shortTermMemoryLimit) {
      const moved = await this.shortTermToLongTerm(this.model, signal);
      if (moved.ok) report.memoriesMoved = moved.value;
      else report.error = moved.error;
    }
    return report;
  }

  private async chatToShortTerm(model: TextModel, signal: AbortSignal | undefined): Promise<Step<number>> {
    const trimIndex = Math.max(1, Math.floor(this.chat.length * this.options.compressionRatioChat));
    const lost = this.chat.slice(0, trimIndex);
    this.log(`Moving ${lost.length} messages from the chat context to short-term memory`);
    const reply = await this.call(model, {
      system: MEMORY_MANAGER_PROMPT,
      messages: [
        {
          role: 'user',
          content:
            `Conversation Section to Summarize:\n${lost.map(renderMessage).join('\n')}\n\n` +
            `Please make a function call to ${APPEND_TO_SHORT_TERM_MEMORY} and pass in the key points you can extract from the above conversation section. ` +
            `Write "${this.options.userName}" for the user and "I" for the assistant.`,
        },
      ],
      tools: [APPEND_TO_SHORT_TERM_MEMORY_TOOL],
    }, signal);
    const memories = reply.ok ? memoriesFrom(reply, APPEND_TO_SHORT_TERM_MEMORY) : reply;
    if (!memories.ok) return this.fail(`Short-term memory update failed: ${memories.error}`);
    // Messages added during the call stay; only the section the manager saw leaves.
    if (lost.some((message, index) => this.chat[index] !== message)) return this.unchanged();
    this.chat = this.chat.slice(trimIndex);
    this.stm = [...this.stm, ...memories.value];
    this.succeed();
    return { ok: true, value: lost.length };
  }

  private async shortTermToLongTerm(model: TextModel, signal: AbortSignal | undefined): Promise<Step<number>> {
    const trimIndex = Math.max(1, Math.floor(this.stm.length * this.options.compressionRatioStm));
    const lost = this.stm.slice(0, trimIndex);
    this.log(`Moving ${lost.length} short-term memories into long-term memory`);
    // A large memory: the manager rewrites the part related to the new memories, the rest stays.
    const before = this.ltm;
    const { memories: part, whole } = this.longTermFor(lost.join(' '));
    const shown = whole ? `Full Long Term Memory:\n${part.join('|')}` : `Part of the Long Term Memory (the ${part.length} of ${before.length} statements related to the new memories):\n${part.join('|')}`;
    const reply = await this.call(model, {
      system: MEMORY_MANAGER_PROMPT,
      messages: [
        {
          role: 'user',
          content:
            `${shown}\n\nNew memory or memories to incorporate:\n${lost.join('|')}\n\n` +
            `Please make a function call to ${REWRITE_MEMORY} and pass in the ${whole ? 'whole long-term memory' : 'part of the long-term memory shown'} rewritten to hold the old and the new. ` +
            'Change statements in place where you can and add only what is new; condense and reorganise so that it stays as dense as possible.',
        },
      ],
      tools: [REWRITE_MEMORY_TOOL],
    }, signal);
    const memories = reply.ok ? memoriesFrom(reply, REWRITE_MEMORY) : reply;
    if (!memories.ok) return this.fail(`Long-term memory update failed: ${memories.error}`);
    if (memories.value.length === 0) return this.fail(`Long-term memory update failed: ${REWRITE_MEMORY} was called with an empty memory`);
    if (this.ltm !== before || lost.some((memory, index) => this.stm[index] !== memory)) return this.unchanged();
    this.stm = this.stm.slice(trimIndex);
    const replaced = new Set(part);
    this.ltm = whole ? memories.value : [...before.filter((memory) => !replaced.has(memory)), ...memories.value];
    this.succeed();
    return { ok: true, value: lost.length };
  }

  private async call(model: TextModel, request: Parameters<TextModel['complete']>[0], signal: AbortSignal | undefined): Promise<Extract<TextReply, { ok: true }> | { ok: false; error: string }> {
    this.busy = true;
    this.report();
    try {
      const reply = await model.complete(request, signal);
      return reply.ok ? reply : { ok: false, error: describeModelError(reply.error) };
    } finally {
      this.busy = false;
    }
  }

  /** The tiers changed under the call (a clear or a restore): its result no longer applies. */
  private unchanged(): Step<number> {
    this.report();
    return { ok: true, value: 0 };
  }

  private fail(message: string): { ok: false; error: string } {
    this.lastErrorText = message;
    this.log(message);
    this.report();
    return { ok: false, error: message };
  }

  private succeed(): void {
    this.lastErrorText = null;
    this.report();
  }

  /** Reports every later change to `listener` too (an agent, while it runs); returns the unsubscribe. */
  subscribe(listener: MemoryChangeListener): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  private report(): void {
    const change: MemoryChange = {
      kind: 'conversation',
      context: structuredClone(this.chat),
      shortTerm: [...this.stm],
      longTerm: [...this.ltm],
      compressing: this.busy,
      lastError: this.lastErrorText,
    };
    this.onChange?.(change);
    for (const listener of this.subscribers) listener(change);
  }
}

function renderMessage(message: ConversationMessage): string {
  return `${message.role}${message.kind === 'task' ? ' (task)' : ''}: ${message.content}`;
}

/**
 * The memories of the manager's call to `name`: a list of strings, or one string of statements
 * separated by `|` (the seed's format). A JSON object in the reply text is accepted too, for
 * servers without function calling.
 */
function memoriesFrom(reply: Extract<TextReply, { ok: true }>, name: string): Step<string[]> {
  const call = reply.toolCalls.find((candidate) => candidate.name === name);
  let args: Record<string, unknown> | null;
  if (call) {
    args = parseJsonObject(call.arguments);
    if (args === null) return { ok: false, error: `the arguments of ${name} are not a JSON object: ${call.arguments}` };
  } else {
    args = reply.text ? parseJsonObject(reply.text) : null;
    if (args === null) {
      const called = reply.toolCalls.map((other) => other.name).join(', ');
      return { ok: false, error: called ? `the memory manager called ${called} instead of ${name}` : `the memory manager did not call ${name}` };
    }
  }
  const value = args['memories'];
  const list = typeof value === 'string' ? value.split('|') : Array.isArray(value) ? value : null;
  if (list === null || !list.every((entry) => typeof entry === 'string')) {
    return { ok: false, error: `${name} needs "memories" as a list of strings` };
  }
  return { ok: true, value: (list as string[]).map((entry) => entry.trim()).filter((entry) => entry !== '') };
}
