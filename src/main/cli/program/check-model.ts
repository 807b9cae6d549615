import type { Command } from 'commander';
import type { CheckOptions } from '../commands/check-model';
import { addSettingsOptions, parsePositiveInt } from '../options';

export function registerCheckModelCommand(program: Command): void {
  addSettingsOptions(program.command('check-model').description('Check the configured model provider: one small request with an image, its latency, and whether the image was accepted'))
    .option('--grounding', 'check where the model clicks instead: synthetic screenshots of the run\'s image size, each with one labelled button; reports the coordinate space its answers are in, and the fix when it is not the configured one (exit 0 when it is and at least 80% of the targets are hit, 3 otherwise)')
    .option('--targets <n>', 'with --grounding: how many targets (default 5)', parsePositiveInt('--targets'))
    .option(
      '--json',
      'print {"ok", "latencyMs", "imageAccepted", "reply", "note"} or {"ok": false, "message", "status"}; with --grounding {"configured", "detected", "targets", "hits": {"image", "smart-resize", "relative-1000", "relative-1"}, "meanErrorPx", "samples": [{"target": {"x", "y", "width", "height"}, "answer": {"x", "y"}}]} (pixels of the image sent)',
    )
    .action(async (options: CheckOptions) => (await import('../commands/check-model')).checkModelCommand(options));
}
