/**
 * `mnemo parse`: read one raw model reply on stdin, print its thought and actions in the shared
 * wire format. Pure parsing: no model, no display.
 */
import { type Command, Option } from 'commander';
import { ExitCode } from '../exit-codes';
import { parseImageSize } from '../options';
import {
  type ImageSize,
  MODEL_FAMILIES,
  type ModelFamily,
  parseReply,
  UI_TARS_VERSIONS,
  type UiTarsVersion,
} from '../../model/families';

interface ParseCommandOptions {
  family: ModelFamily;
  modelVersion?: UiTarsVersion;
  image?: ImageSize;
}

const HELP_AFTER = `
Input on stdin:
  tools       the assistant's text (a JSON action in prose, fenced or not), or the assistant
              message as JSON: {"role":"assistant","content":...,"tool_calls":[...]}
  ui-tars     the UI-TARS text: Thought: ... / Action: click(start_box='(x,y)') ...
  openai-cua  one Responses API output item, or a whole response {"output":[...]}

Coordinates in the output are pixels of the WxH image:
  tools       --image is the image sent; coordinates are checked to lie within it.
  openai-cua  --image is the display size given to the computer_use_preview tool; checked.
  ui-tars 1.0 (and Doubao) coordinates are 0-1000 relative, mapped onto --image and rounded
              to whole pixels; without --image they stay in the 0-1000 space.
  ui-tars 1.5 coordinates are pixels of the image the model saw (after its smart resize):
              --image is that size; they are printed as written, checked to lie within it
              (without --image, printed as written and unchecked).
--model-version defaults to 1.5 when --image is given and to 1.0 without it.

Output: {"thought": string|null, "actions": [...]} on one line, exit 0.
A reply that cannot be parsed, or a bad flag: "mnemo parse: <reason>" on stderr, exit 2.`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

function complain(reason: string): void {
  process.stderr.write(`mnemo parse: ${reason}\n`);
  process.exitCode = ExitCode.invalidInput;
}

export function registerParseCommand(program: Command): void {
  program
    .command('parse')
    .description("Parse one raw model reply read on stdin into the model's thought and actions in the wire format.")
    .addOption(
      new Option('--family <family>', 'the reply format').choices(MODEL_FAMILIES).makeOptionMandatory(),
    )
    .addOption(
      new Option('--model-version <version>', 'UI-TARS version (ui-tars only; default: 1.5 with --image, else 1.0)').choices(
        UI_TARS_VERSIONS,
      ),
    )
    .addOption(new Option('--image <WxH>', 'size of the image the coordinates refer to').argParser(parseImageSize))
    .addHelpText('after', HELP_AFTER)
    // Commander's own complaints (bad choice, missing --family) in this command's voice; exit 2.
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'mnemo parse: ')) })
    .action(async (options: ParseCommandOptions) => {
      if (options.modelVersion !== undefined && options.family !== 'ui-tars') {
        complain('--model-version applies to --family ui-tars only');
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
      });
      if (!result.ok) {
        complain(result.reason);
        return;
      }
      process.stdout.write(`${JSON.stringify({ thought: result.thought, actions: result.actions })}\n`);
    });
}
