import type { Command } from 'commander';
import type { ActCommandOptions } from '../commands/act';
import { addDisplayOption, parseImageSize } from '../options';

export function registerActCommand(program: Command): void {
  addDisplayOption(
    program
      .command('act')
      .description('Execute one action and print its ActionResult as JSON (exit 0 ok, 1 error result or no display, 2 invalid input)')
      .requiredOption('--json <action>', 'the action, e.g. \'{"type":"click","x":100,"y":200}\'')
      .option('--image <WxH>', 'coordinates are pixels of an image of this size covering the display (default: screen coordinates)', parseImageSize),
    'the display --image covers',
    { all: true },
  )
    .option('--no-fail-safe', 'do not refuse actions while the mouse is in the top-left corner')
    .action(async (options: ActCommandOptions) => (await import('../commands/act')).actCommand(options));
}
