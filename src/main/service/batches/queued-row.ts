/**
 * A row a worker took off the queue, launched as a local row is: the row job made the one-row
 * batch definition `BatchRows` runs (the same recipe as any run, on a private desktop of its own,
 * its session tagged with the batch and the row), its secrets read here, on the worker's machine,
 * from its environment or keychain, never from the queue. The batch's desktop wins where it names
 * one; the worker's `--desktop-size` / `--app` (or its settings) otherwise.
 */
import type { RowJob } from '../../batch/queue/jobs';
import type { BatchDefinition } from '../../batch/records';
import type { AttemptResult, StartedAttempt } from '../../batch/scheduler';
import type { OsKeychain } from '../../settings/keychain/keychain';
import { BatchRows, resolveRowValues, type BatchRowsDeps } from './batch-rows';

export interface QueuedRowDeps extends BatchRowsDeps {
  env: NodeJS.ProcessEnv;
  keychain: () => OsKeychain;
  /** The worker's own desktop flags. */
  desktop: { size?: string; apps?: string[] };
}

export async function launchQueuedRow(deps: QueuedRowDeps, job: RowJob, attempt: number): Promise<StartedAttempt | { ok: false; result: AttemptResult }> {
  const size = job.desktop.size ?? deps.desktop.size;
  const apps = job.desktop.apps ?? deps.desktop.apps;
  const definition: BatchDefinition = {
    id: job.batch,
    createdAt: 0,
    source: job.source,
    valuesFile: '',
    columns: Object.keys(job.cells),
    rows: [{ row: job.row, cells: job.cells }],
    concurrency: 1,
    concurrencyReason: '',
    retries: job.attempts - 1,
    desktop: { ...(size ? { size } : {}), ...(apps ? { apps } : {}) },
  };
  const values = await resolveRowValues(definition, [job.row], { env: deps.env, keychain: deps.keychain });
  if (!values.ok) return { ok: false, result: { status: 'failed', session: null, runStatus: null, reason: `a secret of the row, on this worker: ${values.message}`, steps: 0, costUsd: 0, durationMs: 0 } };
  return new BatchRows(deps, { definition, values: values.values, model: job.model }).start(job.row, attempt);
}
