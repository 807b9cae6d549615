import { writeFile, rename } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import type { ImageFormat } from '../../../shared/frame';
import type { CaptureSource } from '../../operator/capture';
import { ExitCode } from '../exit-codes';
import { operatorOrExplain } from '../operator-setup';
import { parseDisplayIndex, parsePositiveInt, parseQuality } from '../options';

interface ScreenshotOptions {
  output: string;
  display?: number | 'all';
  maxWidth?: number;
  maxHeight?: number;
  maxPixels?: number;
  format?: ImageFormat;
  quality?: number;
  source: CaptureSource;
}

function formatFromPath(path: string): ImageFormat {
  return /\.png$/i.test(path) ? 'png' : 'jpeg';
}

export function registerScreenshotCommand(program: Command): void {
  program
    .command('screenshot')
    .description('Capture a display as the model sees it; write the image and print its Frame as JSON')
    .requiredOption('-o, --output <file>', 'where to write the image')
    .option('--display <n>', 'display index, or "all" (default: the primary display)', parseDisplayIndex)
    .option('--max-width <px>', 'largest image width (default 1280 unless a max is given)', parsePositiveInt('--max-width'))
    .option('--max-height <px>', 'largest image height', parsePositiveInt('--max-height'))
    .option('--max-pixels <n>', 'largest width × height', parsePositiveInt('--max-pixels'))
    .addOption(new Option('--format <format>', 'image encoding (default: from the file name, else jpeg)').choices(['jpeg', 'png']))
    .option('--quality <q>', 'JPEG quality 1-100 (default 80)', parseQuality)
    .addOption(new Option('--source <source>', 'capture path').choices(['nut-js', 'screenshot-desktop']).default('nut-js'))
    .action(async (options: ScreenshotOptions) => {
      const operator = await operatorOrExplain();
      if (!operator) {
        process.exitCode = ExitCode.errorResult;
        return;
      }
      const anyLimit = options.maxWidth ?? options.maxHeight ?? options.maxPixels;
      const captured = await operator.observe({
        ...(options.display !== undefined ? { display: options.display } : {}),
        // An explicit limit replaces the default 1280 px width rather than adding to it.
        maxWidth: options.maxWidth ?? (anyLimit === undefined ? 1280 : undefined),
        ...(options.maxHeight ? { maxHeight: options.maxHeight } : {}),
        ...(options.maxPixels ? { maxPixels: options.maxPixels } : {}),
        format: options.format ?? formatFromPath(options.output),
        ...(options.quality ? { quality: options.quality } : {}),
        source: options.source,
      });
      await operator.close();
      if (!captured.ok) {
        process.stderr.write(`mnemo: ${captured.message}\n`);
        process.exitCode = ExitCode.errorResult;
        return;
      }
      // Write beside the target and rename, so a reader never sees half an image.
      const partial = `${options.output}.partial`;
      await writeFile(partial, captured.observation.image);
      await rename(partial, options.output);
      process.stdout.write(`${JSON.stringify(captured.observation.frame)}\n`);
    });
}
