import { type Command, Option } from 'commander';
import { COORDINATE_FAMILIES, MODEL_FAMILIES, UI_TARS_VERSIONS } from '../../../shared/model-families';
import type { ParseCommandOptions } from '../commands/parse';
import { computerToolOption, coordinatesOption, parseImageSize } from '../options';

const HELP_AFTER = `
Input on stdin:
  tools       the assistant's text (a JSON action in prose, fenced or not), or the assistant
              message as JSON: {"role":"assistant","content":...,"tool_calls":[...]}
  ui-tars     the UI-TARS text: Thought: ... / Action: click(start_box='(x,y)') ...
  openai-cua  one Responses API output item, or a whole response {"output":[...]}: a computer_call
              with one action (computer_use_preview) or a batch of actions (the GA computer tool)
  anthropic   a Messages API response {"content":[...]}, or its content array: Claude's turn with
              its tool_use blocks, several per turn, of the computer toolset (named by the member:
              left_click, type, zoom, ..., with "toolset_name": "computer") or of the older
              computer tool ({"name": "computer", "input": {"action": ...}})
  gemini      a generateContent response {"candidates":[...]}, the candidate's content
              {"role":"model","parts":[...]} (as Mnemo records it: {"content":...,"finishReason":...}),
              or its parts; in the REST API's camelCase or the Python SDK's snake_case
              (function_call, inline_data, finish_reason)
  pyautogui   a thought and Python pyautogui calls, in a \`\`\`python block or as bare lines:
                pyautogui.click(x, y, clicks=1, button='left'), doubleClick, tripleClick, rightClick,
                middleClick, moveTo(x, y), dragTo(x, y), mouseDown, mouseUp, scroll(clicks, x, y),
                hscroll, write('text') / typewrite, press('enter'), hotkey('ctrl', 'c') (or
                keys=[...]), keyDown, keyUp, time.sleep(s), and the markers WAIT, DONE, FAIL (also
                OpenCUA's computer.wait() and computer.terminate(status=...), and mnemo.ask_user(question),
                mnemo.save_fact(...), mnemo.query_long_term_memory(hint)); pyperclip.copy('text')
                then a paste (hotkey('ctrl', 'v'), ...) is typing the text. Never run: any other
                code, wherever it stands, is an error naming its line of the reply.

Coordinates in the output are pixels of the WxH image:
  tools       --image is the image sent; coordinates are checked to lie within it.
  openai-cua  --image is the screenshot sent (the display size of computer_use_preview); checked.
  anthropic   --image is the screenshot sent (the display size of the older tool); checked.
  ui-tars 1.0 (and Doubao) coordinates are 0-1000 relative, mapped onto --image and rounded
              to whole pixels; without --image they stay in the 0-1000 space.
  ui-tars 1.5 coordinates are pixels of the image the model saw (after its smart resize):
              --image is that size; they are printed as written, checked to lie within it
              (without --image, printed as written and unchecked).
  gemini      coordinates are on the 0-999 grid of the computer-use tool, mapped onto --image
              (not rounded); without --image they stay on the grid. A reply without a function
              call is "finished" with its text as the summary; a part that cannot be read is an
              error.
  pyautogui   --image is the image sent; coordinates are checked to lie within it.
--coordinates (tools, ui-tars, pyautogui) says the space the points are written in: image,
smart-resize (pixels of the model's Qwen-VL resize of --image), relative-1000 or relative-1; they
are checked on that grid and mapped onto --image (without --image a relative space is checked and
printed as written).
--model-version defaults to 1.5 when --image is given and to 1.0 without it.
--computer-tool (anthropic, openai-cua) names the tool the reply was written for; a call of the
other tool's shape is then an error. Without it (or with auto) both shapes are read.

Output: {"thought": string|null, "actions": [...]} on one line, exit 0.
A reply that cannot be parsed, or a bad flag: "mnemo parse: <reason>" on stderr, exit 2.`;

export function registerParseCommand(program: Command): void {
  program
    .command('parse')
    .description("Parse one raw model reply read on stdin into the model's thought and actions in the wire format.")
    .addOption(new Option('--family <family>', 'the reply format').choices(MODEL_FAMILIES).makeOptionMandatory())
    .addOption(new Option('--model-version <version>', 'UI-TARS version (ui-tars only; default: 1.5 with --image, else 1.0)').choices(UI_TARS_VERSIONS))
    .addOption(new Option('--image <WxH>', 'size of the image the coordinates refer to').argParser(parseImageSize))
    .addOption(coordinatesOption(`the space the points are written in (${COORDINATE_FAMILIES.join(', ')}; default: the family's own)`))
    .addOption(computerToolOption('the vendor tool the reply was written for (anthropic, openai-cua; default auto: either shape)'))
    .addHelpText('after', HELP_AFTER)
    // Commander's own complaints (bad choice, missing --family) in this command's voice; exit 2.
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'mnemo parse: ')) })
    .action(async (options: ParseCommandOptions) => (await import('../commands/parse')).parseCommand(options));
}
