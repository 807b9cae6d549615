import type { Command } from 'commander';
import { ExitCode } from '../exit-codes';
import { operatorOrExplain } from '../operator-setup';

export function registerDisplaysCommand(program: Command): void {
  program
    .command('displays')
    .description('List the displays with their bounds (logical px) and scale factors')
    .option('--json', 'print a JSON array')
    .action(async (options: { json?: boolean }) => {
      const operator = await operatorOrExplain();
      if (!operator) {
        process.exitCode = ExitCode.errorResult;
        return;
      }
      const listed = await operator.displays();
      await operator.close();
      if (!listed.ok) {
        process.stderr.write(`mnemo: ${listed.message}\n`);
        process.exitCode = ExitCode.errorResult;
        return;
      }
      const displays = listed.displays;
      if (options.json) {
        process.stdout.write(`${JSON.stringify(displays)}\n`);
        return;
      }
      for (const display of displays) {
        const { x, y, width, height } = display.bounds;
        process.stdout.write(
          `${display.index}: ${display.name} ${width}x${height} at (${x}, ${y}), scale ${display.scaleFactor}${display.primary ? ', primary' : ''}\n`,
        );
      }
    });
}
