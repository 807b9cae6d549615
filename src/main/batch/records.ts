/**
 * What a batch keeps in the data directory, as zod schemas (read back through them, so a damaged
 * line is a value, not a crash): `batch.json`, the batch as it was asked for (written once), and
 * `journal.jsonl`, one line per thing that happened to it, appended whole and synced, so Ctrl+C, a
 * crash or a reboot loses no row's outcome. A row's cells are kept as the file wrote them: a
 * secret as the reference to where it is kept, never its value.
 */
import { z } from 'zod';
import { RunStatusSchema } from '../../shared/events';

/** A cell of the values as written: text, or where a secret is kept (never the secret). */
export const BatchCellSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string() }),
  z.object({ kind: z.literal('secret'), source: z.enum(['env', 'keychain']), name: z.string() }),
]);

const WriterSchema = z.object({ pid: z.number(), hostname: z.string(), bootId: z.string().optional(), startTicks: z.number().optional() });

/** What each row runs: a saved workflow with the row's values, or a task with them in its `{{name}}`s. */
export const BatchSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('workflow'), name: z.string(), policy: z.enum(['stop', 'reground']), speed: z.number() }),
  z.object({ kind: z.literal('task'), task: z.string() }),
]);
export type BatchSource = z.infer<typeof BatchSourceSchema>;

export const BatchDefinitionSchema = z.object({
  id: z.string(),
  createdAt: z.number(),
  source: BatchSourceSchema,
  /** The values file as it was named, for the reader. */
  valuesFile: z.string(),
  columns: z.array(z.string()),
  rows: z.array(z.object({ row: z.number().int().positive(), cells: z.record(z.string(), BatchCellSchema) })),
  /** Rows at once, and how that number was chosen. */
  concurrency: z.number().int().positive(),
  concurrencyReason: z.string(),
  retries: z.number().int().nonnegative(),
  /** Every run's private desktop. */
  desktop: z.object({ size: z.string().optional(), apps: z.array(z.string()).optional() }),
  /** The rows go on this BullMQ queue, for its workers (`--queue`, queue.url); absent: they run here. */
  queue: z.object({ url: z.string(), priority: z.number().int().nonnegative().optional() }).optional(),
});
export type BatchDefinition = z.infer<typeof BatchDefinitionSchema>;

/** How one attempt at a row ended; `interrupted`: stopped before an outcome (Ctrl+C twice, cancel), run again by `resume`. */
export const AttemptStatusSchema = z.enum(['succeeded', 'failed', 'interrupted']);
export type AttemptStatus = z.infer<typeof AttemptStatusSchema>;

export const JournalEntrySchema = z.discriminatedUnion('type', [
  /** A process took the batch up (run, resume, retry), for these rows. */
  z.object({ type: z.literal('opened'), at: z.number(), writer: WriterSchema, rows: z.array(z.number()), concurrency: z.number() }),
  /** `retry`: these rows' outcomes set aside, to be run again. */
  z.object({ type: z.literal('reopened'), at: z.number(), rows: z.array(z.number()) }),
  z.object({ type: z.literal('attempt-started'), at: z.number(), row: z.number(), attempt: z.number(), session: z.string() }),
  z.object({
    type: z.literal('attempt-ended'),
    at: z.number(),
    row: z.number(),
    attempt: z.number(),
    /** Null when the run could not start (no desktop, say). */
    session: z.string().nullable(),
    status: AttemptStatusSchema,
    /** The run's own status (`finished`, `failed`, `aborted`…), or null when it did not start. */
    runStatus: RunStatusSchema.nullable(),
    reason: z.string(),
    steps: z.number(),
    costUsd: z.number(),
    durationMs: z.number(),
    /** What the run read off the screen, by name (scheduler.ts `AttemptResult`); absent in journals written before it was kept. */
    screenValues: z.record(z.string(), z.string()).optional(),
    /** The row's outcome: it succeeded, or failed with no retry left. */
    final: z.boolean(),
  }),
  /** `mnemo batch cancel`: no new row starts, the runs going on are stopped. */
  z.object({ type: z.literal('cancelled'), at: z.number() }),
  /** The process that opened it let it go. */
  z.object({ type: z.literal('closed'), at: z.number() }),
]);
export type JournalEntry = z.infer<typeof JournalEntrySchema>;
export type JournalEntryOf<T extends JournalEntry['type']> = Extract<JournalEntry, { type: T }>;
