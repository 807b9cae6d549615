import { writeUserFile } from '../../disk/user-file';
import type { ImageFormat } from '../../../shared/frame';
import type { CaptureSource } from '../../operator/capture';
import { ExitCode } from '../exit-codes';
import { operatorOrExplain } from '../operator-setup';

export interface ScreenshotOptions {
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

/** `mnemo screenshot`: a display as the model sees it, written to a file; its Frame printed as JSON. */
export async function screenshotCommand(options: ScreenshotOptions): Promise<void> {
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
  // Owner-only and whole (beside the target, renamed into place): it is a picture of the screen.
  const written = await writeUserFile(options.output, captured.observation.image);
  if (!written.ok) {
    process.stderr.write(`mnemo: ${written.message}\n`);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  process.stdout.write(`${JSON.stringify(captured.observation.frame)}\n`);
}
