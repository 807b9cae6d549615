import { InvalidArgumentError, Option, type Command } from 'commander';
import { REPLAY_POLICIES } from '../../replay/policy';
import type { ReplayCommandOptions } from '../commands/replay';
import { addDesktopOptions, addDisplayOption, addMemoryStoreOptions, addSettingsOptions, addStoreOption, parseSpeed } from '../options';

/** Shown after the options; the threshold defaults are checked against divergence.ts by a unit test. */
export const REPLAY_HELP = `
Before each recorded step the screen is compared with the recorded screenshot, as a whole and
in a square around each target; on a difference, --policy decides:
  stop      fail before the step acts, naming the step, the target and the difference
  ask       ask: yes (replay it as recorded), skip (go on with the next step), reground (with
            --model given), anything else stops (refused)
  reground  the model finds the same targets on the current screen; its actions run instead

Typed secrets are masked in recordings: under ask you are asked to type them, otherwise the
replay fails at that step.

--thresholds keys (defaults): screenMean 0.04, screenChanged 0.2, thumbnailWidth 160,
  patchSize 96 (image px), patchMean 0.02, patchChanged 0.02, pixelTolerance 0.1

Exit codes: 0 replayed to the end, 1 no such session, 2 bad arguments, 3 failed (a divergence
under stop, an action that failed), 4 stopped by the user (Ctrl+C, fail-safe, "stop" under ask).`;

/** JSON here; its keys and values are checked when the command runs (by a schema not loaded at start). */
function parseThresholdsJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`--thresholds must be a JSON object: ${(error as Error).message}`);
  }
}

export function registerReplayCommand(program: Command): void {
  const replay = addSettingsOptions(program.command('replay'), 'reground: ')
    .description('Run a recorded session again on the desktop, without the model, stopping where the screen no longer matches')
    .argument('<id>', 'the session to replay (a folder name under <data-dir>/sessions)')
    .addOption(new Option('--policy <policy>', 'on divergence: stop, ask the user, or reground with the model').choices(REPLAY_POLICIES).default('stop'))
    .option('--speed <x>', 'recorded pauses between steps divided by this; 0 or "max": no pauses', parseSpeed, 1)
    .option('--thresholds <json>', 'divergence thresholds as JSON, e.g. \'{"patchMean":0.05}\'', parseThresholdsJson);
  addStoreOption(
    addDesktopOptions(
      addMemoryStoreOptions(addDisplayOption(replay, 'the display to replay on'), 'as for mnemo run (scripts may pass the same flags to both); a replay reads and changes no memory'),
      'replay (default: the desktop the session ran on; a private one is started the same again)',
    ),
    'the session to replay may be there; the replay\'s own session goes there once it ends',
  )
    .option('--non-interactive', 'never ask: a question (under --policy ask, or a recorded confirmation) stops the replay')
    .option('--json', 'print one JSON event per line on stdout')
    .addHelpText('after', REPLAY_HELP)
    .action(async (id: string, options: ReplayCommandOptions) => (await import('../commands/replay')).replayCommand(id, options));
}
