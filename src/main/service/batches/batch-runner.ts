/**
 * Runs rows of a batch in this process, the one way every front end does (`mnemo batch run`,
 * `resume`, `retry`, the window's "Retry failed rows", MCP's run_batch): the secrets read, `opened`
 * journalled, the rows run N at once (batch/scheduler.ts) each launched by the service's own recipe
 * (batch-rows.ts), `mnemo batch cancel` written by any process heard, `closed` journalled. What the
 * front end does around it (a progress line, Ctrl+C, a summary, an exit code) it does through the
 * hooks and the signals it passes.
 */
import type { BatchDefinition, JournalEntry } from '../../batch/records';
import type { BatchJournal } from '../../batch/journal';
import { runRows } from '../../batch/scheduler';
import { foldBatch, type BatchState } from '../../batch/state';
import { currentWriter } from '../../disk/process-identity';
import type { OsKeychain } from '../../settings/keychain/keychain';
import type { RunFlags } from '../../settings/settings';
import type { QueuedModelFlags } from '../../batch/queue/jobs';
import { BatchRows, resolveRowValues, type BatchRowsDeps } from './batch-rows';

/** How often a running batch looks for a `cancelled` line written by another process. */
const CANCEL_POLL_MS = 500;

export interface RowsChoice {
  rows: number[];
  concurrency: number;
  concurrencyReason: string;
  retries: number;
  /** Model flags for the runs (the CLI's; none from the window or MCP: the saved settings). */
  model: RunFlags;
  /** Attempts and failures already journalled per row (resume goes on counting). */
  attemptsSoFar?: ReadonlyMap<number, number>;
  failedSoFar?: ReadonlyMap<number, number>;
}

export interface SecretSources {
  env: NodeJS.ProcessEnv;
  keychain: () => OsKeychain;
}

export interface RunnerDeps extends BatchRowsDeps {
  secrets: SecretSources;
  /** A queued batch's retries wait this long, doubling (queue.backoffMs); default the queue's own. */
  queueBackoffMs?: number;
}

/** The model flags a queued row carries to its worker: what chooses and limits the model, never a key, a path or a display of this machine. */
export function queuedModelFlags(flags: RunFlags): QueuedModelFlags {
  const { baseUrl, model, family, modelVersion, coordinates, computerTool, apiKeyEnv, maxSteps, maxCost } = flags;
  const picked = { baseUrl, model, family, modelVersion, coordinates, computerTool, apiKeyEnv, maxSteps, maxCost };
  return Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined)) as QueuedModelFlags;
}

export interface RunnerControl {
  /** Take no new row; the runs going on finish. */
  drain: AbortSignal;
  /** Stop the runs going on as well (their rows are left without an outcome, for resume). */
  stop: AbortSignal;
  /** After `opened` (the rows about to run) and after each entry, with the state folded from the whole journal. */
  onState?: (state: BatchState, entry: JournalEntry) => void;
  /** A `cancelled` line was heard: the runs going on are being stopped (on a queue: the rows waiting are taken off it, the workers stop the runs they hold, followed to their end). */
  onCancelled?: () => void;
  /** What following a queue has to say (no worker yet, how to start one). */
  onNote?: (line: string) => void;
}

export type RowsRun = { ok: true; state: BatchState; cancelled: boolean } | { ok: false; message: string };

/** Runs `choice.rows` of the batch; `earlier` is its journal so far. A secret that cannot be read is refused before anything is journalled. */
export async function runBatchRows(deps: RunnerDeps, journal: BatchJournal, definition: BatchDefinition, earlier: readonly JournalEntry[], choice: RowsChoice, control: RunnerControl): Promise<RowsRun> {
  // On a queue, each worker reads a row's secrets on its own machine: none is read (or sent) from here.
  const queued = definition.queue;
  const values = queued ? ({ ok: true, values: new Map() } as const) : await resolveRowValues(definition, choice.rows, deps.secrets);
  if (!values.ok) return { ok: false, message: `a secret of ${definition.valuesFile}: ${values.message}` };
  const entries = [...earlier];
  const record = (entry: JournalEntry) => {
    entries.push(entry);
    control.onState?.(foldBatch(definition, entries), entry);
  };
  const opened: JournalEntry = { type: 'opened', at: Date.now(), writer: currentWriter(), rows: choice.rows, concurrency: choice.concurrency };
  await journal.append(opened);
  record(opened);

  const drain = new AbortController();
  const stop = new AbortController();
  const follow = (signal: AbortSignal, controller: AbortController) => {
    if (signal.aborted) controller.abort();
    else signal.addEventListener('abort', () => controller.abort(), { once: true });
  };
  follow(control.drain, drain);
  follow(control.stop, stop);
  // A cancel written by any process (`mnemo batch cancel`, the window): journalled there, heard here.
  let cancelled = false;
  const seen = (await journal.read().then((read) => (read.ok ? read.entries.length : 0))) - 1;
  const cancelWatch = setInterval(() => {
    void journal.read().then((read) => {
      if (!read.ok || stop.signal.aborted) return;
      if (!cancelled && read.entries.slice(seen).some((entry) => entry.type === 'cancelled')) {
        cancelled = true;
        drain.abort();
        // On a queue the rows waiting are taken off it, and its workers stop the runs they hold (the mark `cancel` set there): followed to their end.
        if (!queued) stop.abort();
        control.onCancelled?.();
      }
    });
  }, CANCEL_POLL_MS);

  try {
    if (queued) {
      const { runQueuedRows } = await import('../../batch/queue/queued-rows');
      await runQueuedRows(
        { journal, onEntry: record, log: (line) => control.onNote?.(line) },
        {
          url: queued.url,
          definition,
          rows: choice.rows,
          ...(choice.attemptsSoFar ? { attemptsSoFar: choice.attemptsSoFar } : {}),
          retries: choice.retries,
          ...(queued.priority !== undefined ? { priority: queued.priority } : {}),
          ...(deps.queueBackoffMs !== undefined ? { backoffMs: deps.queueBackoffMs } : {}),
          model: queuedModelFlags(choice.model),
          round: entries.filter((entry) => entry.type === 'opened').length,
          drain: drain.signal,
          stop: stop.signal,
        },
      );
    } else {
      const launcher = new BatchRows(deps, { definition, values: values.values, model: choice.model });
      await runRows(
        { launcher, journal, onEntry: record },
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
    const closed: JournalEntry = { type: 'closed', at: Date.now() };
    await journal.append(closed).catch(() => undefined);
    record(closed);
  }
  return { ok: true, state: foldBatch(definition, entries), cancelled };
}
