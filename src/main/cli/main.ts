/**
 * Entry of the `mnemo` command: builds the commander program, runs it, maps errors to exit codes.
 * Each command is declared in program/<name>.ts (its flags and help: loaded at every start, so
 * nothing heavy) and carried out by commands/<name>.ts, imported by its action only when it runs
 * (docs/architecture.md, "The CLI: built, and loaded command by command"). `run`, `replay` and
 * `check-model` are thin adapters over the run service, which composes a run.
 */
import { Command, CommanderError } from 'commander';
import { EXIT_CODES_HELP, ExitCode, InvalidInputError } from './exit-codes';
import { registerDisplaysCommand } from './program/displays';
import { registerScreenshotCommand } from './program/screenshot';
import { registerActCommand } from './program/act';
import { registerRunCommand } from './program/run';
import { registerParseCommand } from './program/parse';
import { registerSessionsCommand } from './program/sessions';
import { registerShowCommand } from './program/show';
import { registerReplayCommand } from './program/replay';
import { registerExportCommand } from './program/export';
import { registerMemoryCommand } from './program/memory';
import { registerCheckModelCommand } from './program/check-model';
import { registerServeCommand } from './program/serve';
import { registerDoctorCommand } from './program/doctor';
import { registerFactsCommand } from './program/facts';
import { registerWorkflowCommand } from './program/workflow';
import { registerTeachCommand } from './program/teach';
import { registerMcpCommand } from './program/mcp';
import { registerBatchCommand } from './program/batch';
import { registerWorkerCommand } from './program/worker';
import { registerElementsCommand } from './program/elements';

function buildProgram(): Command {
  const program = new Command('mnemo')
    .description('Mnemo: a desktop agent that sees the screen, acts with mouse and keyboard, and remembers.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP)
    .exitOverride()
    // A command's options come after its name (`mnemo sessions prune --retention-days 3`: prune's).
    .enablePositionalOptions();
  registerDisplaysCommand(program);
  registerScreenshotCommand(program);
  registerElementsCommand(program);
  registerActCommand(program);
  registerRunCommand(program);
  registerParseCommand(program);
  registerSessionsCommand(program);
  registerShowCommand(program);
  registerReplayCommand(program);
  registerExportCommand(program);
  registerMemoryCommand(program);
  registerCheckModelCommand(program);
  registerServeCommand(program);
  registerDoctorCommand(program);
  registerFactsCommand(program);
  registerWorkflowCommand(program);
  registerTeachCommand(program);
  registerMcpCommand(program);
  registerBatchCommand(program);
  registerWorkerCommand(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with code 0; every other commander complaint is bad arguments.
      process.exitCode = error.exitCode === 0 ? ExitCode.ok : ExitCode.invalidInput;
      return;
    }
    if (error instanceof InvalidInputError) {
      process.stderr.write(`mnemo: ${error.message}\n`);
      process.exitCode = ExitCode.invalidInput;
      return;
    }
    process.stderr.write(`mnemo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = ExitCode.errorResult;
  }
}

// `mnemo sessions | head` closes the pipe early: that is the reader's choice, not a crash.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

await main(process.argv);
