/**
 * The blackboard as it reaches the system prompt: within a token budget, however many tasks it has
 * seen. The seed renders every entry; here each task other than the current one is one line (its
 * summary, written by the memory model once the task ended, see blackboard-summaries.ts, or a
 * plain line until then), and the section shows what bears most on the task at hand:
 *
 *   1. the current task's questions and answers;
 *   2. the most recent entries (up to 40% of the budget);
 *   3. older entries a ranked search (BM25) finds relevant to the task (up to 75%);
 *   4. the most recent of the rest, until the budget is spent;
 *
 * then says how much more there is. The current task's own steps are not repeated here: the
 * layers carry them. Nothing is removed from the board: what is left out stays on disk (or in
 * Redis) and is found again when a task names it.
 */
import type { BlackboardDict, MemoryItemData, PromptSectionView } from '../../shared/memory';
import { BLACKBOARD_PROMPT_HEADINGS } from './blackboard';
import { FactSearchIndex } from './facts/search-index';
import { chooseWithinBudget, describeCounts, emptySection, oneLine, tokensOf } from './prompt-section';

/** A trajectory item written when a task ends: how it ended, in the agent's words. */
export const TASK_END_KIND = 'task-end';
/** A trajectory item written by the summary pass: the one line a finished task is remembered by. */
export const TASK_SUMMARY_KIND = 'task-summary';

type Part = 'questions' | 'requests' | 'trajectories' | 'screenshots';
const PARTS: readonly Part[] = ['questions', 'requests', 'trajectories', 'screenshots'];
/** What an entry is, for saying how many of each were left out. */
type Noun = 'task' | 'step' | 'question' | 'request' | 'screenshot';
const NOUNS: readonly Noun[] = ['task', 'step', 'question', 'request', 'screenshot'];

const RECENT_SHARE = 0.4;
const RELEVANT_SHARE = 0.75;
const CURRENT_QUESTIONS_SHARE = 0.3;
/** Old entries a search brings back at most. */
const RELEVANT_HITS = 50;

interface Entry {
  part: Part;
  noun: Noun;
  /** Larger is more recent. */
  recency: number;
  text: string;
}

/** What a task left on the board, gathered by its id. */
export interface TaskOnBoard {
  taskId: string;
  request: string | undefined;
  steps: MemoryItemData[];
  end: MemoryItemData | undefined;
  summary: MemoryItemData | undefined;
  questions: MemoryItemData[];
  /** The task's place among the board's requests (its age). */
  order: number;
}

/** A field of an item as text: a string as it is, nothing as '', anything else as JSON. */
export const fieldText = (value: unknown): string => (typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value));

export function taskIdOf(item: MemoryItemData): string | null {
  return typeof item.task_id === 'string' && item.task_id !== '' ? item.task_id : null;
}

function newTask(taskId: string, order: number): TaskOnBoard {
  return { taskId, request: undefined, steps: [], end: undefined, summary: undefined, questions: [], order };
}

/** Files one of the task's items where it belongs: its request, a step, its end, its summary, a question. */
function addToTask(task: TaskOnBoard, part: BoardPart, item: MemoryItemData): void {
  if (part === 'requests') task.request ??= fieldText(item.request) || fieldText(item.text);
  else if (part === 'questions') task.questions.push(item);
  // The last summary wins (two machines may both have written one).
  else if (item.kind === TASK_SUMMARY_KIND) task.summary = item;
  else if (item.kind === TASK_END_KIND) task.end = item;
  else task.steps.push(item);
}

/** The parts of the board a task leaves items in, in the order they are read. */
const BOARD_PARTS = ['requests', 'trajectories', 'questions'] as const;
type BoardPart = (typeof BOARD_PARTS)[number];

/** The tasks on a board that carry an id (older boards' entries have none), oldest first. */
export function tasksOnBoard(board: BlackboardDict): Map<string, TaskOnBoard> {
  const tasks = new Map<string, TaskOnBoard>();
  for (const part of BOARD_PARTS) {
    for (const item of board[part]) {
      const id = taskIdOf(item);
      if (id === null) continue;
      let task = tasks.get(id);
      if (!task) tasks.set(id, (task = newTask(id, tasks.size)));
      addToTask(task, part, item);
    }
  }
  return tasks;
}

const stepLine = (step: MemoryItemData): string => `step ${fieldText(step.step)}: ${oneLine(fieldText(step.subtask) || fieldText(step.action), 160)} (${fieldText(step.status)})`;

