/**
 * `mnemo batch`: a workflow (or a task) over a table of values on one machine, with no server
 * (docs/batch.md). The values are read and checked here (src/main/batch/values.ts), the batch made
 * in the data directory (batch/journal.ts), and its rows run N at once (batch/scheduler.ts), each
 * launched by the service's own recipe (service/batches/batch-rows.ts) on a private desktop.
 *
 *   run [WORKFLOW] --values FILE [--task TEXT] [--concurrency N] [--retries K] [--desktop-size WxH] [--app CMD …] [--json]
 *   list [--json] · show ID [--json] · retry ID [--failed] · resume ID · cancel ID
 */
import { availableParallelism, freemem } from 'node:os';
import { parseDesktopSize } from '../../../shared/desktop-size';
import type { RunFlags } from '../../settings/settings';
import type { WorkflowPolicy } from '../../replay/policy';
import { defaultConcurrency } from '../../batch/capacity';
import { BatchJournal, listBatchIds, newBatchId } from '../../batch/journal';
import type { BatchDefinition, BatchSource, JournalEntry } from '../../batch/records';
import { progressLine, rowReports, summaryTable } from '../../batch/report';
import { batchStatus, foldBatch, rowsToRetry, rowsWithoutOutcome, type BatchState } from '../../batch/state';
import { checkColumns, parseValues, taskPlaceholders, valuesFormatOf, type ExpectedColumn, type ValuesTable } from '../../batch/values';
import { currentWriter, writerLiveness } from '../../disk/process-identity';
import type { RunService } from '../../service/run-service';
import type { QueuedModelFlags } from '../../batch/queue/jobs';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { SAME_REQUEST_MS } from '../run-controls';
import { openService, type StorageOptions } from './workflow';

/** A values file larger than this is refused before it is read. */
const VALUES_FILE_MAX = 64 * 1024 * 1024;
/** How often a running batch looks for `mnemo batch cancel` written by another process. */
const CANCEL_POLL_MS = 500;

export interface BatchShowOptions extends StorageOptions {
  json?: boolean;
}

export type BatchCancelOptions = StorageOptions;

export interface BatchContinueOptions extends StorageOptions, RunFlags {
  concurrency?: number;
  retries?: number;
  failed?: boolean;
  json?: boolean;
}

export interface BatchRunOptions extends StorageOptions, RunFlags {
  values: string;
  /** redis://HOST:PORT: the rows go on this queue for its workers (queue.url otherwise). */
  queue?: string;
  priority?: number;
  task?: string;
  concurrency?: number;
  retries: number;
  desktopSize?: string;
  app?: string[];
  policy: WorkflowPolicy;
  speed: number;
  json?: boolean;
}

/** The settings flags the runs take (model and so on), without the batch's own. */
function modelFlagsOf(options: RunFlags & Record<string, unknown>): RunFlags {
  const { values: _values, task: _task, concurrency: _concurrency, retries: _retries, desktopSize: _size, app: _app, policy: _policy, speed: _speed, json: _json, failed: _failed, queue: _queue, priority: _priority, cron: _cron, ...flags } = options;
  return flags;
}

/** What a batch runs and over which values, each checked: the workflow (trusted) or the task, the values file against it. */
export interface BatchInput {
  service: RunService;
  source: BatchSource;
  table: ValuesTable;
}

