/**
 * `mnemo batch schedule | schedules | unschedule`: a batch made again at the times a cron
 * expression names (docs/batch.md, "Schedules"). On a queue, a BullMQ job scheduler whose firings
 * a worker makes into a batch of row jobs (the values read now and kept with it: the workers may
 * be on other machines); without one, a schedule in the data directory that `mnemo worker` fires,
 * each firing a local `mnemo batch run` (the values file read again each time).
 */
import { resolve } from 'node:path';
import type { WorkflowPolicy } from '../../replay/policy';
import type { RunFlags } from '../../settings/settings';
import { FIRING_JOB, type FiringJob } from '../../batch/queue/jobs';
import { NEXT_RUNS_SHOWN, describeBatchSource, listSchedules, withRowsQueue } from '../../batch/queue/queue-view';
import { newScheduleId, nextRuns, readLocalSchedules, writeLocalSchedules, type LocalSchedule } from '../../batch/schedules';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { queuedModelFlags } from '../../service/batches/batch-runner';
import { failedWith, readBatchInput } from './batch';
import { openService, type StorageOptions } from './workflow';

export interface BatchScheduleOptions extends StorageOptions, RunFlags {
  cron: string;
  values: string;
  task?: string;
  retries: number;
  concurrency?: number;
  desktopSize?: string;
  app?: string[];
  policy: WorkflowPolicy;
  speed: number;
  queue?: string;
  priority?: number;
}

export interface SchedulesOptions extends StorageOptions {
  queue?: string;
  json?: boolean;
}

export async function batchScheduleCommand(workflow: string | undefined, options: BatchScheduleOptions): Promise<void> {
  const checked = nextRuns(options.cron, Date.now(), NEXT_RUNS_SHOWN);
  if (!checked.ok) throw new InvalidInputError(checked.message);
  if (checked.next.length === 0) throw new InvalidInputError(`--cron "${options.cron}" names no time to come`);
  const input = await readBatchInput(workflow, options);
  if (!input) return;
  const { service, source, table } = input;
  const model = queuedModelFlags(options);
  const desktop = { ...(options.desktopSize ? { size: options.desktopSize } : {}), ...(options.app ? { apps: options.app } : {}) };
  const id = newScheduleId();
  const queueUrl = options.queue ?? service.config.loaded.file.queue?.url;
  const when = checked.next.map((at) => new Date(at).toISOString()).join(', ');
  if (queueUrl !== undefined) {
    const firing: FiringJob = { schedule: id, source, valuesFile: options.values, columns: table.columns, rows: table.rows, retries: options.retries, ...(options.priority !== undefined ? { priority: options.priority } : {}), desktop, model };
    const made = await withRowsQueue(queueUrl, (queue) => queue.upsertJobScheduler(id, { pattern: options.cron }, { name: FIRING_JOB, data: firing, opts: { removeOnComplete: 100, removeOnFail: 100 } }));
    if (!made.ok) return failedWith(service, made.message, ExitCode.errorResult);
    process.stdout.write(`${id}\n`);
    process.stderr.write(`schedule ${id} on the queue: ${describeBatchSource(source)} over ${table.rows.length} row${table.rows.length === 1 ? '' : 's'} of ${options.values} (kept with the schedule), "${options.cron}"; next: ${when}\n`);
  } else {
    await service.config.dataDirReady();
    const read = await readLocalSchedules(service.config.dataDir);
    if (!read.ok) return failedWith(service, read.message, ExitCode.errorResult);
    const schedule: LocalSchedule = {
      id,
      createdAt: Date.now(),
      cron: options.cron,
      source,
      valuesFile: resolve(options.values),
      retries: options.retries,
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
      desktop,
      model,
    };
    await writeLocalSchedules(service.config.dataDir, [...read.schedules, schedule]);
    process.stdout.write(`${id}\n`);
    process.stderr.write(`schedule ${id} in ${service.config.dataDir}: ${describeBatchSource(source)} over ${schedule.valuesFile} (read again at each firing), "${options.cron}"; next: ${when}; \`mnemo worker\` fires it while it runs\n`);
  }
  await service.close();
}

export async function batchSchedulesCommand(options: SchedulesOptions): Promise<void> {
  const service = await openService(options);
  const queueUrl = options.queue ?? service.config.loaded.file.queue?.url;
  const found = await listSchedules(service.config.dataDir, queueUrl, Date.now());
  if (!found.ok) return failedWith(service, found.message, ExitCode.errorResult);
  const listed = found.value;
  if (options.json) process.stdout.write(`${JSON.stringify(listed)}\n`);
  else if (listed.length === 0) process.stderr.write('no schedules: mnemo batch schedule WORKFLOW --cron "0 2 * * 1-5" --values rows.csv makes one\n');
  else for (const item of listed) process.stdout.write(`${item.id}\t${item.where}\t"${item.cron}"\tnext ${item.next.map((at) => new Date(at).toISOString()).join(', ') || 'none'}\t${item.source} over ${item.valuesFile}\n`);
  await service.close();
}

export async function batchUnscheduleCommand(id: string, options: SchedulesOptions): Promise<void> {
  const service = await openService(options);
  const read = await readLocalSchedules(service.config.dataDir);
  if (!read.ok) return failedWith(service, read.message, ExitCode.errorResult);
  if (read.schedules.some((schedule) => schedule.id === id)) {
    await writeLocalSchedules(service.config.dataDir, read.schedules.filter((schedule) => schedule.id !== id));
    process.stderr.write(`schedule ${id} removed\n`);
    return service.close();
  }
  const queueUrl = options.queue ?? service.config.loaded.file.queue?.url;
  if (queueUrl === undefined) return failedWith(service, `no schedule "${id}" in ${service.config.dataDir} (mnemo batch schedules lists them; one on a queue needs --queue or queue.url)`, ExitCode.errorResult);
  const removed = await withRowsQueue(queueUrl, (queue) => queue.removeJobScheduler(id));
  if (!removed.ok) return failedWith(service, removed.message, ExitCode.errorResult);
  if (!removed.value) return failedWith(service, `no schedule "${id}" here or on the queue (mnemo batch schedules lists them)`, ExitCode.errorResult);
  process.stderr.write(`schedule ${id} removed from the queue\n`);
  await service.close();
}
