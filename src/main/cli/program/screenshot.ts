import { Option, type Command } from 'commander';
import type { ScreenshotOptions } from '../commands/screenshot';
import { addDisplayOption, parsePositiveInt, parseQuality } from '../options';

export function registerScreenshotCommand(program: Command): void {
  addDisplayOption(
    program
      .command('screenshot')
      .description('Capture a display as the model sees it; write the image and print its Frame as JSON')
      .requiredOption('-o, --output <file>', 'where to write the image'),
    'the display to capture',
    { all: true },
  )
    .option('--max-width <px>', 'largest image width (default 1280 unless a max is given)', parsePositiveInt('--max-width'))
    .option('--max-height <px>', 'largest image height', parsePositiveInt('--max-height'))
    .option('--max-pixels <n>', 'largest width × height', parsePositiveInt('--max-pixels'))
    .addOption(new Option('--format <format>', 'image encoding (default: from the file name, else jpeg)').choices(['jpeg', 'png']))
    .option('--quality <q>', 'JPEG quality 1-100 (default 80)', parseQuality)
    .addOption(new Option('--source <source>', 'capture path').choices(['nut-js', 'screenshot-desktop']).default('nut-js'))
    .action(async (options: ScreenshotOptions) => (await import('../commands/screenshot')).screenshotCommand(options));
}
