/**
 * `mnemo batch`: a workflow (or a task) over a table of values on one machine, with no server
 * (docs/batch.md). A thin front end over the service's batches (service/batches/batch-service.ts,
 * which the window and MCP use too): the batch made, read, retried, resumed and cancelled there,
 * its rows run by the service's runner; here only the flags, the live progress line on stderr,
 * Ctrl+C, the summary and the exit code.
 *
 *   run [WORKFLOW] --values FILE [--task TEXT] [--concurrency N] [--retries K] [--desktop-size WxH] [--app CMD …] [--json]
 *   list [--json] · show ID [--json] · retry ID [--failed] · resume ID · cancel ID
 */
import { parseDesktopSize } from '../../../shared/desktop-size';
import type { RunFlags } from '../../settings/settings';
import type { WorkflowPolicy } from '../../replay/policy';
import type { BatchSummary } from '../../../shared/batch';
import type { BatchDefinition, BatchSource } from '../../batch/records';
import { progressLine, rowReports, summaryTable } from '../../batch/report';
import type { BatchState } from '../../batch/state';
import { valuesFormatOf } from '../../batch/values';
import type { ValuesTable } from '../../batch/values';
import type { OpenedBatch } from '../../service/batches/batch-service';
import type { RowsChoice } from '../../service/batches/batch-runner';
import type { RunService } from '../../service/run-service';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { SAME_REQUEST_MS } from '../run-controls';
import { openService, type StorageOptions } from './workflow';

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
  if (!valuesFormatOf(options.values)) throw new InvalidInputError(`--values ${options.values}: a .csv or a .jsonl file`);

  const service = await openService(options);
  const table = await service.batches.readValuesFile(options.values, `--values ${options.values}`);
  if (!table.ok) {
    await service.close();
    throw new InvalidInputError(table.error.message);
  }
  const source: BatchSource = workflow !== undefined ? { kind: 'workflow', name: workflow, policy: options.policy, speed: options.speed } : { kind: 'task', task: options.task as string };
  const checked = await service.batches.check(source, table.value, options.values);
  if (!checked.ok) {
    // The table that does not fit is the user's input; a workflow missing or untrusted, an answer.
    if (checked.error.kind === 'invalid') {
      await service.close();
      throw new InvalidInputError(checked.error.message);
    }
    return void (await failedWith(service, checked.error.message, ExitCode.errorResult));
  }
  return { service, source, table: checked.value };
}

export async function batchRunCommand(workflow: string | undefined, options: BatchRunOptions): Promise<void> {
  const input = await readBatchInput(workflow, options);
  if (!input) return;
  const { service, source, table } = input;
  const queueUrl = options.queue ?? service.config.loaded.file.queue?.url;
  if (queueUrl !== undefined) {
    const { reachQueue } = await import('../../batch/queue/connection');
    const reached = await reachQueue(queueUrl);
    if (!reached.ok) return failedWith(service, reached.message, ExitCode.errorResult);
  }
  const created = await service.batches.create({
    source,
    table,
    valuesFile: options.values,
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency, concurrencyGivenAs: '--concurrency' } : {}),
    retries: options.retries,
    desktop: { ...(options.desktopSize ? { size: options.desktopSize } : {}), ...(options.app ? { apps: options.app } : {}) },
    ...(queueUrl !== undefined ? { queue: { url: queueUrl, ...(options.priority !== undefined ? { priority: options.priority } : {}) } } : {}),
  });
  if (!created.ok) {
    // The table that does not fit is the user's input; a workflow missing or untrusted, an answer.
    if (created.error.kind === 'invalid') {
      await service.close();
      throw new InvalidInputError(created.error.message);
    }
    return failedWith(service, created.error.message, ExitCode.errorResult);
  }
  const { definition } = created.value;
  await runBatch(service, created.value, {
    rows: definition.rows.map((row) => row.row),
    concurrency: definition.concurrency,
    concurrencyReason: definition.concurrencyReason,
    retries: definition.retries,
    model: modelFlagsOf(options as unknown as RunFlags & Record<string, unknown>),
    json: options.json === true,
  });
}

export async function failedWith(service: RunService, message: string, code: number): Promise<void> {
  process.stderr.write(`mnemo: ${message}\n`);
  process.exitCode = code;
  await service.close();
}

