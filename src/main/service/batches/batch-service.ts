/**
 * The batches of the data directory, for every front end alike (`mnemo batch`, the window's
 * Batches view, MCP's run_batch and get_batch): make one from a table of values, read them (list,
 * one), run rows (in the caller's hands, as the CLI does, or in the background, as the window and
 * MCP do), retry the failed rows, resume, cancel, and follow their changes. A batch's state is its
 * journal on disk (src/main/batch/), so a batch run by another process (`mnemo batch run` in a
 * terminal) reads, cancels and updates the same way as one run here.
 */
import { availableParallelism, freemem } from 'node:os';
import type { BatchChange, BatchDetail, BatchQueueView, BatchSummary } from '../../../shared/batch';
import { untrustedReason } from '../../../shared/workflow';
import { defaultConcurrency } from '../../batch/capacity';
import { BatchJournal, listBatchIds, newBatchId } from '../../batch/journal';
import type { BatchDefinition, BatchSource, JournalEntry } from '../../batch/records';
import type { QueueCancel } from '../../batch/queue/cancels';
import { rowsToRetry, rowsWithoutOutcome, type BatchState } from '../../batch/state';
import { checkColumns, parseValues, taskPlaceholders, valuesFormatOf, type ExpectedColumn, type ValuesTable } from '../../batch/values';
import { readFileWithin } from '../../disk/bounded-read';
import { writerLiveness } from '../../disk/process-identity';
import { osKeychainOf } from '../../settings/keychain/os-keychain';
import type { ServiceResult } from '../service-result';
import type { WorkflowService } from '../workflows/workflow-service';
import type { BatchRowsDeps } from './batch-rows';
import { runBatchRows, type RowsChoice, type RowsRun, type RunnerControl, type SecretSources } from './batch-runner';
import { BatchWatch } from './batch-watch';
import { batchDetail, batchSummary, readBatchOf, type ReadBatch } from './batch-views';
import { ScheduleFirer } from './schedule-firer';
import type { NewBatch } from './new-batch';

export type { NewBatch } from './new-batch';

/** A values file larger than this is refused before it is read. */
export const VALUES_FILE_MAX = 64 * 1024 * 1024;


/** A batch read, with its journal to append to. */
export interface OpenedBatch extends ReadBatch {
  journal: BatchJournal;
}

export interface BatchesDeps extends BatchRowsDeps {
  dataDir: () => string;
  dataDirReady: () => Promise<void>;
  workflows: Pick<WorkflowService, 'show'>;
  /** Whether runs start apps on their desktops by default (the settings), for the default concurrency. */
  defaultApps: () => readonly string[];
  env: NodeJS.ProcessEnv;
  /** Where secret cells are read; default: the environment and the OS keychain. */
  secrets?: SecretSources;
  /** A queued batch's first retry waits this long (queue.backoffMs). */
  queueBackoffMs?: number;
  /** The queue set in the settings (queue.url), for the window's view of schedules and workers. */
  queueUrl?: () => string | undefined;
  log?: (message: string) => void;
}

/** A batch running in this process in the background (the window's retry, MCP's run_batch). */
interface Background {
  drain: AbortController;
  stop: AbortController;
  done: Promise<void>;
}

const notFound = (message: string): ServiceResult<never> => ({ ok: false, error: { kind: 'not_found', message } });
const invalid = (message: string): ServiceResult<never> => ({ ok: false, error: { kind: 'invalid', message } });
const conflict = (message: string): ServiceResult<never> => ({ ok: false, error: { kind: 'conflict', message } });

export class Batches {
  private readonly background = new Map<string, Background>();
  /** The batches last read whole, by id, with their journal's version then. */
  private readonly followed = new Map<string, { version: string; journal: BatchJournal; batch: ReadBatch }>();
  private readonly watch: BatchWatch;
  private firer: ScheduleFirer | undefined;

