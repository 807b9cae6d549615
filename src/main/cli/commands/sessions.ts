/**
 * `mnemo sessions`: the recorded sessions, newest first, from the session index. Sessions whose
 * recording process died (a crash, kill -9) are marked `interrupted` on the way; `sessions delete`
 * and `sessions prune` (or their flag forms `--delete`, `--prune`) delete first. A data directory
 * open to other accounts is made owner-only first, and said. With a shared session store the
 * store's sessions are listed too (a session in both, once); delete and prune change only the data
 * directory. Exit codes: 0 listed (an empty list included), 1 the shared store could not be read
 * (the local sessions are listed all the same), 2 bad arguments or a bad `store` section in the
 * config file.
 */
import type { SessionSummary } from '../../store/session-index';
import type { SessionLibrary } from '../../store/session-library';
import { listItemOf } from '../../service/sessions/session-views';
import type { StoreWarning } from '../../store/session-store';
import { BYTES_PER_GB, retentionOf, type RetentionPolicy } from '../../store/store-settings';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { offerSampleSession } from '../../store/sample-session';
import { loadConfig, storeSettingsOf } from '../../settings/settings';
import { redactionOfDataDir } from '../../settings/redaction';
import { formatBytes, formatUsd } from '../../../shared/format';
import { openDataDir } from '../data-dir';
import { keychainApiKeyQuietly } from '../stored-key';
import { openSessionLibrary } from '../session-library';

export interface SessionsOptions {
  json?: boolean;
  search?: string;
  prune?: boolean;
  retentionDays?: number;
  retentionGb?: number;
  delete?: string;
  dataDir?: string;
  config?: string;
  store?: string;
}

/** `2026-11-29 12:45`, local time. */
export function localTime(ms: number, seconds = false): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}${seconds ? `:${two(d.getSeconds())}` : ''}`;
}


export function printWarnings(warnings: readonly StoreWarning[]): void {
  for (const warning of warnings) process.stderr.write(`mnemo: warning: ${warning.message}\n`);
}

function table(sessions: readonly SessionSummary[], width: number): string {
  const rows = sessions.map((s) => [s.id, localTime(s.startedAt), s.status, String(s.steps), formatUsd(s.costUsd), `${s.sample ? '(sample) ' : ''}${s.store ? '(stored) ' : ''}${s.waitingForUpload ? '(waiting for upload) ' : ''}${s.task.replace(/\s+/g, ' ')}`]);
  const header = ['ID', 'STARTED', 'STATUS', 'STEPS', 'COST', 'TASK'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const rightAligned = new Set([3, 4]);
  const line = (cells: string[]) => {
    const fixed = cells.slice(0, 5).map((cell, column) => (rightAligned.has(column) ? cell.padStart(widths[column] as number) : cell.padEnd(widths[column] as number)));
    const used = fixed.reduce((sum, cell) => sum + cell.length + 2, 0);
    const room = Math.max(20, width - used);
    const task = cells[5] as string;
    return `${fixed.join('  ')}  ${task.length > room ? `${task.slice(0, room - 1)}…` : task}`;
  };
  return [line(header), ...rows.map(line)].join('\n');
}

async function retentionFor(options: SessionsOptions, dataDir: string): Promise<RetentionPolicy> {
  const read = await loadConfig({ dataDir, ...(options.config !== undefined ? { config: options.config } : {}) });
  if (!read.ok) throw new InvalidInputError(read.message);
  const policy = retentionOf(storeSettingsOf(read.config));
  return {
    maxAgeDays: options.retentionDays ?? policy.maxAgeDays,
    maxBytes: options.retentionGb !== undefined ? options.retentionGb * BYTES_PER_GB : policy.maxBytes,
  };
}

/**
 * Lists the sessions, after deleting one (`mnemo sessions delete ID`, or `--delete ID`) or pruning
 * them (`mnemo sessions prune`, or `--prune`) when asked.
 */
export async function sessionsCommand(options: SessionsOptions): Promise<void> {
  if (!options.prune && (options.retentionDays !== undefined || options.retentionGb !== undefined)) {
    throw new InvalidInputError('--retention-days and --retention-gb go with --prune');
  }
  const dataDir = await openDataDir(options.dataDir);
  const { library, close } = await openSessionLibrary(dataDir, options);
  try {
    await listSessions(dataDir, library, options);
  } finally {
    close();
  }
}

async function listSessions(dataDir: string, library: SessionLibrary, options: SessionsOptions): Promise<void> {
  if (options.delete !== undefined) {
    const deleted = await library.delete(options.delete);
    if (!deleted.ok) {
      process.stderr.write(`mnemo: ${deleted.message}\n`);
      process.exitCode = ExitCode.errorResult;
      return;
    }
    process.stderr.write(`deleted session ${deleted.id}\n`);
  }
  // A data directory without sessions yet gets the sample to explore.
  await offerSampleSession(dataDir);

  if (options.prune) {
    const policy = await retentionFor(options, dataDir);
    if (policy.maxAgeDays === null && policy.maxBytes === null) {
      process.stderr.write('mnemo: nothing to prune: no retention set (store.retentionDays or store.retentionGb in config.json, or --retention-days / --retention-gb)\n');
    } else {
      const pruned = await library.local.prune(policy);
      printWarnings(pruned.warnings);
      for (const { id, why, bytes } of pruned.deleted) {
        process.stderr.write(`deleted ${id} (${why === 'age' ? `older than ${policy.maxAgeDays} days` : 'over the size limit'}, ${formatBytes(bytes)})\n`);
      }
      process.stderr.write(`pruned ${pruned.deleted.length} session(s), freed ${formatBytes(pruned.freedBytes)}${pruned.keptBytes !== null ? `; ${formatBytes(pruned.keptBytes)} kept` : ''}\n`);
    }
  }

  const found = await library.list(options.search !== undefined ? { search: options.search } : {});
  // A task may hold a secret of the settings (a session recorded before they were masked).
  const listing = (await redactionOfDataDir(dataDir, options.config, process.env, await keychainApiKeyQuietly(dataDir))).deep(found);
  printWarnings(listing.warnings);
  if (listing.storeProblem) {
    // The local sessions are listed all the same; the exit code says the list is not whole.
    process.stderr.write(`mnemo: ${listing.storeProblem}\n`);
    process.exitCode = ExitCode.errorResult;
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(listing.sessions.map(listItemOf))}\n`);
    return;
  }
  for (const id of listing.interrupted) process.stderr.write(`mnemo: session ${id} was left running by a process that is gone: marked interrupted\n`);
  if (listing.sessions.length === 0) {
    process.stdout.write(options.search !== undefined ? `no sessions match "${options.search}"\n` : `no sessions in ${dataDir}${library.storeName ? ` nor in ${library.storeName}` : ''}\n`);
    return;
  }
  process.stdout.write(`${table(listing.sessions, process.stdout.columns ?? 120)}\n`);
}
