/**
 * The `anthropic` family: Claude's computer-use tool over the Anthropic Messages API. Pure: the
 * tool definitions, the tool version and image limits a model name calls for, the reply parser
 * (content blocks → wire-format actions) and the mapping of each computer action. The request
 * builder and the client are in ../anthropic-request.ts and ../anthropic-model.ts.
 *
 * Facts from Anthropic's documentation (platform.claude.com/docs/en/agents-and-tools/tool-use/computer-use-tool)
 * and the SDK's types (`BetaComputerToolset20260801`, one input type per member):
 * - `computer_toolset_20260801` (GA, no beta header): one `{"type": "computer_toolset_20260801"}`
 *   entry in `tools` (no name, no display size; `configs` turns members off) gives the model 17
 *   member tools. Its calls are `tool_use` blocks named by the member (`left_click`, `zoom`, ...)
 *   carrying `"toolset_name": "computer"`, often several in one turn; each member's input is the
 *   older tool's input without `action`. Coordinates are pixels of the screenshots sent. Every
 *   answer to a member call carries `toolset_name` too (the API refuses a mismatch).
 * - `computer_20251124` (beta header `computer-use-2025-11-24`) for Claude Opus 4.5 and later Opus,
 *   Sonnet 4.6 and later; it adds `zoom` (`enable_zoom: true`, `region: [x1, y1, x2, y2]`).
 *   `computer_20250124` (`computer-use-2025-01-24`) for Sonnet 4.5, Haiku 4.5, Opus 4.1, Sonnet 4,
 *   Opus 4 and Sonnet 3.7.
 * - Actions: screenshot, left_click, type, key, mouse_move; scroll (scroll_direction,
 *   scroll_amount), left_click_drag, right_click, middle_click, double_click, triple_click,
 *   left_mouse_down, left_mouse_up, hold_key (duration in seconds), wait (duration), and
 *   cursor_position; modifier keys held during a click or scroll go in `text` ("shift", "ctrl",
 *   "alt", "super"). `key` takes xdotool key names ("ctrl+s", "Return").
 * - Coordinates are pixels of the display declared in the tool, which here is the image sent.
 *
 * Each `tool_use` maps to one or more actions (a call). The protocol answers every call with its
 * `tool_result`, so the parser asks the loop for what the result needs (`CaptureRequest`): the
 * region of a zoom, the pointer for cursor_position, and the screen after a call that is not the
 * reply's last (the last one's screen is the next step's screenshot): after every older-tool call
 * (its results are screenshots by convention), after a toolset `screenshot` only (the toolset's
 * other members answer in words).
 */
import { type BetaTool, type BetaToolComputerUse20250124, type BetaToolComputerUse20251124 } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { type Action, type ActionInput, type MouseButton, type Point, type ScrollDirection } from '../../../shared/actions';
import { claudeAtLeast, claudeNameOf, legacyClaudeToolFor } from '../../../shared/computer-tool';
import { type AnthropicComputerTool } from '../../../shared/model-families';
import { type ANTHROPIC_TOOL_VERSIONS } from '../../../shared/settings';
import { buildAction, checkActionsInImage, unreadableReply, isRecord, nonEmpty, parseJsonReply } from './common';
import { mnemoFunctionTools } from './openai-cua';
import { type AnthropicCall, type CaptureRequest, type ImageRect, type ImageSize, type ParseFailure, type ReplyParse } from './types';

export type AnthropicToolVersion = (typeof ANTHROPIC_TOOL_VERSIONS)[number];

/** The `anthropic-beta` header each tool version needs. */
export const ANTHROPIC_BETA: Readonly<Record<AnthropicToolVersion, string>> = {
  computer_20250124: 'computer-use-2025-01-24',
  computer_20251124: 'computer-use-2025-11-24',
};

export const ANTHROPIC_COMPUTER_TOOL = 'computer' as const;
/** The `toolset_name` of every call to the computer toolset, and of every answer to one. */
export const ANTHROPIC_COMPUTER_TOOLSET = 'computer' as const;
export const ANTHROPIC_TOOLSET_TYPE = 'computer_toolset_20260801' as const;

