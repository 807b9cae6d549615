/**
 * Fires the local schedules of the data directory while this process is open (the app, `mnemo
 * serve`), as `mnemo worker` without a queue does: each firing a batch of the schedule's values
 * file as it is then, run here in the background on private desktops. A firing is taken once per
 * data directory whoever else fires (`claimFiring`); a schedule whose last batch is still running
 * here skips a firing, as the worker does.
 */
import { claimFiring, dueFirings, readLocalSchedules, type LocalSchedule } from '../../batch/schedules';
import type { ValuesTable } from '../../batch/values';
import type { ServiceResult } from '../service-result';
import type { BatchSummary } from '../../../shared/batch';
import type { NewBatch } from './new-batch';

/** How often the schedules are looked at: a cron with seconds fires within this. */
export const SCHEDULE_TICK_MS = 1000;

/** Calls `callback` every `ms` until the returned function is called. */
export type Every = (ms: number, callback: () => void) => () => void;

/** The process's own timer, which does not keep it alive. */
const everyOnTimer: Every = (ms, callback) => {
  const timer = setInterval(callback, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export interface ScheduleFirerDeps {
  dataDir: () => string;
  /** Reads a values file (`label` names it in messages). */
  readValuesFile(path: string, label: string): Promise<ServiceResult<ValuesTable>>;
  /** Starts a batch in the background; answers once it is journalled as started. */
  start(request: NewBatch): Promise<ServiceResult<BatchSummary>>;
  /** Whether a batch started here is still running. */
  runningHere(batchId: string): boolean;
  log?: (message: string) => void;
  now?: () => number;
  /** What says when to look again (default: a timer of the process). */
  every?: Every;
}

export class ScheduleFirer {
  private cancelTimer: (() => void) | undefined;
  private lastTick: number;
  /** The look the timer started, while it goes on (stop waits for it). */
  private inFlight: Promise<void> | undefined;
  /** The batch each schedule last started here. */
  private readonly lastBatch = new Map<string, string>();

  constructor(private readonly deps: ScheduleFirerDeps) {
    this.lastTick = this.now();
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  start(): void {
    if (this.cancelTimer) return;
    this.lastTick = this.now();
    this.cancelTimer = (this.deps.every ?? everyOnTimer)(SCHEDULE_TICK_MS, () => {
      // A look still going on (a slow firing) is not overlapped, nor forgotten by stop.
      if (this.inFlight) return;
      this.inFlight = this.tick()
        .catch((error: unknown) => this.deps.log?.(`schedules: a firing failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => (this.inFlight = undefined));
    });
  }

  /** No more looks at the schedules; resolves once a firing already begun has been journalled (or failed). */
  async stop(): Promise<void> {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    await this.inFlight;
  }

  /** One look at the schedules: each one due fired once. Only the timer starts one, never two at once. */
  private async tick(): Promise<void> {
    const now = this.now();
    const dataDir = this.deps.dataDir();
    const read = await readLocalSchedules(dataDir);
    if (!read.ok) this.deps.log?.(`schedules: ${read.message}`);
    for (const firing of dueFirings(read.ok ? read.schedules : [], this.lastTick, now)) {
      const last = this.lastBatch.get(firing.schedule.id);
      if (last !== undefined && this.deps.runningHere(last)) {
        this.deps.log?.(`schedule ${firing.schedule.id}: its last batch is still going on, this firing is skipped`);
        continue;
      }
      if (!(await claimFiring(dataDir, firing, now))) continue;
      await this.fire(firing.schedule);
    }
    this.lastTick = now;
  }

  private async fire(schedule: LocalSchedule): Promise<void> {
    const table = await this.deps.readValuesFile(schedule.valuesFile, `schedule ${schedule.id}: ${schedule.valuesFile}`);
    if (!table.ok) return this.deps.log?.(table.error.message);
    const started = await this.deps.start({
      source: schedule.source,
      table: table.value,
      valuesFile: schedule.valuesFile,
      ...(schedule.concurrency !== undefined ? { concurrency: schedule.concurrency, concurrencyGivenAs: `schedule ${schedule.id}` } : {}),
      retries: schedule.retries,
      desktop: schedule.desktop,
      model: schedule.model,
    });
    if (!started.ok) return this.deps.log?.(`schedule ${schedule.id}: ${started.error.message}`);
    this.lastBatch.set(schedule.id, started.value.id);
    this.deps.log?.(`schedule ${schedule.id} fired: batch ${started.value.id}`);
  }
}
