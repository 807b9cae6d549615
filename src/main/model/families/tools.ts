/**
 * The tool-calling family: chat completions with one `computer` function tool whose arguments are
 * the shared action schema, coordinates in pixels of the image sent.
 *
 * Tool call arguments are `{"thought"?: string, "actions": [action, ...]}` (what the schema asks
 * for); a single action object (`{"type": "click", ...}`) or `{"action": {...}}` is accepted too.
 *
 * Models without tool calling answer in text: the first fenced ```json block, or else the first
 * balanced JSON object in the prose, is read. That object is one action (it has "type"),
 * `{"actions": [...]}` or `{"thought": ..., "action": {...}}`. The thought is its "thought" field,
 * or else the prose around the JSON.
 */
import { z } from 'zod';
import { type Action, ActionSchema, ELEMENT_ACTION_TYPES } from '../../../shared/actions';
import { buildAction, checkActionsInImage, describeSize, unreadableReply, isRecord, nonEmpty } from './common';
import { actionsToImage, describeCoordinates, frameFor, type CoordinateFrame, type ModelCoordinates } from './coordinates';
import { type ImageSize, type ParseFailure, type ReplyParse } from './types';
import { findJsonInText, type JsonInText } from '../../../shared/json';

export const COMPUTER_TOOL_NAME = 'computer';
/** The function that looks closer: the next screenshot is the region asked for. */
export const ZOOM_TOOL_NAME = 'zoom';

export interface ToolsOptions {
  /** The image sent to the model: coordinates are checked to lie within it. */
  readonly image?: ImageSize;
  /**
   * The space the model writes points in (default: pixels of the image). With an image, points
   * are checked on the model's grid and mapped onto the image.
   */
  readonly coordinates?: ModelCoordinates | undefined;
}

export interface ToolsExtras {
  /** Ids of the tool calls read, in order: each needs a `tool` message in the next request. */
  readonly toolCallIds: string[];
}

export type ToolsParse = ReplyParse<ToolsExtras>;

/** A chat-completions function tool, as the OpenAI API takes it. */
export interface FunctionToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

// ---------------------------------------------------------------------------------------------
// The tool definition

/** What a point's fields say: pixels of the image sent (the default), or the model's own space. */
function pointDescriptions(image: ImageSize, frame: CoordinateFrame | undefined): Record<string, string> {
  if (frame === undefined || frame.space === 'image') {
    const size = describeSize(image);
    return {
      x: `Horizontal coordinate in pixels of the ${size} image sent, from its left edge.`,
      y: `Vertical coordinate in pixels of the ${size} image sent, from its top edge.`,
      toX: `Horizontal coordinate of the drag's end, in pixels of the ${size} image sent.`,
      toY: `Vertical coordinate of the drag's end, in pixels of the ${size} image sent.`,
      path: `Points the drag passes through, in pixels of the ${size} image sent.`,
    };
  }
  const space = describeCoordinates(frame);
  return {
    x: `Horizontal coordinate, in ${space}.`,
    y: `Vertical coordinate, in ${space}.`,
    toX: `Horizontal coordinate of the drag's end, in ${space}.`,
    toY: `Vertical coordinate of the drag's end, in ${space}.`,
    path: `Points the drag passes through, in ${space}.`,
  };
}

const FIELD_DESCRIPTIONS = (image: ImageSize, frame?: CoordinateFrame): Record<string, string> => {
  return {
    ...pointDescriptions(image, frame),
    keys: 'Key names pressed together, e.g. ["ctrl", "c"] or ["enter"].',
    modifiers: 'Keys held meanwhile, e.g. ["shift"].',
    text: 'Text to type; "\\n" presses Enter.',
    amount: 'Wheel notches to scroll.',
    ms: 'Milliseconds to wait.',
    summary: 'What was done, for the user.',
    question: 'The question for the user.',
    reason: 'Why the task cannot be done.',
    hint: 'What you are trying to remember.',
    subject: 'Who or what the fact is about: "user" (default) or "machine".',
    keyword: 'A short identifier of the fact, e.g. "preferred-editor".',
    description: 'What the keyword means, e.g. "The user\'s preferred text editor".',
    value: 'The fact.',
    values: 'The facts, when the concept holds several (the languages the user knows).',
    n: "The element's number in this step's list of elements.",
  };
};

