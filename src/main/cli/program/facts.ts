/**
 * `mnemo facts list|search|add|forget|check`: the facts the agent remembers across tasks (and machines,
 * with Redis). Every subcommand takes --data-dir, --config, --redis-url and --memory-key-file.
 */
import type { Command } from 'commander';
import type { FactsAddOptions, FactsCheckOptions, FactsListOptions, FactsSearchOptions, MemoryStoreOptions } from '../commands/facts';
import { addMemoryStoreOptions, addStorageOptions, collect, parsePositiveInt } from '../options';

/** A subcommand of `parent` that opens the memory: where it lives, as every memory command takes it. */
export function memoryCommand(parent: Command, name: string, description: string): Command {
  return addMemoryStoreOptions(addStorageOptions(parent.command(name).description(description)));
}

const facts = () => import('../commands/facts');

export function registerFactsCommand(program: Command): void {
  const command = program
    .command('facts')
    .description('The facts Mnemo remembers across tasks: list, search, add, forget, check')
    .addHelpText('after', '\nScopes: agent:<name>, feature:<id>, product:<name>, cross-product. Subjects: user, machine, everything, or custom ones (memory.facts.subjects).\nExit codes: 0 done (check: the log is whole or was recovered), 1 no such fact, damaged records check could not recover, or the memory cannot be used, 2 bad arguments.');

  memoryCommand(command, 'list', 'Stored facts, the more specific subject first, then the newest')
    .option('--subject <name>', 'only facts about this subject')
    .option('--scope <scope>', 'only facts in this scope')
    .option('--json', 'print [{id, subject, scope, keyword, description, factType, values, timestamp}], with sessionId where a run taught the fact')
    .action(async (options: FactsListOptions) => (await facts()).factsListCommand(options));

  memoryCommand(command, 'search', 'Facts ranked by how well they match the text (keywords, descriptions, values)')
    .argument('<text>', 'what to look for')
    .option('--limit <n>', 'at most this many (default 20)', parsePositiveInt('--limit'))
    .option('--json', 'print the facts as for list, best first, each with a "score"')
    .action(async (text: string, options: FactsSearchOptions) => (await facts()).factsSearchCommand(text, options));

  memoryCommand(command, 'add', 'Save a fact (a new value of a single fact supersedes the old one; the same fact twice is stored once)')
    .requiredOption('--subject <name>', 'who or what it is about: user, machine, everything or a custom subject')
    .requiredOption('--scope <scope>', 'where it applies: agent:<name>, feature:<id>, product:<name> or cross-product')
    .requiredOption('--keyword <keyword>', 'the concept, e.g. preferred-editor')
    .requiredOption('--description <text>', 'what the concept means')
    .requiredOption('--value <value>', 'the value (repeat for several with --multiple)', collect)
    .option('--multiple', 'the concept holds several values at once (FactType MULTIPLE)')
    .option('--json', 'print the fact object instead of its id')
    .action(async (options: FactsAddOptions) => (await facts()).factsAddCommand(options));

  memoryCommand(command, 'forget', 'Remove a fact and its history from the memory')
    .argument('<id>', 'the fact id (mnemo facts list shows them)')
    .action(async (id: string, options: MemoryStoreOptions) => (await facts()).factsForgetCommand(id, options));

  memoryCommand(command, 'check', 'Check the facts log: whole, or a torn last record (a write cut short by a crash) kept aside as facts.log.torn-<time>')
    .option('--json', 'print {log, exists, records, facts, recovered: [{file, bytes}], keptAside, damaged}; log is null where no log is kept (Redis)')
    .action(async (options: FactsCheckOptions) => (await facts()).factsCheckCommand(options));
}
