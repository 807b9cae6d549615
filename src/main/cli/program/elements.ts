import { InvalidArgumentError, type Command } from 'commander';
import type { ElementsOptions } from '../commands/elements';
import { addDisplayOption, parsePositiveInt } from '../options';

/** `--at X,Y`: a point in screen pixels. */
export function parsePointOption(value: string): { x: number; y: number } {
  const match = /^\s*(-?\d+)\s*,\s*(-?\d+)\s*$/.exec(value);
  if (!match) throw new InvalidArgumentError(`--at must be X,Y in screen pixels (for example 200,340), got "${value}"`);
  return { x: Number(match[1]), y: Number(match[2]) };
}

export function registerElementsCommand(program: Command): void {
  addDisplayOption(
    program
      .command('elements')
      .description("Read the active window's elements from the accessibility tree (AT-SPI): role, name, value, states, bounds on the screen and on the model's image")
      .option('--json', 'print JSON: the snapshot, or with --at / --find the one element')
      .option('--at <X,Y>', 'only the element under this screen point', parsePointOption)
      .option('--find <role:name>', 'only the element a query names, e.g. "push button:Submit", "entry:User name", ":OK"'),
    "the display whose model image the elements' imageBounds are on",
  )
    .option('--max-width <px>', 'the model image: largest width (default 1280 unless a max is given), as mnemo screenshot', parsePositiveInt('--max-width'))
    .option('--max-height <px>', 'the model image: largest height', parsePositiveInt('--max-height'))
    .option('--max-pixels <n>', 'the model image: largest width × height', parsePositiveInt('--max-pixels'))
    .option('--budget <ms>', 'how long the snapshot may take before it is cut and says so (default 2000)', parsePositiveInt('--budget'))
    .action(async (options: ElementsOptions) => (await import('../commands/elements')).elementsCommand(options));
}