/** The workflow or task and the values file, read and checked (bad input thrown; a missing or untrusted workflow said, then undefined). */
export async function readBatchInput(workflow: string | undefined, options: StorageOptions & RunFlags & { values: string; task?: string; desktopSize?: string; policy: WorkflowPolicy; speed: number }): Promise<BatchInput | undefined> {
  if ((workflow === undefined) === (options.task === undefined)) throw new InvalidInputError('give a workflow, or --task "…{{name}}…", not both and not neither');
  if (options.task !== undefined && options.task.trim() === '') throw new InvalidInputError('--task is empty');
  if (options.desktopSize !== undefined) {
    const size = parseDesktopSize(options.desktopSize);
    if (!size.ok) throw new InvalidInputError(`--desktop-size: ${size.message}`);
  }
  const format = valuesFormatOf(options.values);
  if (!format) throw new InvalidInputError(`--values ${options.values}: a .csv or a .jsonl file`);
  const { readFileWithin } = await import('../../disk/bounded-read');
  const read = await readFileWithin(options.values, VALUES_FILE_MAX);
  if (!read.ok) throw new InvalidInputError(`--values ${options.values}: ${read.message}`);
  const table = parseValues(read.bytes.toString('utf8'), format, options.values);
  if (!table.ok) throw new InvalidInputError(table.message);

  const service = await openService(options);
  let source: BatchSource;
  let expected: ExpectedColumn[];
  let what: string;
  if (workflow !== undefined) {
    const shown = await service.workflows.show(workflow);
    if (!shown.ok) return void (await failedWith(service, shown.error.message, ExitCode.errorResult));
    if (!shown.value.trusted) {
      const { untrustedReason } = await import('../../../shared/workflow');
      return void (await failedWith(service, untrustedReason(workflow), ExitCode.errorResult));
    }
    source = { kind: 'workflow', name: workflow, policy: options.policy, speed: options.speed };
    expected = shown.value.workflow.params.map((param) => ({ name: param.name, secret: param.secret }));
    what = `workflow "${workflow}"'s parameters`;
  } else {
    const task = options.task as string;
    source = { kind: 'task', task };
    expected = taskPlaceholders(task).map((name) => ({ name, secret: false }));
    what = "the task's {{name}}s";
  }
  const checked = checkColumns(table.value, expected, what, options.values, source.kind === 'workflow');
  if (!checked.ok) {
    await service.close();
    throw new InvalidInputError(checked.message);
  }
  return { service, source, table: table.value };
}

export async function batchRunCommand(workflow: string | undefined, options: BatchRunOptions): Promise<void> {
  const input = await readBatchInput(workflow, options);
  if (!input) return;
  const { service, source, table } = input;
  const apps = options.app ?? [];
  const queueUrl = options.queue ?? service.config.loaded.file.queue?.url;
  if (queueUrl !== undefined) {
    const { reachQueue } = await import('../../batch/queue/connection');
    const reached = await reachQueue(queueUrl);
    if (!reached.ok) return failedWith(service, reached.message, ExitCode.errorResult);
  }
  const chosen = queueUrl !== undefined
    ? { concurrency: 1, reason: `as many at once as the queue's workers take (each its --concurrency)` }
    : options.concurrency !== undefined
      ? { concurrency: options.concurrency, reason: `${options.concurrency} at once (--concurrency)` }
      : defaultConcurrency({ cpus: availableParallelism(), freeMemoryBytes: freemem(), withApps: apps.length > 0 || service.config.desktopSettings().apps.length > 0 });
  const definition: BatchDefinition = {
    id: newBatchId(),
    createdAt: Date.now(),
    source,
    valuesFile: options.values,
    columns: table.columns,
    rows: table.rows,
    concurrency: chosen.concurrency,
    concurrencyReason: chosen.reason,
    retries: options.retries,
    desktop: { ...(options.desktopSize ? { size: options.desktopSize } : {}), ...(options.app ? { apps } : {}) },
    ...(queueUrl !== undefined ? { queue: { url: queueUrl, ...(options.priority !== undefined ? { priority: options.priority } : {}) } } : {}),
  };
  await service.config.dataDirReady();
  const journal = await BatchJournal.create(service.config.dataDir, definition);
  await runBatch(service, journal, definition, [], {
    rows: definition.rows.map((row) => row.row),
    concurrency: definition.concurrency,
    concurrencyReason: definition.concurrencyReason,
    retries: definition.retries,
    model: modelFlagsOf(options as unknown as RunFlags & Record<string, unknown>),
    json: options.json === true,
  });
}

/** The model flags a queued row carries to its worker: what chooses and limits the model, never a key, a path or a display of this machine. */
export function queuedModelFlags(flags: RunFlags): QueuedModelFlags {
  const { baseUrl, model, family, modelVersion, coordinates, computerTool, apiKeyEnv, maxSteps, maxCost } = flags;
  const picked = { baseUrl, model, family, modelVersion, coordinates, computerTool, apiKeyEnv, maxSteps, maxCost };
  return Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined)) as QueuedModelFlags;
}