  constructor(private readonly deps: BatchesDeps) {
    this.watch = new BatchWatch({ read: () => this.readAll() });
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** A values file read and parsed (`label` names it in messages: `--values rows.csv`). */
  async readValuesFile(path: string, label: string): Promise<ServiceResult<ValuesTable>> {
    const format = valuesFormatOf(path);
    if (!format) return invalid(`${label}: a .csv or a .jsonl file`);
    const read = await readFileWithin(path, VALUES_FILE_MAX);
    if (!read.ok) return invalid(`${label}: ${read.message}`);
    const table = parseValues(read.bytes.toString('utf8'), format, path);
    return table.ok ? { ok: true, value: table.value } : invalid(table.message);
  }

  /** Rows given as the text of a values file (the window sends CSV). */
  valuesText(text: string, format: 'csv' | 'jsonl', label: string): ServiceResult<ValuesTable> {
    const table = parseValues(text, format, label);
    return table.ok ? { ok: true, value: table.value } : invalid(table.message);
  }

  /** Rows given inline (one object of column → value each; a secret as `{"env": "NAME"}` or `${env:NAME}`), read as a JSON-lines file would be. */
  inlineValues(rows: ReadonlyArray<Readonly<Record<string, unknown>>>, label = '(inline rows)'): ServiceResult<ValuesTable> {
    const table = parseValues(rows.map((row) => JSON.stringify(row)).join('\n'), 'jsonl', label);
    return table.ok ? { ok: true, value: table.value } : invalid(table.message);
  }

  /**
   * What a batch runs, checked against its table: the workflow found and trusted (or a task's
   * `{{name}}`s read), the columns all and only what the rows run, a secret only for a workflow.
   * The table as checked; nothing is written (a queue's producer checks the same way).
   */
  async check(source: BatchSource, table: ValuesTable, valuesFile: string): Promise<ServiceResult<ValuesTable>> {
    let expected: ExpectedColumn[];
    let what: string;
    if (source.kind === 'workflow') {
      const shown = await this.deps.workflows.show(source.name);
      if (!shown.ok) return shown;
      if (!shown.value.trusted) return { ok: false, error: { kind: 'untrusted', message: untrustedReason(source.name) } };
      expected = shown.value.workflow.params.map((param) => ({ name: param.name, secret: param.secret }));
      what = `workflow "${source.name}"'s parameters`;
    } else {
      if (source.task.trim() === '') return invalid('the task is empty');
      expected = taskPlaceholders(source.task).map((name) => ({ name, secret: false }));
      what = "the task's {{name}}s";
    }
    const checked = checkColumns(table, expected, what, valuesFile, source.kind === 'workflow');
    return checked.ok ? { ok: true, value: checked.value } : invalid(checked.message);
  }

  /** Makes a batch in the data directory: what it runs checked against its table (`check`), the concurrency chosen, `batch.json` written. */
  async create(request: NewBatch): Promise<ServiceResult<OpenedBatch>> {
    const source = request.source;
    const checked = await this.check(source, request.table, request.valuesFile);
    if (!checked.ok) return checked;
    const apps = request.desktop.apps ?? this.deps.defaultApps();
    const chosen = request.queue
      ? { concurrency: 1, reason: `as many at once as the queue's workers take (each its --concurrency)` }
      : request.concurrency !== undefined
        ? { concurrency: request.concurrency, reason: `${request.concurrency} at once (${request.concurrencyGivenAs ?? 'concurrency'})` }
        : defaultConcurrency({ cpus: availableParallelism(), freeMemoryBytes: freemem(), withApps: apps.length > 0 });
    const definition: BatchDefinition = {
      id: newBatchId(new Date(this.now())),
      createdAt: this.now(),
      source,
      valuesFile: request.valuesFile,
      columns: checked.value.columns,
      rows: checked.value.rows,
      concurrency: chosen.concurrency,
      concurrencyReason: chosen.reason,
      retries: request.retries,
      desktop: request.desktop,
      ...(request.queue ? { queue: request.queue } : {}),
    };
    await this.deps.dataDirReady();
    const journal = await BatchJournal.create(this.deps.dataDir(), definition);
    return { ok: true, value: { journal, ...readBatchOf(definition, []) } };
  }

  /** A batch by its id or a unique prefix of it, read whole. */
  async open(ref: string): Promise<ServiceResult<OpenedBatch>> {
    const opened = await BatchJournal.open(this.deps.dataDir(), ref);
    if (!opened.ok) return notFound(opened.message);
    const read = await opened.journal.read();
    if (!read.ok) return read.kind === 'not_found' ? notFound(read.message) : invalid(read.message);
    return { ok: true, value: { journal: opened.journal, ...readBatchOf(read.definition, read.entries, read.skipped) } };
  }

  /** Whether a live process holds the batch (this one or another). */
  holderAlive(state: BatchState): boolean {
    return state.holder !== null && writerLiveness(state.holder) === 'alive';
  }

  summary(batch: ReadBatch): BatchSummary {
    return batchSummary(batch, this.holderAlive(batch.state), this.now());
  }

  detail(batch: ReadBatch): BatchDetail {
    return batchDetail(batch, this.holderAlive(batch.state), this.now());
  }

  /** Every batch, oldest first, each whole; one that cannot be read is a warning. */
  private async readAll(): Promise<{ batches: BatchDetail[]; warnings: string[] }> {
    const batches: BatchDetail[] = [];
    const warnings: string[] = [];
    const ids = await listBatchIds(this.deps.dataDir());
    for (const id of ids) {
      const read = await this.readFollowed(id);
      if (read.ok) batches.push(this.detail(read.value));
      else warnings.push(read.error.message);
    }
    for (const id of this.followed.keys()) if (!ids.includes(id)) this.followed.delete(id);
    return { batches, warnings };
  }

  /** A batch read again only when its journal changed (the watch asks every 400 ms); the version taken before the read, so a line written meanwhile is read next time. */
  private async readFollowed(id: string): Promise<ServiceResult<ReadBatch>> {
    const known = this.followed.get(id);
    const journal = known?.journal ?? (await BatchJournal.open(this.deps.dataDir(), id).then((opened) => (opened.ok ? opened.journal : null)));
    if (!journal) return this.open(id);
    const version = await journal.version();
    if (known && version !== null && version === known.version) return { ok: true, value: known.batch };
    const read = await journal.read();
    if (!read.ok) return read.kind === 'not_found' ? notFound(read.message) : invalid(read.message);
    const batch = readBatchOf(read.definition, read.entries, read.skipped);
    if (version !== null) this.followed.set(id, { version, journal, batch });
    return { ok: true, value: batch };
  }

  /** The batches, newest first, with the ones that cannot be read named. */
  async list(): Promise<{ batches: BatchSummary[]; warnings: string[] }> {
    const { batches, warnings } = await this.readAll();
    return { batches: batches.map(({ rows: _rows, ...summary }) => summary).reverse(), warnings };
  }

  async get(ref: string): Promise<ServiceResult<BatchDetail>> {
    const opened = await this.open(ref);
    return opened.ok ? { ok: true, value: this.detail(opened.value) } : opened;
  }

  /** Runs rows of a batch here, in the caller's hands (the CLI awaits it, with its own signals and hooks). */
  run(batch: OpenedBatch, choice: RowsChoice, control: RunnerControl): Promise<RowsRun> {
    return runBatchRows({ ...this.deps, secrets: this.deps.secrets ?? { env: this.deps.env, keychain: () => osKeychainOf(process.platform, this.deps.env) } }, batch.journal, batch.definition, batch.entries, choice, control);
  }

  /** Runs rows of a batch in the background (the window, MCP); the secrets are read first, so a missing one is refused here. */
  private async runInBackground(batch: OpenedBatch, choice: RowsChoice): Promise<ServiceResult<BatchSummary>> {
    const drain = new AbortController();
    const stop = new AbortController();
    let openedOnce: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (openedOnce = resolve));
    const id = batch.definition.id;
    let refused: string | null = null;
    const done = this.run(batch, choice, { drain: drain.signal, stop: stop.signal, onState: () => openedOnce() }).then(
      (ran) => {
        if (!ran.ok) refused = ran.message;
        openedOnce();
      },
      (error: unknown) => {
        this.deps.log?.(`batch ${id}: ${error instanceof Error ? error.message : String(error)}`);
        openedOnce();
      },
    );
    const entry: Background = { drain, stop, done: done.finally(() => this.background.delete(id)) };
    this.background.set(id, entry);
    await opened;
    if (refused !== null) return invalid(refused);
    const now = await this.open(id);
    return now.ok ? { ok: true, value: this.summary(now.value) } : now;
  }

