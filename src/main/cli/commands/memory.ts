/**
 * `mnemo memory show <session-id> [--data-dir DIR] [--json]`: the memory at the end of a recorded
 * run, rebuilt from the run's memory events: the three layers, the steps whose screenshots were
 * pruned from the model's input, the blackboard, the conversation tiers, the facts loaded and
 * saved, and the working memory.
 * Exit codes: 0 shown, 1 no such session, 2 bad arguments.
 *
 * `mnemo memory working --conversation ID [--json]`: a conversation's working memory (seed 002), as
 * kept now (the data directory, or Redis with --redis-url). Exit codes: 0 shown, 1 the conversation
 * has none or the memory cannot be used, 2 bad arguments.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { buildMemorySnapshot, type MemoryChange, type MemorySnapshot } from '../../../shared/memory';
import { defaultDataDir } from '../../settings/settings';
import { readNamedSession } from '../session-lookup';
import { failWith, memoryStoreOptions, openMemoryService, type MemoryStoreOptions } from './facts';
import { ExitCode } from '../exit-codes';

interface MemoryShowOptions {
  json?: boolean;
  dataDir?: string;
}

function section(title: string, body: string): string {
  return `${title}\n${body.trim() === '' ? '  (empty)' : body.replace(/^/gm, '  ')}\n`;
}

function renderSnapshot(snapshot: MemorySnapshot): string {
  const { layers, blackboard, conversation } = snapshot;
  const items = (list: ReadonlyArray<Record<string, unknown>>) => list.map((item) => JSON.stringify(item)).join('\n');
  return [
    section('summary', layers.summary),
    section('recent', layers.recent),
    section('pending', layers.pending),
    section('screenshots pruned from the model input, steps', snapshot.prunedSteps.join(', ')),
    section('blackboard: requests', items(blackboard.requests)),
    section('blackboard: questions', items(blackboard.questions)),
    section('blackboard: trajectories', items(blackboard.trajectories)),
    section('blackboard: screenshots', items(blackboard.screenshots)),
    section('conversation: long-term', conversation.longTerm.join('\n')),
    section('conversation: short-term', conversation.shortTerm.join('\n')),
    section('conversation: context', conversation.context.map((m) => `${m.role}: ${m.content}`).join('\n')),
    section('facts loaded into the prompt', snapshot.facts.loaded.map((f) => `[${f.subject}] ${f.keyword}: ${f.values.join('; ')}`).join('\n')),
    section('facts saved', snapshot.facts.saved.map((f) => `[${f.subject}] ${f.keyword}: ${f.values.join('; ')}${f.change ? ` (${f.change})` : ''}`).join('\n')),
    ...(snapshot.facts.lastError ? [section('facts: last error', snapshot.facts.lastError)] : []),
    section(`working memory${snapshot.workingMemory.conversationId ? ` of ${snapshot.workingMemory.conversationId}` : ''}`, snapshot.workingMemory.memory),
  ].join('\n');
}

export function registerMemoryCommand(program: Command): void {
  const memory = program.command('memory').description('Inspect the memory of recorded runs');
  memory
    .command('show')
    .description('The memory at the end of a run: layers, pruned screenshots, blackboard, conversation, facts, working memory')
    .argument('<session-id>', 'a session id, a unique prefix of one, or "last"')
    .option('--json', 'print {"layers":{"pending","recent","summary"},"prunedSteps":[...],"blackboard":{...},"conversation":{"context","shortTerm","longTerm"},"facts":{"loaded","saved","lastError"},"workingMemory":{"conversationId","memory","status"}}')
    .option('--data-dir <dir>', 'where sessions live (default ~/.mnemo, env MNEMO_DATA_DIR)')
    .action(async (ref: string, options: MemoryShowOptions) => {
      const session = await readNamedSession(resolve(options.dataDir ?? defaultDataDir()), ref);
      if (!session) return;
      const changes: MemoryChange[] = session.events.flatMap((event) => (event.type === 'memory' ? [event.change] : []));
      const snapshot = buildMemorySnapshot(changes);
      process.stdout.write(options.json ? `${JSON.stringify(snapshot)}\n` : renderSnapshot(snapshot));
    });

  memoryStoreOptions(
    memory
      .command('working')
      .description("A conversation's working memory: the summary the model rewrites after each of its tasks")
      .requiredOption('--conversation <id>', 'the conversation (mnemo run prints its id)')
      .option('--json', 'print {"conversationId","memory","updatedAt"} (updatedAt in ms since the epoch)'),
  ).action(async (options: MemoryStoreOptions & { conversation: string; json?: boolean }) => {
    const service = await openMemoryService(options);
    if (!service) return;
    try {
      const read = await service.workingMemory(options.conversation);
      if (!read.ok) return failWith(read.error);
      if (read.value === null) {
        process.stderr.write(`mnemo: conversation ${options.conversation} has no working memory yet\n`);
        process.exitCode = ExitCode.errorResult;
        return;
      }
      process.stdout.write(options.json ? `${JSON.stringify(read.value)}\n` : `${read.value.memory}\n`);
    } finally {
      await service.close();
    }
  });
}
