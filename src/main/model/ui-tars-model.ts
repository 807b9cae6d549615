/**
 * The `ui-tars` family: UI-TARS (1.0, 1.5, Doubao) over chat completions, in its own text format
 * (`Thought: … Action: click(start_box='(x,y)')`).
 *
 * The request follows UI-TARS's own layout: one user message with the prompt and the task, then per
 * earlier step its screenshot (or the placeholder) and the model's reply, then the new screenshot.
 * The screenshot is sent as it is. UI-TARS-1.0 answers in 0–1000 relative coordinates;
 * UI-TARS-1.5 in pixels of the image after its own smart resize, which is computed here to read
 * the reply and map it back onto the screenshot sent; a model set up with `coordinates` answers
 * in that space. Points go both ways through coordinates.ts.
 */
import { type Action, dragPath, type Point } from '../../shared/actions';
import { type ModelSettings } from '../../shared/settings';
import { type ChatRequest } from './client';
import { frameFor, gridOf, imageToModel, type ImageSize, type ModelCoordinates, parseUiTarsReply, type UiTarsExtras, type UiTarsVersion } from './families';
import { ChatFamilyModel, familyCoordinates, type ChatFamilyDeps, type ChatStep } from './chat-family-model';
import { ChatTurns, partialMarkerLength, sizeOf, ThoughtStream } from './messages';
import { type PredictInput, type StepRecord, type ThoughtListener } from './types';
import { elementsPromptOf } from './element-aid';

export type UiTarsModelSettings = Pick<
  ModelSettings,
  'model' | 'modelVersion' | 'stream' | 'temperature' | 'maxOutputTokens' | 'coordinates' | 'smartResize'
>;

export type UiTarsModelDeps = ChatFamilyDeps;

export const DEFAULT_UI_TARS_VERSION: UiTarsVersion = '1.5';

/** The UI-TARS computer prompt, with the task (and any extra context) at its end. */
export function uiTarsPrompt(task: string, extra?: string): string {
  const context = extra !== undefined && extra.trim() !== '' ? `\n## Context\n${extra.trim()}\n` : '';
  return `You are an agent that works a computer through its graphical interface. You get a task, the screenshots of the steps taken so far and your replies to them. Choose the one next action that moves the task forward.

## Output Format
\`\`\`
Thought: ...
Action: ...
\`\`\`

## Action Space
click(start_box='<|box_start|>(x1,y1)<|box_end|>')
left_double(start_box='<|box_start|>(x1,y1)<|box_end|>')
right_single(start_box='<|box_start|>(x1,y1)<|box_end|>')
drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')
hotkey(key='ctrl c') # Lowercase key names separated by spaces, three keys at most.
type(content='xxx') # Escape \\', \\" and \\n as in a Python string. End with \\n to submit what you typed.
scroll(start_box='<|box_start|>(x1,y1)<|box_end|>', direction='down or up or right or left') # Brings more content into view on the \`direction\` side.
wait() # Pause for 5 seconds, then look at a new screenshot.
finished(content='xxx') # The task is done; content says what was achieved, escaped as in type.
call_user() # Hand over to the user: the task cannot be done, or it needs their help.
save_fact(subject='user', keyword='xxx', description='xxx', value='xxx') # Remember a lasting fact for later tasks: subject 'user' or 'machine'; a short keyword such as 'preferred-editor'; values='a; b' instead of value for several.
query_long_term_memory(hint='xxx') # Recall what earlier tasks and conversations taught; the answer comes with the next screenshot.
run_workflow(name='xxx', params='{"NAME": "value"}') # Run a saved workflow the instructions offer, its parameters' values as a JSON object; its report comes with the next screenshot.

## Note
- Write the Thought in English.
- In the Thought, make a short plan, then name the next action and the element it targets in one sentence.
${context}
## User Instruction
${task}`;
}

/** A point as UI-TARS writes it (the value as given: whole numbers, or three decimals on 0–1). */
function box(point: Point): string {
  const value = (n: number) => Math.round(n * 1000) / 1000;
  return `<|box_start|>(${value(point.x)},${value(point.y)})<|box_end|>`;
}

function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/** One action in UI-TARS syntax, or null for actions UI-TARS has no word for. */
export function formatUiTarsAction(action: Action, toModel: (point: Point) => Point): string | null {
  switch (action.type) {
    case 'click': {
      const name = action.button === 'right' ? 'right_single' : 'click';
      return `${name}(start_box='${box(toModel(action))}')`;
    }
    case 'double_click':
    case 'triple_click':
      return `left_double(start_box='${box(toModel(action))}')`;
    case 'mouse_move':
      return `hover(start_box='${box(toModel(action))}')`;
    case 'drag': {
      const path = dragPath(action);
      const from = path[0] as Point;
      const to = path[path.length - 1] as Point;
      return `drag(start_box='${box(toModel(from))}', end_box='${box(toModel(to))}')`;
    }
    case 'scroll': {
      const at = action.x !== undefined && action.y !== undefined ? `start_box='${box(toModel({ x: action.x, y: action.y }))}', ` : '';
      return `scroll(${at}direction='${action.direction}')`;
    }
    case 'type':
      return `type(content=${quoted(action.text)})`;
    case 'hotkey':
      return `hotkey(key='${action.keys.join(' ')}')`;
    case 'key_down':
      return `press(key='${action.keys.join(' ')}')`;
    case 'key_up':
      return `release(key='${action.keys.join(' ')}')`;
    case 'wait':
      return 'wait()';
    case 'finished':
      return `finished(content=${quoted(action.summary)})`;
    case 'ask_user':
    case 'fail':
      return 'call_user()';
    case 'save_fact': {
      const value = action.values !== undefined ? `values=${quoted(action.values.join('; '))}` : `value=${quoted(action.value ?? '')}`;
      return `save_fact(subject='${action.subject}', keyword=${quoted(action.keyword)}, description=${quoted(action.description)}, ${value})`;
    }
    case 'query_long_term_memory':
      return `query_long_term_memory(hint=${quoted(action.hint)})`;
    case 'run_workflow':
      return `run_workflow(name=${quoted(action.name)}, params=${quoted(JSON.stringify(action.params))})`;
    default:
      return null;
  }
}

