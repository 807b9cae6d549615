/**
 * The `tools` family: chat completions with one `computer` function tool whose arguments are the
 * shared action schema, coordinates in pixels of the screenshot sent. For models without tool
 * calling (`toolCalling: false`), the same actions come back as a JSON object in the text.
 *
 * History: each earlier step is its screenshot (or the placeholder) in a user turn, then the
 * model's turn. With tool calling that turn is a `computer` call answered by a `tool` message with
 * the step's results; without, it is the thought and a ```json block, and the results open the
 * next user turn.
 */
import { type Action } from '../../shared/actions';
import { type ModelSettings } from '../../shared/settings';
import { outputLimit, type ChatRequest } from './client';
import { actionToModel, computerToolDefinition, describeCoordinates, frameFor, imageToModel, parseToolsMessage, zoomToolDefinition, type CoordinateFrame, type ImageSize, type ModelCoordinates, type ToolsExtras } from './families';
import { ChatFamilyModel, familyCoordinates, type ChatFamilyDeps, type ChatStep } from './chat-family-model';
import { ChatTurns, sizeOf, ThoughtStream, visibleProse } from './messages';
import { type PredictInput, type ThoughtListener, type ZoomedRegion } from './types';
import { elementsPromptOf } from './element-aid';

export type ToolsModelSettings = Pick<
  ModelSettings,
  'model' | 'baseUrl' | 'toolCalling' | 'stream' | 'temperature' | 'maxOutputTokens' | 'coordinates' | 'smartResize'
>;


export type ToolsModelDeps = ChatFamilyDeps;

const ACTION_LIST = `Actions (each a JSON object with "type"):
- click {x, y, button?: "left"|"right"|"middle", modifiers?: ["shift"]}; double_click {x, y}; triple_click {x, y}
- mouse_move {x, y}; mouse_down {x?, y?, button?}; mouse_up {x?, y?, button?}
- drag {x, y, toX, toY} (or {path: [{x, y}, ...]})
- scroll {x?, y?, direction: "up"|"down"|"left"|"right", amount?: wheel notches, default 3}
- type {text} ("\\n" presses Enter); hotkey {keys: ["ctrl", "c"]}; key_down {keys}; key_up {keys}
- wait {ms}; screenshot {} (look again without acting); zoom {x, y, toX, toY}: look closer at the region between those corners; the next screenshot shows it at the screen's own resolution, and points you give then are in that image
- finished {summary}: the task is done; ask_user {question}: you need something only the user knows; fail {reason}: the task cannot be done
- query_long_term_memory {hint}: recall what earlier tasks and conversations taught (preferences, names, places); the answer comes with the next screenshot
- save_fact {subject?: "user"|"machine", keyword, description, value} (or values: [...] for several): remember a lasting fact for later tasks, e.g. {"type": "save_fact", "keyword": "preferred-editor", "description": "The user's preferred text editor", "value": "Vim"}
- run_workflow {name, params: {NAME: value, ...}}: run a saved workflow the instructions offer, with a value for each of its parameters; its steps are done on the screen and its report comes with the next screenshot`;

/**
 * The system prompt of the `tools` family; `frame` is the model's coordinates for the screenshot
 * when they are not its pixels.
 */
export function toolsSystemPrompt(image: ImageSize, toolCalling: boolean, extra?: string, frame?: CoordinateFrame): string {
  const size = `${image.width}x${image.height}`;
  const pixels = frame === undefined || frame.space === 'image';
  // The example point, at the same place of the screenshot in every space.
  const example = pixels ? { x: 1130, y: 742 } : imageToModel({ x: image.width * 0.883, y: image.height * 0.9275 }, frame);
  const answer = toolCalling
    ? `Answer every turn by calling the \`computer\` tool with one or more actions, run in order. Say what you see and why you act in a sentence or two first (in your message or in the tool's "thought").`
    : `Answer every turn with one or two sentences of reasoning, then the actions as a JSON object in a \`\`\`json block, for example:
I see the Save button at the bottom right.
\`\`\`json
{"actions": [{"type": "click", "x": ${example.x}, "y": ${example.y}}]}
\`\`\``;
  const coordinates = pixels
    ? `Coordinates are pixels of the latest screenshot: origin at its top-left corner, x to the right, y down, within ${size}.`
    : `Coordinates are ${describeCoordinates(frame)}.`;
  const prompt = `You operate a computer for the user to complete their task. Each turn you get a screenshot of the screen, ${size} pixels; you choose the next actions.

${coordinates} Aim at the centre of the element.

${ACTION_LIST}

${answer}

Check each screenshot for the effect of your last actions before going on. Add "confirm": true to an action that is risky or cannot be undone (deleting, sending, paying): the user is asked first.`;
  return extra !== undefined && extra.trim() !== '' ? `${prompt}\n\n${extra.trim()}` : prompt;
}

