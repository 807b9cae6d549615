/**
 * The blackboard summarizes its tasks: each finished task is folded into one line, written by the
 * memory model (what was asked, how it ended, the key steps), and that line is what later prompts
 * show of the task (blackboard-prompt.ts). The line is ADDED to the board as one trajectory item
 * `{kind: "task-summary", task_id, summary, status, steps}`: nothing is removed or rewritten, so
 * the full trajectory stays on disk (or in Redis), its task id leads back to the session record,
 * and the questions stay where a search finds them.
 *
 * One summary is one appended line of the board's log (or one Redis entry): a crash in the middle
 * leaves the tasks before it summarised and the rest as they were, never a half-summarized board.
 * A task the model could not summarise (no memory model, a provider error, an empty reply) keeps
 * its plain line in prompts and is tried again by the next summary pass.
 *
 * It runs off the critical path: after a run has ended (the run service starts it in the
 * background, and waits for it before the next run opens the board), or on `mnemo memory compact`.
 */
import type { MemoryItemData } from '../../shared/memory';
import type { Blackboard } from './blackboard';
import { oneLine } from './prompt-section';
import { fieldText, TASK_SUMMARY_KIND, tasksOnBoard, type TaskOnBoard } from './blackboard-prompt';
import type { TextModel } from './text-model';
import { describeModelError, parseJsonObject } from './text-replies';

/** The system prompt of a summary request (scripted test servers recognise it by its first words). */
export const TASK_SUMMARY_PROMPT =
  'You fold one finished task of a desktop automation agent into a single line for its long-term blackboard. ' +
  'Say what was asked, how it ended, and the key steps or facts a later task could reuse (names, places, values). ' +
  'At most 40 words, no line breaks. Answer with the line only, or as JSON {"summary": "..."}.';

/** A summary line keeps at most this many characters. */
const SUMMARY_CHARS = 300;
/** Steps shown to the model per task: the first and the last ones of a long task. */
const STEPS_SHOWN = 30;

export interface SummaryProgress {
  /** Tasks handled so far (summarised or failed), of `total`. */
  done: number;
  total: number;
  taskId: string;
  /** The line written, or why none was. */
  outcome: { ok: true; summary: string } | { ok: false; error: string };
}

export interface SummaryOptions {
  /** The newest finished tasks to summarise at most (default: all). */
  limit?: number;
  signal?: AbortSignal;
  onProgress?: (progress: SummaryProgress) => void;
}

export interface SummaryReport {
  /** Finished tasks without a summary when it began. */
  pending: number;
  summarised: number;
  failed: Array<{ taskId: string; error: string }>;
  /** Stopped (the signal) before every task was handled. */
  stopped: boolean;
  /** The board could not be saved: what was summarised may not be kept. */
  writeError: string | null;
}

/** Finished tasks that have no summary yet, newest first. */
export function tasksToSummarise(board: Blackboard): TaskOnBoard[] {
  return [...tasksOnBoard(board.blackboardToDict()).values()].filter((task) => task.end !== undefined && task.summary === undefined).reverse();
}

/** The task as the model is shown it. */
function describeTask(task: TaskOnBoard): string {
  const stepLine = (step: MemoryItemData) => `- step ${fieldText(step.step)}: ${oneLine(fieldText(step.subtask), 200)} [${fieldText(step.action)}] (${fieldText(step.status)})`;
  const steps =
    task.steps.length > STEPS_SHOWN
      ? [...task.steps.slice(0, STEPS_SHOWN / 2).map(stepLine), `- … ${task.steps.length - STEPS_SHOWN} more steps …`, ...task.steps.slice(-STEPS_SHOWN / 2).map(stepLine)]
      : task.steps.map(stepLine);
  const questions = task.questions.map((item) => `- asked: ${oneLine(fieldText(item.question), 200)} → answered: ${item.answer === null ? '(no answer)' : oneLine(fieldText(item.answer), 200)}`);
  return [
    `Task: ${oneLine(task.request ?? '(not recorded)', 600)}`,
    `Ended: ${fieldText(task.end?.status)}: ${oneLine(fieldText(task.end?.outcome), 400)}`,
    steps.length > 0 ? `Steps:\n${steps.join('\n')}` : 'Steps: none',
    questions.length > 0 ? `Questions to the user:\n${questions.join('\n')}` : '',
  ]
    .filter((part) => part !== '')
    .join('\n');
}

/** The summary in a reply: a plain line, or JSON `{"summary": ...}`. */
export function summaryFromReply(reply: string | null): { ok: true; summary: string } | { ok: false; error: string } {
  const raw = (reply ?? '').trim();
  if (raw === '') return { ok: false, error: 'the memory model answered with nothing' };
  const json = raw.startsWith('{') || raw.startsWith('```') ? parseJsonObject(raw) : null;
  const summary = json ? fieldText(json.summary) : raw;
  const line = oneLine(summary, SUMMARY_CHARS);
  return line === '' ? { ok: false, error: `the memory model's reply has no summary: ${oneLine(raw, 120)}` } : { ok: true, summary: line };
}

async function summarise(model: TextModel, task: TaskOnBoard, signal: AbortSignal | undefined): Promise<{ ok: true; summary: string } | { ok: false; error: string }> {
  const reply = await model.complete({ system: TASK_SUMMARY_PROMPT, messages: [{ role: 'user', content: describeTask(task) }] }, signal);
  if (!reply.ok) return { ok: false, error: describeModelError(reply.error) };
  return summaryFromReply(reply.text);
}

/**
 * Summarises the finished tasks that have no summary yet (the newest first, at most `limit`),
 * adding one line per task to the board and saving each as it is written.
 */
export async function summarizeBlackboard(board: Blackboard, model: TextModel | null, options: SummaryOptions = {}): Promise<SummaryReport> {
  const pending = tasksToSummarise(board);
  const chosen = pending.slice(0, options.limit ?? pending.length);
  const report: SummaryReport = { pending: pending.length, summarised: 0, failed: [], stopped: false, writeError: null };
  for (const [index, task] of chosen.entries()) {
    if (options.signal?.aborted) {
      report.stopped = true;
      break;
    }
    const outcome = model ? await summarise(model, task, options.signal) : { ok: false as const, error: 'no memory model is configured to summarise tasks' };
    if (options.signal?.aborted) {
      report.stopped = true;
      break;
    }
    if (outcome.ok) {
      board.addTrajectories({ kind: TASK_SUMMARY_KIND, task_id: task.taskId, summary: outcome.summary, status: fieldText(task.end?.status), steps: task.steps.length });
      const saved = await board.flush();
      if (!saved.ok) {
        report.writeError = saved.error;
        options.onProgress?.({ done: index + 1, total: chosen.length, taskId: task.taskId, outcome: { ok: false, error: saved.error } });
        break;
      }
      report.summarised += 1;
    } else {
      report.failed.push({ taskId: task.taskId, error: outcome.error });
    }
    options.onProgress?.({ done: index + 1, total: chosen.length, taskId: task.taskId, outcome });
    // Without a model nothing will succeed: one failure says it.
    if (!model) break;
  }
  return report;
}