export async function failedWith(service: RunService, message: string, code: number): Promise<void> {
  process.stderr.write(`mnemo: ${message}\n`);
  process.exitCode = code;
  await service.close();
}

interface RunChoice {
  rows: number[];
  concurrency: number;
  concurrencyReason: string;
  retries: number;
  model: RunFlags;
  json: boolean;
  /** Attempts and failures already journalled per row (resume goes on counting). */
  attemptsSoFar?: Map<number, number>;
  failedSoFar?: Map<number, number>;
}

/**
 * Runs rows of a batch in this process: the secrets read, `opened` journalled, the rows run N at
 * once with a live progress line, Ctrl+C and `cancel` heard, `closed` journalled, the summary
 * printed and the exit code set (0 every row succeeded, 3 some failed or have no outcome, 4
 * stopped by the user).
 */
async function runBatch(service: RunService, journal: BatchJournal, definition: BatchDefinition, earlier: JournalEntry[], choice: RunChoice): Promise<void> {
  const [{ resolveRowValues, BatchRows }, { runRows }, { osKeychainOf }] = await Promise.all([
    import('../../service/batches/batch-rows'),
    import('../../batch/scheduler'),
    import('../../settings/keychain/os-keychain'),
  ]);
  // On a queue, each worker reads a row's secrets on its own machine: none is read (or sent) from here.
  const queued = definition.queue;
  const values = queued ? ({ ok: true, values: new Map() } as const) : await resolveRowValues(definition, choice.rows, { env: process.env, keychain: () => osKeychainOf(process.platform, process.env) });
  if (!values.ok) {
    await service.close();
    throw new InvalidInputError(`a secret of ${definition.valuesFile}: ${values.message}`);
  }
  const entries = [...earlier];
  const opened: JournalEntry = { type: 'opened', at: Date.now(), writer: currentWriter(), rows: choice.rows, concurrency: choice.concurrency };
  await journal.append(opened);
  entries.push(opened);

  const what = definition.source.kind === 'workflow' ? `workflow ${definition.source.name}` : 'the task';
  const where = queued
    ? `on the queue ${(await import('../../batch/queue/connection')).shownQueueUrl(queued.url)}${queued.priority !== undefined ? ` at priority ${queued.priority}` : ''}, ${choice.concurrencyReason}`
    : `on private desktops; concurrency ${choice.concurrencyReason}`;
  process.stderr.write(`batch ${definition.id}: ${choice.rows.length} row${choice.rows.length === 1 ? '' : 's'} of ${definition.valuesFile}, ${what}, ${where}\n`);

  const progress = new ProgressLine(definition.id, choice.concurrency);
  let state = foldBatch(definition, entries);
  progress.show(state);
  const onEntry = (entry: JournalEntry) => {
    entries.push(entry);
    state = foldBatch(definition, entries);
    if (entry.type === 'attempt-ended' && entry.final) progress.rowDone();
    progress.show(state);
  };

  const drain = new AbortController();
  const stop = new AbortController();
  let interrupts = 0;
  let lastAt = 0;
  let userStopped = false;
  const onInterrupt = (signal: NodeJS.Signals) => {
    const at = Date.now();
    // A repeat within SAME_REQUEST_MS is the same request (a supervisor signals the child, then its group); a later SIGTERM adds nothing.
    if (interrupts > 0 && (at - lastAt < SAME_REQUEST_MS || signal !== 'SIGINT')) return;
    interrupts++;
    lastAt = at;
    userStopped = true;
    if (interrupts === 1) {
      drain.abort();
      if (queued) progress.note(`stopping: the rows waiting are taken off the queue, the ${state.counts.running} run${state.counts.running === 1 ? '' : 's'} going on on its workers finish and are followed (Ctrl+C again to stop following; mnemo batch resume ${definition.id} runs the rest)`);
      else progress.note(`stopping: no new row starts, the ${state.counts.running} run${state.counts.running === 1 ? '' : 's'} going on finish (Ctrl+C again to stop them too; mnemo batch resume ${definition.id} runs the rest)`);
    } else if (interrupts === 2) {
      stop.abort();
      if (queued) progress.note('no longer following: the runs going on on the workers finish there (Ctrl+C again to quit at once)');
      else progress.note('stopping the runs going on: their rows are left without an outcome, for resume (Ctrl+C again to quit at once)');
    } else process.exit(ExitCode.userAborted);
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  // `mnemo batch cancel` in another process: journalled there, heard here.
  const seen = (await journal.read().then((read) => (read.ok ? read.entries.length : 0))) - 1;
  let cancelHeard = false;
  const cancelWatch = setInterval(() => {
    void journal.read().then((read) => {
      if (!read.ok || stop.signal.aborted) return;
      if (!cancelHeard && read.entries.slice(seen).some((entry) => entry.type === 'cancelled')) {
        cancelHeard = true;
        userStopped = true;
        drain.abort();
        // A queue's workers finish the runs they hold; the rows waiting are taken off it.
        if (queued) progress.note('cancelled (mnemo batch cancel): the rows waiting are taken off the queue, the runs going on finish on their workers');
        else {
          stop.abort();
          progress.note('cancelled (mnemo batch cancel): the runs going on are stopped');
        }
      }
    });
  }, CANCEL_POLL_MS);

  try {
    if (queued) {
      const { runQueuedRows } = await import('../../batch/queue/queued-rows');
      await runQueuedRows(
        { journal, onEntry, log: (line) => progress.note(`mnemo: ${line}`) },
        {
          url: queued.url,
          definition,
          rows: choice.rows,
          ...(choice.attemptsSoFar ? { attemptsSoFar: choice.attemptsSoFar } : {}),
          retries: choice.retries,
          ...(queued.priority !== undefined ? { priority: queued.priority } : {}),
          ...(service.config.loaded.file.queue?.backoffMs !== undefined ? { backoffMs: service.config.loaded.file.queue.backoffMs } : {}),
          model: queuedModelFlags(choice.model),
          round: entries.filter((entry) => entry.type === 'opened').length,
          drain: drain.signal,
          stop: stop.signal,
        },
      );
    } else {
      const launcher = new BatchRows({ workflowRuns: service.workflowRuns, agentRuns: service.agentRuns }, { definition, values: values.values, model: choice.model });
      await runRows(
        { launcher, journal, onEntry },
        {
          rows: choice.rows,
          concurrency: choice.concurrency,
          retries: choice.retries,
          ...(choice.attemptsSoFar ? { attemptsSoFar: choice.attemptsSoFar } : {}),
          ...(choice.failedSoFar ? { failedSoFar: choice.failedSoFar } : {}),
          drain: drain.signal,
          stop: stop.signal,
        },
      );
    }
  } finally {
    clearInterval(cancelWatch);
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    const closed: JournalEntry = { type: 'closed', at: Date.now() };
    await journal.append(closed).catch(() => undefined);
    entries.push(closed);
    progress.end();
  }
  state = foldBatch(definition, entries);
  printSummary(definition, state, choice.json);
  process.exitCode = batchExitCode(state, userStopped);
  await service.close();
}

function batchExitCode(state: BatchState, userStopped: boolean): number {
  const open = state.counts.pending + state.counts.running;
  if (open > 0 && userStopped) return ExitCode.userAborted;
  if (open > 0 || state.counts.failed > 0) return ExitCode.runFailed;
  return ExitCode.ok;
}

function printSummary(definition: BatchDefinition, state: BatchState, json: boolean): void {
  if (json) {
    process.stdout.write(rowReports(definition, state).map((report) => `${JSON.stringify(report)}\n`).join(''));
    return;
  }
  process.stdout.write(`${summaryTable(definition, state)}\n`);
}

/**
 * The live progress line on stderr: rewritten in place on a terminal (and refreshed each second,
 * for the ETA), a line per change otherwise (a log, a test).
 */
class ProgressLine {
  private readonly startedAt = Date.now();
  private doneHere = 0;
  private last = '';
  private state: BatchState | null = null;
  private readonly terminal = process.stderr.isTTY === true;
  private readonly timer: NodeJS.Timeout | null;

  constructor(
    private readonly id: string,
    private readonly concurrency: number,
  ) {
    this.timer = this.terminal ? setInterval(() => this.state && this.show(this.state), 1000) : null;
    this.timer?.unref();
  }

  rowDone(): void {
    this.doneHere++;
  }

  show(state: BatchState): void {
    this.state = state;
    const line = progressLine(this.id, state, { startedAt: this.startedAt, now: Date.now(), doneSinceStart: this.doneHere, concurrency: this.concurrency });
    if (line === this.last) return;
    this.last = line;
    process.stderr.write(this.terminal ? `\r\x1b[K${line}` : `${line}\n`);
  }

  note(text: string): void {
    process.stderr.write(`${this.terminal ? '\r\x1b[K' : ''}${text}\n`);
    if (this.terminal) process.stderr.write(this.last);
  }

  end(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.terminal) process.stderr.write('\n');
  }
}

