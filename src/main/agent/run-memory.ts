/**
 * The memory a run works with, wired to the loop's moments: the step trace (one MemoryItem per
 * step), the three layers (pending → recent → summary) composed into the system prompt, screenshot
 * pruning of the history the model is sent, the shared blackboard (requests, questions,
 * trajectories), the conversation tiers, the facts (loaded at the start, saved by the model's
 * `save_fact`, detected after the run) and the conversation's working memory (read at the start,
 * rewritten after the run). Every change is reported as a MemoryChange; a memory store that fails
 * (Redis gone, a full disk) is reported too, and the run goes on.
 */
import type { Action, ActionOf } from '../../shared/actions';
import { MemoryDeltaEncoder, type FactBrief, type MemoryChange, type PromptSectionView } from '../../shared/memory';
import type { Ending } from '../run/ending';
import type { StepRecord } from '../model/types';
import type { CompletedStep } from './completed-step';
import {
  MemoryItemList,
  LayeredMemory,
  ScreenshotPruner,
  stepMemoryItem,
  type Blackboard,
  type LayerOptions,
  type MemoryFiles,
  type PruningOptions,
  type TextModel,
  type TieredMemory,
} from '../memory';
import { describeError, type AgentMemory, type SaveOutcome, type StoredFact } from '../memory/facts';
import { BlackboardPromptModel, TASK_END_KIND } from '../memory/blackboard-prompt';
import { renderConversationSection } from '../memory/conversation-prompt';
import { DEFAULT_PROMPT_BUDGETS, describeCounts, emptySection, textSection, type PromptBudgets } from '../memory/prompt-section';
import type { WorkingMemoryAgent, WorkingMemoryManager } from '../memory/working';

export interface RunMemoryOptions {
  layers?: Partial<LayerOptions>;
  pruning?: Partial<PruningOptions>;
  /** Bound on the step trace kept in memory (the record on disk keeps everything). */
  maxTraceItems?: number;
  /** Tokens each memory section may take in the system prompt (the facts' budget is the fact memory's own). */
  budgets?: Partial<PromptBudgets>;
}

export interface RunMemoryDeps {
  /** The memory model, for summaries and the conversation tiers; null: no compression calls. */
  model?: TextModel | null;
  /** Shared by every agent of the process, persisted in the data directory. */
  blackboard?: Blackboard;
  /** The conversation this task belongs to. */
  conversation?: TieredMemory;
  /** The files the blackboard and the conversation are kept in: failed writes as they happen. */
  files?: MemoryFiles;
  /** Facts (seed 001): the provider with the scopes profile and subjects. */
  facts?: AgentMemory;
  /** Working memory (seed 002) of the conversation. */
  working?: { agent: WorkingMemoryAgent; manager: WorkingMemoryManager; conversationId: string };
  /** A memory store failed: shown to the user (the loop emits it as a note). */
  onProblem?: (message: string) => void;
  /** The session this run is recorded as: the facts it teaches and its blackboard entries name it, so a person can trace them. */
  sessionId?: string;
}

const WORKING_MEMORY_HEADING = '[Working memory of this conversation:]';

/** The transcript auto-detection and the working memory read: bounded, the latest kept. */
const TRANSCRIPT_CHARS = 12_000;

function brief(fact: StoredFact, change?: SaveOutcome['change']): FactBrief {
  return { id: fact.id, subject: fact.subject, scope: fact.scope, keyword: fact.keyword, values: fact.values.slice(0, 20), ...(change ? { change } : {}) };
}

/** A step's goal in one line: the first sentence of the thought, at most GOAL_CHARS characters. */
const GOAL_CHARS = 160;
export function goalOf(thought: string | null): string {
  const text = (thought ?? '').trim().replace(/\s+/g, ' ');
  const sentence = /^(.+?[.!?])(\s|$)/.exec(text)?.[1] ?? text;
  return sentence.length > GOAL_CHARS ? `${sentence.slice(0, GOAL_CHARS - 1)}…` : sentence;
}

function describeActions(actions: readonly Action[]): string {
  return actions.map((action) => action.type).join(', ') || 'no action';
}