/** One line for a task that has no summary (yet): what was asked, how it ended, how far it got. */
export function plainTaskLine(task: Pick<TaskOnBoard, 'request' | 'steps' | 'end'>): string {
  const failed = task.steps.filter((step) => step.status === 'failed').length;
  const last = task.steps.at(-1);
  const what = task.request ? `"${oneLine(task.request, 120)}"` : 'a task';
  const ending = task.end ? ` → ${fieldText(task.end.status)}${task.end.outcome ? `: ${oneLine(fieldText(task.end.outcome), 100)}` : ''}` : ' (not finished)';
  const steps = `${task.steps.length} step${task.steps.length === 1 ? '' : 's'}${failed ? `, ${failed} failed` : ''}`;
  return `${what}${ending} (${steps}${last ? `; last: ${oneLine(fieldText(last.subtask) || fieldText(last.action), 80)}` : ''})`;
}

/** The line a task is shown by: its summary when it has one. */
export function taskLine(task: TaskOnBoard): string {
  if (!task.summary) return plainTaskLine(task);
  return `${oneLine(fieldText(task.summary.summary), 300)} [${fieldText(task.summary.status) || 'ended'}]`;
}

function questionLine(item: MemoryItemData): string {
  const answer = item.answer === null || item.answer === undefined ? 'no answer' : oneLine(fieldText(item.answer), 160);
  return `Q: ${oneLine(fieldText(item.question), 200)} → A: ${answer}`;
}

/** A task's entry and what it is built from, kept up to date as the board grows. */
interface TaskState {
  task: TaskOnBoard;
  entry: Entry;
}

interface SectionSeen {
  count: number;
  last: MemoryItemData | undefined;
}

/**
 * The board as prompt entries, kept between renders: a run renders its prompt at every step, and
 * a board of thousands of tasks is too much to gather and index again each time. Items are only
 * ever added to the board (the board hands out the same frozen item objects every time), so each
 * render takes in the items added since the last one; anything else (a board replaced, or loaded
 * again) starts over. The few screenshots (the board keeps the newest ten) are read at each render.
 */
export class BlackboardPromptModel {
  private tasks = new Map<string, TaskState>();
  private legacy: Entry[] = [];
  private questions: Array<{ entry: Entry; taskId: string }> = [];
  private index = new FactSearchIndex();
  private seen: Record<BoardPart, SectionSeen> = this.nothingSeen();
  private newestFirst: Entry[] | null = null;
  private searched: { query: string; hits: Entry[] } | null = null;
  private readonly byKey = new Map<string, Entry>();
  /** Entries whose text changed since they were last indexed (indexed once per render, not per item). */
  private readonly unindexed = new Set<string>();

  /** `currentTask`: the id of the task being run (its steps are the layers' part, its questions shown first). */
  constructor(private readonly currentTask: string | null) {}

  private nothingSeen(): Record<BoardPart, SectionSeen> {
    return { questions: { count: 0, last: undefined }, requests: { count: 0, last: undefined }, trajectories: { count: 0, last: undefined } };
  }

  private reset(): void {
    this.tasks = new Map();
    this.legacy = [];
    this.questions = [];
    this.index = new FactSearchIndex();
    this.seen = this.nothingSeen();
    this.byKey.clear();
    this.unindexed.clear();
    this.changed();
  }

  private changed(): void {
    this.newestFirst = null;
    this.searched = null;
  }

  /** Takes in what was added to the board since the last call. */
  update(board: BlackboardDict): void {
    const appended = BOARD_PARTS.every((part) => {
      const { count, last } = this.seen[part];
      const items = board[part];
      return items.length >= count && (count === 0 || items[count - 1] === last);
    });
    if (!appended) this.reset();
    for (const part of BOARD_PARTS) {
      const items = board[part];
      const seen = this.seen[part];
      for (let position = seen.count; position < items.length; position++) this.take(part, items[position] as MemoryItemData, position);
      this.seen[part] = { count: items.length, last: items.at(-1) };
    }
  }

  private taskState(id: string): TaskState {
    let state = this.tasks.get(id);
    if (!state) {
      const task = newTask(id, this.tasks.size);
      state = { task, entry: { part: 'trajectories', noun: 'task', recency: task.order, text: '' } };
      this.tasks.set(id, state);
      this.changed();
    }
    return state;
  }

  private indexed(key: string, entry: Entry): void {
    this.byKey.set(key, entry);
    this.unindexed.add(key);
    this.searched = null;
  }

  private indexChanges(): void {
    for (const key of this.unindexed) {
      const entry = this.byKey.get(key);
      if (entry) this.index.set(key, { keyword: '', description: entry.text, values: [] });
    }
    this.unindexed.clear();
  }