/** A batch by id, read: or the exit code set and undefined, once said. */
async function readBatch(options: StorageOptions, ref: string): Promise<{ service: RunService; journal: BatchJournal; definition: BatchDefinition; entries: JournalEntry[]; state: BatchState } | undefined> {
  const service = await openService(options);
  const opened = await BatchJournal.open(service.config.dataDir, ref);
  if (!opened.ok) {
    await failedWith(service, opened.message, ExitCode.errorResult);
    return undefined;
  }
  const read = await opened.journal.read();
  if (!read.ok) {
    await failedWith(service, read.message, ExitCode.errorResult);
    return undefined;
  }
  if (read.skipped > 0) process.stderr.write(`mnemo: warning: batch ${opened.journal.id}: ${read.skipped} line${read.skipped === 1 ? '' : 's'} of its journal unreadable (cut short by a crash?), skipped\n`);
  return { service, journal: opened.journal, definition: read.definition, entries: read.entries, state: foldBatch(read.definition, read.entries) };
}

function holderAlive(state: BatchState): boolean {
  return state.holder !== null && writerLiveness(state.holder) === 'alive';
}

function describeSource(definition: BatchDefinition): string {
  return definition.source.kind === 'workflow' ? `workflow ${definition.source.name}` : `task "${definition.source.task}"`;
}