  /** Makes a batch and runs all its rows in the background: answers once it is journalled as started. */
  async start(request: NewBatch): Promise<ServiceResult<BatchSummary>> {
    const created = await this.create(request);
    if (!created.ok) return created;
    const { definition } = created.value;
    return this.runInBackground(created.value, {
      rows: definition.rows.map((row) => row.row),
      concurrency: definition.concurrency,
      concurrencyReason: definition.concurrencyReason,
      retries: definition.retries,
      model: request.model ?? {},
    });
  }

  /**
   * Fires the data directory's local schedules while this process is open (the app, `mnemo
   * serve`), each firing a batch run here in the background; stopped by `close`.
   */
  fireSchedules(): void {
    this.firer ??= new ScheduleFirer({
      dataDir: () => this.deps.dataDir(),
      readValuesFile: (path, label) => this.readValuesFile(path, label),
      start: (request) => this.start(request),
      runningHere: (id) => this.background.has(id),
      ...(this.deps.log ? { log: this.deps.log } : {}),
    });
    this.firer.start();
  }

  /** Refuses a batch a live process is running (resume and retry). */
  runningElsewhere(batch: ReadBatch): string | null {
    if (!this.holderAlive(batch.state)) return null;
    return `batch ${batch.definition.id} is running in process ${batch.state.holder?.pid} (mnemo batch cancel ${batch.definition.id} stops it)`;
  }