  private take(part: BoardPart, item: MemoryItemData, position: number): void {
    const id = taskIdOf(item);
    if (id === null) {
      // Written before tasks had ids: each entry on its own, placed before every task that has one.
      const text = part === 'requests' ? oneLine(fieldText(item.request) || fieldText(item.text)) : part === 'questions' ? questionLine(item) : stepLine(item);
      const entry: Entry = { part, noun: part === 'requests' ? 'request' : part === 'questions' ? 'question' : 'step', recency: -1_000_000 + position / 1000, text };
      this.legacy.push(entry);
      this.indexed(`legacy:${part}:${position}`, entry);
      this.changed();
      return;
    }
    const state = this.taskState(id);
    addToTask(state.task, part, item);
    if (part === 'questions') {
      // A question is an entry of its own (the current task's are shown first, and not searched).
      const entry: Entry = { part: 'questions', noun: 'question', recency: state.task.order, text: questionLine(item) };
      this.questions.push({ entry, taskId: id });
      if (id !== this.currentTask) this.indexed(`question:${position}`, entry);
      this.changed();
      return;
    }
    if (id === this.currentTask) return;
    state.entry.text = taskLine(state.task);
    this.indexed(`task:${id}`, state.entry);
  }

  /** The blackboard section for `task` within `budgetTokens` (screenshots: the board's few, as they are now). */
  render(board: BlackboardDict, task: string, budgetTokens: number): PromptSectionView {
    this.update(board);
    const screenshots: Entry[] = board.screenshots.map((item, index) => ({ part: 'screenshots', noun: 'screenshot', recency: this.tasks.size + index, text: `${oneLine(fieldText(item.metadata), 120)} (${fieldText(item.image_path)})` }));
    const current = this.questions.filter((question) => question.taskId === this.currentTask).map((question) => question.entry);
    const others = this.othersNewestFirst();
    const entries = [...screenshots.reverse(), ...others];
    if (entries.length === 0 && current.length === 0) return emptySection('blackboard', budgetTokens);
    // The headings and the closing note are paid for first.
    const frame = tokensOf(BLACKBOARD_PROMPT_HEADINGS.blackboard) + PARTS.length * 10 + 40;
    const room = Math.max(0, budgetTokens - frame);
    const chosen = chooseWithinBudget((entry: Entry) => tokensOf(entry.text) + 1, room, [
      { entries: current, limit: room * CURRENT_QUESTIONS_SHARE },
      { entries, limit: room * RECENT_SHARE },
      { entries: this.relevantTo(task), limit: room * RELEVANT_SHARE },
      { entries, limit: room },
    ]);

    const lines: string[] = [BLACKBOARD_PROMPT_HEADINGS.blackboard];
    for (const part of PARTS) {
      const shown = [...chosen].filter((entry) => entry.part === part).sort((a, b) => a.recency - b.recency);
      if (shown.length > 0) lines.push(BLACKBOARD_PROMPT_HEADINGS[part], ...shown.map((entry) => `- ${entry.text}`));
    }
    const total = entries.length + current.length;
    const omitted = total - chosen.size;
    const counts = new Map<Noun, number>();
    for (const entry of [...current, ...entries]) if (!chosen.has(entry)) counts.set(entry.noun, (counts.get(entry.noun) ?? 0) + 1);
    const leftOut = describeCounts(NOUNS.map((noun) => [noun, `${noun}s`, counts.get(noun) ?? 0] as const));
    if (omitted > 0) lines.push(`(${omitted} older blackboard entr${omitted === 1 ? 'y is' : 'ies are'} not shown: ${leftOut}. They are kept; a task that names them brings them back.)`);
    const text = lines.join('\n');
    return { name: 'blackboard', budgetTokens, usedTokens: tokensOf(text), shown: chosen.size, omitted, leftOut, text };
  }

  /** Every entry but the current task's, the most recent first. */
  private othersNewestFirst(): Entry[] {
    if (this.newestFirst === null) {
      const tasks = [...this.tasks.values()].filter((state) => state.task.taskId !== this.currentTask).map((state) => state.entry);
      const questions = this.questions.filter((question) => question.taskId !== this.currentTask).map((question) => question.entry);
      this.newestFirst = [...tasks, ...questions, ...this.legacy].sort((a, b) => b.recency - a.recency);
    }
    return this.newestFirst;
  }

  /** The entries a ranked search finds for the task, best first (kept until the board changes). */
  private relevantTo(task: string): Entry[] {
    if (this.searched?.query !== task) {
      this.indexChanges();
      const hits = this.index.search(task, { limit: RELEVANT_HITS }).flatMap((hit) => {
        const entry = this.byKey.get(hit.id);
        return entry ? [entry] : [];
      });
      this.searched = { query: task, hits };
    }
    return this.searched.hits;
  }
}

/** The blackboard section of a prompt for `task` (the current task's id: `currentTask`), within `budgetTokens`. */
export function renderBlackboardSection(board: BlackboardDict, task: string, currentTask: string | null, budgetTokens: number): PromptSectionView {
  return new BlackboardPromptModel(currentTask).render(board, task, budgetTokens);
}
