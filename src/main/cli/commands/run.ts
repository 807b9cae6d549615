/**
 * `mnemo run "<task>"`: a thin adapter over the run service (src/main/service/): the task and the
 * flags in, a live terminal view (or one JSON event per line with --json) and an exit code out.
 * Exit codes: 0 finished, 3 failed / stuck / limit (also: the display busy or missing, the
 * provider unusable), 4 stopped by the user (Ctrl+C, the fail-safe corner, a refused
 * confirmation), 2 bad arguments, 1 the session cannot be recorded. Ctrl+C stops cleanly; a second
 * Ctrl+C quits at once.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { MODEL_FAMILIES } from '../../../shared/settings';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { parseDisplayNumber, parsePositiveInt } from '../options';
import { loadConfig, type RunFlags } from '../../settings/settings';
import { exitCodeFor, followOnTerminal, startFailure, stopOnInterrupt, terminalAsk } from '../run-controls';

interface RunOptions extends RunFlags {
  nonInteractive?: boolean;
  json?: boolean;
  conversation?: string;
}

function parseCost(value: string): number {
  const cost = Number(value);
  if (!Number.isFinite(cost) || cost <= 0) throw new InvalidArgumentError(`--max-cost must be a positive number of US dollars, got "${value}"`);
  return cost;
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('Carry out a task on the desktop with a vision model')
    .argument('<task>', 'the task, in plain language')
    .option('--base-url <url>', 'OpenAI-compatible API root, e.g. http://localhost:11434/v1 (env OPENAI_BASE_URL)')
    .option('--model <name>', 'model name (env MNEMO_MODEL)')
    .addOption(new Option('--family <family>', 'reply format of the model').choices(MODEL_FAMILIES))
    .addOption(new Option('--model-version <version>', 'UI-TARS version').choices(['1.0', '1.5']))
    .option('--api-key-env <VAR>', 'read the API key from this environment variable (default OPENAI_API_KEY)')
    .option('--max-steps <n>', 'stop after this many steps (default 50)', parsePositiveInt('--max-steps'))
    .option('--max-cost <usd>', 'stop once the run has cost this much', parseCost)
    .option('--data-dir <dir>', 'where sessions and settings live (default ~/.mnemo)')
    .option('--config <file>', 'a settings file (default <data-dir>/config.json)')
    .option('--display <n>', 'the display to work on (default: the primary one)', parseDisplayNumber)
    .option('--redis-url <url>', 'keep the shared memory (blackboard, facts, working memory) in Redis, e.g. redis://127.0.0.1:6379 (env MNEMO_REDIS_URL)')
    .option('--memory-key-file <file>', 'encrypt the local memory files with the key in this file (env MNEMO_MEMORY_KEY)')
    .option('--conversation <id>', 'continue this conversation (its memory carries over); mnemo run prints the id of each')
    .option('--non-interactive', 'never ask: a question from the model fails the run')
    .option('--json', 'print one JSON event per line on stdout')
    .action(async (task: string, options: RunOptions) => {
      if (task.trim() === '') throw new InvalidInputError('the task is empty');
      const config = await loadConfig(options);
      if (!config.ok) throw new InvalidInputError(config.message);
      // Loaded on demand: the service brings the model client, the store and the memory.
      const [{ RunService }, { openDesktopOperator }] = await Promise.all([import('../../service/run-service'), import('../../service/desktop')]);
      const service = new RunService({ config: config.config, flags: options, openOperator: openDesktopOperator, log: (line) => process.stderr.write(`mnemo: ${line}\n`) });
      const settings = service.settings();
      if (!settings.ok) throw new InvalidInputError(settings.error.message);

      const started = await service.start({
        task,
        interactive: !options.nonInteractive,
        ...(options.conversation !== undefined ? { conversationId: options.conversation } : {}),
        ...(options.display !== undefined ? { display: options.display } : {}),
      });
      if (!started.ok) {
        const failure = startFailure(started.error);
        if (failure.code === ExitCode.invalidInput) throw new InvalidInputError(failure.message);
        process.stderr.write(`mnemo: ${failure.message}\n`);
        process.exitCode = failure.code;
        return;
      }
      const handle = started.value;
      const restoreSignals = stopOnInterrupt(handle);
      let outcome;
      try {
        outcome = await followOnTerminal(handle, { json: options.json === true, ask: options.nonInteractive ? null : terminalAsk() });
      } finally {
        restoreSignals();
      }
      if (!options.json) {
        process.stderr.write(`session ${handle.id} in ${handle.directory}\n`);
        process.stderr.write(`conversation ${handle.conversationId} (a follow-up task continues it with --conversation ${handle.conversationId})\n`);
      }
      if (outcome.recordFailure) process.stderr.write(`mnemo: warning: the session record is incomplete: ${outcome.recordFailure}\n`);
      process.exitCode = exitCodeFor(outcome.status);
      // Terminal input would keep the process alive after the run.
      process.stdin.destroy();
    });
}