  /** The rows a retry runs again, with the `reopened` line journalled; none is a conflict. */
  async reopen(batch: OpenedBatch, failedOnly: boolean): Promise<ServiceResult<{ batch: OpenedBatch; rows: number[] }>> {
    const running = this.runningElsewhere(batch);
    if (running) return conflict(running);
    const rows = rowsToRetry(batch.state, failedOnly);
    if (rows.length === 0) return conflict(`batch ${batch.definition.id}: no row failed, nothing to retry`);
    const reopened: JournalEntry = { type: 'reopened', at: this.now(), rows };
    await batch.journal.append(reopened);
    return { ok: true, value: { batch: { ...batch, ...readBatchOf(batch.definition, [...batch.entries, reopened], batch.skipped) }, rows } };
  }

  /** "Retry failed rows" (or every row): they run again in the background, with the batch's retries. */
  async retry(ref: string, failedOnly: boolean): Promise<ServiceResult<BatchSummary>> {
    const opened = await this.open(ref);
    if (!opened.ok) return opened;
    const reopened = await this.reopen(opened.value, failedOnly);
    if (!reopened.ok) return reopened;
    const { batch, rows } = reopened.value;
    return this.runInBackground(batch, { rows, concurrency: batch.definition.concurrency, concurrencyReason: batch.definition.concurrencyReason, retries: batch.definition.retries, model: {} });
  }

  /** The rows `resume` runs (none without an outcome: an empty list), and how many attempts each has had. */
  resumeChoice(batch: ReadBatch): Pick<RowsChoice, 'rows' | 'attemptsSoFar' | 'failedSoFar'> {
    const rows = rowsWithoutOutcome(batch.state);
    const byRow = new Map(batch.state.rows.map((row) => [row.row, row]));
    return {
      rows,
      attemptsSoFar: new Map(rows.map((row) => [row, byRow.get(row)?.attempts ?? 0])),
      failedSoFar: new Map(rows.map((row) => [row, byRow.get(row)?.failedAttempts ?? 0])),
    };
  }