/** The toolset's members, as the SDK lists them (`BetaComputerMemberName`). */
export const ANTHROPIC_TOOLSET_MEMBERS = [
  'key',
  'hold_key',
  'type',
  'cursor_position',
  'mouse_move',
  'left_mouse_down',
  'left_mouse_up',
  'left_click',
  'left_click_drag',
  'right_click',
  'middle_click',
  'double_click',
  'triple_click',
  'scroll',
  'wait',
  'screenshot',
  'zoom',
] as const;
export type AnthropicToolsetMember = (typeof ANTHROPIC_TOOLSET_MEMBERS)[number];

export interface AnthropicExtras {
  readonly messageId: string | null;
  readonly stopReason: string | null;
  readonly calls: AnthropicCall[];
  readonly captures: CaptureRequest[];
  /** The model's refusal (stop_reason `refusal`); the actions are then one `fail`. */
  readonly refusal: string | null;
}

export type AnthropicParse = ReplyParse<AnthropicExtras>;

export interface AnthropicOptions {
  /** The display declared in the computer tool (the image sent): coordinates are checked to lie within it. */
  readonly image?: ImageSize;
  /**
   * The tool the reply must have been written for (`mnemo parse --computer-tool`): a call of the
   * other shape is refused. Absent: both shapes are read, as a run reads them.
   */
  readonly tool?: AnthropicComputerTool | undefined;
}

// ---------------------------------------------------------------------------------------------
// Model names: tool version and image limits

export { claudeNameOf };

/**
 * The older single tool for a model (computer_20251124 for Opus 4.5 and later, Sonnet 4.6 and
 * later and any later generation, computer_20250124 before; the newer for a name that is not
 * Claude's): what is sent where the toolset is not (`computerTool`, Bedrock and Foundry).
 */
export function toolVersionFor(model: string): AnthropicToolVersion {
  return legacyClaudeToolFor(model);
}

/** The largest image a model is sent, as the capture's limits (a long edge ≤ L is both sides ≤ L). */
export interface AnthropicImageLimits {
  maxWidth: number;
  maxHeight: number;
  maxPixels: number;
}

/**
 * "The API constrains images to a maximum of 1568 pixels on the longest edge and approximately
 * 1.15 megapixels total ... Claude Opus 4.7 supports up to 2576 pixels on the long edge"
 * (computer-use-tool, "Handle coordinate scaling for higher resolutions"; about 3.75 MP, for Opus
 * 4.7 and later and the generation after). A bigger image would be scaled down by the API without
 * a word and every click would miss, so the image is made to fit before it is sent: its size is
 * then the display declared in the tool, and the model's coordinates are pixels of it. The
 * documentation's advice to stay near XGA/WXGA (1024x768, 1280x800) is what Mnemo's default image
 * width of 1280 gives already; these limits only bind beyond it (a portrait screen, a wide image).
 */
export function imageLimitsFor(model: string): AnthropicImageLimits {
  const name = claudeNameOf(model);
  const large = name !== null && (name.major >= 5 || (name.tier === 'opus' && claudeAtLeast(name, 4, 7)));
  return large ? { maxWidth: 2576, maxHeight: 2576, maxPixels: 3_750_000 } : { maxWidth: 1568, maxHeight: 1568, maxPixels: 1_150_000 };
}

// ---------------------------------------------------------------------------------------------
// Tools

/** The computer tool of a version, its display the image sent. Schema-less: the model knows it. */
export function computerTool(version: AnthropicToolVersion, display: ImageSize, zoom: boolean): BetaToolComputerUse20250124 | BetaToolComputerUse20251124 {
  const size = { name: ANTHROPIC_COMPUTER_TOOL, display_width_px: display.width, display_height_px: display.height };
  return version === 'computer_20251124' ? { type: version, ...size, ...(zoom ? { enable_zoom: true } : {}) } : { type: version, ...size };
}

/**
 * The computer toolset's `tools` entry: every member on (Mnemo serves all 17), zoom off when the
 * settings say so. No name, no display: coordinates are pixels of the screenshots sent.
 */
export function computerToolset(zoom: boolean): { type: typeof ANTHROPIC_TOOLSET_TYPE; configs?: { zoom: { enabled: false } } } {
  return zoom ? { type: ANTHROPIC_TOOLSET_TYPE } : { type: ANTHROPIC_TOOLSET_TYPE, configs: { zoom: { enabled: false } } };
}