/** JSON schema of one action, generated from the shared schema, coordinates described. */
let actionSchemaJson: Readonly<Record<string, unknown>> | undefined;
/** The last one described, and for which screenshot and coordinates: a run asks for the same one every step. */
let lastDescribed: { key: string; schema: Record<string, unknown> } | undefined;

function actionJsonSchema(image: ImageSize, frame: CoordinateFrame | undefined, elements: boolean): Record<string, unknown> {
  const key = `${image.width}x${image.height} ${elements ? 'elements' : 'plain'} ${JSON.stringify(frame ?? null)}`;
  if (lastDescribed?.key === key) return lastDescribed.schema;
  lastDescribed = { key, schema: describedActionSchema(image, frame, elements) };
  return lastDescribed.schema;
}

function describedActionSchema(image: ImageSize, frame: CoordinateFrame | undefined, elements: boolean): Record<string, unknown> {
  // Generated once: it is the same every step, and generating it cost more than the rest of a
  // request. Each screenshot size and coordinate space gets its own copy, described for it.
  if (!actionSchemaJson) {
    const made = z.toJSONSchema(ActionSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    delete made.$schema;
    actionSchemaJson = made;
  }
  const generated = structuredClone(actionSchemaJson) as Record<string, unknown>;
  const descriptions = FIELD_DESCRIPTIONS(image, frame);
  const key = generated.oneOf ? 'oneOf' : 'anyOf';
  // The element actions only with the elements aid on: without a list their numbers mean nothing.
  const variants = ((generated[key] ?? []) as Record<string, unknown>[]).filter((variant) => elements || !ELEMENT_ACTION_TYPES.some((type) => variantType(variant) === type));
  generated[key] = variants;
  for (const variant of variants) {
    const properties = variant.properties as Record<string, Record<string, unknown>> | undefined;
    for (const [name, property] of Object.entries(properties ?? {})) {
      const description = descriptions[name];
      if (description !== undefined) property.description = description;
    }
  }
  return generated;
}

/** The `type` a variant of the generated schema stands for (its `const`). */
function variantType(variant: Record<string, unknown>): unknown {
  const type = (variant.properties as Record<string, Record<string, unknown>> | undefined)?.type;
  return type?.const ?? (Array.isArray(type?.enum) ? type.enum[0] : undefined);
}

/**
 * The `computer` function tool for chat completions, its arguments generated from the shared
 * action schema; `image` is the size of the screenshot sent with the request, `frame` the model's
 * coordinates for it when they are not that screenshot's pixels. With the elements aid on
 * (`elements`), `click_element` and `type_into` act on the step's numbered elements too.
 */
export function computerToolDefinition(image: ImageSize, frame?: CoordinateFrame, options: { elements?: boolean } = {}): FunctionToolDefinition {
  const elements = options.elements === true;
  const coordinates =
    frame === undefined || frame.space === 'image' ? 'Coordinates are pixels of that screenshot, origin at its top-left corner.' : `Coordinates are ${describeCoordinates(frame)}.`;
  return {
    type: 'function',
    function: {
      name: COMPUTER_TOOL_NAME,
      description:
        `Operate the computer shown in the ${describeSize(image)} screenshot: click, type, press keys, ` +
        `scroll, drag, wait, ask the user, recall or save a fact, or finish. ${coordinates} Give one or more actions, run in order. ` +
        'Any action may carry "confirm": true to ask the user first (for a risky or irreversible one).' +
        (elements
          ? ' The elements of the active window are listed by number: click_element {"n"} clicks one where it is now, type_into {"n", "text"} replaces its text; both fail, saying so, when the element is gone.'
          : ''),
      parameters: {
        type: 'object',
        properties: {
          thought: { type: 'string', description: 'What you see and why you act, in a sentence or two.' },
          actions: {
            type: 'array',
            minItems: 1,
            description: 'Actions to run in order.',
            items: actionJsonSchema(image, frame, elements),
          },
        },
        required: ['actions'],
      },
    },
  };
}

/**
 * The `zoom` function beside the computer tool (declared where the screen is larger than the
 * screenshot, so a closer look shows more): the next screenshot is the region between two corners,
 * at the screen's own resolution; points given while looking at it are pixels of that image.
 */
export function zoomToolDefinition(image: ImageSize, frame?: CoordinateFrame): FunctionToolDefinition {
  const where = frame === undefined || frame.space === 'image' ? `pixels of the ${describeSize(image)} screenshot` : describeCoordinates(frame);
  return {
    type: 'function',
    function: {
      name: ZOOM_TOOL_NAME,
      description: `Look closer at a region, corners (x, y) and (toX, toY) in ${where}: the next screenshot shows it at the screen's own resolution. Points you give then are pixels of that image.`,
      parameters: {
        type: 'object',
        properties: { x: { type: 'number' }, y: { type: 'number' }, toX: { type: 'number' }, toY: { type: 'number' } },
        required: ['x', 'y', 'toX', 'toY'],
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Parsing

/**
 * Parse a reply given as text: either the assistant's text, or the assistant message as JSON
 * (`{"role":"assistant","content":...,"tool_calls":[...]}`; a whole chat completion with
 * `choices` is accepted too). Never throws for a bad reply.
 */
export function parseToolsReply(text: string, options: ToolsOptions = {}): ToolsParse {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      value = undefined;
    }
    if (isRecord(value) && looksLikeMessage(value)) return parseToolsMessage(value, options);
  }
  return parseToolsText(text, options);
}

function looksLikeMessage(value: Record<string, unknown>): boolean {
  return 'role' in value || 'tool_calls' in value || 'function_call' in value || 'choices' in value;
}

/** Parse an assistant message object (or a chat completion holding one). */
export function parseToolsMessage(message: unknown, options: ToolsOptions = {}): ToolsParse {
  if (!isRecord(message)) return unreadableReply('the assistant message is not a JSON object');
  if (Array.isArray(message.choices)) {
    const choice = message.choices[0] as unknown;
    if (!isRecord(choice) || !isRecord(choice.message)) return unreadableReply('the completion has no message');
    return parseToolsMessage(choice.message, options);
  }
  const content = contentText(message.content);
  const calls = toolCallsOf(message);
  if (calls.length === 0) {
    if (content === null) return unreadableReply('no action in the reply');
    return parseToolsText(content, options);
  }

  const actions: Action[] = [];
  const toolCallIds: string[] = [];
  let argumentThought: string | null = null;
  for (const call of calls) {
    if (call.name !== COMPUTER_TOOL_NAME && call.name !== ZOOM_TOOL_NAME) return unreadableReply(`unknown tool "${call.name}" (expected "${COMPUTER_TOOL_NAME}")`);
    let args: unknown = call.arguments;
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args.trim() === '' ? '{}' : args);
      } catch (error) {
        return unreadableReply(`the ${COMPUTER_TOOL_NAME} tool's arguments are not JSON: ${(error as Error).message}`);
      }
    }
    // A zoom call's arguments are the region: one zoom action.
    const container = call.name === ZOOM_TOOL_NAME ? ({ ok: true, thought: null, actions: [{ ...(isRecord(args) ? args : {}), type: 'zoom' }] } as const) : readContainer(args);
    if (!container.ok) return container;
    argumentThought ??= container.thought;
    const built = buildActions(container.actions);
    if (!built.ok) return built;
    actions.push(...built.actions);
    if (call.id !== null) toolCallIds.push(call.id);
  }
  return finish(nonEmpty(content) ?? argumentThought, actions, toolCallIds, options);
}

