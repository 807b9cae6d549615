import type { Command } from 'commander';
import { parseAction } from '../../../shared/actions';
import type { ActionResult } from '../../../shared/action-result';
import type { Size } from '../../../shared/frame';
import { imageFrame, screenFrame, unionRect } from '../../operator/geometry';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { operatorOrExplain } from '../operator-setup';
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
    .description('Execute one action and print its ActionResult as JSON (exit 0 ok, 1 error result, 2 invalid input)')
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

      const operator = await operatorOrExplain({ failSafe: { enabled: options.failSafe } });
      if (!operator) {
        printResult({ ok: false, type: parsed.action.type, error: { kind: 'no_display', message: 'no display to act on (see the message above)' } });
        return;
      }
      const displays = await operator.displays();
      let frame;
      if (options.image) {
        const chosen =
          options.display === 'all'
            ? { id: 'all', bounds: unionRect(displays.map((d) => d.bounds)), scaleFactor: 1 }
            : options.display === undefined
              ? (displays.find((d) => d.primary) ?? displays[0])
              : displays[options.display];
        if (!chosen) throw new InvalidInputError(`--display ${options.display}: there are ${displays.length} displays (0-${displays.length - 1})`);
        frame = imageFrame(chosen.bounds, options.image, chosen.id, chosen.scaleFactor);
      } else {
        // Screen coordinates: the frame is the whole virtual desktop, one image px per logical px.
        frame = screenFrame(unionRect(displays.map((d) => d.bounds)), 'all');
      }
      printResult(await operator.execute(parsed.action, frame));
    });
}