export class RunMemory {
  readonly trace: MemoryItemList;
  readonly layers: LayeredMemory;
  readonly pruner: ScreenshotPruner;
  private readonly blackboard: Blackboard | undefined;
  private readonly conversation: TieredMemory | undefined;
  private readonly files: MemoryFiles | undefined;
  private readonly unsubscribe: () => void;
  private readonly deps: RunMemoryDeps;
  private readonly onChange: (change: MemoryChange) => void;
  /** The facts loaded for this task: the prompt's text, how many it holds and how many did not fit. */
  private loadedFacts = { text: '', shown: 0, omitted: 0 };
  private readonly budgets: PromptBudgets;
  /** The board as prompt entries, kept up to date between steps. */
  private readonly boardPrompt: BlackboardPromptModel;
  private workingText = '';
  private task = '';
  private readonly transcript: string[] = [];

  /** `onWriteFailure` hears, at once, each memory file that could not be written. */
  constructor(deps: RunMemoryDeps, options: RunMemoryOptions, report: (change: MemoryChange) => void, onWriteFailure: (message: string) => void = () => {}) {
    // Events carry what changed, not the whole state again (see MemoryDeltaEncoder).
    const deltas = new MemoryDeltaEncoder();
    const onChange = (change: MemoryChange) => {
      const delta = deltas.delta(change);
      if (delta) report(delta);
    };
    this.deps = deps;
    this.onChange = onChange;
    this.budgets = { ...DEFAULT_PROMPT_BUDGETS, ...options.budgets };
    this.boardPrompt = new BlackboardPromptModel(deps.sessionId ?? null);
    this.trace = new MemoryItemList({ ...(options.maxTraceItems ? { maxItems: options.maxTraceItems } : {}), onChange });
    this.layers = new LayeredMemory(options.layers, { model: deps.model ?? null, onChange });
    this.pruner = new ScreenshotPruner(options.pruning, { onChange });
    this.blackboard = deps.blackboard;
    this.conversation = deps.conversation;
    this.files = deps.files;
    // Both outlive the run (the board is shared, the conversation spans tasks): listen while it runs.
    const stopBoard = this.blackboard?.subscribe(onChange);
    const stopConversation = this.conversation?.subscribe(onChange);
    const stopFailures = this.files?.onWriteFailure(onWriteFailure);
    this.unsubscribe = () => {
      stopBoard?.();
      stopConversation?.();
      stopFailures?.();
    };
  }

  async startRun(task: string, signal?: AbortSignal): Promise<void> {
    this.task = task;
    this.blackboard?.addRequests({ request: task, ...this.taskTag() });
    await this.conversation?.addTask(task, signal);
    await this.loadFacts(task);
    await this.loadWorkingMemory();
  }

  private problem(message: string): void {
    this.deps.onProblem?.(message);
  }

  private async loadFacts(task: string): Promise<void> {
    const facts = this.deps.facts;
    if (!facts) return;
    try {
      const loaded = await facts.loadForTask(task);
      this.loadedFacts = { text: loaded.text, shown: loaded.facts.length, omitted: loaded.omitted };
      this.onChange({ kind: 'facts', op: 'loaded', source: 'prompt', facts: loaded.facts.map((fact) => brief(fact)), tokens: loaded.tokens, error: null });
    } catch (error) {
      const message = `the facts could not be loaded: ${describeError(error)}`;
      this.onChange({ kind: 'facts', op: 'loaded', source: 'prompt', facts: [], tokens: 0, error: message });
      this.problem(message);
    }
  }

  private async loadWorkingMemory(): Promise<void> {
    const working = this.deps.working;
    if (!working) return;
    try {
      const [record] = await working.manager.retrieve({ conversation_id: working.conversationId });
      this.workingText = record?.working_memory ?? '';
      this.onChange({ kind: 'working-memory', op: 'loaded', conversationId: working.conversationId, memory: this.workingText, status: null, error: null });
    } catch (error) {
      const message = `the working memory of ${working.conversationId} could not be read: ${describeError(error)}`;
      this.onChange({ kind: 'working-memory', op: 'loaded', conversationId: working.conversationId, memory: '', status: null, error: message });
      this.problem(message);
    }
  }

