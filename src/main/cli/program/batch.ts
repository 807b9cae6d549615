/**
 * `mnemo batch run|list|show|retry|resume|cancel`: a workflow (or a task) over a table of values,
 * one run per row on private desktops side by side, its state journalled in the data directory.
 * Declarations only; the work is in commands/batch.ts, imported when a subcommand runs.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { WORKFLOW_POLICIES } from '../../replay/policy';
import type { BatchCancelOptions, BatchRunOptions, BatchShowOptions, BatchContinueOptions } from '../commands/batch';
import type { BatchScheduleOptions, SchedulesOptions } from '../commands/batch-schedules';
import { addSettingsOptions, addStorageOptions, addStoreOption, collect, elementsOption, parsePositiveInt, parseSpeed } from '../options';

const EXIT_HELP = `
Each row of the values file is one run, on a private desktop of its own, N at once; a column is a
workflow parameter (or a {{name}} of --task). A secret is never written in the file: its cell
names where it is kept, \${env:NAME} or \${keychain:NAME}. Every run is a session tagged with the
batch and its row. The batch's journal (<data-dir>/batches/<id>/) keeps every row's outcome
through Ctrl+C, a crash or a reboot: \`mnemo batch resume ID\` runs only the rows without one.

Ctrl+C (or SIGTERM) once: no new row starts and the runs going on finish; Ctrl+C again: they are
stopped too (their rows are left for resume); a third time: quit at once. A signal repeated within
1.5 s is the same request.

Exit codes: 0 every row succeeded; 1 no such batch or workflow, or one not trusted; 2 bad input (a
values file whose columns do not match, named; a bad flag; a secret not found); 3 some rows failed
(or have no outcome); 4 stopped by the user (Ctrl+C, mnemo batch cancel).`;

function parsePriority(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) > 2_097_152) throw new InvalidArgumentError(`--priority must be a whole number from 0 to 2097152 (1 is taken first; 0 none, taken before any prioritized job), got "${value}"`);
  return Number(value);
}

function parseRetries(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`--retries must be a whole number ≥ 0, got "${value}"`);
  return Number(value);
}

const batch = () => import('../commands/batch');

/** The flags of the runs a batch starts (also on resume and retry, which take the settings again). */
function addRunFlags(command: Command): Command {
  return addStoreOption(addSettingsOptions(command, 'for a task, or a workflow\'s reground: '), "each row's session goes there once its run ends (it stays here until the store has all of it)")
    .addOption(elementsOption('for a task\'s runs: the elements aid, off, list or marks, as for mnemo run (config model.elements)'))
    .option('--concurrency <n>', 'rows at once, each on its own private desktop (default: what this machine holds, said at the start)', parsePositiveInt('--concurrency'))
    .option('--json', 'print one JSON object per row at the end: {"batch", "row", "values", "status", "attempts", "session", "sessions", "steps", "costUsd", "durationMs", "reason"}');
}

