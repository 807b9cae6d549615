/**
 * A worker of a batch queue: takes row jobs off BullMQ, N at once, and runs each through the
 * launcher it is given (the same recipe as a local row, on a private desktop of its own). Each
 * attempt is written into the job's progress as it starts and as it ends, so whoever follows the
 * batch reads the whole story off the job. A failed attempt with retries left is thrown (BullMQ
 * runs it again after an exponential backoff); an outcome (succeeded, or failed with none left)
 * is the job's result.
 *
 * An attempt found started and never ended is one whose worker stopped without a word (kill -9,
 * power loss): BullMQ's stall detection handed the job here, and the attempt is written ended
 * `interrupted` (kind `stalled`) before this one starts. `drain()` takes no new job and lets the
 * runs in flight finish; `handBack()` stops them and puts their jobs back on the queue, counting
 * no attempt. While it runs, the worker's identity (host, pid, the desktops in use) is a Redis key
 * that lives as long as it is refreshed. A batch cancelled on the queue (cancels.ts) has its runs
 * here stopped within a second or so, and a job of it taken after is not run: either attempt ends
 * `interrupted` (kind `cancelled`), the row without an outcome, for `resume`.
 */
import { hostname } from 'node:os';
import { UnrecoverableError, WaitingError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AttemptResult, StartedAttempt } from '../scheduler';
import { FIRING_JOB, ROW_JOB, ROWS_QUEUE, FiringJobSchema, RowJobSchema, RowProgressSchema, type JobAttemptOutcome, type FiringJob, type RowJob, type RowProgress, type RowResult, type WorkerIdentity } from './jobs';
import { bullConnection, queueConnection } from './connection';
import { WORKER_KEY_PREFIX, type WorkerPresence, type WorkerRun } from './presence';
import { cancelledAmong } from './cancels';

/** How often the presence key is written again, and how long it lives without that. */
const PRESENCE_REFRESH_MS = 5_000;
const PRESENCE_TTL_MS = 15_000;
/** How often the batches of the runs in flight are looked up for a cancel. */
const CANCEL_POLL_MS = 1_000;
/** Default: BullMQ's own lock (30 s). */
const DEFAULT_STALLED_AFTER_MS = 30_000;

export interface RowWorkerDeps {
  /** Starts one attempt at a job's row: a run that could not start is its result. */
  launch(job: RowJob, attempt: number): Promise<(StartedAttempt & { display?: string }) | { ok: false; result: AttemptResult }>;
  /** A schedule fired: make it a batch of row jobs (answers the batch's id). */
  fire?(firing: FiringJob): Promise<string>;
  /** A run's session is complete on this machine (to upload it to a shared store, say). */
  afterRun?(session: string): Promise<void>;
  log(line: string): void;
  now?: () => number;
}

export interface RowWorkerOptions {
  url: string;
  concurrency: number;
  /** A job held this long without its lock renewed has stalled (BullMQ's lockDuration). */
  stalledAfterMs?: number;
  /** What a row's desktop is when the batch names none (shown in the presence). */
  desktop: { size?: string; apps?: string[] };
}

interface InFlight {
  job: Job;
  run: WorkerRun;
  stop(): void;
  /** Stopped because its batch was cancelled. */
  cancelled: boolean;
}

export class RowWorker {
  readonly identity: WorkerIdentity;
  private worker: Worker | null = null;
  private readonly presenceClient: Redis;
  private readonly inFlight = new Map<string, InFlight>();
  private presenceTimer: NodeJS.Timeout | null = null;
  private cancelTimer: NodeJS.Timeout | null = null;
  private state: WorkerPresence['state'] = 'running';
  private handingBack = false;
  private readonly startedAt: number;

  constructor(
    private readonly deps: RowWorkerDeps,
    private readonly options: RowWorkerOptions,
  ) {
    const host = hostname();
    this.identity = { id: `${host}:${process.pid}`, host, pid: process.pid };
    this.presenceClient = queueConnection(options.url);
    this.startedAt = (deps.now ?? Date.now)();
  }

