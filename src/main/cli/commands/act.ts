import type { Command } from 'commander';
import { parseAction } from '../../../shared/actions';
import { actionFailure, type ActionResult } from '../../../shared/action-result';
import type { Size } from '../../../shared/frame';
import { imageFrame, screenFrame, unionRect } from '../../operator/geometry';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { loadOperator } from '../operator-setup';
import { parseDisplayIndex, parseImageSize } from '../options';

interface ActOptions {
  json: string;
  image?: Size;
  display?: number | 'all';
  failSafe: boolean;
}

function printResult(result: ActionResult): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = result.ok ? ExitCode.ok : ExitCode.errorResult;
}

export function registerActCommand(program: Command): void {
  program
    .command('act')
    .description('Execute one action and print its ActionResult as JSON (exit 0 ok, 1 error result or no display, 2 invalid input)')
    .requiredOption('--json <action>', 'the action, e.g. \'{"type":"click","x":100,"y":200}\'')
    .option('--image <WxH>', 'coordinates are pixels of an image of this size covering the display (default: screen coordinates)', parseImageSize)
    .option('--display <n>', 'the display --image covers (default: the primary display)', parseDisplayIndex)
    .option('--no-fail-safe', 'do not refuse actions while the mouse is in the top-left corner')
    .action(async (options: ActOptions) => {
      let raw: unknown;
      try {
        raw = JSON.parse(options.json);
      } catch (error) {
        throw new InvalidInputError(`--json is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
      const parsed = parseAction(raw);
      if (!parsed.ok) throw new InvalidInputError(parsed.message);

      const loaded = await loadOperator({ failSafe: { enabled: options.failSafe } });
      if (!loaded.ok) {
        process.stderr.write(`mnemo: ${loaded.message}\n`);
        printResult(actionFailure('no_display', loaded.message, parsed.action.type));
        return;
      }
      const operator = loaded.operator;
      const listed = await operator.displays();
      if (!listed.ok) {
        await operator.close();
        process.stderr.write(`mnemo: ${listed.message}\n`);
        printResult(actionFailure(listed.kind ?? 'input_failed', listed.message, parsed.action.type));
        return;
      }
      const displays = listed.displays;
      let frame;
      if (options.image) {
        const chosen =
          options.display === 'all'
            ? { id: 'all', bounds: unionRect(displays.map((d) => d.bounds)), scaleFactor: 1 }
            : options.display === undefined
              ? (displays.find((d) => d.primary) ?? displays[0])
              : displays[options.display];
        if (!chosen) {
          await operator.close();
          throw new InvalidInputError(`--display ${options.display}: there are ${displays.length} displays (0-${displays.length - 1})`);
        }
        frame = imageFrame(chosen.bounds, options.image, chosen.id, chosen.scaleFactor);
      } else {
        // Screen coordinates: the frame is the whole virtual desktop, one image px per logical px.
        frame = screenFrame(unionRect(displays.map((d) => d.bounds)), 'all');
      }
      const result = await operator.execute(parsed.action, frame);
      await operator.close();
      if (!result.ok && result.error.kind === 'no_display') process.stderr.write(`mnemo: ${result.error.message}\n`);
      printResult(result);
    });
}
