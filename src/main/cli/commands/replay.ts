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
import { z } from 'zod';
import type { ReplayPolicy as Policy } from '../../replay/policy';
import { InvalidInputError } from '../exit-codes';
import { desktopRequestOf, type DesktopFlags } from '../desktop-flags';
import { loadConfig, type RunFlags } from '../../settings/settings';
import { keychainApiKey } from '../stored-key';
import { exitCodeFor, followOnTerminal, startedOrExplain, stopOnInterrupt, terminalAsk } from '../run-controls';

export interface ReplayCommandOptions extends RunFlags, DesktopFlags {
  policy: Policy;
  speed: number;
  /** As JSON.parse read it; checked against the schema when the command runs. */
  thresholds?: unknown;
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

/** The divergence thresholds `--thresholds` names (valid JSON already), or why they are not. */
function checkedThresholds(json: unknown): Record<string, number> {
  const parsed = ThresholdsSchema.safeParse(json);
  if (!parsed.success) {
    throw new InvalidInputError(`--thresholds: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`);
  }
  return parsed.data as Record<string, number>;
}

/** Under --policy ask, a divergence can also be skipped. */
function replayAnswerHint(request: { kind: string; question: string }): string {
  return request.kind === 'question' ? 'your answer' : /\(skip\)/.test(request.question) ? 'yes/skip/no' : 'yes/no';
}

export async function replayCommand(id: string, options: ReplayCommandOptions): Promise<void> {
  const thresholds = options.thresholds === undefined ? undefined : checkedThresholds(options.thresholds);
  // --keep-desktop also keeps the private desktop a session recorded, started again.
  const desktop = desktopRequestOf(options, { recordedPrivate: true });
  if (!desktop.ok) throw new InvalidInputError(desktop.message);
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  const [{ RunService }, { openDesktopOperator }] = await Promise.all([import('../../service/run-service'), import('../../service/desktops/desktop')]);
  const log = (line: string) => process.stderr.write(`mnemo: ${line}\n`);
  const service = new RunService({ config: config.config, flags: options, openOperator: openDesktopOperator, log, ...(await keychainApiKey(config.config, options, log)) });
  // The model is needed only to reground; under ask, a model given on the command line is offered as an answer.
  const wantsModel = options.policy === 'reground' || (options.policy === 'ask' && options.model !== undefined);
  const started = await service.replays.start({
    session: id,
    policy: options.policy,
    speed: options.speed,
    interactive: !options.nonInteractive,
    ...(thresholds ? { thresholds } : {}),
    ...(options.display !== undefined ? { display: options.display } : {}),
    ...(wantsModel ? { model: {} } : {}),
    ...(desktop.request ? { desktop: desktop.request } : {}),
    keepDesktop: options.keepDesktop === true,
  });
  const handle = startedOrExplain(started);
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
}
