/**
 * `mnemo worker`: a front end that takes a batch queue's rows (docs/batch.md, "Many machines") and
 * runs each through the service's own recipe on a private desktop of its own (batch/queue/
 * row-worker.ts, service/batches/queued-row.ts), its model requests under the queue's shared
 * rate limit per provider; or, without a queue, fires the local schedules of the data directory,
 * each firing a local batch (`mnemo batch run` as a child process). `mnemo worker list` shows the
 * workers alive on a queue.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { availableParallelism, freemem } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseDesktopSize } from '../../../shared/desktop-size';
import type { ModelSettings, PriceTable } from '../../../shared/settings';
import { defaultConcurrency } from '../../batch/capacity';
import { BatchJournal, newBatchId } from '../../batch/journal';
import type { BatchDefinition } from '../../batch/records';
import type { FiringJob } from '../../batch/queue/jobs';
import { claimFiring, dueFirings, readLocalSchedules, type LocalSchedule } from '../../batch/schedules';
import { currentWriter } from '../../disk/process-identity';
import { loadConfig, type RunFlags } from '../../settings/settings';
import type { RunService } from '../../service/run-service';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { SAME_REQUEST_MS } from '../run-controls';
import { keychainApiKey } from '../stored-key';
import { openElementsOnDemand } from '../open-elements';
import type { StorageOptions } from './workflow';

export interface WorkerOptions extends StorageOptions, RunFlags {
  queue?: string;
  concurrency?: number;
  desktopSize?: string;
  app?: string[];
}

export interface WorkerListOptions extends StorageOptions {
  queue?: string;
  json?: boolean;
}

/** How often the local schedules are read again (an `unschedule` is heard within this). */
const SCHEDULE_TICK_MS = 1000;

const say = (line: string) => process.stderr.write(`mnemo worker: ${line}\n`);

