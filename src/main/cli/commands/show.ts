/**
 * `mnemo show <id>`: one session step by step: the thought, the actions and their results, the
 * screenshot of each step. A session left running by a process that is gone is marked
 * `interrupted` first. Damaged lines in the record are skipped with a warning on stderr.
 * Exit codes: 0 shown, 1 no such session (or a prefix that matches several), 2 bad arguments.
 */
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Action } from '../../../shared/actions';
import type { ActionResult } from '../../../shared/action-result';
import type { UsageSummary } from '../../../shared/events';
import type { SessionRecord, StepView } from '../../store/session-reader';
import { defaultDataDir } from '../../settings/settings';
import { describeAction } from '../../../shared/describe-action';
import { formatUsd } from '../../../shared/format';
import { localTime } from './sessions';
import { readNamedSession } from '../session-lookup';

interface ShowOptions {
  json?: boolean;
  dataDir?: string;
}

/** One step of `mnemo show --json`. */
export interface ShownStep {
  step: number;
  /** The step ran to its end (false for the step a crash interrupted). */
  complete: boolean;
  /** The step's first action, or null. */
  action: Action | null;
  /** The first action's result, or null (not executed). */
  result: ActionResult | null;
  thought: string | null;
  /** Absolute path of the model-ready screenshot, or null. */
  screenshot: string | null;
  actions: Action[];
  results: ActionResult[];
  errors: Array<{ kind: string; message: string }>;
  notes: string[];
  questions: Array<{ kind: string; question: string; answer: string | null }>;
  durationMs: number | null;
  /** Cost of the run up to the end of this step (USD), or null. */
  cost: number | null;
  usage: UsageSummary | null;
  /** Absolute path of the model's raw reply (secrets masked), or null. */
  reply: string | null;
  /** Absolute path of the full-resolution capture (PNG), or null. */
  fullResolution: string | null;
}

/** `mnemo show --json`. */
export interface ShownSession {
  id: string;
  task: string;
  status: string;
  startedAt: string;
  endedAt: string | null;
  model: string;
  family: string;
  cost: number;
  usage: UsageSummary | null;
  reason: string | null;
  replayOf: string | null;
  directory: string;
  warnings: Array<{ file: string; line: number; message: string }>;
  steps: ShownStep[];
}

function shownStep(view: StepView, directory: string): ShownStep {
  const file = (relative: string | undefined) => (relative ? join(directory, relative) : null);
  return {
    step: view.step,
    complete: view.durationMs !== null,
    action: view.actions[0] ?? null,
    result: view.results[0] ?? null,
    thought: view.thought,
    screenshot: view.screenshotMissing ? null : file(view.screenshot?.path),
    actions: view.actions,
    results: view.results,
    errors: view.errors,
    notes: view.notes,
    questions: view.questions,
    durationMs: view.durationMs,
    cost: view.costUsd,
    usage: view.usage,
    reply: file(view.replyFile),
    fullResolution: file(view.fullResolutionFile),
  };
}

export function shownSession(session: SessionRecord): ShownSession {
  const { meta, directory } = session;
  return {
    id: meta.id,
    task: meta.task,
    status: meta.status,
    startedAt: new Date(meta.startedAt).toISOString(),
    endedAt: meta.endedAt === null ? null : new Date(meta.endedAt).toISOString(),
    model: meta.model,
    family: meta.family,
    cost: meta.costUsd,
    usage: meta.usage ?? null,
    reason: meta.reason,
    replayOf: meta.replayOf ?? null,
    directory,
    warnings: session.warnings.map((w) => ({ file: w.file ?? 'events.jsonl', line: w.line, message: w.message })),
    steps: session.steps.map((view) => shownStep(view, directory)),
  };
}

function describeResult(result: ActionResult | undefined): string {
  if (!result) return 'not run';
  return result.ok ? `✓${result.detail ? ` ${result.detail}` : ''}` : `✗ ${result.error.kind}: ${result.error.message}`;
}

function indent(text: string, prefix: string): string {
  return text.replace(/\n/g, `\n${prefix}`);
}

export function renderSession(shown: ShownSession): string {
  const lines: string[] = [];
  lines.push(`session  ${shown.id}`);
  lines.push(`task     ${indent(shown.task, '         ')}`);
  lines.push(`status   ${shown.status}${shown.reason ? `: ${shown.reason}` : ''}`);
  lines.push(`started  ${localTime(Date.parse(shown.startedAt), true)}${shown.endedAt ? `, ended ${localTime(Date.parse(shown.endedAt), true)}` : ''}`);
  lines.push(`model    ${shown.model || '?'}${shown.family ? ` (${shown.family})` : ''}`);
  const tokens = shown.usage ? ` (${shown.usage.inputTokens} in / ${shown.usage.outputTokens} out tokens)` : '';
  const complete = shown.steps.filter((s) => s.complete).length;
  lines.push(`steps    ${complete}${complete !== shown.steps.length ? ` finished, ${shown.steps.length - complete} not` : ''}, cost ${formatUsd(shown.cost)}${tokens}`);
  if (shown.replayOf) lines.push(`replays  ${shown.replayOf}`);
  lines.push(`folder   ${shown.directory}`);
  for (const step of shown.steps) {
    const timing = step.complete ? `${((step.durationMs ?? 0) / 1000).toFixed(1)} s, ${formatUsd(step.cost ?? 0)} so far` : 'did not finish';
    lines.push('', `step ${step.step}  (${timing})`);
    if (step.thought) lines.push(`  thought: ${indent(step.thought, '           ')}`);
    step.actions.forEach((action, i) => lines.push(`  → ${describeAction(action)}  ${describeResult(step.results[i])}`));
    for (const error of step.errors) lines.push(`  ! ${error.kind}: ${error.message}`);
    for (const note of step.notes) lines.push(`  note: ${note}`);
    for (const q of step.questions) lines.push(`  ? ${q.question} → ${q.answer ?? '(no answer)'}`);
    if (step.screenshot) lines.push(`  screenshot: ${step.screenshot}`);
  }
  return `${lines.join('\n')}\n`;
}

export function registerShowCommand(program: Command): void {
  program
    .command('show')
    .description('Show a recorded session step by step')
    .argument('<id>', 'a session id, a unique prefix of one, or "last" for the newest')
    .option('--json', 'print {id, task, status, steps: [{step, action, result, thought, screenshot, ...}], ...} (screenshot: an absolute path)')
    .option('--data-dir <dir>', 'where sessions live (default ~/.mnemo, env MNEMO_DATA_DIR)')
    .addHelpText(
      'after',
      '\nA session whose recording process is gone (a crash, kill -9) is marked "interrupted" and shows its\nfinished steps. Damaged lines in the record are skipped with a warning on stderr.\nExit codes: 0 shown, 1 no such session (or a prefix matching several), 2 bad arguments or a malformed id.',
    )
    .action(async (ref: string, options: ShowOptions) => {
      const session = await readNamedSession(resolve(options.dataDir ?? defaultDataDir()), ref);
      if (!session) return;
      for (const warning of session.warnings) {
        process.stderr.write(`mnemo: warning: ${warning.file ?? 'events.jsonl'}${warning.line > 0 ? ` line ${warning.line}` : ''}: ${warning.message}\n`);
      }
      const shown = shownSession(session);
      process.stdout.write(options.json ? `${JSON.stringify(shown)}\n` : renderSession(shown));
    });
}
