/**
 * `mnemo facts`: the facts the agent remembers across tasks (and machines, with Redis).
 *
 *   mnemo facts list [--subject S] [--scope SCOPE] [--json]
 *   mnemo facts search <text> [--json]             best first, each with its score
 *   mnemo facts add --subject S --scope SCOPE --keyword K --description D --value V [--value V2 ...] [--multiple]
 *   mnemo facts forget <id>
 *
 * Scopes are written agent:<name>, feature:<id>, product:<name> or cross-product; subjects by name.
 * Every subcommand takes --data-dir, --config, --redis-url and --memory-key-file.
 * Exit codes: 0 done, 1 no such fact or the memory cannot be used (Redis unreachable, a wrong key),
 * 2 a bad subject, scope or argument.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { FactJson } from '../../memory/facts';
import { loadConfig, type RunFlags } from '../../settings/settings';
import type { MemoryService } from '../../service/memory-service';
import type { ServiceError } from '../../service/run-service';
import { ExitCode, InvalidInputError } from '../exit-codes';

export interface MemoryStoreOptions {
  dataDir?: string;
  config?: string;
  redisUrl?: string;
  memoryKeyFile?: string;
}

/** Adds the options every memory command takes. */
export function memoryStoreOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'where the memory lives (default ~/.mnemo, env MNEMO_DATA_DIR)')
    .option('--config <file>', 'a settings file (default <data-dir>/config.json)')
    .option('--redis-url <url>', 'the shared memory in Redis, e.g. redis://127.0.0.1:6379 (env MNEMO_REDIS_URL)')
    .option('--memory-key-file <file>', 'the key of the encrypted memory files (env MNEMO_MEMORY_KEY)');
}

/** The memory's storage as the options name it (the rest comes from the environment and the config). */
export function memoryStoreFlags(options: MemoryStoreOptions): Pick<RunFlags, 'redisUrl' | 'memoryKeyFile'> {
  return {
    ...(options.redisUrl !== undefined ? { redisUrl: options.redisUrl } : {}),
    ...(options.memoryKeyFile !== undefined ? { memoryKeyFile: options.memoryKeyFile } : {}),
  };
}

/** A service error as the CLI reports it: bad input exits 2 (thrown), the rest 1. */
export function failWith(error: ServiceError): void {
  if (error.kind === 'settings') throw new InvalidInputError(error.message);
  process.stderr.write(`mnemo: ${error.message}\n`);
  process.exitCode = ExitCode.errorResult;
}

/** Opens the memory the options name; undefined (with the exit code set) when it cannot be. */
export async function openMemoryService(options: MemoryStoreOptions): Promise<MemoryService | undefined> {
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  // Loaded on demand: the Redis client and the stores are not needed by other commands.
  const { MemoryService } = await import('../../service/memory-service');
  const opened = await MemoryService.open(config.config, memoryStoreFlags(options));
  if (!opened.ok) {
    failWith(opened.error);
    return undefined;
  }
  for (const warning of opened.value.warnings) process.stderr.write(`mnemo: warning: ${warning}\n`);
  return opened.value;
}

async function withService(options: MemoryStoreOptions, work: (service: MemoryService) => Promise<void>): Promise<void> {
  const service = await openMemoryService(options);
  if (!service) return;
  try {
    await work(service);
  } finally {
    await service.close();
  }
}

