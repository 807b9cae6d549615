import { ExitCode } from '../exit-codes';
import { operatorOrExplain } from '../operator-setup';

/** `mnemo displays`: the displays with their bounds and scale factors. */
export async function displaysCommand(options: { json?: boolean }): Promise<void> {
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
}
