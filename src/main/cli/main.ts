/**
 * Entry of the `mnemo` command: builds the commander program, runs it, maps errors to exit codes.
 * Each command lives in commands/<name>.ts; `run`, `replay` and `check-model` are thin adapters
 * over the run service, which composes a run (docs/architecture.md, "The run service").
 */
import { Command, CommanderError } from 'commander';
import { EXIT_CODES_HELP, ExitCode, InvalidInputError } from './exit-codes';
import { registerDisplaysCommand } from './commands/displays';
import { registerScreenshotCommand } from './commands/screenshot';
import { registerActCommand } from './commands/act';
import { registerRunCommand } from './commands/run';
import { registerParseCommand } from './commands/parse';
import { registerSessionsCommand } from './commands/sessions';
import { registerShowCommand } from './commands/show';
import { registerReplayCommand } from './commands/replay';
import { registerExportCommand } from './commands/export';
import { registerMemoryCommand } from './commands/memory';
import { registerCheckModelCommand } from './commands/check-model';
import { registerServeCommand } from './commands/serve';
import { registerDoctorCommand } from './commands/doctor';
import { registerFactsCommand } from './commands/facts';

function buildProgram(): Command {
  const program = new Command('mnemo')
    .description('Mnemo: a desktop agent that sees the screen, acts with mouse and keyboard, and remembers.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP)
    .exitOverride();
  registerDisplaysCommand(program);
  registerScreenshotCommand(program);
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