interface ToolCall {
  id: string | null;
  name: string;
  arguments: unknown;
}

function toolCallsOf(message: Record<string, unknown>): ToolCall[] {
  const calls: ToolCall[] = [];
  const raw = Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : [];
  for (const item of raw) {
    if (!isRecord(item)) continue;
    const fn = isRecord(item.function) ? item.function : item;
    calls.push({
      id: typeof item.id === 'string' ? item.id : null,
      name: typeof fn.name === 'string' ? fn.name : '',
      arguments: fn.arguments,
    });
  }
  // The legacy single `function_call`.
  if (calls.length === 0 && isRecord(message.function_call)) {
    const fn = message.function_call;
    calls.push({ id: null, name: typeof fn.name === 'string' ? fn.name : '', arguments: fn.arguments });
  }
  return calls;
}

function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = content
      .map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : null))
      .filter((part): part is string => part !== null);
    return texts.length > 0 ? texts.join('\n') : null;
  }
  return null;
}

/** Parse the assistant's text: a JSON action in prose, fenced or not. */
export function parseToolsText(text: string, options: ToolsOptions = {}): ToolsParse {
  const found = findJsonContainer(text);
  if (!found) return unreadableReply('no action in the reply');
  const built = buildActions(found.value.actions);
  if (!built.ok) return built;
  const rest = `${text.slice(0, found.start).trimEnd()}\n${text.slice(found.end).trimStart()}`;
  const prose = nonEmpty(rest.replace(/^\s*Thought\s*[:：]/i, ''));
  return finish(found.value.thought ?? prose, built.actions, [], options);
}