  /** What the board's entries of this task carry: the session's id, so the task's steps can be gathered (and read back from its record). */
  private taskTag(): { task_id: string } | Record<string, never> {
    return this.deps.sessionId ? { task_id: this.deps.sessionId } : {};
  }

  /**
   * The memory part of the system prompt: the layers (summary, recent, current step), then the
   * blackboard, the conversation, working memory and facts, each within its budget. What went in
   * and what was left out is reported (the Memory view, `mnemo memory show`).
   */
  systemText(): string {
    const { budgets } = this;
    const sections: PromptSectionView[] = [
      textSection('layers', this.layers.compose(), null),
      this.blackboard && !this.blackboard.isEmpty()
        ? this.boardPrompt.render(this.blackboard.blackboardToDict(), this.task, budgets.blackboard)
        : emptySection('blackboard', budgets.blackboard),
      this.conversation ? renderConversationSection(this.conversation, this.task, budgets.conversation) : emptySection('conversation', budgets.conversation),
      textSection('workingMemory', this.workingText, budgets.workingMemory, WORKING_MEMORY_HEADING),
      {
        ...textSection('facts', this.loadedFacts.text, this.deps.facts?.config.promptBudgetTokens ?? null),
        shown: this.loadedFacts.shown,
        omitted: this.loadedFacts.omitted,
        leftOut: describeCounts([['fact', 'facts', this.loadedFacts.omitted]]),
      },
    ];
    const totalTokens = sections.reduce((sum, section) => sum + section.usedTokens, 0);
    this.onChange({ kind: 'prompt', sections, totalTokens });
    return sections
      .map((section) => section.text)
      .filter((text) => text.trim() !== '')
      .join('\n\n');
  }

  /** The model's `save_fact`: saved in the fact store; the answer (or the failure) goes back to the model. */
  async saveFact(action: ActionOf<'save_fact'>): Promise<string> {
    const facts = this.deps.facts;
    if (!facts) return `The fact ${action.keyword} was not saved: no fact memory is kept for this run.`;
    const values = (action.values ?? (action.value !== undefined ? [action.value] : [])).filter((value) => value.trim() !== '');
    try {
      const outcome = await facts.save({ subject: action.subject, keyword: action.keyword, description: action.description, values, multiple: action.values !== undefined, sessionId: this.deps.sessionId });
      this.onChange({ kind: 'facts', op: 'saved', source: 'save_fact', facts: [brief(outcome.fact, outcome.change)], tokens: 0, error: null });
      return `Saved the fact ${outcome.fact.keyword} about the ${outcome.fact.subject} (${outcome.change}).`;
    } catch (error) {
      const message = `the fact ${action.keyword} was not saved: ${describeError(error)}`;
      this.onChange({ kind: 'facts', op: 'saved', source: 'save_fact', facts: [], tokens: 0, error: message });
      this.problem(message);
      return `The fact ${action.keyword} was not saved: ${describeError(error)}`;
    }
  }

  /** The history the model is sent: the last screenshots only, within the token hard limit. */
  historyForModel(history: readonly StepRecord[], extraText: readonly string[]): StepRecord[] {
    return this.pruner.prune({ history, extraText }).history;
  }

  private remember(line: string): void {
    this.transcript.push(line);
    let total = this.transcript.reduce((sum, entry) => sum + entry.length + 1, 0);
    while (total > TRANSCRIPT_CHARS && this.transcript.length > 1) total -= (this.transcript.shift() as string).length + 1;
  }

  beginStep(step: number, thought: string | null, actions: readonly Action[]): void {
    this.layers.addPendingStep(step, goalOf(thought) || describeActions(actions));
  }

  async endStep(outcome: CompletedStep, signal?: AbortSignal): Promise<void> {
    this.remember(`Step ${outcome.step}: ${outcome.thought ?? ''} [${describeActions(outcome.actions)}] → ${outcome.outcome}`);
    this.trace.addMemoryItem(
      stepMemoryItem({
        step: outcome.step,
        ...(outcome.screenshot ? { screenshot: outcome.screenshot.path } : {}),
        actions: outcome.actions,
        results: outcome.results,
        request: outcome.task,
        ...(outcome.thought !== null ? { response: outcome.thought } : {}),
        costUsd: outcome.costUsd,
        ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      }),
    );
    this.blackboard?.addTrajectories({
      step: outcome.step,
      subtask: goalOf(outcome.thought),
      action: describeActions(outcome.actions),
      status: outcome.success ? 'success' : 'failed',
      user_confirmation: null,
      ...this.taskTag(),
    });
    await this.layers.finalizeStep(outcome.step, outcome.success ? 'success' : 'failed', { outcome: outcome.outcome, signal });
  }