/** Xvfb on the PATH, as a private desktop starts it. */
function hasXvfb(env: NodeJS.ProcessEnv): boolean {
  for (const directory of (env.PATH ?? '').split(delimiter)) {
    if (!directory) continue;
    try {
      accessSync(join(directory, 'Xvfb'), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

export async function workerCommand(options: WorkerOptions): Promise<void> {
  if (options.desktopSize !== undefined) {
    const size = parseDesktopSize(options.desktopSize);
    if (!size.ok) throw new InvalidInputError(`--desktop-size: ${size.message}`);
  }
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  if (!hasXvfb(process.env)) {
    say('every row runs on a private desktop, and Xvfb is not installed here (or not on the PATH): install it (Debian, Ubuntu: apt install xvfb openbox; Fedora: dnf install xorg-x11-server-Xvfb openbox), then start the worker again');
    process.exitCode = ExitCode.errorResult;
    return;
  }
  const queueSettings = config.config.file.queue ?? {};
  const queueUrl = options.queue ?? queueSettings.url;
  const [{ RunService }, { openDesktopOperator }, { createVisionModel }] = await Promise.all([import('../../service/run-service'), import('../../service/desktops/desktop'), import('../../model')]);
  const log = (line: string) => process.stderr.write(`mnemo: ${line}\n`);
  const stored = await keychainApiKey(config.config, options, log);
  if (queueUrl === undefined) {
    const service = new RunService({ config: config.config, flags: options, openOperator: openDesktopOperator, openElements: openElementsOnDemand, log, ...stored });
    return fireLocalSchedules(service, options);
  }

  const [{ reachQueue, queueConnection, shownQueueUrl }, { SharedRateLimit, providerOf, rateLimitedFetch }, { RowWorker }, { launchQueuedRow }, { osKeychainOf }] = await Promise.all([
    import('../../batch/queue/connection'),
    import('../../batch/queue/rate-limit'),
    import('../../batch/queue/row-worker'),
    import('../../service/batches/queued-row'),
    import('../../settings/keychain/os-keychain'),
  ]);
  const reached = await reachQueue(queueUrl);
  if (!reached.ok) {
    say(reached.message);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  const limits = queueSettings.rateLimit ?? {};
  const rateRedis = queueConnection(queueUrl);
  const { hostname } = await import('node:os');
  const limit = new SharedRateLimit(rateRedis, limits, `${hostname()}:${process.pid}`);
  // Every model request of the runs here takes its place in its provider's shared window as it is sent.
  const createModel = (settings: ModelSettings, prices: PriceTable) => createVisionModel(settings, { prices, fetch: rateLimitedFetch(limit, providerOf(settings.baseUrl)) });
  const service = new RunService({ config: config.config, flags: options, openOperator: openDesktopOperator, openElements: openElementsOnDemand, createModel, log, ...stored });

  const apps = options.app ?? service.config.desktopSettings().apps;
  const chosen =
    options.concurrency !== undefined
      ? { concurrency: options.concurrency, reason: `${options.concurrency} at once (--concurrency)` }
      : defaultConcurrency({ cpus: availableParallelism(), freeMemoryBytes: freemem(), withApps: apps.length > 0 });
  const desktop = { ...(options.desktopSize ? { size: options.desktopSize } : {}), ...(options.app ? { apps: options.app } : {}) };
  const following = new Set<Promise<void>>();
  const stopFollowing = new AbortController();

  const worker = new RowWorker(
    {
      launch: (job, attempt) =>
        launchQueuedRow({ workflowRuns: service.workflowRuns, agentRuns: service.agentRuns, env: process.env, keychain: () => osKeychainOf(process.platform, process.env), desktop }, job, attempt),
      fire: async (firing) => {
        const followed = followFiring(service, queueUrl, firing, stopFollowing.signal);
        const id = await followed.id;
        following.add(followed.done);
        void followed.done.finally(() => following.delete(followed.done));
        say(`schedule ${firing.schedule} fired: batch ${id}, ${firing.rows.length} row${firing.rows.length === 1 ? '' : 's'} on the queue`);
        return id;
      },
      // With a shared session store, a run's session goes there before the job is answered: another machine reads it at once.
      afterRun: async (session) => {
        const archived = await service.records.archive(session);
        if (!archived.ok) say(`session ${session}: ${archived.error.message}`);
        else if (archived.value?.status === 'local') say(`session ${session} stays here, waiting for the store: ${archived.value.message}`);
      },
      log: (line) => say(line),
    },
    { url: queueUrl, concurrency: chosen.concurrency, ...(queueSettings.stalledAfterMs !== undefined ? { stalledAfterMs: queueSettings.stalledAfterMs } : {}), desktop },
  );

  let signals = 0;
  let lastAt = 0;
  let stopped: () => void = () => {};
  const finished = new Promise<void>((resolve) => (stopped = resolve));
  const onSignal = () => {
    const at = Date.now();
    if (signals > 0 && at - lastAt < SAME_REQUEST_MS) return;
    signals++;
    lastAt = at;
    if (signals === 1) {
      say(`stopping: no new row is taken, the ${worker.runs().length} run${worker.runs().length === 1 ? '' : 's'} in flight finish (SIGTERM again to hand them back to the queue)`);
      void worker.drain().then(stopped);
    } else if (signals === 2) {
      say(`handing the ${worker.runs().length} run${worker.runs().length === 1 ? '' : 's'} in flight back to the queue`);
      void worker.handBack().then(stopped);
    } else process.exit(ExitCode.userAborted);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  await worker.start();
  const rated = Object.entries(limits).map(([provider, rate]) => `${provider} ${rate.max} per ${rate.durationMs} ms`);
  say(`${worker.identity.id} takes rows of ${shownQueueUrl(queueUrl)}, ${chosen.reason}; data in ${service.config.dataDir}${rated.length > 0 ? `; shared rate limits: ${rated.join(', ')}` : ''}`);
  await finished;
  stopFollowing.abort();
  await Promise.all([...following]);
  await worker.close();
  rateRedis.disconnect();
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  await service.close();
  say('stopped');
}

/** A schedule's firing made a batch in this worker's data directory, its rows put on the queue and followed (in the background) to their end. */
function followFiring(service: RunService, url: string, firing: FiringJob, stop: AbortSignal): { id: Promise<string>; done: Promise<void> } {
  const definition: BatchDefinition = {
    id: newBatchId(),
    createdAt: Date.now(),
    source: firing.source,
    valuesFile: firing.valuesFile,
    columns: firing.columns,
    rows: firing.rows,
    concurrency: 1,
    concurrencyReason: `as many at once as the queue's workers take (schedule ${firing.schedule})`,
    retries: firing.retries,
    desktop: firing.desktop,
    queue: { url, ...(firing.priority !== undefined ? { priority: firing.priority } : {}) },
  };
  let created: (journal: BatchJournal) => void = () => {};
  const journalReady = new Promise<BatchJournal>((resolve) => (created = resolve));
  const done = (async () => {
    await service.config.dataDirReady();
    const journal = await BatchJournal.create(service.config.dataDir, definition);
    const rows = definition.rows.map((row) => row.row);
    await journal.append({ type: 'opened', at: Date.now(), writer: currentWriter(), rows, concurrency: 1 });
    created(journal);
    const { runQueuedRows } = await import('../../batch/queue/queued-rows');
    try {
      await runQueuedRows(
        { journal, log: (line) => say(line) },
        { url, definition, rows, retries: firing.retries, ...(firing.priority !== undefined ? { priority: firing.priority } : {}), model: firing.model, round: 1, drain: new AbortController().signal, stop, ...backoffOf(service) },
      );
    } finally {
      await journal.append({ type: 'closed', at: Date.now() }).catch(() => undefined);
    }
  })();
  return { id: journalReady.then(() => definition.id), done: done.catch((error: Error) => void say(`batch ${definition.id}: ${error.message}`)) };
}

function backoffOf(service: RunService): { backoffMs?: number } {
  const backoffMs = service.config.loaded.file.queue?.backoffMs;
  return backoffMs !== undefined ? { backoffMs } : {};
}

/** Without a queue: the data directory's schedules, each firing a local batch (a `mnemo batch run` of its own), until SIGTERM. */
async function fireLocalSchedules(service: RunService, options: WorkerOptions): Promise<void> {
  const dataDir = service.config.dataDir;
  const running = new Map<string, ChildProcess>();
  let lastTick = Date.now();
  let stopping = false;
  let wake: () => void = () => {};
  const onSignal = () => {
    if (!stopping) say(`stopping: no schedule fires any more; the ${running.size} batch${running.size === 1 ? '' : 'es'} going on stop as a batch does on SIGTERM`);
    stopping = true;
    for (const child of running.values()) child.kill('SIGTERM');
    wake();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  say(`no queue: firing the schedules of ${dataDir} (mnemo batch schedules lists them)`);
  while (!stopping) {
    const now = Date.now();
    const read = await readLocalSchedules(dataDir);
    if (!read.ok) say(read.message);
    for (const firing of dueFirings(read.ok ? read.schedules : [], lastTick, now)) {
      const { schedule } = firing;
      if (running.has(schedule.id)) {
        say(`schedule ${schedule.id}: its last batch is still going on, this firing is skipped`);
        continue;
      }
      // The app, or another worker of this data directory, may have taken this firing already.
      if (!(await claimFiring(dataDir, firing))) continue;
      say(`schedule ${schedule.id} fired`);
      const child = startLocalBatch(schedule, options);
      running.set(schedule.id, child);
      child.once('close', (code) => {
        running.delete(schedule.id);
        say(`schedule ${schedule.id}: its batch ended (exit ${code})`);
        wake();
      });
    }
    lastTick = now;
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, SCHEDULE_TICK_MS);
    });
  }
  while (running.size > 0) await new Promise<void>((resolve) => (wake = resolve));
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  await service.close();
  say('stopped');
}

/** `mnemo batch run` for a local schedule's firing, in a process of its own (its output on this one's stderr). */
function startLocalBatch(schedule: LocalSchedule, options: WorkerOptions): ChildProcess {
  const args = ['batch', 'run'];
  if (schedule.source.kind === 'workflow') args.push(schedule.source.name, '--policy', schedule.source.policy, '--speed', String(schedule.source.speed));
  else args.push('--task', schedule.source.task);
  args.push('--values', schedule.valuesFile, '--retries', String(schedule.retries));
  if (schedule.concurrency !== undefined) args.push('--concurrency', String(schedule.concurrency));
  if (schedule.desktop.size) args.push('--desktop-size', schedule.desktop.size);
  for (const app of schedule.desktop.apps ?? []) args.push('--app', app);
  const flags: Array<[keyof LocalSchedule['model'], string]> = [
    ['baseUrl', '--base-url'],
    ['model', '--model'],
    ['family', '--family'],
    ['modelVersion', '--model-version'],
    ['coordinates', '--coordinates'],
    ['computerTool', '--computer-tool'],
    ['apiKeyEnv', '--api-key-env'],
  ];
  for (const [key, flag] of flags) if (schedule.model[key] !== undefined) args.push(flag, String(schedule.model[key]));
  if (options.dataDir) args.push('--data-dir', options.dataDir);
  if (options.config) args.push('--config', options.config);
  return spawn(process.execPath, [process.argv[1] as string, ...args], { stdio: ['ignore', 2, 2] });
}

export async function workerListCommand(options: WorkerListOptions): Promise<void> {
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  const queueUrl = options.queue ?? config.config.file.queue?.url;
  if (queueUrl === undefined) throw new InvalidInputError('which queue? --queue redis://HOST:PORT, or queue.url in config.json');
  const { listQueueWorkers } = await import('../../batch/queue/queue-view');
  const found = await listQueueWorkers(queueUrl);
  if (!found.ok) {
    process.stderr.write(`mnemo: ${found.message}\n`);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  const workers = found.value;
  if (options.json) process.stdout.write(`${JSON.stringify(workers)}\n`);
  else if (workers.length === 0) process.stderr.write('no worker on this queue now (mnemo worker --queue URL starts one)\n');
  else {
    for (const worker of workers) {
      const runs = worker.runs.map((run) => `${run.batch} row ${run.row} on ${run.display ?? '?'} (${run.session})`).join('; ');
      process.stdout.write(`${worker.id}\t${worker.state}\t${worker.runs.length}/${worker.concurrency} running${runs ? `: ${runs}` : ''}\n`);
    }
  }
}