function finish(thought: string | null, actions: Action[], toolCallIds: string[], options: ToolsOptions): ToolsParse {
  if (actions.length === 0) return unreadableReply('no action in the reply');
  if (options.image && options.coordinates && options.coordinates.space !== 'image') {
    const mapped = actionsToImage(actions, frameFor(options.coordinates, options.image));
    return mapped.ok ? { ok: true, thought, actions: mapped.actions, toolCallIds } : mapped;
  }
  const problem = checkActionsInImage(actions, options.image);
  if (problem !== null) return unreadableReply(problem);
  return { ok: true, thought, actions, toolCallIds };
}

interface Container {
  ok: true;
  thought: string | null;
  actions: unknown[];
}

/** The actions of a JSON value: one action, `{"actions":[...]}`, `{"action":...}`, or an array. */
function readContainer(value: unknown): Container | ParseFailure {
  if (Array.isArray(value)) return { ok: true, thought: null, actions: value };
  if (!isRecord(value)) return unreadableReply('the actions must be a JSON object');
  const thought = typeof value.thought === 'string' ? nonEmpty(value.thought) : null;
  if (Array.isArray(value.actions)) return { ok: true, thought, actions: value.actions };
  if (value.action !== undefined) {
    return { ok: true, thought, actions: Array.isArray(value.action) ? value.action : [value.action] };
  }
  if (typeof value.type === 'string') {
    const { thought: _thought, ...action } = value;
    return { ok: true, thought, actions: [action] };
  }
  return unreadableReply('no action in the reply');
}

function buildActions(raws: readonly unknown[]): { ok: true; actions: Action[] } | ParseFailure {
  if (raws.length === 0) return unreadableReply('no action in the reply');
  const actions: Action[] = [];
  for (const raw of raws) {
    const built = buildAction(lenient(raw));
    if (!built.ok) return built;
    actions.push(built.action);
  }
  return { ok: true, actions };
}

/** Spellings models use that the wire format writes differently. */
function lenient(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const action: Record<string, unknown> = { ...raw };
  // `"coordinate": [x, y]`, as computer-use models are trained to write.
  if (action.x === undefined && Array.isArray(action.coordinate) && action.coordinate.length === 2) {
    const [x, y] = action.coordinate as unknown[];
    action.x = x;
    action.y = y;
    delete action.coordinate;
  }
  // `"keys": "ctrl+c"` or `"key": "enter"`.
  if (action.keys === undefined && typeof action.key === 'string') {
    action.keys = action.key;
    delete action.key;
  }
  if (typeof action.keys === 'string') {
    action.keys = action.keys
      .trim()
      .split(/\s+/)
      .flatMap((token) => token.split(/(?<=.)\+(?=.)/))
      .filter((token) => token !== '');
  }
  return action;
}

// ---------------------------------------------------------------------------------------------
// Finding JSON in prose

/** The first fenced block, or else balanced object in the prose, that holds at least one action. */
function findJsonContainer(text: string): JsonInText<Container> | null {
  return findJsonInText(text, '{', (value) => {
    const container = readContainer(value);
    return container.ok && container.actions.length > 0 ? container : undefined;
  });
}
