/**
 * The blackboard as it reaches the system prompt: within a token budget, however many tasks it has
 * seen. The seed renders every entry; here each task other than the current one is one line (its
 * summary, written by the memory model once the task ended, see blackboard-compaction.ts, or a
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
/** A trajectory item written by compaction: the one line a finished task is remembered by. */
export const TASK_SUMMARY_KIND = 'task-summary';

type Part = 'questions' | 'requests' | 'trajectories' | 'screenshots';
const PARTS: readonly Part[] = ['questions', 'requests', 'trajectories', 'screenshots'];
/** What an entry is, for saying how many of each were left out. */
type Noun = 'task' | 'step' | 'question' | 'request' | 'screenshot';
const NOUNS: readonly Noun[] = ['task', 'step', 'question', 'request', 'screenshot'];

const RECENT_SHARE = 0.4;
const RELEVANT_SHARE = 0.75;
const CURRENT_QUESTIONS_SHARE = 0.3;

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

const str = (value: unknown): string => (typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value));

export function taskIdOf(item: MemoryItemData): string | null {
  return typeof item.task_id === 'string' && item.task_id !== '' ? item.task_id : null;
}

/** The tasks on a board that carry an id (older boards' entries have none), oldest first. */
export function tasksOnBoard(board: BlackboardDict): Map<string, TaskOnBoard> {
  const tasks = new Map<string, TaskOnBoard>();
  const task = (id: string): TaskOnBoard => {
    let found = tasks.get(id);
    if (!found) {
      found = { taskId: id, request: undefined, steps: [], end: undefined, summary: undefined, questions: [], order: tasks.size };
      tasks.set(id, found);
    }
    return found;
  };
  board.requests.forEach((item) => {
    const id = taskIdOf(item);
    if (id) task(id).request ??= str(item.request) || str(item.text);
  });
  for (const item of board.trajectories) {
    const id = taskIdOf(item);
    if (!id) continue;
    const found = task(id);
    // The last summary wins (two machines may both have written one).
    if (item.kind === TASK_SUMMARY_KIND) found.summary = item;
    else if (item.kind === TASK_END_KIND) found.end = item;
    else found.steps.push(item);
  }
  for (const item of board.questions) {
    const id = taskIdOf(item);
    if (id) task(id).questions.push(item);
  }
  return tasks;
}

const stepLine = (step: MemoryItemData): string => `step ${str(step.step)}: ${oneLine(str(step.subtask) || str(step.action), 160)} (${str(step.status)})`;

/** One line for a task that has no summary (yet): what was asked, how it ended, how far it got. */
export function plainTaskLine(task: Pick<TaskOnBoard, 'request' | 'steps' | 'end'>): string {
  const failed = task.steps.filter((step) => step.status === 'failed').length;
  const last = task.steps.at(-1);
  const what = task.request ? `"${oneLine(task.request, 120)}"` : 'a task';
  const ending = task.end ? ` → ${str(task.end.status)}${task.end.outcome ? `: ${oneLine(str(task.end.outcome), 100)}` : ''}` : ' (not finished)';
  const steps = `${task.steps.length} step${task.steps.length === 1 ? '' : 's'}${failed ? `, ${failed} failed` : ''}`;
  return `${what}${ending} (${steps}${last ? `; last: ${oneLine(str(last.subtask) || str(last.action), 80)}` : ''})`;
}

/** The line a task is shown by: its summary when it has one. */
export function taskLine(task: TaskOnBoard): string {
  if (!task.summary) return plainTaskLine(task);
  return `${oneLine(str(task.summary.summary), 300)} [${str(task.summary.status) || 'ended'}]`;
}

function questionLine(item: MemoryItemData): string {
  const answer = item.answer === null || item.answer === undefined ? 'no answer' : oneLine(str(item.answer), 160);
  return `Q: ${oneLine(str(item.question), 200)} → A: ${answer}`;
}