export async function batchListCommand(options: BatchShowOptions): Promise<void> {
  const service = await openService(options);
  const listed = [];
  for (const id of await listBatchIds(service.config.dataDir)) {
    const opened = await BatchJournal.open(service.config.dataDir, id);
    const read = opened.ok ? await opened.journal.read() : null;
    if (!read?.ok) {
      process.stderr.write(`mnemo: warning: ${read ? read.message : `batch ${id} unreadable`}\n`);
      continue;
    }
    const state = foldBatch(read.definition, read.entries);
    listed.push({
      id,
      createdAt: read.definition.createdAt,
      source: describeSource(read.definition),
      rows: state.rows.length,
      succeeded: state.counts.succeeded,
      failed: state.counts.failed,
      withoutOutcome: state.counts.pending + state.counts.running,
      status: batchStatus(state, holderAlive(state)),
      costUsd: state.costUsd,
    });
  }
  if (options.json) process.stdout.write(`${JSON.stringify(listed)}\n`);
  else if (listed.length === 0) process.stderr.write('no batches yet: mnemo batch run WORKFLOW --values rows.csv makes one\n');
  else {
    for (const item of listed) {
      process.stdout.write(`${item.id}\t${new Date(item.createdAt).toISOString()}\t${item.status}\t${item.succeeded}/${item.rows} succeeded, ${item.failed} failed\t${item.source}\n`);
    }
  }
  await service.close();
}

