/**
 * `mnemo replay <id>`: runs a recorded session's actions again on the desktop without the model,
 * checking before each step that the screen still looks as recorded (src/main/replay/). The replay
 * is recorded as a new session whose session.json names the replayed one (`replayOf`).
 *
 *   --policy stop|ask|reground   on divergence: fail (default), ask on the terminal, or find the
 *                                target again with the model (takes the model flags of `mnemo run`)
 *   --speed X                    recorded pauses divided by X (default 1); 0 or "max": no pauses
 *   --thresholds JSON            divergence thresholds, e.g. '{"patchMean":0.05}' (see divergence.ts)
 *
 * Exit codes as `mnemo run`: 0 replayed to the end, 3 failed (a divergence under `stop`, an action
 * that failed), 4 stopped by the user (Ctrl+C, the fail-safe corner, "stop" under `ask`), 2 bad
 * arguments, 1 no such session. Ctrl+C stops cleanly; a second Ctrl+C quits at once.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { z } from 'zod';
import { REPLAY_POLICIES as POLICIES, type ReplayPolicy as Policy } from '../../replay/policy';
import { InvalidInputError } from '../exit-codes';
import { loadConfig, type RunFlags } from '../../settings/settings';
import { exitCodeFor, followOnTerminal, startedOrExplain, stopOnInterrupt, terminalAsk } from '../run-controls';
import { addSettingsOptions, parseDisplayNumber } from '../options';

interface ReplayCommandOptions extends RunFlags {
  policy: Policy;
  speed: number;
  thresholds?: Record<string, number>;
  nonInteractive?: boolean;
  json?: boolean;
}

const ThresholdsSchema = z
  .object({
    screenMean: z.number().min(0).max(1),
    screenChanged: z.number().min(0).max(1),
    thumbnailWidth: z.number().int().positive(),
    patchSize: z.number().int().positive(),
    patchMean: z.number().min(0).max(1),
    patchChanged: z.number().min(0).max(1),
    pixelTolerance: z.number().min(0).max(1),
  })
  .partial()
  .strict();

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

function parseSpeed(value: string): number {
  if (value.trim().toLowerCase() === 'max') return 0;
  const speed = Number(value);
  if (value.trim() === '' || !Number.isFinite(speed) || speed < 0) {
    throw new InvalidArgumentError(`--speed must be a number ≥ 0 (0 or "max": no pauses), got "${value}"`);
  }
  return speed;
}

function parseThresholds(value: string): Record<string, number> {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`--thresholds must be a JSON object: ${(error as Error).message}`);
  }
  const parsed = ThresholdsSchema.safeParse(json);
  if (!parsed.success) {
    throw new InvalidArgumentError(`--thresholds: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`);
  }
  return parsed.data as Record<string, number>;
}

/** Under --policy ask, a divergence can also be skipped. */
function replayAnswerHint(request: { kind: string; question: string }): string {
  return request.kind === 'question' ? 'your answer' : /\(skip\)/.test(request.question) ? 'yes/skip/no' : 'yes/no';
}

export function registerReplayCommand(program: Command): void {
  addSettingsOptions(program.command('replay'), 'reground: ')
    .description('Run a recorded session again on the desktop, without the model, stopping where the screen no longer matches')
    .argument('<id>', 'the session to replay (a folder name under <data-dir>/sessions)')
    .addOption(new Option('--policy <policy>', 'on divergence: stop, ask the user, or reground with the model').choices(POLICIES).default('stop'))
    .option('--speed <x>', 'recorded pauses between steps divided by this; 0 or "max": no pauses', parseSpeed, 1)
    .option('--thresholds <json>', 'divergence thresholds as JSON, e.g. \'{"patchMean":0.05}\'', parseThresholds)
    .option('--display <n>', 'the display to replay on (default: the primary one)', parseDisplayNumber)
    .option('--redis-url <url>', 'as for mnemo run (scripts may pass the same flags to both); a replay reads and changes no memory')
    .option('--memory-key-file <file>', 'as for mnemo run; a replay reads and changes no memory')
    .option('--non-interactive', 'never ask: a question (under --policy ask, or a recorded confirmation) stops the replay')
    .option('--json', 'print one JSON event per line on stdout')
    .addHelpText('after', REPLAY_HELP)
    .action(async (id: string, options: ReplayCommandOptions) => {
      const config = await loadConfig(options);
      if (!config.ok) throw new InvalidInputError(config.message);
      const [{ RunService }, { openDesktopOperator }] = await Promise.all([import('../../service/run-service'), import('../../service/desktop')]);
      const service = new RunService({ config: config.config, flags: options, openOperator: openDesktopOperator, log: (line) => process.stderr.write(`mnemo: ${line}\n`) });
      // The model is needed only to reground; under ask, a model given on the command line is offered as an answer.
      const wantsModel = options.policy === 'reground' || (options.policy === 'ask' && options.model !== undefined);
      const started = await service.replay({
        session: id,
        policy: options.policy,
        speed: options.speed,
        interactive: !options.nonInteractive,
        ...(options.thresholds ? { thresholds: options.thresholds } : {}),
        ...(options.display !== undefined ? { display: options.display } : {}),
        ...(wantsModel ? { model: {} } : {}),
      });
      const handle = startedOrExplain(started, (text) => service.redact(text));
      if (!handle) return;
      const restoreSignals = stopOnInterrupt(handle);
      let outcome;
      try {
        outcome = await followOnTerminal(handle, {
          json: options.json === true,
          ask: options.nonInteractive ? null : terminalAsk(replayAnswerHint),
          show: (event) => {
            // A header says what run-started would (in the loop's words).
            if (event.type === 'run-started') {
              const speed = options.speed === 0 ? 'no pauses' : `speed ${options.speed}`;
              const using = event.model !== 'none' ? `, model ${event.model} (${event.family})` : '';
              process.stderr.write(`replaying session ${event.replayOf ?? id}: ${event.task}\npolicy ${options.policy}, ${speed}${using}\n`);
              return false;
            }
            return true;
          },
        });
      } finally {
        restoreSignals();
      }
      // The reason goes to stderr with --json too: it is what a script's log should show.
      if (options.json && outcome.status !== 'finished') process.stderr.write(`mnemo replay: ${outcome.status}: ${outcome.reason}\n`);
      if (!options.json) process.stderr.write(`replay session ${handle.id} in ${handle.directory}\n`);
      process.exitCode = exitCodeFor(outcome.status);
      // Terminal input would keep the process alive after the replay.
      process.stdin.destroy();
    });
}
