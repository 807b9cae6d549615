/**
 * `mnemo workflow save|list|show|delete|export|import|trust|run`: a recorded run (or demonstration)
 * saved with parameters and run again with new values. Declarations only; the work is in
 * commands/workflow.ts, imported when a subcommand runs.
 */
import { Option, type Command } from 'commander';
import { WORKFLOW_POLICIES } from '../../replay/policy';
import type { ImportOptions, RunWorkflowOptions, SaveOptions, StorageOptions } from '../commands/workflow';
import { addDesktopOptions, addDisplayOption, addSettingsOptions, addStorageOptions, addStoreOption, collect, parseSpeed } from '../options';

const EXIT_HELP = `
A workflow drives the desktop, so only a trusted one runs: one saved on this machine is; an imported
one, or one whose files changed, is listed step by step (what it types and presses marked) and runs
once you have checked its steps and run \`mnemo workflow trust NAME\`.

Exit codes: 0 done; 1 no such workflow or session, a damaged one, or one not trusted; 2 bad
arguments (a missing or unknown parameter, a bad file to import); 3 a run that stopped (a step no
evidence found, an action that failed) or could not start on the display; 4 stopped by the user.`;

const RUN_HELP = `
Before each step, cheapest first: a step recorded with its element (the accessibility tree) is
looked for in the tree and acted on where it is now; else the target's region agrees with the
recording (replayed); the recorded target is found elsewhere on the screen, by its patch or the
text near it (refound, no model call); under --policy reground the model grounds this step alone (grounded); otherwise the
run stops before acting (stopped, exit 3). Nothing is clicked where none of these found it.
A secret parameter comes from --set, MNEMO_PARAM_<NAME>, or a prompt; it is never recorded.`;

const workflow = () => import('../commands/workflow');

/** A subcommand on the data directory's workflows. */
function subcommand(parent: Command, name: string, description: string): Command {
  return addStorageOptions(parent.command(name).description(description));
}

/** A subcommand on one workflow, named by its first argument. */
function onWorkflow(parent: Command, name: string, description: string): Command {
  return subcommand(parent, name, description).argument('<name>', 'the workflow');
}

export function registerWorkflowCommand(program: Command): void {
  const command = program
    .command('workflow')
    .description('Runs saved with parameters and run again with new values, the model asked only where the screen differs')
    .addHelpText('after', EXIT_HELP);

  addStoreOption(subcommand(command, 'save', 'Save a recorded session as a workflow: typed values become parameters'), 'the session may be there')
    .argument('<session>', 'the session (an id, a unique prefix, or "last")')
    .requiredOption('--name <name>', 'the workflow\'s name (letters, digits, "_", ".", "-")')
    .option('--param <NAME=VALUE>', 'a typed text containing VALUE gets {{NAME}} in its place (repeatable)', collect, [])
    .option('--secret <NAME>', 'NAME is a secret: its value is never kept; without --param NAME=… it takes the next text the recording masked (repeatable)', collect, [])
    .option('--auto-params', 'take the proposed parameters (each value typed into a field)')
    .option('--json', 'print {"name", "params": [{"name", "secret", "example"}], "steps": [{"index", "description", "action"}], "trusted"}')
    .action(async (session: string, options: SaveOptions) => (await workflow()).workflowSaveCommand(session, options));

  subcommand(command, 'list', 'The saved workflows')
    .option('--json', 'print [{"name", "description", "params", "steps", "createdAt", "source", "trusted"}]')
    .action(async (options: StorageOptions & { json?: boolean }) => (await workflow()).workflowListCommand(options));

  onWorkflow(command, 'show', 'A workflow\'s parameters and steps')
    .option('--json', 'print {"name", "params", "steps"} as `save --json` does')
    .action(async (name: string, options: StorageOptions & { json?: boolean }) => (await workflow()).workflowShowCommand(name, options));

  onWorkflow(command, 'delete', 'Delete a workflow')
    .action(async (name: string, options: StorageOptions) => (await workflow()).workflowDeleteCommand(name, options));

  onWorkflow(command, 'export', 'One self-contained JSON file: the workflow, its anchors and screens')
    .option('-o, --output <file>', 'write it here (default: stdout)')
    .action(async (name: string, options: StorageOptions & { output?: string }) => (await workflow()).workflowExportCommand(name, options));

  subcommand(command, 'import', 'Import a file made by `mnemo workflow export` (checked whole; a bad file changes nothing); its steps are listed, and it does not run until trusted')
    .argument('<file>', 'the file, or - to read it from stdin (at most 64 MB either way)')
    .option('--name <name>', 'import it under this name')
    .option('--force', 'replace a workflow of the same name')
    .action(async (file: string, options: ImportOptions) => (await workflow()).workflowImportCommand(file, options));

  onWorkflow(command, 'trust', 'Trust a workflow to run, as it is now (after checking its steps: mnemo workflow show NAME); a later change to its files untrusts it')
    .option('--json', 'print the workflow as `show --json` does')
    .action(async (name: string, options: StorageOptions & { json?: boolean }) => (await workflow()).workflowTrustCommand(name, options));

  const run = addSettingsOptions(command.command('run'), 'reground: ')
    .description('Run a workflow with new values: each step replayed, found again, or (--policy reground) grounded by the model')
    .argument('<name>')
    .option('--set <NAME=VALUE>', 'a parameter\'s value (repeatable); also MNEMO_PARAM_<NAME>; a secret left out is asked for', collect, [])
    .addOption(new Option('--policy <policy>', 'a step found by no evidence: stop before acting, or reground with the model (model flags as for run)').choices(WORKFLOW_POLICIES).default('stop'))
    .option('--speed <x>', 'recorded waits divided by this; 0 or "max": none', parseSpeed, 1);
  addStoreOption(addDesktopOptions(addDisplayOption(run, 'the display to run on'), 'run the workflow'), 'its session goes there once the run ends (it stays here until the store has all of it)')
    .option('--non-interactive', 'never ask: a recorded confirmation stops the run, a secret must be given')
    .option('--json', 'print the run\'s events as `mnemo run --json` does, one `workflow-step` line per step and a last `workflow-report` line')
    .addHelpText('after', RUN_HELP)
    .action(async (name: string, options: RunWorkflowOptions) => (await workflow()).workflowRunCommand(name, options));
}
