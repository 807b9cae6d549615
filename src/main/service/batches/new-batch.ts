/**
 * A new batch as a front end (or a schedule's firing) asks for it: declared apart so the service's
 * batches and the schedule firer share one shape without importing each other.
 */
import type { BatchDefinition, BatchSource } from '../../batch/records';
import type { ValuesTable } from '../../batch/values';
import type { RunFlags } from '../../settings/settings';

/** A new batch, as asked for: what each row runs, over which table, how many at once. */
export interface NewBatch {
  source: BatchSource;
  table: ValuesTable;
  /** How the values were named (a file's path, or "(inline rows)"), for the reader. */
  valuesFile: string;
  /** Rows at once; default: what this machine can hold, the reason said. */
  concurrency?: number;
  /** How the concurrency was given, when it was (`--concurrency`, `concurrency`). */
  concurrencyGivenAs?: string;
  retries: number;
  desktop: BatchDefinition['desktop'];
  /** The rows go on this BullMQ queue for its workers (reached and checked by the caller). */
  queue?: BatchDefinition['queue'];
  /** Model flags for the runs started in the background (a schedule's); default: the saved settings. */
  model?: RunFlags;
}
