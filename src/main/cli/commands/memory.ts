/**
 * `mnemo memory show <session-id> [--data-dir DIR] [--json]`: the memory at the end of a recorded
 * run, rebuilt from the run's memory events: the three layers, the steps whose screenshots were
 * pruned from the model's input, the blackboard, the conversation tiers, the facts loaded and
 * saved, and the working memory.
 * Exit codes: 0 shown, 1 no such session, 2 bad arguments.
 *
 * `mnemo memory compact [--limit N] [--json]`: folds each finished task of the shared blackboard that
 * has no summary yet into one line written by the memory model (the full trajectory stays). Prints
 * progress on stderr; with --json, the report. Exit codes: 0 done (also when nothing was pending),
 * 1 some task could not be summarised or the memory cannot be used, 2 bad arguments.
 *
 * `mnemo memory working --conversation ID [--json]`: a conversation's working memory (seed 002), as
 * kept now (the data directory, or Redis with --redis-url). Exit codes: 0 shown, 1 the conversation
 * has none or the memory cannot be used, 2 bad arguments.
 */
import { buildMemorySnapshot, type MemoryChange, type MemorySnapshot } from '../../../shared/memory';
import { readNamedSession } from '../session-lookup';
import { keptPrivate, openDataDir } from '../data-dir';
import { failWith, memoryStoreFlags, withMemoryService, type MemoryStoreOptions } from './facts';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { loadConfig } from '../../settings/settings';
import { keychainApiKey } from '../stored-key';
import type { OperatorOpen } from '../../service/run-service';

export interface MemoryShowOptions {
  json?: boolean;
  dataDir?: string;
}

function section(title: string, body: string): string {
  return `${title}\n${body.trim() === '' ? '  (empty)' : body.replace(/^/gm, '  ')}\n`;
}

/** The memory sections of the last system prompt: budget, cost, what went in and what was left out. */
function renderPrompt(prompt: MemorySnapshot['prompt']): string {
  if (!prompt) return section('memory in the last prompt', '');
  const rows = prompt.sections.map((part) => {
    const budget = part.budgetTokens === null ? 'own limits' : `budget ${part.budgetTokens}`;
    const left = part.omitted > 0 ? `; left out ${part.omitted}: ${part.leftOut}` : part.leftOut ? `; left out ${part.leftOut}` : '';
    return `${part.name}: ~${part.usedTokens} tokens (${budget}); ${part.shown} shown${left}`;
  });
  return section(`memory in the last prompt (~${prompt.totalTokens} tokens)`, rows.join('\n'));
}

function renderSnapshot(snapshot: MemorySnapshot): string {
  const { layers, blackboard, conversation } = snapshot;
  const earlier = (name: keyof MemorySnapshot['blackboard']) => (snapshot.blackboardEarlier[name] ? `(${snapshot.blackboardEarlier[name]} earlier items kept, not shown)\n` : '');
  const items = (list: ReadonlyArray<Record<string, unknown>>) => list.map((item) => JSON.stringify(item)).join('\n');
  return [
    renderPrompt(snapshot.prompt),
    section('summary', layers.summary),
    section('recent', layers.recent),
    section('pending', layers.pending),
    section('screenshots pruned from the model input, steps', snapshot.prunedSteps.join(', ')),
    section('blackboard: requests', earlier('requests') + items(blackboard.requests)),
    section('blackboard: questions', earlier('questions') + items(blackboard.questions)),
    section('blackboard: trajectories', earlier('trajectories') + items(blackboard.trajectories)),
    section('blackboard: screenshots', earlier('screenshots') + items(blackboard.screenshots)),
    section('conversation: long-term', conversation.longTerm.join('\n')),
    section('conversation: short-term', conversation.shortTerm.join('\n')),
    section('conversation: context', conversation.context.map((m) => `${m.role}: ${m.content}`).join('\n')),
    section('facts loaded into the prompt', snapshot.facts.loaded.map((f) => `[${f.subject}] ${f.keyword}: ${f.values.join('; ')}`).join('\n')),
    section('facts saved', snapshot.facts.saved.map((f) => `[${f.subject}] ${f.keyword}: ${f.values.join('; ')}${f.change ? ` (${f.change})` : ''}`).join('\n')),
    ...(snapshot.facts.lastError ? [section('facts: last error', snapshot.facts.lastError)] : []),
    section(`working memory${snapshot.workingMemory.conversationId ? ` of ${snapshot.workingMemory.conversationId}` : ''}`, snapshot.workingMemory.memory),
  ].join('\n');
}

/** Summarizing drives no display. */
const noOperator = async (): Promise<OperatorOpen> => ({ ok: false, message: 'mnemo memory compact does not use a display' });

export async function memoryShowCommand(ref: string, options: MemoryShowOptions): Promise<void> {
  const session = await readNamedSession(await openDataDir(options.dataDir), ref);
  if (!session) return;
  const changes: MemoryChange[] = session.events.flatMap((event) => (event.type === 'memory' ? [event.change] : []));
  const snapshot = buildMemorySnapshot(changes);
  process.stdout.write(options.json ? `${JSON.stringify(snapshot)}\n` : renderSnapshot(snapshot));
}

export interface MemoryCompactOptions extends MemoryStoreOptions {
  limit?: number;
  json?: boolean;
}

export async function memoryCompactCommand(options: MemoryCompactOptions): Promise<void> {
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  await keptPrivate(config.config.dataDir);
  const { RunService } = await import('../../service/run-service');
  const log = (line: string) => process.stderr.write(`mnemo: ${line}\n`);
  const service = new RunService({ config: config.config, flags: memoryStoreFlags(options), openOperator: noOperator, log, ...(await keychainApiKey(config.config, memoryStoreFlags(options), log)) });
  const stop = new AbortController();
  // Ctrl+C stops after the summary being written; every one written so far is kept.
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt);
  try {
    const compacted = await service.memoryHost.summarize({
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      signal: stop.signal,
      onProgress: (progress) =>
        process.stderr.write(`[${progress.done}/${progress.total}] ${progress.taskId}: ${progress.outcome.ok ? progress.outcome.summary : `not summarised: ${progress.outcome.error}`}\n`),
    });
    if (!compacted.ok) return failWith(compacted.error);
    const report = compacted.value;
    if (options.json) process.stdout.write(`${JSON.stringify(report)}\n`);
    else process.stdout.write(`${report.summarised} of ${report.pending} finished tasks summarised${report.failed.length ? `, ${report.failed.length} not (they keep their plain line and are tried again)` : ''}${report.stopped ? '; stopped' : ''}\n`);
    if (report.writeError) process.stderr.write(`mnemo: ${report.writeError}\n`);
    if (report.failed.length > 0 || report.writeError) process.exitCode = ExitCode.errorResult;
  } finally {
    process.off('SIGINT', interrupt);
    await service.close();
  }
}

export interface MemoryWorkingOptions extends MemoryStoreOptions {
  conversation: string;
  json?: boolean;
}

export async function memoryWorkingCommand(options: MemoryWorkingOptions): Promise<void> {
  await withMemoryService(options, async (service) => {
    const read = await service.workingMemory(options.conversation);
    if (!read.ok) return failWith(read.error);
    if (read.value === null) {
      process.stderr.write(`mnemo: conversation ${options.conversation} has no working memory yet\n`);
      process.exitCode = ExitCode.errorResult;
      return;
    }
    process.stdout.write(options.json ? `${JSON.stringify(read.value)}\n` : `${read.value.memory}\n`);
  });
}