interface RunChoice extends RowsChoice {
  json: boolean;
}

/**
 * Runs rows of a batch in this process (the service's runner, batches/batch-runner.ts) with a
 * live progress line, Ctrl+C heard and `cancel` said; then the summary printed and the exit code
 * set (0 every row succeeded, 3 some failed or have no outcome, 4 stopped by the user).
 */
async function runBatch(service: RunService, batch: OpenedBatch, choice: RunChoice): Promise<void> {
  const { definition } = batch;
  const what = definition.source.kind === 'workflow' ? `workflow ${definition.source.name}` : 'the task';
  const queued = definition.queue;
  const where = queued
    ? `on the queue ${(await import('../../batch/queue/connection')).shownQueueUrl(queued.url)}${queued.priority !== undefined ? ` at priority ${queued.priority}` : ''}, ${choice.concurrencyReason}`
    : `on private desktops; concurrency ${choice.concurrencyReason}`;
  const progress = new ProgressLine(definition.id, choice.concurrency);
  let state = batch.state;
  let announced = false;

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
  let ran: Awaited<ReturnType<RunService['batches']['run']>>;
  try {
    ran = await service.batches.run(batch, choice, {
      drain: drain.signal,
      stop: stop.signal,
      onState: (next, entry) => {
        state = next;
        if (!announced) {
          announced = true;
          process.stderr.write(`batch ${definition.id}: ${choice.rows.length} row${choice.rows.length === 1 ? '' : 's'} of ${definition.valuesFile}, ${what}, ${where}\n`);
        }
        if (entry.type === 'attempt-ended' && entry.final) progress.rowDone();
        progress.show(state);
      },
      onCancelled: () => {
        userStopped = true;
        progress.note(queued ? 'cancelled (mnemo batch cancel): the rows waiting are taken off the queue, the runs going on are stopped on their workers and followed to their end' : 'cancelled (mnemo batch cancel): the runs going on are stopped');
      },
      onNote: (line) => progress.note(`mnemo: ${line}`),
    });
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    progress.end();
  }
  if (!ran.ok) {
    await service.close();
    throw new InvalidInputError(ran.message);
  }
  printSummary(definition, ran.state, choice.json);
  process.exitCode = batchExitCode(ran.state, userStopped);
  await sayWhereSessionsWent(service, rowReports(definition, ran.state).filter((report) => choice.rows.includes(report.row)).flatMap((report) => report.sessions));
  await service.close();
}

/**
 * With a shared session store (--store, MNEMO_STORE, store.shared), each row's session went there
 * as its run ended: waited for here (a session is never left half sent by the batch's exit), and
 * said in one line. A session that stays local is listed as pending: `mnemo sessions upload`.
 */