/** The JSON of a step's actions, as the model writes them. */
function actionsJson(actions: readonly Action[]): string {
  return JSON.stringify({ actions });
}

/**
 * The chat messages of one `tools` request. Earlier steps' actions are written back in the
 * model's own coordinates for the image of their step.
 */
export function buildToolsMessages(input: PredictInput, toolCalling: boolean, coordinates: ModelCoordinates = { space: 'image' }) {
  const observation = sizeOf(input.observation);
  const frame = coordinates.space === 'image' ? undefined : frameFor(coordinates, observation);
  const turns = new ChatTurns(toolsSystemPrompt(observation, toolCalling, input.system, frame));
  turns.text(`Task: ${input.task}`);
  for (const step of input.history) {
    turns.screenshot(step, `Screenshot at step ${step.step}${step.zoom ? ` (${zoomedWords(step.zoom)})` : ''}:`);
    const thought = step.thought ?? '';
    const stepFrame = frameFor(coordinates, step.screenshot ? sizeOf(step.screenshot) : observation);
    const actions = coordinates.space === 'image' ? step.actions : step.actions.map((action) => actionToModel(action, stepFrame));
    if (toolCalling && actions.length > 0) {
      const id = `call_step_${step.step}`;
      turns.assistant({
        role: 'assistant',
        content: thought === '' ? null : thought,
        tool_calls: [{ id, type: 'function', function: { name: 'computer', arguments: actionsJson(actions) } }],
      });
      turns.tool(id, step.results.trim() === '' ? 'done' : step.results);
    } else {
      const body = actions.length > 0 ? `\`\`\`json\n${actionsJson(actions)}\n\`\`\`` : '(no action)';
      turns.assistant({ role: 'assistant', content: thought === '' ? body : `${thought}\n${body}` });
      if (step.results.trim() !== '') turns.text(`Result of step ${step.step}: ${step.results}`);
    }
  }
  if (input.feedback !== undefined && input.feedback.trim() !== '') turns.text(input.feedback);
  // The elements aid, beside the screenshot it was read with.
  const elements = elementsPromptOf(input, { byNumber: true });
  if (elements !== null) turns.text(elements);
  const zoomed = input.zoom ? `: ${zoomedWords(input.zoom)}; points you give now are in this image` : '';
  turns.text(`Current screenshot (${observation.width}x${observation.height})${zoomed}:`);
  turns.image(input.observation);
  return turns.build();
}

/** Whether a closer look shows more than the screenshot: the screen is larger than the image (or the image is already a zoomed region). */
export function zoomShowsMore(input: Pick<PredictInput, 'observation' | 'screen' | 'zoom'>): boolean {
  if (input.zoom) return true;
  return input.screen !== undefined && (input.screen.width > input.observation.width || input.screen.height > input.observation.height);
}

/** A zoomed screenshot, told as such. */
function zoomedWords(zoom: ZoomedRegion): string {
  return `the region from (${zoom.x}, ${zoom.y}) to (${zoom.toX}, ${zoom.toY}) of the screenshot before, zoomed in to the screen's own resolution`;
}


/** The full request of one `tools` call (without the streaming fields). */
export function buildToolsRequest(input: PredictInput, settings: ToolsModelSettings): ChatRequest {
  const image = sizeOf(input.observation);
  const coordinates = familyCoordinates('tools', settings);
  const frame = coordinates.space === 'image' ? undefined : frameFor(coordinates, image);
  return {
    model: settings.model,
    messages: buildToolsMessages(input, settings.toolCalling, coordinates),
    ...(settings.toolCalling ? { tools: [computerToolDefinition(image, frame, { elements: input.elements !== undefined }), ...(zoomShowsMore(input) ? [zoomToolDefinition(image, frame)] : [])] } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
    ...outputLimit(settings.baseUrl, settings.maxOutputTokens),
  };
}

/**
 * The part of the reply text so far that is thought: the prose before a ```json block or a `{`,
 * without a leading "Thought:" label, holding back what may become one of those.
 */
export function visibleToolsThought(text: string): string {
  return visibleProse(text, /```|\{/, ['```']);
}

export class ToolsModel extends ChatFamilyModel<ToolsModelSettings, ToolsExtras> {
  readonly family = 'tools' as const;

  protected step(input: PredictInput, onThought: ThoughtListener | undefined): ChatStep<ToolsExtras> {
    const image = sizeOf(input.observation);
    return {
      request: buildToolsRequest(input, this.settings),
      thoughts: new ThoughtStream(visibleToolsThought, onThought),
      rawOf: (message) => JSON.stringify(message),
      parse: (message) => parseToolsMessage(message, { image, coordinates: this.coordinates() }),
      extras: (finishReason, parsed) => ({ family: 'tools', toolCallIds: parsed?.toolCallIds ?? [], finishReason }),
    };
  }
}
