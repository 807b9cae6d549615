/**
 * The memory a run works with, wired to the loop's moments: the step trace (one MemoryItem per
 * step), the three layers (pending → recent → summary) composed into the system prompt, screenshot
 * pruning of the history the model is sent, the shared blackboard (requests, questions,
 * trajectories) and the conversation tiers. Every change is reported as a MemoryChange.
 */
import type { Action } from '../../shared/actions';
import { MemoryChangeCompactor, type MemoryChange } from '../../shared/memory';
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

export interface RunMemoryOptions {
  layers?: Partial<LayerOptions>;
  pruning?: Partial<PruningOptions>;
  /** Bound on the step trace kept in memory (the record on disk keeps everything). */
  maxTraceItems?: number;
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

  /** `onWriteFailure` hears, at once, each memory file that could not be written. */
  constructor(deps: RunMemoryDeps, options: RunMemoryOptions, report: (change: MemoryChange) => void, onWriteFailure: (message: string) => void = () => {}) {
    // Events carry what changed, not the whole state again (see MemoryChangeCompactor).
    const compactor = new MemoryChangeCompactor();
    const onChange = (change: MemoryChange) => {
      const compacted = compactor.compact(change);
      if (compacted) report(compacted);
    };
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
    this.blackboard?.addRequests({ request: task });
    await this.conversation?.addTask(task, signal);
  }

  /** The memory text for the system prompt: summary, recent and current step, the blackboard, the conversation. */
  systemText(): string {
    const parts = [this.layers.compose(), this.blackboard?.isEmpty() === false ? this.blackboard.blackboardToText() : '', this.conversation?.toPrompt() ?? ''];
    return parts.filter((part) => part.trim() !== '').join('\n\n');
  }

  /** The history the model is sent: the last screenshots only, within the token hard limit. */
  historyForModel(history: readonly StepRecord[], extraText: readonly string[]): StepRecord[] {
    return this.pruner.prune({ history, extraText }).history;
  }

  beginStep(step: number, thought: string | null, actions: readonly Action[]): void {
    this.layers.addPendingStep(step, goalOf(thought) || describeActions(actions));
  }

  async endStep(outcome: CompletedStep, signal?: AbortSignal): Promise<void> {
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
    });
    await this.layers.finalizeStep(outcome.step, outcome.success ? 'success' : 'failed', { outcome: outcome.outcome, signal });
  }

  async question(question: string, answer: string | null, signal?: AbortSignal): Promise<void> {
    this.blackboard?.addQuestions({ question, answer });
    await this.conversation?.addMessage({ role: 'assistant', content: question }, signal);
    if (answer !== null) await this.conversation?.addMessage({ role: 'user', content: answer }, signal);
  }

  /** The conversation's long-term memory on `hint`, answered by the memory manager. */
  async recall(hint: string, signal?: AbortSignal): Promise<string> {
    if (!this.conversation) return 'No long-term memory is kept for this run.';
    const answer = await this.conversation.queryLongTermMemory(hint, signal);
    return answer.ok ? answer.answer : `The long-term memory could not be asked: ${answer.error}`;
  }

  async finishRun(summary: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.conversation?.addMessage({ role: 'assistant', content: summary }, signal);
      await this.blackboard?.flush();
      // Still listening: a write that fails now is said before the run's end.
      await this.files?.flush();
    } finally {
      this.close();
    }
  }

  /** Stops listening to the shared parts; safe to call more than once, on every ending. */
  close(): void {
    this.unsubscribe();
  }
}
