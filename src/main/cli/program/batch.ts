/**
 * `mnemo batch run|list|show|retry|resume|cancel`: a workflow (or a task) over a table of values,
 * one run per row on private desktops side by side, its state journalled in the data directory.
 * Declarations only; the work is in commands/batch.ts, imported when a subcommand runs.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { WORKFLOW_POLICIES } from '../../replay/policy';
import type { BatchCancelOptions, BatchRunOptions, BatchShowOptions, BatchContinueOptions } from '../commands/batch';
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
    .action(async (workflow: string | undefined, options: BatchRunOptions) => (await batch()).batchRunCommand(workflow, options));

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