/** The tool entry of a computer tool choice: the toolset, or the older tool with its display. */
export function computerToolEntry(tool: AnthropicComputerTool, display: ImageSize, zoom: boolean) {
  return tool === ANTHROPIC_TOOLSET_TYPE ? computerToolset(zoom) : computerTool(tool, display, zoom);
}

/** Mnemo's own tools beside the computer: ask the user, save a fact, query the long-term memory; run a saved workflow where workflows are offered. */
export function mnemoTools(workflows = false, elements = false): BetaTool[] {
  return [
    {
      name: 'ask_user',
      description: 'Ask the user something only they know (a choice, a missing detail, a password). The run waits for the answer.',
      input_schema: { type: 'object' as const, properties: { question: { type: 'string', description: 'The question for the user.' } }, required: ['question'] },
    },
    ...mnemoFunctionTools(workflows, elements).map((tool) => ({ name: tool.name, description: tool.description, input_schema: { ...tool.parameters, type: 'object' as const } })),
  ];
}

const MNEMO_TOOLS = new Set(['ask_user', 'save_fact', 'query_long_term_memory', 'run_workflow', 'click_element', 'type_into']);

// ---------------------------------------------------------------------------------------------
// Parsing

/** Parse a reply given as text: a Messages API response (`{"content": [...]}`) or its content array. */
export function parseAnthropicReply(text: string, options: AnthropicOptions = {}): AnthropicParse {
  return parseJsonReply(text, (value) => parseAnthropicMessage(value, options));
}

/** Parse a message object (`{"content": [...], "stop_reason": ...}`) or a content array. */
export function parseAnthropicMessage(value: unknown, options: AnthropicOptions = {}): AnthropicParse {
  let blocks: unknown[];
  let messageId: string | null = null;
  let stopReason: string | null = null;
  if (Array.isArray(value)) blocks = value;
  else if (isRecord(value) && Array.isArray(value.content)) {
    blocks = value.content;
    messageId = typeof value.id === 'string' ? value.id : null;
    stopReason = typeof value.stop_reason === 'string' ? value.stop_reason : null;
  } else return unreadableReply('expected a message ({"content": [...]}) or its content blocks');

  const thoughts: string[] = [];
  const texts: string[] = [];
  const actions: Action[] = [];
  const calls: AnthropicCall[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (block.type === 'thinking' && typeof block.thinking === 'string') thoughts.push(block.thinking);
    else if (block.type === 'text' && typeof block.text === 'string') {
      thoughts.push(block.text);
      texts.push(block.text);
    } else if (block.type === 'tool_use') {
      const name = typeof block.name === 'string' ? block.name : '';
      const id = typeof block.id === 'string' ? block.id : '';
      const mapped = mapToolUse(name, block.input, block.toolset_name);
      if (!mapped.ok) return mapped;
      const misfit = toolMisfit(name, mapped.toolset !== undefined, options.tool);
      if (misfit !== null) return unreadableReply(misfit);
      calls.push({ id, name, action: mapped.action, ...(mapped.toolset ? { toolset: mapped.toolset } : {}), firstAction: actions.length, actionCount: mapped.actions.length });
      actions.push(...mapped.actions);
    }
    // redacted_thinking and other blocks carry no action; they go back to the API as they came.
  }

  const thought = nonEmpty(thoughts.join('\n\n'));
  const message = nonEmpty(texts.join('\n\n'));
  if (stopReason === 'refusal') {
    const refusal = message ?? 'the model declined the task';
    return { ok: true, thought, actions: [{ type: 'fail', reason: refusal }], messageId, stopReason, calls: [], captures: [], refusal };
  }
  if (stopReason === 'max_tokens') return unreadableReply('the reply was cut off at the output token limit (raise model.maxOutputTokens)');
  if (calls.length === 0) {
    if (message === null) return unreadableReply('no action in the reply');
    return { ok: true, thought, actions: [{ type: 'finished', summary: message }], messageId, stopReason, calls, captures: [], refusal: null };
  }
  const problem = checkActionsInImage(actions, options.image) ?? checkRegions(calls, blocks, options.image);
  if (problem !== null) return unreadableReply(problem);
  return { ok: true, thought, actions, messageId, stopReason, calls, captures: capturesFor(calls, blocks), refusal: null };
}

/** Whether a call is to the computer (the older tool, or a member of the toolset). */
export function isComputerCall(call: AnthropicCall): boolean {
  return call.name === ANTHROPIC_COMPUTER_TOOL || call.toolset === ANTHROPIC_COMPUTER_TOOLSET;
}