  async question(question: string, answer: string | null, signal?: AbortSignal): Promise<void> {
    this.remember(`The agent asked the user: ${question}\nThe user answered: ${answer ?? '(no answer)'}`);
    this.blackboard?.addQuestions({ question, answer, ...this.taskTag() });
    await this.conversation?.addMessage({ role: 'assistant', content: question }, signal);
    if (answer !== null) await this.conversation?.addMessage({ role: 'user', content: answer }, signal);
  }

  /** The conversation's long-term memory on `hint`, answered by the memory manager. */
  async recall(hint: string, signal?: AbortSignal): Promise<string> {
    if (!this.conversation) return 'No long-term memory is kept for this run.';
    const answer = await this.conversation.queryLongTermMemory(hint, signal);
    return answer.ok ? answer.answer : `The long-term memory could not be asked: ${answer.error}`;
  }

  /**
   * The run's end: said on the blackboard (the task's last entry, which compaction later folds the
   * task into one line from) and in the conversation; then the facts it taught and the working
   * memory, unless the run was stopped.
   */
  async finishRun(end: Ending, signal?: AbortSignal): Promise<void> {
    const summary = end.summary ?? `${end.status}: ${end.reason}`;
    try {
      // The board keeps the status apart: the outcome is the agent's summary, or why the run ended.
      this.blackboard?.addTrajectories({ kind: TASK_END_KIND, status: end.status, outcome: end.summary ?? end.reason, ...this.taskTag() });
      await this.conversation?.addMessage({ role: 'assistant', content: summary }, signal);
      await this.blackboard?.flush();
      // Still listening: a write that fails now is said before the run's end.
      await this.files?.flush();
      // A stopped run ends now: no more model calls for its memory.
      if (signal?.aborted) return;
      const record = `Task: ${this.task}\n${this.transcript.join('\n')}\nOutcome: ${summary}`;
      await this.detectFacts(record, signal);
      await this.updateWorkingMemory(record, signal);
    } finally {
      this.close();
    }
  }

  private async detectFacts(record: string, signal: AbortSignal | undefined): Promise<void> {
    const facts = this.deps.facts;
    if (!facts?.config.autoDetect) return;
    try {
      const { detection, outcomes } = await facts.saveFromHistory(record, signal, this.deps.sessionId);
      if (!detection.ok) {
        const message = `no facts were taken from this run: ${detection.error}`;
        this.onChange({ kind: 'facts', op: 'saved', source: 'auto-detect', facts: [], tokens: 0, error: message });
        this.problem(message);
        return;
      }
      this.onChange({ kind: 'facts', op: 'saved', source: 'auto-detect', facts: outcomes.map((outcome) => brief(outcome.fact, outcome.change)), tokens: 0, error: null });
    } catch (error) {
      const message = `the facts found in this run were not saved: ${describeError(error)}`;
      this.onChange({ kind: 'facts', op: 'saved', source: 'auto-detect', facts: [], tokens: 0, error: message });
      this.problem(message);
    }
  }

  private async updateWorkingMemory(record: string, signal: AbortSignal | undefined): Promise<void> {
    const working = this.deps.working;
    if (!working) return;
    const status = await working.agent.process({ message: record, metadata: { conversation_id: working.conversationId } }, signal);
    let memory = '';
    try {
      memory = (await working.manager.retrieve({ conversation_id: working.conversationId }))[0]?.working_memory ?? '';
    } catch {
      // Shown through the status below when the store is what failed.
    }
    const error = status === 'success' ? null : `the working memory of ${working.conversationId} was not updated: ${status}`;
    this.onChange({ kind: 'working-memory', op: 'updated', conversationId: working.conversationId, memory, status, error });
    if (error) this.problem(error);
  }

  /** Stops listening to the shared parts; safe to call more than once, on every ending. */
  close(): void {
    this.unsubscribe();
  }
}
