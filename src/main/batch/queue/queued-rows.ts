/**
 * A batch's rows on a BullMQ queue, followed to their end from the process that put them there:
 * one job per row (BullMQ's attempts = 1 + retries, exponential backoff, the batch's priority),
 * and the journal written from what the workers write into each job's progress, read off the jobs
 * every half second. Reading the jobs' state, not listening to events, means a follower that was
 * busy, slow or reconnecting misses nothing: each attempt's start and end is journalled once, in
 * order, as the local scheduler journals them; the journal and everything that reads it are the
 * same for a batch on a queue as for one run here.
 */
import { Queue, type Job } from 'bullmq';
import type { BatchDefinition, JournalEntry } from '../records';
import { ROW_JOB, ROWS_QUEUE, RowProgressSchema, type QueuedModelFlags, type RowJob } from './jobs';
import { bullConnection, queueConnection } from './connection';
import { listWorkers } from './presence';
import { cancelledAmong, uncancelQueuedBatch } from './cancels';

const POLL_MS = 500;
/** How long rows may wait before the follower looks whether any worker is there to take them, and how often after. */
const WORKERS_CHECK_MS = 5_000;
/** Default wait before the first retry (doubled each time after). */
export const DEFAULT_BACKOFF_MS = 5_000;

export interface QueuedRowsOptions {
  url: string;
  definition: BatchDefinition;
  rows: readonly number[];
  /** Journal attempts of each row already (a resume or retry goes on counting). */
  attemptsSoFar?: ReadonlyMap<number, number>;
  retries: number;
  /** BullMQ priority: 1 is taken first; none: after every prioritized job. */
  priority?: number;
  backoffMs?: number;
  model: QueuedModelFlags;
  /** Tells this taking of the batch's rows apart from an earlier one (a resume makes jobs afresh). */
  round: number;
  /** Take the waiting rows off the queue; the runs going on finish and are followed. */
  drain: AbortSignal;
  /** Stop following (what is on the queue stays there). */
  stop: AbortSignal;
}

export interface QueuedRowsDeps {
  journal: { append(entry: JournalEntry): Promise<void> };
  onEntry?: (entry: JournalEntry) => void;
  log(line: string): void;
  now?: () => number;
}

export function queuedJobId(batch: string, row: number, round: number): string {
  return `row-${batch}-${row}${round > 1 ? `-r${round}` : ''}`;
}

/** Puts the rows on the queue and follows them until each has an outcome (or the following is stopped). */
export async function runQueuedRows(deps: QueuedRowsDeps, options: QueuedRowsOptions): Promise<void> {
  const now = deps.now ?? Date.now;
  const { definition } = options;
  const queue = new Queue(ROWS_QUEUE, { connection: bullConnection(options.url) });
  try {
    const cells = new Map(definition.rows.map((row) => [row.row, row.cells]));
    const jobs = options.rows.map((row) => {
      const data: RowJob = { batch: definition.id, row, source: definition.source, cells: cells.get(row) ?? {}, desktop: definition.desktop, model: options.model, attempts: 1 + options.retries };
      return {
        name: ROW_JOB,
        data,
        opts: {
          jobId: queuedJobId(definition.id, row, options.round),
          attempts: 1 + options.retries,
          backoff: { type: 'exponential', delay: options.backoffMs ?? DEFAULT_BACKOFF_MS },
          ...(options.priority !== undefined ? { priority: options.priority } : {}),
          removeOnComplete: false,
          removeOnFail: false,
        },
      };
    });
    // A resume or retry of a cancelled batch: its rows may run again.
    const marks = queueConnection(options.url);
    await uncancelQueuedBatch(marks, definition.id).finally(() => marks.disconnect());
    await queue.addBulk(jobs);

    const followed = new Map(options.rows.map((row) => [row, { started: 0, ended: 0, final: false, base: options.attemptsSoFar?.get(row) ?? 0, withoutOutcome: false }]));
    const record = async (entry: JournalEntry) => {
      await deps.journal.append(entry);
      deps.onEntry?.(entry);
    };
    let drained = false;
    const lookups = queueConnection(options.url);
    const workers = noWorkerNotice(lookups, () => [...followed.values()].every((state) => state.started === 0), deps.log, now);
    try {
      for (;;) {
        if (options.stop.aborted) return;
        await workers.check();
        if (options.drain.aborted && !drained) {
          drained = true;
          for (const [row, state] of followed) {
            if (state.final) continue;
            const job = await queue.getJob(queuedJobId(definition.id, row, options.round));
            // Only a job no worker holds can be taken off; a run going on finishes and is followed.
            if (job && (await job.getState()) !== 'active') state.withoutOutcome = await job.remove().then(() => true, () => false);
          }
        }
        for (const [row, state] of followed) {
          if (state.final || state.withoutOutcome) continue;
          const job = await queue.getJob(queuedJobId(definition.id, row, options.round));
          // Taken off by `mnemo batch cancel` (perhaps before this process heard of it): the row keeps no outcome, for resume.
          if (!job && (await cancelledAmong(lookups, [definition.id]).catch(() => new Set<string>())).has(definition.id)) {
            state.withoutOutcome = true;
            continue;
          }
          if (!job) {
            state.final = true;
            await record({ type: 'attempt-ended', at: now(), row, attempt: state.base + state.started + 1, session: null, status: 'failed', runStatus: null, reason: 'its job is no longer on the queue (removed by someone else)', steps: 0, costUsd: 0, durationMs: 0, final: true });
            continue;
          }
          await journalProgress(job, row, state, record, now);
          // Its job ended with no outcome for the row (its run stopped by a cancel): nothing more will come of it.
          if (!state.final && job.finishedOn && !job.failedReason && (await job.getState()) === 'completed') {
            state.withoutOutcome = true;
            continue;
          }
          if (!state.final && job.finishedOn && job.failedReason && (await job.getState()) === 'failed') {
            state.final = true;
            await record({ type: 'attempt-ended', at: now(), row, attempt: state.base + Math.max(state.started, 1), session: null, status: 'failed', runStatus: null, reason: `the queue gave up on it: ${job.failedReason}`, steps: 0, costUsd: 0, durationMs: 0, final: true });
          }
        }
        if ([...followed.values()].every((state) => state.final || state.withoutOutcome)) return;
        await waitOrStop(POLL_MS, options.stop, options.drain, drained);
      }
    } finally {
      lookups.disconnect();
    }
  } finally {
    await queue.close().catch(() => undefined);
  }
}