/**
 * What the loop must capture for the calls' results: the region of a zoom and the pointer of a
 * cursor_position wherever they are, and the screen after the other computer calls but the last
 * (whose screen is the next step's screenshot): every older-tool call (its results are
 * screenshots), a toolset `screenshot` only (the toolset's other members answer in words).
 */
function capturesFor(calls: readonly AnthropicCall[], blocks: readonly unknown[]): CaptureRequest[] {
  const captures: CaptureRequest[] = [];
  const inputs = toolInputs(blocks);
  calls.forEach((call, index) => {
    const afterAction = call.firstAction + call.actionCount - 1;
    if (!isComputerCall(call)) return;
    if (call.action === 'zoom') captures.push({ afterAction, kind: 'region', region: zoomRegion(inputs.get(call.id)) as ImageRect });
    else if (call.action === 'cursor_position') captures.push({ afterAction, kind: 'pointer' });
    else if (index < calls.length - 1 && (call.toolset === undefined || call.action === 'screenshot')) captures.push({ afterAction, kind: 'screen' });
  });
  return captures;
}

function toolInputs(blocks: readonly unknown[]): Map<string, unknown> {
  const inputs = new Map<string, unknown>();
  for (const block of blocks) if (isRecord(block) && block.type === 'tool_use' && typeof block.id === 'string') inputs.set(block.id, block.input);
  return inputs;
}

function checkRegions(calls: readonly AnthropicCall[], blocks: readonly unknown[], image: ImageSize | undefined): string | null {
  if (image === undefined) return null;
  const inputs = toolInputs(blocks);
  for (const call of calls) {
    if (call.action !== 'zoom') continue;
    const region = zoomRegion(inputs.get(call.id)) as ImageRect;
    if (region.x + region.width > image.width || region.y + region.height > image.height) {
      return `zoom region [${region.x}, ${region.y}, ${region.x + region.width}, ${region.y + region.height}] outside the ${image.width}x${image.height} image`;
    }
  }
  return null;
}

