import { parseAction } from '../../../shared/actions';
import { actionFailure, type ActionResult } from '../../../shared/action-result';
import type { Size } from '../../../shared/frame';
import { imageFrame, screenFrame, unionRect } from '../../operator/geometry';
import { ExitCode, InvalidInputError } from '../exit-codes';
import { loadOperator } from '../operator-setup';

export interface ActCommandOptions {
  json: string;
  image?: Size;
  display?: number | 'all';
  failSafe: boolean;
}

function printResult(result: ActionResult): void {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exitCode = result.ok ? ExitCode.ok : ExitCode.errorResult;
}

/** `mnemo act`: one action on the desktop, its ActionResult printed as JSON. */
export async function actCommand(options: ActCommandOptions): Promise<void> {
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
}