  /** Starts taking jobs. */
  async start(): Promise<void> {
    const stalledAfter = this.options.stalledAfterMs ?? DEFAULT_STALLED_AFTER_MS;
    this.worker = new Worker(ROWS_QUEUE, (job: Job, token?: string) => this.process(job, token), {
      connection: bullConnection(this.options.url),
      concurrency: this.options.concurrency,
      lockDuration: stalledAfter,
      stalledInterval: Math.max(500, Math.floor(stalledAfter / 2)),
      // A job whose worker died twice is run again rather than failed: each time is a session marked interrupted.
      maxStalledCount: 3,
    });
    this.worker.on('error', (error) => this.deps.log(`queue: ${error.message}`));
    await this.worker.waitUntilReady();
    await this.writePresence();
    this.presenceTimer = setInterval(() => void this.writePresence(), PRESENCE_REFRESH_MS);
    this.presenceTimer.unref();
    this.cancelTimer = setInterval(() => void this.stopCancelled(), CANCEL_POLL_MS);
    this.cancelTimer.unref();
  }

  /** Stops the runs here of a batch cancelled on the queue. */
  private async stopCancelled(): Promise<void> {
    const flights = [...this.inFlight.values()].filter((flight) => !flight.cancelled);
    if (flights.length === 0) return;
    const cancelled = await cancelledAmong(this.presenceClient, [...new Set(flights.map((flight) => flight.run.batch))]).catch(() => new Set<string>());
    for (const flight of flights) {
      if (!cancelled.has(flight.run.batch) || flight.cancelled) continue;
      flight.cancelled = true;
      this.deps.log(`batch ${flight.run.batch} cancelled: stopping its row ${flight.run.row} (session ${flight.run.session})`);
      flight.stop();
    }
  }

  /** The runs going on here now. */
  runs(): WorkerRun[] {
    return [...this.inFlight.values()].map((flight) => flight.run);
  }

  /** Takes no new job; resolves once the runs in flight have finished and reported. */
  async drain(): Promise<void> {
    this.state = 'draining';
    await this.writePresence();
    await this.worker?.close();
  }

  /** Stops the runs in flight and puts their jobs back on the queue (no attempt counted); resolves once they are back. */
  async handBack(): Promise<void> {
    this.handingBack = true;
    this.state = 'handing back';
    await this.writePresence();
    for (const flight of this.inFlight.values()) flight.stop();
    await this.worker?.close();
  }

  /** Stops for good (after drain or handBack): the presence removed, the connections closed. */
  async close(): Promise<void> {
    if (this.presenceTimer) clearInterval(this.presenceTimer);
    if (this.cancelTimer) clearInterval(this.cancelTimer);
    await this.worker?.close().catch(() => undefined);
    await this.presenceClient.del(`${WORKER_KEY_PREFIX}${this.identity.id}`).catch(() => undefined);
    this.presenceClient.disconnect();
  }

