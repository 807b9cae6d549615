/**
 * `mnemo worker` and `mnemo worker list`: a machine that takes a batch queue's rows and runs each
 * on a private desktop of its own (or, without a queue, fires the local schedules). Declarations
 * only; the work is in commands/worker.ts, imported when it runs.
 */
import type { Command } from 'commander';
import type { WorkerListOptions, WorkerOptions } from '../commands/worker';
import { addSettingsOptions, addStorageOptions, addStoreOption, collect, parsePositiveInt } from '../options';

const WORKER_HELP = `
With a queue (--queue, or queue.url in config.json), the worker takes rows put there by
\`mnemo batch run --queue\` (and the firings of its schedules), N at once, each on a private desktop
of its own; a row's secrets are read from this machine's environment or keychain. Without one, it
fires the local schedules of the data directory (\`mnemo batch schedule\`), each firing a local batch.

SIGTERM (or Ctrl+C) once: the runs in flight finish, no new row is taken, then it exits. Again:
the runs in flight are stopped and their rows handed back to the queue at once (no attempt counted).
A worker killed hard: its rows go to another worker once BullMQ's stall detection sees it
(queue.stalledAfterMs, default 30 s), and its runs' sessions read back as interrupted.

Exit codes: 0 stopped when asked; 1 the queue cannot be reached, or no Xvfb (named, with the fix);
2 bad input.`;

const worker = () => import('../commands/worker');

export function registerWorkerCommand(program: Command): void {
  const command = addStoreOption(addSettingsOptions(program.command('worker')), "each run's session goes there once its run ends, before its job is answered (it stays here until the store has all of it)")
    .description('Take a batch queue\'s rows and run each on a private desktop of its own (or fire the local schedules)')
    .option('--queue <url>', 'the queue: redis://HOST:PORT (default: queue.url; none: fire the local schedules)')
    .option('--concurrency <n>', 'rows at once on this machine (default: what it holds)', parsePositiveInt('--concurrency'))
    .option('--desktop-size <WxH>', "each private desktop's size, when the batch names none (default 1280x800; desktop.size)")
    .option('--app <command>', 'a program to start on each private desktop, when the batch names none (repeatable)', collect, undefined)
    .addHelpText('after', WORKER_HELP)
    .action(async (options: WorkerOptions) => (await worker()).workerCommand(options));

  addStorageOptions(command.command('list'))
    .description('The workers of a queue alive now: host, pid, state, and what each is running on which desktop')
    .option('--queue <url>', 'the queue (default: queue.url)')
    .option('--json', 'print [{"id", "host", "pid", "startedAt", "concurrency", "state", "desktop", "runs": [{"batch", "row", "session", "display", "since"}], "seenAt"}]')
    .action(async (options: WorkerListOptions) => (await worker()).workerListCommand(options));
}
