/** `mnemo memory show|compact|working`: the memory of recorded runs, and the shared memory now. */
import type { Command } from 'commander';
import type { MemoryCompactOptions, MemoryShowOptions, MemoryWorkingOptions } from '../commands/memory';
import { addDataDirOption, parsePositiveInt } from '../options';
import { memoryCommand } from './facts';

const memory = () => import('../commands/memory');

export function registerMemoryCommand(program: Command): void {
  const command = program.command('memory').description('Inspect the memory of recorded runs');
  addDataDirOption(
    command
      .command('show')
      .description('The memory at the end of a run: layers, pruned screenshots, blackboard, conversation, facts, working memory')
      .argument('<session-id>', 'a session id, a unique prefix of one, or "last"')
      .option(
        '--json',
        'print {"layers":{"pending","recent","summary"},"prunedSteps":[...],"blackboard":{...},"blackboardEarlier":{...},"prompt":{"sections":[{"name","budgetTokens","usedTokens","shown","omitted","leftOut","text"}],"totalTokens"},"conversation":{"context","shortTerm","longTerm"},"facts":{"loaded","saved","lastError"},"workingMemory":{"conversationId","memory","status"}}',
      ),
  ).action(async (ref: string, options: MemoryShowOptions) => (await memory()).memoryShowCommand(ref, options));

  memoryCommand(command, 'compact', 'Fold each finished task of the shared blackboard into one line written by the memory model (nothing is removed)')
    .option('--limit <n>', 'summarise at most this many tasks, the newest first (default: all)', parsePositiveInt('--limit'))
    .option('--json', 'print {"pending","summarised","failed":[{"taskId","error"}],"stopped","writeError"}')
    .action(async (options: MemoryCompactOptions) => (await memory()).memoryCompactCommand(options));

  memoryCommand(command, 'working', "A conversation's working memory: the summary the model rewrites after each of its tasks")
    .requiredOption('--conversation <id>', 'the conversation (mnemo run prints its id)')
    .option('--json', 'print {"conversationId","memory","updatedAt"} (updatedAt in ms since the epoch)')
    .action(async (options: MemoryWorkingOptions) => (await memory()).memoryWorkingCommand(options));
}
