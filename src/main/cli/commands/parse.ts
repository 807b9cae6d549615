/**
 * `mnemo parse`: read one raw model reply on stdin, print its thought and actions in the shared
 * wire format. Pure parsing: no model, no display.
 */
import { ExitCode } from '../exit-codes';
import { type CoordinateSpace, type ImageSize, type ModelFamily, parseReply, type UiTarsVersion } from '../../model/families';
import { computerToolProblem, coordinatesProblem, type ComputerToolChoice } from '../../../shared/model-families';

export interface ParseCommandOptions {
  family: ModelFamily;
  modelVersion?: UiTarsVersion;
  image?: ImageSize;
  coordinates?: CoordinateSpace;
  computerTool?: ComputerToolChoice;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function complain(reason: string): void {
  process.stderr.write(`mnemo parse: ${reason}\n`);
  process.exitCode = ExitCode.invalidInput;
}

export async function parseCommand(options: ParseCommandOptions): Promise<void> {
  if (options.modelVersion !== undefined && options.family !== 'ui-tars') {
    complain('--model-version applies to --family ui-tars only');
    return;
  }
  const coordinates = coordinatesProblem(options);
  if (coordinates !== null) {
    complain(`--coordinates: ${coordinates}`);
    return;
  }
  const tool = computerToolProblem(options);
  if (tool !== null) {
    complain(`--computer-tool: ${tool}`);
    return;
  }
  if (process.stdin.isTTY) {
    complain('no reply on stdin: pipe the raw model reply into mnemo parse');
    return;
  }
  const reply = await readStdin();
  const result = parseReply(options.family, reply, {
    image: options.image,
    uiTarsVersion: options.modelVersion, // default: defaultUiTarsVersion (1.5 with --image, else 1.0)
    ...(options.coordinates !== undefined ? { coordinates: { space: options.coordinates } } : {}),
    computerTool: options.computerTool,
  });
  if (!result.ok) {
    complain(result.reason);
    return;
  }
  process.stdout.write(`${JSON.stringify({ thought: result.thought, actions: result.actions })}\n`);
}