/** Says once, when rows have waited a while and no worker is alive on the queue, how to start one. */
function noWorkerNotice(redis: ReturnType<typeof queueConnection>, nothingStarted: () => boolean, log: (line: string) => void, now: () => number) {
  const since = now();
  let lastCheck = since;
  let said = false;
  return {
    async check(): Promise<void> {
      if (said || now() - lastCheck < WORKERS_CHECK_MS || !nothingStarted()) return;
      lastCheck = now();
      const alive = await listWorkers(redis).catch(() => null);
      if (alive?.length === 0) {
        said = true;
        log('no worker takes rows of this queue now: start one on a machine with Xvfb (mnemo worker --queue URL); the rows wait on the queue until then');
      }
    },
  };
}

interface FollowedRow {
  started: number;
  ended: number;
  final: boolean;
  base: number;
}

/** Journals the attempts written into the job's progress since the last look, in order. */
async function journalProgress(job: Job, row: number, state: FollowedRow, record: (entry: JournalEntry) => Promise<void>, now: () => number): Promise<void> {
  const progress = RowProgressSchema.safeParse(job.progress);
  if (!progress.success) return;
  const attempts = progress.data.attempts;
  for (let i = 0; i < attempts.length; i++) {
    const attempt = attempts[i] as (typeof attempts)[number];
    const number = state.base + i + 1;
    if (i >= state.started) {
      state.started = i + 1;
      if (attempt.session !== null) await record({ type: 'attempt-started', at: attempt.startedAt, row, attempt: number, session: attempt.session });
    }
    if (i >= state.ended && attempt.ended) {
      state.ended = i + 1;
      const ended = attempt.ended;
      await record({
        type: 'attempt-ended',
        at: ended.at || now(),
        row,
        attempt: number,
        session: ended.session,
        status: ended.status,
        runStatus: ended.runStatus,
        reason: ended.error ? ended.error.message : (ended.values.summary ?? ''),
        steps: ended.steps,
        costUsd: ended.costUsd,
        durationMs: ended.durationMs,
        screenValues: ended.values,
        final: ended.final,
      });
      if (ended.final) state.final = true;
    }
    if (!attempt.ended) break;
  }
}

function waitOrStop(ms: number, stop: AbortSignal, drain: AbortSignal, drained: boolean): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      drain.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
    if (!drained) drain.addEventListener('abort', done, { once: true });
  });
}