async function sayWhereSessionsWent(service: RunService, sessions: readonly string[]): Promise<void> {
  if (sessions.length === 0) return;
  const outcomes = [];
  for (const id of sessions) {
    const archived = await service.records.archive(id);
    if (!archived.ok || archived.value === null) return;
    outcomes.push(archived.value);
  }
  const store = outcomes[0]?.store ?? '';
  const uploaded = outcomes.filter((outcome) => outcome.status === 'uploaded').length;
  const local = outcomes.filter((outcome) => outcome.status === 'local').length;
  process.stderr.write(`sessions: ${uploaded} of ${outcomes.length} in ${store}${local > 0 ? `; ${local} stay${local === 1 ? 's' : ''} in this data directory, waiting for the store (mnemo sessions upload)` : ''}\n`);
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
async function readBatch(options: StorageOptions, ref: string): Promise<(OpenedBatch & { service: RunService }) | undefined> {
  const service = await openService(options);
  const opened = await service.batches.open(ref);
  if (!opened.ok) {
    await failedWith(service, opened.error.message, ExitCode.errorResult);
    return undefined;
  }
  const { journal, skipped } = opened.value;
  if (skipped > 0) process.stderr.write(`mnemo: warning: batch ${journal.id}: ${skipped} line${skipped === 1 ? '' : 's'} of its journal unreadable (cut short by a crash?), skipped\n`);
  return { service, ...opened.value };
}

function describeSource(definition: BatchDefinition): string {
  return definition.source.kind === 'workflow' ? `workflow ${definition.source.name}` : `task "${definition.source.task}"`;
}

function describeSummary(summary: BatchSummary): string {
  return summary.source.kind === 'workflow' ? `workflow ${summary.source.name}` : `task "${summary.source.task}"`;
}

export async function batchListCommand(options: BatchShowOptions): Promise<void> {
  const service = await openService(options);
  const { batches, warnings } = await service.batches.list();
  for (const warning of warnings) process.stderr.write(`mnemo: warning: ${warning}\n`);
  const listed = batches.reverse().map((batch) => ({
    id: batch.id,
    createdAt: batch.createdAt,
    source: describeSummary(batch),
    rows: batch.total,
    succeeded: batch.counts.succeeded,
    failed: batch.counts.failed,
    withoutOutcome: batch.counts.pending + batch.counts.running,
    status: batch.status,
    costUsd: batch.costUsd,
  }));
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
  const summary = service.batches.summary(batch);
  const status = summary.status;
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ id: definition.id, status, source: definition.source, valuesFile: definition.valuesFile, concurrency: definition.concurrency, retries: definition.retries, createdAt: definition.createdAt, costUsd: state.costUsd, rows: rowReports(definition, state) })}\n`,
    );
  } else {
    const holder = summary.runningIn ? ` (process ${summary.runningIn.pid})` : '';
    process.stdout.write(`batch ${definition.id}: ${status}${holder}; ${describeSource(definition)} over ${definition.valuesFile}; concurrency ${definition.concurrencyReason}; retries ${definition.retries}\n`);
    process.stdout.write(`${summaryTable(definition, state)}\n`);
  }
  await service.close();
}

/** Resume and retry refuse a batch another live process is running. */
async function refuseIfRunning(batch: NonNullable<Awaited<ReturnType<typeof readBatch>>>): Promise<boolean> {
  const running = batch.service.batches.runningElsewhere(batch);
  if (running === null) return false;
  await failedWith(batch.service, running, ExitCode.errorResult);
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
  const { service, definition, state } = batch;
  const resume = service.batches.resumeChoice(batch);
  if (resume.rows.length === 0) {
    process.stderr.write(`batch ${definition.id}: every row has an outcome, nothing to resume (mnemo batch retry ${definition.id} --failed runs the failed ones again)\n`);
    printSummary(definition, state, options.json === true);
    process.exitCode = batchExitCode(state, false);
    await service.close();
    return;
  }
  await runBatch(service, batch, { ...choiceFor(definition, options, resume.rows, definition.retries), ...resume });
}

export async function batchRetryCommand(ref: string, options: BatchContinueOptions): Promise<void> {
  const batch = await readBatch(options, ref);
  if (!batch || (await refuseIfRunning(batch))) return;
  const { service, definition, state } = batch;
  const reopened = await service.batches.reopen(batch, options.failed === true);
  if (!reopened.ok) {
    process.stderr.write(`${reopened.error.message}\n`);
    process.exitCode = batchExitCode(state, false);
    await service.close();
    return;
  }
  await runBatch(service, reopened.value.batch, choiceFor(definition, options, reopened.value.rows, options.retries ?? definition.retries));
}

export async function batchCancelCommand(ref: string, options: BatchCancelOptions): Promise<void> {
  const service = await openService(options);
  const cancelled = await service.batches.cancel(ref);
  if (!cancelled.ok) return failedWith(service, cancelled.error.message, ExitCode.errorResult);
  const { batch, wasRunning, holderPid, queue } = cancelled.value;
  const open = batch.counts.pending + batch.counts.running;
  if (wasRunning) process.stderr.write(`batch ${batch.id}: cancelled; process ${holderPid} stops its runs going on and starts no new row\n`);
  else process.stderr.write(`batch ${batch.id}: cancelled (no process was running it)\n`);
  if (queue?.ok) process.stderr.write(`the queue: ${queue.takenOff} row${queue.takenOff === 1 ? '' : 's'} taken off it; its workers stop the runs of the batch they hold\n`);
  else if (queue) process.stderr.write(`mnemo: warning: the queue was not told: ${queue.message}\n`);
  if (open > 0) process.stderr.write(`${open} row${open === 1 ? '' : 's'} without an outcome: mnemo batch resume ${batch.id} runs them\n`);
  await service.close();
}