  /**
   * Cancels a batch: `cancelled` journalled, so the process running it (this one or another)
   * stops its runs going on and starts no new row; its rows without an outcome wait for resume.
   * On a queue, the batch is also marked cancelled there (its workers stop its runs) and its rows
   * still waiting are taken off it, whether a process follows the batch or not (`queue`: how many,
   * or why the queue could not be told).
   */
  async cancel(ref: string): Promise<ServiceResult<{ batch: BatchSummary; wasRunning: boolean; holderPid: number | null; queue?: QueueCancel }>> {
    const opened = await this.open(ref);
    if (!opened.ok) return opened;
    const batch = opened.value;
    const wasRunning = this.holderAlive(batch.state);
    const cancelled: JournalEntry = { type: 'cancelled', at: this.now() };
    await batch.journal.append(cancelled);
    const queued = batch.definition.queue;
    const queue = queued ? await (await import('../../batch/queue/cancels')).cancelQueuedBatch(queued.url, batch.definition.id, cancelled.at) : undefined;
    const here = this.background.get(batch.definition.id);
    if (here) {
      here.drain.abort();
      // On a queue the workers stop its runs (the mark above): followed here to their end, so their rows are journalled.
      if (!queued) here.stop.abort();
    }
    const now = readBatchOf(batch.definition, [...batch.entries, cancelled], batch.skipped);
    return { ok: true, value: { batch: this.summary(now), wasRunning, holderPid: wasRunning ? (batch.state.holder?.pid ?? null) : null, ...(queue ? { queue } : {}) } };
  }

  /**
   * The queue as the window shows it: its URL (queue.url), the schedules with their next runs (the
   * data directory's, and the queue's job schedulers), its workers and what each runs. A queue that
   * cannot be reached shows its schedules and workers as none, and says why in the log once per call.
   */
  async queueView(): Promise<BatchQueueView> {
    const url = this.deps.queueUrl?.();
    const { listSchedules, listQueueWorkers } = await import('../../batch/queue/queue-view');
    const [schedules, workers] = await Promise.all([listSchedules(this.deps.dataDir(), url, this.now()), url !== undefined ? listQueueWorkers(url) : Promise.resolve({ ok: true as const, value: [] })]);
    if (!schedules.ok) this.deps.log?.(`batches: the schedules: ${schedules.message}`);
    if (!workers.ok) this.deps.log?.(`batches: the workers: ${workers.message}`);
    // Shown without its password, as every message names a queue.
    const shown = url === undefined ? null : (await import('../../batch/queue/connection')).shownQueueUrl(url);
    return {
      queue: shown,
      schedules: schedules.ok
        ? schedules.value.map((schedule) => ({ id: schedule.id, what: schedule.source, cron: schedule.cron, nextRuns: schedule.next, queue: schedule.where === 'queue' ? shown : null }))
        : [],
      workers: workers.ok
        ? workers.value.map((worker) => ({
            id: worker.id,
            host: worker.host,
            pid: worker.pid,
            desktopsInUse: worker.runs.length,
            running: worker.runs.map((run) => ({ batch: run.batch, row: run.row, session: run.session })),
          }))
        : [],
    };
  }

  /** Follows every batch of the data directory: each change (a row started or ended, a retry, a cancel) once it is on disk. */
  onChange(listener: (change: BatchChange) => void): () => void {
    return this.watch.subscribe(listener);
  }

  /** Stops the batches running here in the background (their rows without an outcome wait for resume). */
  async close(): Promise<void> {
    await this.firer?.stop();
    this.watch.close();
    const running = [...this.background.values()];
    for (const batch of running) {
      batch.drain.abort();
      batch.stop.abort();
    }
    await Promise.all(running.map((batch) => batch.done));
  }
}
