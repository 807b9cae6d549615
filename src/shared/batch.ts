/**
 * A batch as every front end shows it (the window's Batches view, `mnemo batch show --json`, MCP's
 * get_batch): its summary (progress, ETA, cost), its rows (each row's values with a secret shown
 * as the reference to where it is kept, never its value; the outcome; the session), the change
 * event the view follows, and the places left for the queue's schedules and workers.
 *
 * Pure zod: the renderer, the main process and MCP import it alike.
 */
import { z } from 'zod';

/** `pending`: no outcome and nothing going on; `running`: an attempt going on (or cut off); `succeeded`, `failed`: its outcome. */
export const BATCH_ROW_STATUSES = ['pending', 'running', 'succeeded', 'failed'] as const;
export const BatchRowStatusSchema = z.enum(BATCH_ROW_STATUSES);
export type BatchRowStatus = z.infer<typeof BatchRowStatusSchema>;

/** A batch in one word: `running` (a live process holds it), `cancelled`, `done` (every row has an outcome), `incomplete`. */
export const BATCH_STATUSES = ['running', 'cancelled', 'done', 'incomplete'] as const;
export const BatchStatusSchema = z.enum(BATCH_STATUSES);
export type BatchStatus = z.infer<typeof BatchStatusSchema>;

/** One row, as `mnemo batch run --json` prints it. */
export const BatchRowSchema = z.object({
  batch: z.string(),
  row: z.number().int().positive(),
  /** Column → value; a secret as `${env:NAME}` or `${keychain:NAME}`. */
  values: z.record(z.string(), z.string()),
  status: BatchRowStatusSchema,
  attempts: z.number().int().nonnegative(),
  /** The latest attempt's session; every attempt's in `sessions`. */
  session: z.string().nullable(),
  sessions: z.array(z.string()),
  steps: z.number().int().nonnegative(),
  costUsd: z.number(),
  durationMs: z.number(),
  reason: z.string().nullable(),
  /**
   * What the row's latest run read off the screen, by name: each field it typed into with what the
   * field held after (read back through the accessibility tree; a password field or a secret by
   * its length only), and the run's closing summary under `summary`. A queued row's job result
   * carries the same as `values`.
   */
  screenValues: z.record(z.string(), z.string()),
});
export type BatchRow = z.infer<typeof BatchRowSchema>;

export const BatchSourceViewSchema = z.discriminatedUnion('kind', [z.object({ kind: z.literal('workflow'), name: z.string() }), z.object({ kind: z.literal('task'), task: z.string() })]);

export const BatchCountsSchema = z.object({ pending: z.number().int(), running: z.number().int(), succeeded: z.number().int(), failed: z.number().int() });

export const BatchSummarySchema = z.object({
  id: z.string(),
  /** Milliseconds since the epoch. */
  createdAt: z.number(),
  status: BatchStatusSchema,
  source: BatchSourceViewSchema,
  valuesFile: z.string(),
  columns: z.array(z.string()),
  total: z.number().int().nonnegative(),
  counts: BatchCountsSchema,
  /** What every attempt cost so far, retries included. */
  costUsd: z.number(),
  /** The time left at the pace of the process running it; null when it is not running or no row has ended yet. */
  etaMs: z.number().nullable(),
  concurrency: z.number().int().positive(),
  concurrencyReason: z.string(),
  retries: z.number().int().nonnegative(),
  /** The process running it, while one does. */
  runningIn: z.object({ pid: z.number(), hostname: z.string() }).nullable(),
});
export type BatchSummary = z.infer<typeof BatchSummarySchema>;

export const BatchDetailSchema = BatchSummarySchema.extend({ rows: z.array(BatchRowSchema) });
export type BatchDetail = z.infer<typeof BatchDetailSchema>;

/** Something happened to a batch (a row started or ended, a retry, a cancel): its summary now, and the rows that changed. */
export const BatchChangeSchema = z.object({ batch: BatchSummarySchema, rows: z.array(BatchRowSchema) });
export type BatchChange = z.infer<typeof BatchChangeSchema>;

/** A schedule of the queue (`mnemo batch schedules`): filled by the queue's part; none without one. */
export const BatchScheduleSchema = z.object({
  id: z.string(),
  /** The workflow's name, or the task. */
  what: z.string(),
  cron: z.string(),
  /** The next runs, milliseconds since the epoch. */
  nextRuns: z.array(z.number()),
  queue: z.string().nullable(),
});
export type BatchSchedule = z.infer<typeof BatchScheduleSchema>;

/** A worker taking the queue's jobs (`mnemo worker`), and what it runs now. */
export const BatchWorkerSchema = z.object({
  id: z.string(),
  host: z.string(),
  pid: z.number(),
  desktopsInUse: z.number().int().nonnegative(),
  running: z.array(z.object({ batch: z.string(), row: z.number().int(), session: z.string().nullable() })),
});
export type BatchWorker = z.infer<typeof BatchWorkerSchema>;

/** The queue as the window shows it: its URL (null when none is set), its schedules and its workers. */
export const BatchQueueViewSchema = z.object({ queue: z.string().nullable(), schedules: z.array(BatchScheduleSchema), workers: z.array(BatchWorkerSchema) });
export type BatchQueueView = z.infer<typeof BatchQueueViewSchema>;

/** The largest table of values the window sends as text (a file is read on the machine instead). */
export const BATCH_VALUES_TEXT_MAX = 1_000_000;

/**
 * Starts a batch from the window: a saved workflow or a task (one of the two), the rows as CSV
 * text with a header line of column names (a secret as `${env:NAME}` or `${keychain:NAME}`), how
 * many at once (default: what the machine holds) and the retries per row.
 */
export const StartBatchSchema = z.object({
  workflow: z.string().min(1).optional(),
  task: z.string().trim().min(1).optional(),
  csv: z.string().min(1, 'no rows of values').max(BATCH_VALUES_TEXT_MAX),
  concurrency: z.number().int().positive().max(64).optional(),
  retries: z.number().int().nonnegative().max(20).default(0),
});
export type StartBatch = z.infer<typeof StartBatchSchema>;