export function registerBatchCommand(program: Command): void {
  const command = program.command('batch').description('A workflow or a task over a table of values: one run per row, on private desktops side by side').addHelpText('after', EXIT_HELP);

  addRunFlags(command.command('run'))
    .description('Run a workflow (or --task) once per row of a CSV or JSON Lines file')
    .argument('[workflow]', 'the saved workflow each row runs (or --task)')
    .requiredOption('--values <file>', 'the rows: a .csv with a header line of column names, or a .jsonl of one object per line')
    .option('--task <text>', 'a task instead of a workflow, its {{name}}s filled from the row\'s columns')
    .option('--retries <k>', 'run a failed row again up to K times before it is reported failed (default 0)', parseRetries, 0)
    .option('--desktop-size <WxH>', "each private desktop's size (default 1280x800; desktop.size)")
    .option('--app <command>', 'a program to start on each private desktop before its row runs (repeatable)', collect, undefined)
    .addOption(new Option('--policy <policy>', 'a workflow step found by no evidence: stop, or reground with the model').choices(WORKFLOW_POLICIES).default('stop'))
    .option('--speed <x>', 'a workflow\'s recorded waits divided by this; 0 or "max": none', parseSpeed, 1)
    .option('--queue <url>', 'put the rows on this BullMQ queue (redis://HOST:PORT) for `mnemo worker`s to run, and follow them here (default: queue.url)')
    .option('--priority <n>', 'on a queue: the rows\' BullMQ priority, 1 taken first (default: none, which BullMQ takes before every prioritized job)', parsePriority)
    .action(async (workflow: string | undefined, options: BatchRunOptions) => (await batch()).batchRunCommand(workflow, options));

  const schedules = () => import('../commands/batch-schedules');
  addSettingsOptions(command.command('schedule'), 'for a task, or a workflow\'s reground: ')
    .description('Make a batch again at the times a cron expression names: on a queue, a BullMQ job scheduler; without one, kept in the data directory for `mnemo worker` to fire')
    .argument('[workflow]', 'the saved workflow each row runs (or --task)')
    .requiredOption('--cron <expression>', 'when: "0 2 * * 1-5" (minute hour day-of-month month day-of-week), or six fields with seconds first')
    .requiredOption('--values <file>', 'the rows: a .csv or .jsonl (on a queue read now and kept with the schedule; without one read again at each firing)')
    .option('--task <text>', 'a task instead of a workflow, its {{name}}s filled from the row\'s columns')
    .option('--retries <k>', 'run a failed row again up to K times (default 0)', parseRetries, 0)
    .option('--concurrency <n>', 'without a queue: rows at once (default: what the machine holds)', parsePositiveInt('--concurrency'))
    .option('--desktop-size <WxH>', "each private desktop's size")
    .option('--app <command>', 'a program to start on each private desktop (repeatable)', collect, undefined)
    .addOption(new Option('--policy <policy>', 'a workflow step found by no evidence: stop, or reground with the model').choices(WORKFLOW_POLICIES).default('stop'))
    .option('--speed <x>', 'a workflow\'s recorded waits divided by this; 0 or "max": none', parseSpeed, 1)
    .option('--queue <url>', 'a BullMQ job scheduler on this queue (default: queue.url; none: a local schedule)')
    .option('--priority <n>', 'on a queue: the rows\' BullMQ priority', parsePriority)
    .action(async (workflow: string | undefined, options: BatchScheduleOptions) => (await schedules()).batchScheduleCommand(workflow, options));

  addStorageOptions(command.command('schedules'))
    .description('The schedules (the local ones, and the queue\'s when one is set) with their next runs')
    .option('--queue <url>', 'also the job schedulers of this queue (default: queue.url)')
    .option('--json', 'print [{"id", "where", "cron", "source", "valuesFile", "next": [ms, …]}]')
    .action(async (options: SchedulesOptions) => (await schedules()).batchSchedulesCommand(options));

  addStorageOptions(command.command('unschedule'))
    .description('Remove a schedule (local, or on the queue)')
    .argument('<id>', 'the schedule, as `mnemo batch schedules` shows it')
    .option('--queue <url>', 'the queue it is on (default: queue.url)')
    .action(async (id: string, options: SchedulesOptions) => (await schedules()).batchUnscheduleCommand(id, options));

  addStorageOptions(command.command('list'))
    .description('The batches of the data directory, with their progress')
    .option('--json', 'print [{"id", "createdAt", "source", "rows", "succeeded", "failed", "withoutOutcome", "status", "costUsd"}]')
    .action(async (options: BatchShowOptions) => (await batch()).batchListCommand(options));

  addStorageOptions(command.command('show'))
    .description('A batch: its rows, their values, status, attempts and sessions')
    .argument('<id>', 'the batch (its id or a unique prefix)')
    .option('--json', 'print {"id", "status", "source", "valuesFile", "concurrency", "retries", "createdAt", "costUsd", "rows": [one object per row, as run --json]}')
    .action(async (id: string, options: BatchShowOptions) => (await batch()).batchShowCommand(id, options));

  addRunFlags(command.command('retry'))
    .description('Run a batch\'s rows again, every row or (--failed) the failed ones; each gets its retries again')
    .argument('<id>', 'the batch')
    .option('--failed', 'only the rows that failed')
    .option('--retries <k>', 'retries per row this time (default: the batch\'s)', parseRetries)
    .action(async (id: string, options: BatchContinueOptions) => (await batch()).batchRetryCommand(id, options));

  addRunFlags(command.command('resume'))
    .description('Run the rows of a batch that have no outcome (cut off by Ctrl+C, a crash, a reboot, or never started)')
    .argument('<id>', 'the batch')
    .action(async (id: string, options: BatchContinueOptions) => (await batch()).batchResumeCommand(id, options));

  addStorageOptions(command.command('cancel'))
    .description('Cancel a batch: no new row starts, and the process running it stops its runs going on (resume takes it up again)')
    .argument('<id>', 'the batch')
    .action(async (id: string, options: BatchCancelOptions) => (await batch()).batchCancelCommand(id, options));
}