function renderFacts(facts: readonly FactJson[], empty: string): string {
  if (facts.length === 0) return `${empty}\n`;
  return `${facts
    .map((fact) => {
      const score = fact.score !== undefined ? ` score ${fact.score.toFixed(3)}` : '';
      const when = new Date(fact.timestamp).toISOString().replace('T', ' ').slice(0, 16);
      const taught = fact.sessionId ? `, from session ${fact.sessionId}` : '';
      return `${fact.id}  ${fact.subject}  ${fact.scope}  ${fact.keyword}${fact.factType === 'multiple' ? ' (multiple)' : ''}: ${fact.values.join('; ')}\n    ${fact.description}  (${when}${taught}${score})`;
    })
    .join('\n')}\n`;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerFactsCommand(program: Command): void {
  const facts = program
    .command('facts')
    .description('The facts Mnemo remembers across tasks: list, search, add, forget')
    .addHelpText('after', '\nScopes: agent:<name>, feature:<id>, product:<name>, cross-product. Subjects: user, machine, everything, or custom ones (memory.facts.subjects).\nExit codes: 0 done, 1 no such fact or the memory cannot be used, 2 bad arguments.');

  memoryStoreOptions(
    facts
      .command('list')
      .description('Stored facts, the more specific subject first, then the newest')
      .option('--subject <name>', 'only facts about this subject')
      .option('--scope <scope>', 'only facts in this scope')
      .option('--json', 'print [{id, subject, scope, keyword, description, factType, values, timestamp}], with sessionId where a run taught the fact'),
  ).action(async (options: MemoryStoreOptions & { subject?: string; scope?: string; json?: boolean }) => {
    await withService(options, async (service) => {
      const listed = await service.listFacts({ ...(options.subject !== undefined ? { subject: options.subject } : {}), ...(options.scope !== undefined ? { scope: options.scope } : {}) });
      if (!listed.ok) return failWith(listed.error);
      process.stdout.write(options.json ? `${JSON.stringify(listed.value)}\n` : renderFacts(listed.value, `no facts in ${service.location}`));
    });
  });

  memoryStoreOptions(
    facts
      .command('search')
      .description('Facts ranked by how well they match the text (keywords, descriptions, values)')
      .argument('<text>', 'what to look for')
      .option('--limit <n>', 'at most this many (default 20)', (value) => {
        const n = Number(value);
        if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`--limit must be a positive integer, got "${value}"`);
        return n;
      })
      .option('--json', 'print the facts as for list, best first, each with a "score"'),
  ).action(async (text: string, options: MemoryStoreOptions & { json?: boolean; limit?: number }) => {
    await withService(options, async (service) => {
      const found = await service.searchFacts(text, options.limit !== undefined ? { limit: options.limit } : {});
      if (!found.ok) return failWith(found.error);
      process.stdout.write(options.json ? `${JSON.stringify(found.value)}\n` : renderFacts(found.value, `no fact matches "${text}"`));
    });
  });

  memoryStoreOptions(
    facts
      .command('add')
      .description('Save a fact (a new value of a single fact supersedes the old one; the same fact twice is stored once)')
      .requiredOption('--subject <name>', 'who or what it is about: user, machine, everything or a custom subject')
      .requiredOption('--scope <scope>', 'where it applies: agent:<name>, feature:<id>, product:<name> or cross-product')
      .requiredOption('--keyword <keyword>', 'the concept, e.g. preferred-editor')
      .requiredOption('--description <text>', 'what the concept means')
      .requiredOption('--value <value>', 'the value (repeat for several with --multiple)', collect)
      .option('--multiple', 'the concept holds several values at once (FactType MULTIPLE)')
      .option('--json', 'print the fact object instead of its id'),
  ).action(async (options: MemoryStoreOptions & { subject: string; scope: string; keyword: string; description: string; value: string[]; multiple?: boolean; json?: boolean }) => {
    await withService(options, async (service) => {
      const added = await service.addFact({
        subject: options.subject,
        scope: options.scope,
        keyword: options.keyword,
        description: options.description,
        values: options.value,
        multiple: options.multiple === true,
      });
      if (!added.ok) return failWith(added.error);
      process.stdout.write(options.json ? `${JSON.stringify(added.value)}\n` : `${added.value.id}\n`);
    });
  });

  memoryStoreOptions(
    facts.command('forget').description('Remove a fact and its history from the memory').argument('<id>', 'the fact id (mnemo facts list shows them)'),
  ).action(async (id: string, options: MemoryStoreOptions) => {
    await withService(options, async (service) => {
      const forgotten = await service.forgetFact(id);
      if (!forgotten.ok) return failWith(forgotten.error);
      process.stderr.write(`forgot ${id}\n`);
    });
  });
}
