/**
 * What a batch puts on its BullMQ queue and what comes back, as zod schemas (a worker and the
 * process following a batch read each other's records through them, across machines and
 * versions): a row's job (what to run, the cells as the values file wrote them: a secret by
 * where it is kept, so no secret ever goes to Redis), each attempt as the worker writes it into
 * the job's progress (so a follower that comes late or misses an event reads the whole story
 * off the job), and the job's result.
 */
import { z } from 'zod';
import { RunStatusSchema } from '../../../shared/events';
import { AttemptStatusSchema, BatchCellSchema as CellSchema, BatchSourceSchema } from '../records';

/** The queue every batch's rows go on. */
export const ROWS_QUEUE = 'mnemo-rows';
/** A schedule's firing on the queue: a worker makes it a batch of row jobs. */
export const FIRING_JOB = 'schedule-firing';
export const ROW_JOB = 'row';

/** The model flags a batch's runs take (a task's model, a workflow's reground): never a key, never a path of the batch's machine. */
export const QueuedModelFlagsSchema = z
  .object({
    baseUrl: z.string(),
    model: z.string(),
    family: z.string(),
    modelVersion: z.string(),
    coordinates: z.string(),
    computerTool: z.string(),
    apiKeyEnv: z.string(),
    maxSteps: z.number(),
    maxCost: z.number(),
  })
  .partial();
export type QueuedModelFlags = z.infer<typeof QueuedModelFlagsSchema>;

/** What a worker needs to run one row, as any run: the batch's source, the row's cells, the desktop asked for. */
export const RowJobSchema = z.object({
  batch: z.string(),
  row: z.number().int().positive(),
  source: BatchSourceSchema,
  cells: z.record(z.string(), CellSchema),
  /** The batch's desktop; the worker's own `--desktop-size` / `--app` where the batch names none. */
  desktop: z.object({ size: z.string().optional(), apps: z.array(z.string()).optional() }),
  model: QueuedModelFlagsSchema,
  /** 1 + the batch's retries: BullMQ's attempts (a failure thrown, retried with exponential backoff). */
  attempts: z.number().int().positive(),
});
export type RowJob = z.infer<typeof RowJobSchema>;

/** Who ran an attempt: the machine, the process, and the worker's id (`host:pid`). */
export const WorkerIdentitySchema = z.object({ id: z.string(), host: z.string(), pid: z.number() });
export type WorkerIdentity = z.infer<typeof WorkerIdentitySchema>;

/** Why an attempt did not succeed, in kinds a script can branch on. */
/** `cancelled`: its batch was cancelled (`mnemo batch cancel`) while it ran, or before it started. */
export const AttemptErrorKindSchema = z.enum(['run_failed', 'could_not_start', 'interrupted', 'stalled', 'handed_back', 'cancelled', 'bad_job']);

/** One attempt's end, as the job's result carries it (docs/batch.md, "Each job's result"). */
export const AttemptOutcomeSchema = z.object({
  worker: WorkerIdentitySchema,
  session: z.string().nullable(),
  status: AttemptStatusSchema,
  runStatus: RunStatusSchema.nullable(),
  steps: z.number(),
  costUsd: z.number(),
  durationMs: z.number(),
  error: z.object({ kind: AttemptErrorKindSchema, message: z.string() }).nullable(),
  /** What the run read off the screen, by name (scheduler.ts `AttemptResult.screenValues`: each field typed into, a password by length only; its summary under `summary`). */
  values: z.record(z.string(), z.string()),
  /** The row's outcome: it succeeded, or failed with no retry left. */
  final: z.boolean(),
});
export type JobAttemptOutcome = z.infer<typeof AttemptOutcomeSchema>;

/** An attempt as the job's progress keeps it: started (by whom, which session), then ended. */
export const QueuedAttemptSchema = z.object({
  worker: WorkerIdentitySchema,
  session: z.string().nullable(),
  startedAt: z.number(),
  ended: AttemptOutcomeSchema.extend({ at: z.number() }).optional(),
});
export type QueuedAttempt = z.infer<typeof QueuedAttemptSchema>;

/** The job's progress: every attempt at the row so far, in order. */
export const RowProgressSchema = z.object({ attempts: z.array(QueuedAttemptSchema) });
export type RowProgress = z.infer<typeof RowProgressSchema>;

/** The result of a row's job: its last attempt's outcome, with the batch and the row. */
export const RowResultSchema = AttemptOutcomeSchema.extend({ batch: z.string(), row: z.number() });
export type RowResult = z.infer<typeof RowResultSchema>;

/** A schedule's job template on the queue: what each firing makes a batch of. */
export const FiringJobSchema = z.object({
  schedule: z.string(),
  source: BatchSourceSchema,
  valuesFile: z.string(),
  columns: z.array(z.string()),
  rows: z.array(z.object({ row: z.number().int().positive(), cells: z.record(z.string(), CellSchema) })),
  retries: z.number().int().nonnegative(),
  priority: z.number().int().nonnegative().optional(),
  desktop: z.object({ size: z.string().optional(), apps: z.array(z.string()).optional() }),
  model: QueuedModelFlagsSchema,
});
export type FiringJob = z.infer<typeof FiringJobSchema>;

/** `row-<batch>-<row>`: one job per row of a batch (adding it twice adds nothing). */
export function rowJobId(batch: string, row: number): string {
  return `row-${batch}-${row}`;
}
