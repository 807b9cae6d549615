/**
 * `mnemo run "<task>"`: composes the agent (model, operator, recorder) and runs it with a live
 * terminal view, or JSON events on stdout with --json. Exit codes: 0 finished, 3 failed / stuck /
 * limit, 4 stopped by the user (Ctrl+C, the fail-safe corner, a refused confirmation), 2 bad
 * arguments. Ctrl+C stops cleanly; a second Ctrl+C quits at once.
 */
import { join, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { RunStatus } from '../../../shared/events';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { operatorOrExplain } from '../operator-setup';
import { parseDisplayNumber, parsePositiveInt } from '../options';
import { resolveRunSettings, type RunFlags } from '../run-settings';
import { readStoreSettings, retentionOf } from '../../store/store-settings';
import { TerminalView } from '../terminal-view';
import { exitCodeFor, stopOnInterrupt, terminalAsk } from '../run-controls';

interface RunOptions extends RunFlags {
  nonInteractive?: boolean;
  json?: boolean;
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
    .addOption(new Option('--family <family>', 'reply format of the model').choices(['tools', 'ui-tars', 'openai-cua']))
    .addOption(new Option('--model-version <version>', 'UI-TARS version').choices(['1.0', '1.5']))
    .option('--api-key-env <VAR>', 'read the API key from this environment variable (default OPENAI_API_KEY)')
    .option('--max-steps <n>', 'stop after this many steps (default 50)', parsePositiveInt('--max-steps'))
    .option('--max-cost <usd>', 'stop once the run has cost this much', parseCost)
    .option('--data-dir <dir>', 'where sessions and settings live (default ~/.mnemo)')
    .option('--config <file>', 'a settings file (default <data-dir>/config.json)')
    .option('--display <n>', 'the display to work on (default: the primary one)', parseDisplayNumber)
    .option('--non-interactive', 'never ask: a question from the model fails the run')
    .option('--json', 'print one JSON event per line on stdout')
    .action(async (task: string, options: RunOptions) => {
      if (task.trim() === '') throw new InvalidInputError('the task is empty');
      const resolved = await resolveRunSettings(options);
      if (!resolved.ok) throw new InvalidInputError(resolved.message);
      const settings = resolved.settings;
      const storeSettings = await readStoreSettings(options.config ? resolve(options.config) : join(settings.dataDir, 'config.json'), options.config !== undefined);
      if (!storeSettings.ok) throw new InvalidInputError(storeSettings.message);

      const operator = await operatorOrExplain({ capture: { ...(options.display !== undefined ? { display: options.display } : {}) } });
      if (!operator) {
        process.exitCode = ExitCode.runFailed;
        return;
      }
      // Loaded on demand, like the operator: the openai client alone takes a quarter second.
      const [{ DeviceAgent }, { createVisionModel }, { FileRunRecorder }, { SessionStore }] = await Promise.all([
        import('../../agent/device-agent'),
        import('../../model'),
        import('../../store/run-recorder'),
        import('../../store/session-store'),
      ]);
      // Before this run's session exists: mark sessions whose process died, apply retention.
      const housekeeping = await new SessionStore(settings.dataDir).prune(retentionOf(storeSettings.settings));
      for (const warning of housekeeping.warnings) process.stderr.write(`mnemo: warning: ${warning.message}\n`);
      for (const id of housekeeping.interrupted) process.stderr.write(`mnemo: session ${id} was interrupted (its process is gone): marked so\n`);
      if (housekeeping.deleted.length > 0) process.stderr.write(`mnemo: retention: deleted ${housekeeping.deleted.length} old session(s)\n`);
      const model = createVisionModel(settings.model, { prices: settings.prices });
      const recorder = await FileRunRecorder.create(settings.dataDir, { task, model: settings.model.model, family: settings.model.family }).catch((error: unknown) => {
        process.stderr.write(`mnemo: cannot record the session in ${settings.dataDir}: ${error instanceof Error ? error.message : String(error)}\n`);
        return null;
      });
      if (!recorder) {
        process.exitCode = ExitCode.errorResult;
        return;
      }
      const ask = options.nonInteractive ? async () => null : terminalAsk();
      const { openCliMemory } = await import('../memory-setup');
      const memory = await openCliMemory(settings, settings.prices);
      for (const warning of memory.warnings) process.stderr.write(`mnemo: warning: ${warning}\n`);
      const agent = new DeviceAgent(
        { model, operator, recorder, askUser: ask, memory: memory.deps },
        {
          memory: { layers: settings.memory.layers, pruning: settings.memory.pruning },
          limits: {
            maxSteps: settings.maxSteps,
            maxCostUsd: settings.maxCostUsd,
            maxConsecutiveErrors: settings.maxConsecutiveErrors,
            maxParseRetries: 3,
          },
          keepScreenshots: settings.keepScreenshots,
          confirmationRules: settings.confirmationRules,
          capture: {
            maxWidth: settings.image.maxWidth,
            format: settings.image.format,
            quality: settings.image.quality,
            keepFullResolution: storeSettings.settings.keepFullResolution,
            ...(options.display !== undefined ? { display: options.display } : {}),
          },
        },
      );

      const stop = new AbortController();
      const restoreSignals = stopOnInterrupt(stop);

      const view = options.json ? undefined : new TerminalView();
      let status: RunStatus = 'failed';
      try {
        for await (const event of agent.run(task, stop.signal)) {
          if (options.json) process.stdout.write(`${JSON.stringify(event)}\n`);
          else view?.show(event);
          if (event.type === 'run-finished') status = event.status;
        }
      } finally {
        restoreSignals();
        await memory.save().catch((error: unknown) => process.stderr.write(`mnemo: warning: the conversation memory was not saved: ${String(error)}\n`));
      }
      if (!options.json) process.stderr.write(`session ${recorder.sessionId} in ${recorder.directory}\n`);
      if (recorder.failure) process.stderr.write(`mnemo: warning: the session record is incomplete: ${recorder.failure}\n`);
      process.exitCode = exitCodeFor(status);
      // Terminal input would keep the process alive after the run.
      process.stdin.destroy();
    });
}
