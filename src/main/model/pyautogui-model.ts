/**
 * The `pyautogui` family: a model that writes its actions as Python pyautogui calls (OSWorld's
 * action space: OpenCUA, Agent-S and many open agents), over chat completions.
 *
 * The system prompt gives the action space and the coordinates the model writes in (pixels of the
 * screenshot by default, or the space it is set up with). Per earlier step: its screenshot (or the
 * placeholder), the model's reply as it came (else the thought and the actions written back as
 * code, in the model's coordinates), and what happened, before the new screenshot.
 */
import { type Point } from '../../shared/actions';
import { type ModelSettings } from '../../shared/settings';
import { outputLimit, type ChatRequest } from './client';
import { describeCoordinates, formatPyautoguiAction, frameFor, imageToModel, parsePyautoguiReply, PYAUTOGUI_WAIT_MS, type CoordinateFrame, type PyautoguiExtras } from './families';
import { ChatFamilyModel, familyCoordinates, type ChatFamilyDeps, type ChatStep } from './chat-family-model';
import { ChatTurns, sizeOf, ThoughtStream, visibleProse } from './messages';
import { type PredictInput, type StepRecord, type ThoughtListener } from './types';
import { elementsPromptOf } from './element-aid';

export type PyautoguiModelSettings = Pick<ModelSettings, 'model' | 'baseUrl' | 'stream' | 'temperature' | 'maxOutputTokens' | 'coordinates' | 'smartResize'>;

export type PyautoguiModelDeps = ChatFamilyDeps;

/** The system prompt: the action space, and the coordinates for a screenshot of `frame.image`. */
export function pyautoguiSystemPrompt(frame: CoordinateFrame, extra?: string): string {
  const size = `${frame.image.width}x${frame.image.height}`;
  const example = imageToModel({ x: frame.image.width * 0.883, y: frame.image.height * 0.9275 }, frame);
  const prompt = `You operate a computer for the user to complete their task. Each turn you get a screenshot of the screen (${size} pixels) and write the next actions as Python code with pyautogui, which Mnemo reads and carries out (it never runs your code).

Coordinates are ${describeCoordinates(frame)}. Aim at the centre of the element.

Answer with one or two sentences of thought, then the code in one \`\`\`python block, one call per line, for example:
I see the Save button at the bottom right.
\`\`\`python
pyautogui.click(${example.x}, ${example.y})
\`\`\`

The calls:
- pyautogui.click(x, y, clicks=1, button='left'); doubleClick(x, y); tripleClick(x, y); rightClick(x, y); middleClick(x, y)
- pyautogui.moveTo(x, y); pyautogui.dragTo(x, y, button='left') (from where the pointer is); mouseDown(x, y, button='left'); mouseUp(x, y, button='left')
- pyautogui.scroll(clicks, x, y): positive scrolls up, negative down (wheel notches); pyautogui.hscroll(clicks, x, y): positive right
- pyautogui.write('text') (also typewrite; '\\n' presses Enter); pyautogui.press('enter') or press(['tab', 'tab']); pyautogui.hotkey('ctrl', 'c'); keyDown('shift'); keyUp('shift')
- time.sleep(seconds)
- mnemo.ask_user('question'): you need something only the user knows
- mnemo.query_long_term_memory('hint'): recall what earlier tasks and conversations taught; the answer comes with the next screenshot
- mnemo.save_fact(keyword='preferred-editor', description="The user's preferred text editor", value='Vim', subject='user'): remember a lasting fact ('user' or 'machine')
- mnemo.run_workflow('form', name='Ada'): run a saved workflow the instructions offer, each of its parameters as a keyword; its report comes with the next screenshot
Instead of code, a block holding only one word: WAIT (look again in ${PYAUTOGUI_WAIT_MS / 1000} seconds), DONE (the task is done: say what was done in your thought), FAIL (the task cannot be done: say why).

Only these calls are read, with literal values; anything else is an error you will be shown. Check each screenshot for the effect of your last actions before going on.`;
  return extra !== undefined && extra.trim() !== '' ? `${prompt}\n\n${extra.trim()}` : prompt;
}

/** A step's turn: its own reply when kept, else its thought and its actions as code in the model's coordinates. */
export function pyautoguiTurn(step: StepRecord, frame: CoordinateFrame): string {
  if (step.reply !== undefined && step.reply.trim() !== '') return step.reply;
  const toModel = (point: Point) => imageToModel(point, frame);
  const lines = step.actions.map((action) => formatPyautoguiAction(action, toModel)).filter((line) => line !== null);
  const code = lines.length > 0 ? lines.join('\n') : 'WAIT';
  return `${step.thought ?? ''}\n\`\`\`python\n${code}\n\`\`\``.trimStart();
}

export function buildPyautoguiRequest(input: PredictInput, settings: PyautoguiModelSettings): ChatRequest {
  const coordinates = familyCoordinates('pyautogui', settings);
  const observation = sizeOf(input.observation);
  const turns = new ChatTurns(pyautoguiSystemPrompt(frameFor(coordinates, observation), input.system));
  turns.text(`Task: ${input.task}`);
  for (const step of input.history) {
    turns.screenshot(step, `Screenshot at step ${step.step}:`);
    const frame = frameFor(coordinates, step.screenshot ? sizeOf(step.screenshot) : observation);
    turns.assistant({ role: 'assistant', content: pyautoguiTurn(step, frame) });
    if (step.results.trim() !== '') turns.text(`Result of step ${step.step}: ${step.results}`);
  }
  if (input.feedback !== undefined && input.feedback.trim() !== '') turns.text(input.feedback);
  // pyautogui code has no element tools: each element comes with its centre in the coordinates it writes.
  const elements = elementsPromptOf(input, { byNumber: false, frame: frameFor(coordinates, observation) });
  if (elements !== null) turns.text(elements);
  turns.text(`Current screenshot (${observation.width}x${observation.height}):`);
  turns.image(input.observation);
  return {
    model: settings.model,
    messages: turns.build(),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...outputLimit(settings.baseUrl, settings.maxOutputTokens),
  };
}

const CODE_MARKERS = ['```', 'pyautogui.', 'pyperclip.', 'import '];

/** The thought of the reply so far: the prose before the code, without a `Thought:` label. */
export function visiblePyautoguiThought(text: string): string {
  return visibleProse(text, /```|^[ \t]*(?:pyautogui\.|pyperclip\.|import |time\.|(?:#+[ \t]*)?\**(?:Action|Code)\**[ \t]*[:：])/m, CODE_MARKERS);
}

export class PyautoguiModel extends ChatFamilyModel<PyautoguiModelSettings, PyautoguiExtras> {
  readonly family = 'pyautogui' as const;

  protected step(input: PredictInput, onThought: ThoughtListener | undefined): ChatStep<PyautoguiExtras> {
    const image = sizeOf(input.observation);
    return {
      request: buildPyautoguiRequest(input, this.settings),
      thoughts: new ThoughtStream(visiblePyautoguiThought, onThought),
      rawOf: (message) => message.content ?? '',
      parse: (_message, raw) => parsePyautoguiReply(raw, { image, coordinates: this.coordinates() }),
      extras: (finishReason) => ({ family: 'pyautogui', finishReason }),
    };
  }
}