export async function batchShowCommand(ref: string, options: BatchShowOptions): Promise<void> {
  const batch = await readBatch(options, ref);
  if (!batch) return;
  const { service, definition, state } = batch;
  const status = batchStatus(state, holderAlive(state));
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ id: definition.id, status, source: definition.source, valuesFile: definition.valuesFile, concurrency: definition.concurrency, retries: definition.retries, createdAt: definition.createdAt, costUsd: state.costUsd, rows: rowReports(definition, state) })}\n`,
    );
  } else {
    const holder = state.holder && status === 'running' ? ` (process ${state.holder.pid})` : '';
    process.stdout.write(`batch ${definition.id}: ${status}${holder}; ${describeSource(definition)} over ${definition.valuesFile}; concurrency ${definition.concurrencyReason}; retries ${definition.retries}\n`);
    process.stdout.write(`${summaryTable(definition, state)}\n`);
  }
  await service.close();
}

/** Resume and retry refuse a batch another live process is running. */
async function refuseIfRunning(batch: NonNullable<Awaited<ReturnType<typeof readBatch>>>): Promise<boolean> {
  if (!holderAlive(batch.state)) return false;
  await failedWith(batch.service, `batch ${batch.definition.id} is running in process ${batch.state.holder?.pid} (mnemo batch cancel ${batch.definition.id} stops it)`, ExitCode.errorResult);
  return true;
}

function choiceFor(definition: BatchDefinition, options: BatchContinueOptions, rows: number[], retries: number): RunChoice {
  return {
    rows,
    concurrency: options.concurrency ?? definition.concurrency,
    concurrencyReason: options.concurrency !== undefined ? `${options.concurrency} at once (--concurrency)` : definition.concurrencyReason,
    retries,
    model: modelFlagsOf(options as unknown as RunFlags & Record<string, unknown>),
    json: options.json === true,
  };
}

export async function batchResumeCommand(ref: string, options: BatchContinueOptions): Promise<void> {
  const batch = await readBatch(options, ref);
  if (!batch || (await refuseIfRunning(batch))) return;
  const { service, journal, definition, entries, state } = batch;
  const rows = rowsWithoutOutcome(state);
  if (rows.length === 0) {
    process.stderr.write(`batch ${definition.id}: every row has an outcome, nothing to resume (mnemo batch retry ${definition.id} --failed runs the failed ones again)\n`);
    printSummary(definition, state, options.json === true);
    process.exitCode = batchExitCode(state, false);
    await service.close();
    return;
  }
  const byRow = new Map(state.rows.map((row) => [row.row, row]));
  await runBatch(service, journal, definition, entries, {
    ...choiceFor(definition, options, rows, definition.retries),
    attemptsSoFar: new Map(rows.map((row) => [row, byRow.get(row)?.attempts ?? 0])),
    failedSoFar: new Map(rows.map((row) => [row, byRow.get(row)?.failedAttempts ?? 0])),
  });
}

export async function batchRetryCommand(ref: string, options: BatchContinueOptions): Promise<void> {
  const batch = await readBatch(options, ref);
  if (!batch || (await refuseIfRunning(batch))) return;
  const { service, journal, definition, entries, state } = batch;
  const rows = rowsToRetry(state, options.failed === true);
  if (rows.length === 0) {
    process.stderr.write(`batch ${definition.id}: no row failed, nothing to retry\n`);
    process.exitCode = batchExitCode(state, false);
    await service.close();
    return;
  }
  const reopened: JournalEntry = { type: 'reopened', at: Date.now(), rows };
  await journal.append(reopened);
  await runBatch(service, journal, definition, [...entries, reopened], choiceFor(definition, options, rows, options.retries ?? definition.retries));
}

export async function batchCancelCommand(ref: string, options: BatchCancelOptions): Promise<void> {
  const batch = await readBatch(options, ref);
  if (!batch) return;
  const { service, journal, definition, state } = batch;
  await journal.append({ type: 'cancelled', at: Date.now() });
  const open = state.counts.pending + state.counts.running;
  if (holderAlive(state)) process.stderr.write(`batch ${definition.id}: cancelled; process ${state.holder?.pid} stops its runs going on and starts no new row\n`);
  else process.stderr.write(`batch ${definition.id}: cancelled (no process was running it)\n`);
  if (open > 0) process.stderr.write(`${open} row${open === 1 ? '' : 's'} without an outcome: mnemo batch resume ${definition.id} runs them\n`);
  await service.close();
}