/** The region of a zoom's input, or the reason it has none. */
function zoomRegion(input: unknown): ImageRect | string {
  const region = isRecord(input) ? input.region : undefined;
  if (!Array.isArray(region) || region.length !== 4 || !region.every((value) => typeof value === 'number' && Number.isFinite(value))) {
    return 'zoom needs a region [x1, y1, x2, y2]';
  }
  const [x1, y1, x2, y2] = region as [number, number, number, number];
  if (x1 < 0 || y1 < 0) return `zoom region [${region.join(', ')}] has negative coordinates`;
  if (x2 <= x1 || y2 <= y1) return `zoom region [${region.join(', ')}] is empty (x2 must exceed x1, y2 y1)`;
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

type Mapped = { ok: true; action: string | null; actions: Action[]; toolset?: typeof ANTHROPIC_COMPUTER_TOOLSET } | ParseFailure;

const TOOLSET_MEMBERS = new Set<string>(ANTHROPIC_TOOLSET_MEMBERS);

/** Why a computer call does not fit the tool the reply must have been written for, or null. */
function toolMisfit(name: string, toolsetCall: boolean, tool: AnthropicComputerTool | undefined): string | null {
  if (tool === undefined || MNEMO_TOOLS.has(name)) return null;
  if (tool === ANTHROPIC_TOOLSET_TYPE && !toolsetCall) return `"${name}" is a call of the older computer tool; ${tool} calls are its members (left_click, type, ...) with toolset_name "computer"`;
  if (tool !== ANTHROPIC_TOOLSET_TYPE && toolsetCall) return `"${name}" is a computer toolset member call; ${tool} calls are "computer" with an action`;
  return null;
}

/**
 * One `tool_use` as actions: a toolset member (named by `toolset_name: "computer"`, or by a member
 * name alone, as transcripts that dropped the field write it), the older tool's `action`, or one
 * of Mnemo's own tools.
 */
function mapToolUse(name: string, input: unknown, toolsetName: unknown): Mapped {
  if (toolsetName !== undefined && toolsetName !== null) {
    if (toolsetName !== ANTHROPIC_COMPUTER_TOOLSET) return unreadableReply(`unknown toolset "${String(toolsetName)}" (Mnemo offers the computer toolset)`);
    return mapToolsetMember(name, input);
  }
  if (name === ANTHROPIC_COMPUTER_TOOL) return mapComputerAction(input);
  if (TOOLSET_MEMBERS.has(name)) return mapToolsetMember(name, input);
  if (!MNEMO_TOOLS.has(name)) return unreadableReply(`unknown tool "${name}"`);
  const built = buildAction({ ...(isRecord(input) ? input : {}), type: name });
  return built.ok ? { ok: true, action: null, actions: [built.action] } : built;
}

/** A toolset member's input is the older tool's input without `action`: the member names it. */
function mapToolsetMember(name: string, input: unknown): Mapped {
  if (!TOOLSET_MEMBERS.has(name)) return unreadableReply(`unknown computer toolset member "${name}"`);
  const mapped = mapComputerAction({ ...(isRecord(input) ? input : {}), action: name });
  return mapped.ok ? { ...mapped, toolset: ANTHROPIC_COMPUTER_TOOLSET } : mapped;
}

const CLICKS: Record<string, { type: 'click' | 'double_click' | 'triple_click'; button: MouseButton; count: number }> = {
  left_click: { type: 'click', button: 'left', count: 1 },
  right_click: { type: 'click', button: 'right', count: 1 },
  middle_click: { type: 'click', button: 'middle', count: 1 },
  double_click: { type: 'double_click', button: 'left', count: 2 },
  triple_click: { type: 'triple_click', button: 'left', count: 3 },
};

const SCROLL_DIRECTIONS = new Set<ScrollDirection>(['up', 'down', 'left', 'right']);

/** Longest hold_key or wait accepted, in seconds (the reference implementation's bound). */
export const ANTHROPIC_MAX_DURATION_S = 100;
/** Most presses one `key` call may repeat (the toolset's `repeat`): enough to walk a list, not to hang a run. */
export const ANTHROPIC_MAX_KEY_REPEAT = 100;

/** The computer tool's input as wire-format actions. */
export function mapComputerAction(input: unknown): Mapped {
  if (!isRecord(input)) return unreadableReply('the computer tool was called without an input');
  const action = input.action;
  if (typeof action !== 'string') return unreadableReply('the computer tool was called without an "action"');
  const built = (raws: ActionInput[]): Mapped => {
    const actions: Action[] = [];
    for (const raw of raws) {
      const one = buildAction(raw);
      if (!one.ok) return unreadableReply(`${action}: ${one.reason}`);
      actions.push(one.action);
    }
    return { ok: true, action, actions };
  };
  const point = pointOf(input.coordinate, 'coordinate');
  if (typeof point === 'string') return unreadableReply(`${action}: ${point}`);
  const modifiers = keysOf(typeof input.text === 'string' ? input.text : typeof input.key === 'string' ? input.key : undefined);
  const held = (inner: ActionInput[]): ActionInput[] =>
    modifiers.length > 0 ? [{ type: 'key_down', keys: modifiers }, ...inner, { type: 'key_up', keys: modifiers }] : inner;

  const click = CLICKS[action];
  if (click) {
    if (point) return built([{ type: click.type, ...point, button: click.button, ...(modifiers.length > 0 ? { modifiers } : {}) }]);
    // Where the pointer is: presses without a move, as often as the click counts.
    const presses: ActionInput[] = [];
    for (let i = 0; i < click.count; i++) presses.push({ type: 'mouse_down', button: click.button }, { type: 'mouse_up', button: click.button });
    return built(held(presses));
  }
  switch (action) {
    case 'screenshot':
    case 'cursor_position':
      // Nothing on the desktop: the result is the capture the loop makes after it.
      return built([{ type: 'screenshot' }]);
    case 'zoom': {
      const region = zoomRegion(input);
      return typeof region === 'string' ? unreadableReply(region) : built([{ type: 'screenshot' }]);
    }
    case 'mouse_move':
      if (!point) return unreadableReply('mouse_move without a coordinate');
      return built([{ type: 'mouse_move', ...point }]);
    case 'left_click_drag': {
      if (!point) return unreadableReply('left_click_drag without a coordinate (the end of the drag)');
      const start = pointOf(input.start_coordinate, 'start_coordinate');
      if (typeof start === 'string') return unreadableReply(`left_click_drag: ${start}`);
      // Without a start, the drag begins where the pointer is.
      if (!start) return built(held([{ type: 'mouse_down' }, { type: 'mouse_move', ...point }, { type: 'mouse_up', ...point }]));
      if (modifiers.length > 0) return built(held([{ type: 'mouse_down', ...start }, { type: 'mouse_move', ...point }, { type: 'mouse_up', ...point }]));
      return built([{ type: 'drag', x: start.x, y: start.y, toX: point.x, toY: point.y }]);
    }
    case 'left_mouse_down':
      return built([{ type: 'mouse_down', ...(point ?? {}) }]);
    case 'left_mouse_up':
      return built([{ type: 'mouse_up', ...(point ?? {}) }]);
    case 'scroll': {
      const direction = input.scroll_direction;
      if (typeof direction !== 'string' || !SCROLL_DIRECTIONS.has(direction as ScrollDirection)) {
        return unreadableReply(`scroll needs a scroll_direction of up, down, left or right (got ${JSON.stringify(direction ?? null)})`);
      }
      const amount = input.scroll_amount ?? 3;
      if (typeof amount !== 'number' || !Number.isInteger(amount) || amount < 1 || amount > 100) {
        return unreadableReply(`scroll_amount must be a whole number of wheel notches from 1 to 100 (got ${JSON.stringify(amount)})`);
      }
      return built(held([{ type: 'scroll', ...(point ?? {}), direction: direction as ScrollDirection, amount }]));
    }
    case 'key': {
      if (typeof input.text !== 'string' || input.text.trim() === '') return unreadableReply('key without text (the key or combination, e.g. "ctrl+s")');
      const repeat = input.repeat ?? 1;
      if (typeof repeat !== 'number' || !Number.isInteger(repeat) || repeat < 1 || repeat > ANTHROPIC_MAX_KEY_REPEAT) {
        return unreadableReply(`key: repeat must be a whole number from 1 to ${ANTHROPIC_MAX_KEY_REPEAT} (got ${JSON.stringify(repeat)})`);
      }
      const chords = input.text.trim().split(/\s+/).map(keysOf);
      return built(Array.from({ length: repeat }, () => chords.map((keys): ActionInput => ({ type: 'hotkey', keys }))).flat());
    }
    case 'hold_key': {
      if (typeof input.text !== 'string' || input.text.trim() === '') return unreadableReply('hold_key without text (the key to hold)');
      const seconds = durationOf(input.duration);
      if (typeof seconds === 'string') return unreadableReply(`hold_key: ${seconds}`);
      const keys = keysOf(input.text);
      return built([{ type: 'key_down', keys }, { type: 'wait', ms: Math.round(seconds * 1000) }, { type: 'key_up', keys }]);
    }
    case 'type':
      if (typeof input.text !== 'string') return unreadableReply('type without text');
      return built([{ type: 'type', text: input.text }]);
    case 'wait': {
      const seconds = input.duration === undefined ? 1 : durationOf(input.duration);
      if (typeof seconds === 'string') return unreadableReply(`wait: ${seconds}`);
      return built([{ type: 'wait', ms: Math.round(seconds * 1000) }]);
    }
    default:
      return unreadableReply(`unknown computer action "${action}"`);
  }
}

function pointOf(value: unknown, field: string): Point | null | string {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length !== 2 || !value.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    return `${field} must be [x, y] in pixels, got ${JSON.stringify(value)}`;
  }
  return { x: value[0] as number, y: value[1] as number };
}

function durationOf(value: unknown): number | string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return `duration must be a number of seconds, got ${JSON.stringify(value ?? null)}`;
  if (value < 0 || value > ANTHROPIC_MAX_DURATION_S) return `duration must be from 0 to ${ANTHROPIC_MAX_DURATION_S} seconds, got ${value}`;
  return value;
}

/**
 * Key names of one xdotool chord ("ctrl+shift+t", "Return", "Shift_L"): split on `+` (a lone `+`
 * is the plus key), the left/right suffix of a modifier dropped; the shared key names do the rest.
 */
function keysOf(chord: string | undefined): string[] {
  if (chord === undefined || chord.trim() === '') return [];
  return chord
    .trim()
    .split(/(?<=.)\+(?=.)/)
    .map((key) => key.trim().replace(/^(shift|control|ctrl|alt|super|meta|hyper)_[lr]$/i, '$1'))
    .filter((key) => key !== '');
}
