/**
 * `mnemo facts`: the facts the agent remembers across tasks (and machines, with Redis).
 *
 *   mnemo facts list [--subject S] [--scope SCOPE] [--json]
 *   mnemo facts search <text> [--json]             best first, each with its score
 *   mnemo facts add --subject S --scope SCOPE --keyword K --description D --value V [--value V2 ...] [--multiple]
 *   mnemo facts forget <id>
 *   mnemo facts check [--json]                     the log whole, or a torn last record kept aside
 *
 * Scopes are written agent:<name>, feature:<id>, product:<name> or cross-product; subjects by name.
 * Every subcommand takes --data-dir, --config, --redis-url and --memory-key-file.
 * Exit codes: 0 done (check: the log whole or recovered), 1 no such fact, damaged records the check
 * could not recover, or the memory cannot be used (Redis unreachable, a wrong key), 2 a bad
 * subject, scope or argument.
 */
import type { FactJson, FactLogCheck } from '../../memory/facts';
import { loadConfig, type RunFlags } from '../../settings/settings';
import type { MemoryService } from '../../service/memory/memory-service';
import type { ServiceError } from '../../service/run-service';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { keptPrivate } from '../data-dir';
import { displayPath } from '../../disk/write-failure';

export interface MemoryStoreOptions {
  dataDir?: string;
  config?: string;
  redisUrl?: string;
  memoryKeyFile?: string;
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

/** The memory the options name, and how to let go of it. */
export interface OpenedMemoryService {
  memory: MemoryService;
  close: () => Promise<void>;
}

/**
 * Opens the memory the options name, through the one MemoryHost every front end uses (the
 * settings, the redaction of what is saved and the storage as a run has them); undefined (with
 * the exit code set) when it cannot be.
 */
export async function openMemoryService(options: MemoryStoreOptions): Promise<OpenedMemoryService | undefined> {
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  await keptPrivate(config.config.dataDir);
  // Loaded on demand: the Redis client and the stores are not needed by other commands.
  const [{ ServiceConfig }, { MemoryHost }] = await Promise.all([import('../../service/service-config'), import('../../service/memory/memory-host')]);
  const log = (message: string) => process.stderr.write(`mnemo: ${message}\n`);
  const serviceConfig = new ServiceConfig({ config: config.config, flags: memoryStoreFlags(options), log });
  const host = new MemoryHost({ config: serviceConfig, log });
  const opened = await host.memoryService();
  if (!opened.ok) {
    await host.close();
    failWith(opened.error);
    return undefined;
  }
  return { memory: opened.value, close: () => host.close() };
}

/** Runs `work` on the memory the options name, and lets go of it after. */
export async function withMemoryService(options: MemoryStoreOptions, work: (service: MemoryService) => Promise<void>): Promise<void> {
  const opened = await openMemoryService(options);
  if (!opened) return;
  try {
    await work(opened.memory);
  } finally {
    await opened.close();
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

export interface FactsListOptions extends MemoryStoreOptions {
  subject?: string;
  scope?: string;
  json?: boolean;
}

export async function factsListCommand(options: FactsListOptions): Promise<void> {
  await withMemoryService(options, async (service) => {
    const listed = await service.listFacts({ ...(options.subject !== undefined ? { subject: options.subject } : {}), ...(options.scope !== undefined ? { scope: options.scope } : {}) });
    if (!listed.ok) return failWith(listed.error);
    process.stdout.write(options.json ? `${JSON.stringify(listed.value)}\n` : renderFacts(listed.value, `no facts in ${service.location}`));
  });
}

export interface FactsSearchOptions extends MemoryStoreOptions {
  json?: boolean;
  limit?: number;
}

export async function factsSearchCommand(text: string, options: FactsSearchOptions): Promise<void> {
  await withMemoryService(options, async (service) => {
    const found = await service.searchFacts(text, options.limit !== undefined ? { limit: options.limit } : {});
    if (!found.ok) return failWith(found.error);
    process.stdout.write(options.json ? `${JSON.stringify(found.value)}\n` : renderFacts(found.value, `no fact matches "${text}"`));
  });
}

export interface FactsAddOptions extends MemoryStoreOptions {
  subject: string;
  scope: string;
  keyword: string;
  description: string;
  value: string[];
  multiple?: boolean;
  json?: boolean;
}

export async function factsAddCommand(options: FactsAddOptions): Promise<void> {
  await withMemoryService(options, async (service) => {
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
}

export async function factsForgetCommand(id: string, options: MemoryStoreOptions): Promise<void> {
  await withMemoryService(options, async (service) => {
    const forgotten = await service.forgetFact(id);
    if (!forgotten.ok) return failWith(forgotten.error);
    process.stderr.write(`forgot ${id}\n`);
  });
}

export interface FactsCheckOptions extends MemoryStoreOptions {
  json?: boolean;
}

/** The line that says the log's state, and one per torn record this run kept aside. */
function logState(check: FactLogCheck): string[] {
  const log = displayPath(check.log);
  if (!check.exists) return [`there is no facts log yet (${log}): nothing to check`];
  const contents = `${check.records} record${check.records === 1 ? '' : 's'}, ${check.facts} fact${check.facts === 1 ? '' : 's'}`;
  if (check.recovered.length === 0) return [`the facts log ${log} is whole: ${contents}`];
  return [
    `the facts log ${log} was recovered: ${contents} whole`,
    ...check.recovered.map((torn) => `  a torn last record (${torn.bytes} bytes, a write cut short) was kept aside as ${displayPath(torn.file)}`),
  ];
}

/** What `facts check` prints: the log's state, then what was kept aside before and what is damaged. */
function describeCheck(check: FactLogCheck): string[] {
  const lines = logState(check);
  const recovered = new Set(check.recovered.map((torn) => torn.file));
  const earlier = check.keptAside.filter((file) => !recovered.has(file));
  if (earlier.length > 0) lines.push(`  torn records kept aside before: ${earlier.map((file) => displayPath(file)).join(', ')}`);
  for (const damaged of check.damaged) lines.push(`  ${damaged} (it stays in the log until it is next compacted)`);
  return lines;
}

export async function factsCheckCommand(options: FactsCheckOptions): Promise<void> {
  await withMemoryService(options, async (service) => {
    const checked = await service.checkFacts();
    if (!checked.ok) return failWith(checked.error);
    const check = checked.value;
    if (options.json) process.stdout.write(`${JSON.stringify(check)}\n`);
    else if (check.log === null) process.stdout.write(`no facts log to check: the facts are kept in ${check.location}\n`);
    else process.stdout.write(`${describeCheck(check).join('\n')}\n`);
    // A damaged record in the middle of the log was skipped, not recovered.
    if (check.log !== null && check.damaged.length > 0) process.exitCode = ExitCode.errorResult;
  });
}
