/**
 * `mnemo run "<task>"`: a thin adapter over the run service (src/main/service/): the task and the
 * flags in, a live terminal view (or one JSON event per line with --json) and an exit code out.
 * Exit codes: 0 finished, 3 failed / stuck / limit (also: the display busy or missing, the
 * provider unusable), 4 stopped by the user (Ctrl+C, the fail-safe corner, a refused
 * confirmation), 2 bad arguments, 1 the session cannot be recorded. Ctrl+C stops cleanly; a second
 * Ctrl+C quits at once.
 */
import { InvalidInputError } from '../exit-codes';
import { desktopRequestOf, type DesktopFlags } from '../desktop-flags';
import { loadConfig, type RunFlags } from '../../settings/settings';
import { keychainApiKey } from '../stored-key';
import { exitCodeFor, followOnTerminal, startedOrExplain, stopOnInterrupt, terminalAsk } from '../run-controls';

export interface RunOptions extends RunFlags, DesktopFlags {
  nonInteractive?: boolean;
  json?: boolean;
  conversation?: string;
}

export async function runCommand(task: string, options: RunOptions): Promise<void> {
  if (task.trim() === '') throw new InvalidInputError('the task is empty');
  const desktop = desktopRequestOf(options);
  if (!desktop.ok) throw new InvalidInputError(desktop.message);
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  // Loaded on demand: the service brings the model client, the store and the memory.
  const [{ RunService }, { openDesktopOperator }, { openRunElements }] = await Promise.all([
    import('../../service/run-service'),
    import('../../service/desktops/desktop'),
    import('../../service/runs/run-elements'),
  ]);
  const log = (line: string) => process.stderr.write(`mnemo: ${line}\n`);
  const service = new RunService({ config: config.config, flags: options, openOperator: openDesktopOperator, openElements: openRunElements, log, ...(await keychainApiKey(config.config, options, log)) });
  const settings = service.config.runSettings();
  if (!settings.ok) throw new InvalidInputError(settings.error.message);

  const started = await service.agentRuns.start({
    task,
    interactive: !options.nonInteractive,
    ...(options.conversation !== undefined ? { conversationId: options.conversation } : {}),
    ...(options.display !== undefined ? { display: options.display } : {}),
    ...(desktop.request?.private ? { desktop: desktop.request, keepDesktop: options.keepDesktop === true } : {}),
  });
  const handle = startedOrExplain(started);
  if (!handle) return;
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
  // A run that stopped because of it already said so in its reason.
  if (outcome.recordFailure && !outcome.reason.includes(outcome.recordFailure)) process.stderr.write(`mnemo: warning: the session record is incomplete: ${outcome.recordFailure}\n`);
  process.exitCode = exitCodeFor(outcome.status);
  // The blackboard's summary of this task is written (by the memory model) before the process ends.
  if (service.memoryHost.summarizing && !options.json) process.stderr.write('mnemo: writing the blackboard summary of this task (Ctrl+C skips it; mnemo memory compact does it later)\n');
  await service.close();
  // Terminal input would keep the process alive after the run.
  process.stdin.destroy();
}