/**
 * A step's turn in UI-TARS format: its own reply when kept, else written from its thought and
 * actions, in the model's coordinates (`coordinates`, else the version's) for the step's image.
 */
export function uiTarsTurn(step: StepRecord, version: UiTarsVersion, fallbackImage: ImageSize, coordinates?: ModelCoordinates): string {
  if (step.reply !== undefined && step.reply.trim() !== '') return step.reply;
  const frame = frameFor(coordinates ?? familyCoordinates('ui-tars', { modelVersion: version }), step.screenshot ? sizeOf(step.screenshot) : fallbackImage);
  const toModel = (point: Point) => imageToModel(point, frame);
  const calls = step.actions.map((action) => formatUiTarsAction(action, toModel)).filter((call) => call !== null);
  const thought = step.thought ?? '';
  return `Thought: ${thought}\nAction: ${calls.length > 0 ? calls.join('\n\n') : 'wait()'}`;
}

export function buildUiTarsRequest(input: PredictInput, settings: UiTarsModelSettings): ChatRequest {
  const version = settings.modelVersion ?? DEFAULT_UI_TARS_VERSION;
  const observation = sizeOf(input.observation);
  const turns = new ChatTurns();
  turns.text(uiTarsPrompt(input.task, input.system));
  for (const step of input.history) {
    turns.screenshot(step);
    turns.assistant({ role: 'assistant', content: uiTarsTurn(step, version, observation, familyCoordinates('ui-tars', settings)) });
  }
  if (input.feedback !== undefined && input.feedback.trim() !== '') turns.text(input.feedback);
  // UI-TARS has no element tools: each element comes with its centre in the coordinates it writes.
  const elements = elementsPromptOf(input, { byNumber: false, frame: frameFor(familyCoordinates('ui-tars', settings), observation) });
  if (elements !== null) turns.text(elements);
  turns.image(input.observation);
  return {
    model: settings.model,
    messages: turns.build(),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...(settings.maxOutputTokens !== undefined ? { max_tokens: settings.maxOutputTokens } : {}),
  };
}

const SECTION_MARKERS = ['Action:', 'Action：', 'Action_Summary:', 'Reflection:'];

/** The Thought section of the reply so far, holding back what may become the next header. */
export function visibleUiTarsThought(text: string): string {
  const body = text.replace(/\r\n?/g, '\n');
  const header = /(?:^|\n)[ \t]*Thought[ \t]*[:：]/.exec(body);
  if (!header) return '';
  let rest = body.slice(header.index + header[0].length);
  const stop = rest.search(/(?<!\w)(?:Action_Summary|Action|Reflection)[ \t]*[:：]/);
  rest = stop >= 0 ? rest.slice(0, stop) : rest.slice(0, rest.length - partialMarkerLength(rest, SECTION_MARKERS));
  return rest.trim();
}

export class UiTarsModel extends ChatFamilyModel<UiTarsModelSettings, UiTarsExtras> {
  readonly family = 'ui-tars' as const;
  readonly version: UiTarsVersion;

  constructor(settings: UiTarsModelSettings, deps: UiTarsModelDeps) {
    super(settings, deps);
    this.version = settings.modelVersion ?? DEFAULT_UI_TARS_VERSION;
  }

  protected step(input: PredictInput, onThought: ThoughtListener | undefined): ChatStep<UiTarsExtras> {
    const image = sizeOf(input.observation);
    // 1.5 answers in pixels of its smart-resized copy of the screenshot; 1.0 in 0–1000 of it.
    const frame = this.coordinateFrame(image);
    const modelImage = frame.space === 'smart-resize' ? gridOf(frame) : image;
    return {
      request: buildUiTarsRequest(input, this.settings),
      thoughts: new ThoughtStream(visibleUiTarsThought, onThought),
      rawOf: (message) => message.content ?? '',
      parse: (_message, raw) => parseUiTarsReply(raw, { version: this.version, image, coordinates: this.coordinates() }),
      extras: (_finishReason, parsed) => ({ family: 'ui-tars', version: this.version, modelImage, reflection: parsed?.reflection ?? null, actionSummary: parsed?.actionSummary ?? null }),
    };
  }
}