/** The board's entries for the prompt, and the current task's questions apart. */
function entriesOf(board: BlackboardDict, currentTask: string | null): { entries: Entry[]; current: Entry[] } {
  const tasks = tasksOnBoard(board);
  const count = Math.max(1, board.requests.length);
  const entries: Entry[] = [];
  const current: Entry[] = [];
  for (const task of tasks.values()) {
    if (task.taskId === currentTask) continue;
    entries.push({ part: 'trajectories', noun: 'task', recency: task.order, text: taskLine(task) });
  }
  // Entries from before tasks had ids: each on its own, placed in time by its position.
  const legacy = (part: Part, noun: Noun, items: readonly MemoryItemData[], text: (item: MemoryItemData) => string) =>
    items.forEach((item, index) => {
      if (taskIdOf(item) === null) entries.push({ part, noun, recency: ((index + 1) / Math.max(1, items.length)) * count - count, text: text(item) });
    });
  legacy('requests', 'request', board.requests, (item) => oneLine(str(item.request) || str(item.text)));
  legacy('trajectories', 'step', board.trajectories, stepLine);
  legacy('questions', 'question', board.questions, questionLine);
  for (const item of board.questions) {
    const id = taskIdOf(item);
    if (id === null) continue;
    const entry: Entry = { part: 'questions', noun: 'question', recency: tasks.get(id)?.order ?? 0, text: questionLine(item) };
    (id === currentTask ? current : entries).push(entry);
  }
  board.screenshots.forEach((item, index) => entries.push({ part: 'screenshots', noun: 'screenshot', recency: count + index, text: `${oneLine(str(item.metadata), 120)} (${str(item.image_path)})` }));
  return { entries, current };
}

/** The blackboard section of a prompt for `task` (the current task's id: `currentTask`), within `budgetTokens`. */
export function renderBlackboardSection(board: BlackboardDict, task: string, currentTask: string | null, budgetTokens: number): PromptSectionView {
  const { entries, current } = entriesOf(board, currentTask);
  if (entries.length === 0 && current.length === 0) return emptySection('blackboard', budgetTokens);
  // The headings and the closing note are paid for first.
  const frame = tokensOf(BLACKBOARD_PROMPT_HEADINGS.blackboard) + PARTS.length * 10 + 40;
  const room = Math.max(0, budgetTokens - frame);
  const newestFirst = [...entries].sort((a, b) => b.recency - a.recency);
  const index = new FactSearchIndex();
  entries.forEach((entry, position) => index.set(String(position), { keyword: '', description: entry.text, values: [] }));
  const relevant = index.search(task, { limit: 50 }).map((hit) => entries[Number(hit.id)] as Entry);
  const chosen = chooseWithinBudget((entry: Entry) => tokensOf(entry.text) + 1, room, [
    { entries: current, limit: room * CURRENT_QUESTIONS_SHARE },
    { entries: newestFirst, limit: room * RECENT_SHARE },
    { entries: relevant, limit: room * RELEVANT_SHARE },
    { entries: newestFirst, limit: room },
  ]);

  const all = [...current, ...entries];
  const lines: string[] = [BLACKBOARD_PROMPT_HEADINGS.blackboard];
  for (const part of PARTS) {
    const shown = all.filter((entry) => entry.part === part && chosen.has(entry)).sort((a, b) => a.recency - b.recency);
    if (shown.length > 0) lines.push(BLACKBOARD_PROMPT_HEADINGS[part], ...shown.map((entry) => `- ${entry.text}`));
  }
  const omitted = all.length - chosen.size;
  const leftOut = describeCounts(NOUNS.map((noun) => [noun, `${noun}s`, all.filter((entry) => entry.noun === noun && !chosen.has(entry)).length] as const));
  if (omitted > 0) lines.push(`(${omitted} older blackboard entr${omitted === 1 ? 'y is' : 'ies are'} not shown: ${leftOut}. They are kept; a task that names them brings them back.)`);
  const text = lines.join('\n');
  return { name: 'blackboard', budgetTokens, usedTokens: tokensOf(text), shown: chosen.size, omitted, leftOut, text };
}