  private async process(job: Job, token: string | undefined): Promise<unknown> {
    if (job.name === FIRING_JOB) {
      const firing = FiringJobSchema.safeParse(job.data);
      if (!firing.success || !this.deps.fire) throw new UnrecoverableError(`not a schedule's firing this worker can make a batch of: ${firing.success ? 'no batch maker' : firing.error.issues[0]?.message}`);
      return { batch: await this.deps.fire(firing.data) };
    }
    if (job.name !== ROW_JOB) throw new UnrecoverableError(`unknown job "${job.name}"`);
    const parsed = RowJobSchema.safeParse(job.data);
    if (!parsed.success) throw new UnrecoverableError(`not a row job: ${parsed.error.issues[0]?.message ?? 'unreadable'}`);
    const rowJob = parsed.data;
    const now = this.deps.now ?? Date.now;
    const progress = this.progressOf(job);
    for (const attempt of progress.attempts) {
      if (attempt.ended) continue;
      attempt.ended = { ...this.outcome(null, 'interrupted', `its worker ${attempt.worker.id} stopped mid-run (its job was taken over once its lock ran out)`, 'stalled', false), worker: attempt.worker, session: attempt.session, at: now() };
    }
    const attempt = progress.attempts.length + 1;
    // Its batch was cancelled after the job was put on the queue and before a cancel could take it off.
    if ((await cancelledAmong(this.presenceClient, [rowJob.batch]).catch(() => new Set<string>())).has(rowJob.batch)) {
      const outcome = this.outcome(null, 'interrupted', `its batch ${rowJob.batch} was cancelled before the row started`, 'cancelled', false);
      progress.attempts.push({ worker: this.identity, session: null, startedAt: now(), ended: { ...outcome, at: now() } });
      await job.updateProgress(progress);
      const rowResult: RowResult = { ...outcome, batch: rowJob.batch, row: rowJob.row };
      return rowResult;
    }
    const launched = await this.deps.launch(rowJob, attempt);
    let result: AttemptResult;
    let cancelled = false;
    if (launched.ok) {
      const record = { worker: this.identity, session: launched.session, startedAt: now() };
      progress.attempts.push(record);
      await job.updateProgress(progress);
      const flight: InFlight = {
        job,
        run: { batch: rowJob.batch, row: rowJob.row, session: launched.session, display: launched.display ?? null, since: record.startedAt },
        stop: () => launched.stop(),
        cancelled: false,
      };
      this.inFlight.set(job.id as string, flight);
      void this.writePresence();
      try {
        result = await launched.done;
      } finally {
        cancelled = flight.cancelled;
        this.inFlight.delete(job.id as string);
        void this.writePresence();
      }
    } else {
      result = launched.result;
      progress.attempts.push({ worker: this.identity, session: null, startedAt: now() });
    }

    const handedBack = result.status === 'interrupted' && this.handingBack && !cancelled;
    const retriesLeft = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
    const final = result.status === 'succeeded' || (result.status === 'failed' && !retriesLeft);
    const kind = result.status === 'succeeded' ? null : handedBack ? 'handed_back' : cancelled && result.status === 'interrupted' ? 'cancelled' : result.status === 'interrupted' ? 'interrupted' : launched.ok ? 'run_failed' : 'could_not_start';
    const message = kind === 'cancelled' ? `its batch ${rowJob.batch} was cancelled: the run was stopped (${result.reason})` : result.reason;
    const outcome = this.outcome(result, result.status, message, kind, final);
    (progress.attempts[progress.attempts.length - 1] as RowProgress['attempts'][number]).ended = { ...outcome, at: now() };
    await job.updateProgress(progress);
    if (result.session) await this.deps.afterRun?.(result.session).catch((error: Error) => this.deps.log(`after the run ${result.session}: ${error.message}`));

    if (handedBack) {
      await job.moveToWait(token);
      throw new WaitingError();
    }
    if (final || result.status === 'interrupted') {
      const rowResult: RowResult = { ...outcome, batch: rowJob.batch, row: rowJob.row };
      return rowResult;
    }
    throw new Error(result.reason || 'the run failed');
  }

  private outcome(result: AttemptResult | null, status: JobAttemptOutcome['status'], message: string, kind: NonNullable<JobAttemptOutcome['error']>['kind'] | null, final: boolean): JobAttemptOutcome {
    return {
      worker: this.identity,
      session: result?.session ?? null,
      status,
      runStatus: result?.runStatus ?? null,
      steps: result?.steps ?? 0,
      costUsd: result?.costUsd ?? 0,
      durationMs: result?.durationMs ?? 0,
      error: kind === null ? null : { kind, message },
      values: result?.screenValues ?? {},
      final,
    };
  }

  private progressOf(job: Job): RowProgress {
    const parsed = RowProgressSchema.safeParse(job.progress);
    return parsed.success ? parsed.data : { attempts: [] };
  }

  private async writePresence(): Promise<void> {
    const presence: WorkerPresence = {
      ...this.identity,
      startedAt: this.startedAt,
      concurrency: this.options.concurrency,
      state: this.state,
      desktop: this.options.desktop,
      runs: this.runs(),
      seenAt: (this.deps.now ?? Date.now)(),
    };
    await this.presenceClient.set(`${WORKER_KEY_PREFIX}${this.identity.id}`, JSON.stringify(presence), 'PX', PRESENCE_TTL_MS).catch(() => undefined);
  }
}
