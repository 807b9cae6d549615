/**
 * `mnemo show <id>`: one session step by step: the thought, the actions and their results, the
 * screenshot of each step. A session left running by a process that is gone is marked
 * `interrupted` first. Damaged lines in the record are skipped with a warning on stderr.
 * Exit codes: 0 shown, 1 no such session (or a prefix that matches several), 2 bad arguments.
 */
import type { ActionResult } from '../../../shared/action-result';
import { shownSession, type ShownSession } from '../../service/sessions/session-views';
import { describeAction } from '../../../shared/describe-action';
import { formatUsd } from '../../../shared/format';
import { localTime } from './sessions';
import { readNamedSession } from '../session-lookup';
import { openDataDir } from '../data-dir';

export interface ShowOptions {
  json?: boolean;
  dataDir?: string;
  store?: string;
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
  if (shown.store) lines.push(`store    ${shown.store}`);
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

export async function showCommand(ref: string, options: ShowOptions): Promise<void> {
  const session = await readNamedSession(await openDataDir(options.dataDir), ref, options.store !== undefined ? { store: options.store } : {});
  if (!session) return;
  for (const warning of session.warnings) {
    process.stderr.write(`mnemo: warning: ${warning.file ?? 'events.jsonl'}${warning.line > 0 ? ` line ${warning.line}` : ''}: ${warning.message}\n`);
  }
  const shown = shownSession(session);
  process.stdout.write(options.json ? `${JSON.stringify(shown)}\n` : renderSession(shown));
}
