/**
 * `mnemo teach`: records a demonstration through the run service (`service.teaching.start`) and follows
 * it on the terminal: one line per step of the user's on stderr, or every event as a JSON line on
 * stdout (`--json`, as `mnemo run --json`); the session id is the last line of stdout. Ctrl+C stops
 * the recording cleanly (a second one quits at once), as does ctrl+alt+shift+s on the display.
 *
 * Exit codes: 0 recorded; 1 no display, no RECORD extension, the recording failed; 2 bad
 * arguments; 3 the display is busy.
 */
import { describeAction } from '../../../shared/describe-action';
import type { AgentEvent } from '../../../shared/events';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { startedOrExplain, stopOnInterrupt } from '../run-controls';
import { openService, type StorageOptions } from './workflow';

export interface TeachOptions extends StorageOptions {
  display?: number;
  json?: boolean;
}

/** The live line of an event, when it has one. */
function lineOf(event: AgentEvent): string | null {
  switch (event.type) {
    case 'action':
      return `  ${event.step}. ${describeAction(event.action)}`;
    case 'note':
      return `  ${event.message}`;
    case 'run-finished':
      return `${event.status === 'finished' ? 'recorded' : event.status}: ${event.reason}`;
    default:
      return null;
  }
}

export async function teachCommand(task: string, options: TeachOptions): Promise<void> {
  if (task.trim() === '') throw new InvalidInputError('say what you will do: mnemo teach "<what you will do>"');
  const service = await openService(options);
  const started = await service.teaching.start({ task, ...(options.display !== undefined ? { display: options.display } : {}) });
  if (!started.ok && started.error.kind === 'no_display') {
    process.stderr.write(`mnemo: ${started.error.message}\n`);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  const handle = startedOrExplain(started);
  if (!handle) return;
  if (!options.json) process.stderr.write(`mnemo teach: ${task}\nrecording on ${handle.desktop.display}: do the task by hand, then press Ctrl+C here or ctrl+alt+shift+s\n`);
  const restoreSignals = stopOnInterrupt(handle);
  try {
    for await (const event of handle.events()) {
      if (options.json) process.stdout.write(`${JSON.stringify(event)}\n`);
      else {
        const line = lineOf(event);
        if (line !== null) process.stderr.write(`${line}\n`);
      }
    }
  } finally {
    restoreSignals();
  }
  const outcome = await handle.done;
  if (outcome.status !== 'finished') {
    if (options.json) process.stderr.write(`mnemo teach: ${outcome.status}: ${outcome.reason}\n`);
    process.exitCode = ExitCode.errorResult;
  } else if (!options.json) {
    process.stderr.write(`session ${handle.id} in ${handle.directory}\nsave it as a workflow: mnemo workflow save ${handle.id} --name NAME --param NAME=VALUE\n`);
    process.stdout.write(`${handle.id}\n`);
  }
  await service.close();
  process.stdin.destroy();
}
