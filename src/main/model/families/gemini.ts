/**
 * Gemini computer use: the Gemini API's `computerUse` tool, spoken as the API documents it: the
 * tool, the grid and the reply parser, pure (the request builder is gemini-request.ts; no
 * network: `gemini-model.ts` sends the request through the official `@google/genai` SDK).
 *
 * The tool's predefined functions answer on a normalised grid: x and y from 0 to 999 whatever the
 * screenshot's size. They are mapped here onto the pixels of the image the model saw (x × width /
 * 1000, not rounded: the Frame rounds once, on the screen), so points cross the VisionModel seam in
 * image pixels like every other family's.
 *
 * The tool is made for a browser; Mnemo drives a whole desktop. What each browser function becomes:
 *
 * | function | on the desktop |
 * | --- | --- |
 * | `open_web_browser`, `search`, `navigate` | excluded from the tool (`excludedPredefinedFunctions`): there is no browser of Mnemo's own to open or point at a URL; the model clicks an address bar and types instead |
 * | `go_back`, `go_forward` | the keys browsers and file managers take for them: Alt+Left, Alt+Right |
 * | `wait_5_seconds` | a wait of 5 s |
 * | `scroll_document` | a scroll at the centre of the screen, as far as `scroll_at`'s default magnitude (800 of 1000) |
 * | `type_text_at` | a click at the point, then (with `clear_before_typing`, the default) Ctrl+A and Delete (Cmd+A on macOS), the text, and Enter with `press_enter` |
 * | `key_combination` | one hotkey (`"ctrl+c"` split on `+`) |
 *
 * The rest map one to one: `click_at`, `hover_at` (a pointer move), `scroll_at` (direction, and
 * magnitude in grid units turned into wheel notches of `CUA_SCROLL_PIXELS_PER_NOTCH` image pixels),
 * `drag_and_drop`; and the newer models' set (`click`, `double_click`, `triple_click`,
 * `middle_click`, `right_click`, `mouse_down`, `mouse_up`, `move`, `type`, `wait`, `press_key`,
 * `key_down`, `key_up`, `hotkey`, `take_screenshot`, `scroll`). Mnemo's own functions (`ask_user`,
 * `save_fact`, `query_long_term_memory`, `run_workflow`) are declared beside the tool as function declarations.
 *
 * Every function call of a reply is answered, in order, by one function response: a computer-use
 * call with `{url}` and the screenshot taken after the step as an inline-data part, Mnemo's own
 * with `{result}`. There is no URL on a desktop: the response says `about:desktop` (see
 * `GEMINI_DESKTOP_URL`). A call whose `safety_decision` requires confirmation marks its first
 * action `confirm: true` and is listed among the pending safety checks, so the loop asks the user
 * before it runs; the call's response then carries `safety_acknowledgement: "true"`.
 *
 * A reply without a function call ends the run as finished, its text the summary; a reply the
 * safety filters stopped ends it as a refusal. Replies are read in camelCase or in the Python SDK's
 * snake_case (gemini-parts.ts); a reply with a part that cannot be read is a parse failure, never
 * finished.
 */
import type { Content, Environment, FunctionDeclaration, Part, Tool } from '@google/genai';
import { type Action, type ActionInput, type MouseButton, type ScrollDirection } from '../../../shared/actions';
import { buildAction, unreadableReply, isRecord, nonEmpty } from './common';
import { imageToModel, modelToImage, type CoordinateFrame } from './coordinates';
import { camelCaseGemini, partsProblem } from './gemini-parts';
import { CUA_SCROLL_PIXELS_PER_NOTCH, mnemoFunctionTools } from './openai-cua';
import { type GeminiCall, type ImageSize, type ParseFailure, type ReplyParse, type SafetyCheck } from './types';

/** The grid's size: coordinates run from 0 to 999 on both axes. */
export const GEMINI_GRID = 1000;
/** `scroll_at`'s magnitude when the model gives none (grid units), and `scroll_document`'s. */
export const GEMINI_SCROLL_MAGNITUDE = 800;
export const GEMINI_WAIT_MS = 5000;
/** The `url` of every function response: a desktop has none (see the module comment). */
export const GEMINI_DESKTOP_URL = 'about:desktop';

export const GEMINI_ENVIRONMENTS = ['browser', 'desktop'] as const;
export type GeminiEnvironment = (typeof GEMINI_ENVIRONMENTS)[number];

/** Browser functions with no meaning on a desktop, left out of the tool in the browser environment. */
export const GEMINI_EXCLUDED_FUNCTIONS = ['open_web_browser', 'search', 'navigate'] as const;

/** Browser functions done with the keys a desktop takes for them. */
export const GEMINI_KEY_EQUIVALENTS: Readonly<Record<string, readonly string[]>> = {
  go_back: ['alt', 'left'],
  go_forward: ['alt', 'right'],
};

/** Mnemo's own functions, answered with the step's result instead of a screenshot. */
/** Mnemo's own functions, declared beside the tool: answered with the step's result, not a screenshot. */
export const GEMINI_MNEMO_FUNCTIONS = new Set(['ask_user', 'save_fact', 'query_long_term_memory', 'run_workflow', 'click_element', 'type_into']);

// ---------------------------------------------------------------------------------------------
// The tools

/** The computer-use tool, with the browser-only functions excluded (browser environment). */
export function geminiComputerUseTool(environment: GeminiEnvironment = 'browser'): Tool {
  return {
    computerUse: {
      environment: (environment === 'desktop' ? 'ENVIRONMENT_DESKTOP' : 'ENVIRONMENT_BROWSER') as Environment,
      ...(environment === 'browser' ? { excludedPredefinedFunctions: [...GEMINI_EXCLUDED_FUNCTIONS] } : {}),
    },
  };
}

/** Mnemo's own functions, declared beside the computer-use tool (run_workflow where workflows are offered). */
export function geminiFunctionDeclarations(workflows = false, elements = false): FunctionDeclaration[] {
  return [
    {
      name: 'ask_user',
      description: 'Ask the user something only they know (a missing detail, a choice). Their answer comes with the next turn.',
      parametersJsonSchema: { type: 'object', properties: { question: { type: 'string', description: 'The question for the user.' } }, required: ['question'] },
    },
    ...mnemoFunctionTools(workflows, elements).map(({ name, description, parameters }) => ({ name, description, parametersJsonSchema: parameters })),
  ];
}

export function geminiTools(environment: GeminiEnvironment = 'browser', workflows = false, elements = false): Tool[] {
  return [geminiComputerUseTool(environment), { functionDeclarations: geminiFunctionDeclarations(workflows, elements) }];
}

// ---------------------------------------------------------------------------------------------
// The grid

/** The grid is the `relative-1000` coordinate space (coordinates.ts) over the image sent. */
export const geminiCoordinateFrame = (image: ImageSize): CoordinateFrame => ({ space: 'relative-1000', image });

/** A grid point at the same place on an image of `image`'s size (the grid itself without one). */
export function fromGeminiGrid(point: { x: number; y: number }, image: ImageSize | undefined): { x: number; y: number } {
  return image === undefined ? { x: point.x, y: point.y } : modelToImage(point, geminiCoordinateFrame(image));
}

/** An image point on the grid, rounded to a grid cell (what a model looking at `image` answers). */
export function toGeminiGrid(point: { x: number; y: number }, image: ImageSize): { x: number; y: number } {
  const onGrid = imageToModel(point, geminiCoordinateFrame(image));
  const cell = (value: number) => Math.min(GEMINI_GRID - 1, Math.max(0, value));
  return { x: cell(onGrid.x), y: cell(onGrid.y) };
}

// ---------------------------------------------------------------------------------------------
// Parsing

export interface GeminiExtras {
  readonly calls: GeminiCall[];
  readonly finishReason: string | null;
  /** Why the safety filters stopped the reply; the actions are then one `fail`. */
  readonly refusal: string | null;
}

export type GeminiParse = ReplyParse<GeminiExtras>;

export interface GeminiParseOptions {
  /** The image the model saw: grid points are mapped onto it (without one they stay on the grid). */
  readonly image?: ImageSize;
}

/** Finish reasons that mean the safety filters stopped the reply. */
const REFUSAL_REASONS = new Set(['SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY', 'RECITATION']);

/** One reply as Mnemo keeps it (`Prediction.raw`): the candidate's content, why it ended, the usage. */
export interface GeminiReply {
  content: Content;
  finishReason: string | null;
  finishMessage?: string | undefined;
  blockReason?: string | undefined;
  usageMetadata?: unknown;
  modelVersion?: string | undefined;
}

/** Parse a reply given as text: a whole response, a kept reply, a content, its parts or one part. */
export function parseGeminiReply(text: string, options: GeminiParseOptions = {}): GeminiParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return unreadableReply(`the reply is not JSON: ${(error as Error).message}`);
  }
  const reply = readGeminiReply(value);
  return reply === null ? unreadableReply('expected a response ({"candidates": [...]}), a content ({"parts": [...]}) or its parts') : parseGeminiContent(reply, options);
}

/** The reply in any of the shapes `parseGeminiReply` takes, in camelCase or snake_case, or null. */
export function readGeminiReply(raw: unknown): GeminiReply | null {
  const value = camelCaseGemini(raw);
  if (Array.isArray(value)) return { content: { role: 'model', parts: value as Part[] }, finishReason: null };
  if (!isRecord(value)) return null;
  if (Array.isArray(value.candidates) || isRecord(value.promptFeedback)) {
    const candidate = (Array.isArray(value.candidates) ? value.candidates[0] : undefined) as Record<string, unknown> | undefined;
    const blockReason = isRecord(value.promptFeedback) && typeof value.promptFeedback.blockReason === 'string' ? value.promptFeedback.blockReason : undefined;
    return {
      content: isRecord(candidate?.content) ? (candidate.content as Content) : { role: 'model', parts: [] },
      finishReason: typeof candidate?.finishReason === 'string' ? candidate.finishReason : null,
      ...(typeof candidate?.finishMessage === 'string' ? { finishMessage: candidate.finishMessage } : {}),
      ...(blockReason !== undefined ? { blockReason } : {}),
      usageMetadata: value.usageMetadata,
    };
  }
  if (isRecord(value.content)) return { ...(value as unknown as GeminiReply), finishReason: typeof value.finishReason === 'string' ? value.finishReason : null };
  if (Array.isArray(value.parts)) return { content: value as Content, finishReason: null };
  if ('functionCall' in value || 'text' in value) return { content: { role: 'model', parts: [value as Part] }, finishReason: null };
  return null;
}

/** The thought of some parts: the thought summaries, then the text, each joined. */
export function geminiThoughtOf(parts: readonly Part[]): string | null {
  const thoughts = nonEmpty(partTexts(parts, true).join('\n\n'));
  const text = nonEmpty(partTexts(parts, false).join('\n\n'));
  return nonEmpty([thoughts, text].filter((piece) => piece !== null).join('\n\n'));
}

function partTexts(parts: readonly Part[], thought: boolean): string[] {
  return parts.filter((part) => typeof part.text === 'string' && part.text !== '' && (part.thought === true) === thought).map((part) => part.text as string);
}

/** Parse one reply's content (camelCase or snake_case) into actions in pixels of the image (see the module comment). */
export function parseGeminiContent(given: GeminiReply, options: GeminiParseOptions = {}): GeminiParse {
  const reply = camelCaseGemini(given) as GeminiReply;
  if (!isRecord(reply.content)) return unreadableReply('the reply has no content');
  const unreadable = partsProblem(reply.content.parts);
  if (unreadable !== null) return unreadableReply(unreadable);
  const finishReason = reply.finishReason ?? null;
  const parts = Array.isArray(reply.content.parts) ? reply.content.parts : [];
  const thought = geminiThoughtOf(parts);
  const refuse = (why: string): GeminiParse => ({ ok: true, thought: thought ?? why, actions: [{ type: 'fail', reason: why }], calls: [], finishReason, refusal: why });
  if (reply.blockReason !== undefined) return refuse(`the request was blocked (${reply.blockReason})`);

  const actions: Action[] = [];
  const calls: GeminiCall[] = [];
  for (const part of parts) {
    const call = part.functionCall;
    if (!call) continue;
    const name = call.name ?? '';
    const args = isRecord(call.args) ? call.args : {};
    const mapped = mapFunctionCall(name, args, options.image);
    if (!mapped.ok) return mapped;
    const safety = safetyOf(args.safety_decision, call.id ?? `${name}#${calls.length + 1}`);
    const built: Action[] = [];
    for (const [index, input] of mapped.actions.entries()) {
      const action = buildAction(index === 0 && safety !== null ? { ...input, confirm: true } : input);
      if (!action.ok) return unreadableReply(`${name}: ${action.reason}`);
      built.push(action.action);
    }
    calls.push({ name, id: call.id ?? null, kind: GEMINI_MNEMO_FUNCTIONS.has(name) ? 'function' : 'computer', actionIndex: actions.length, actionCount: built.length, safety });
    actions.push(...built);
  }

  if (calls.length === 0) {
    if (finishReason !== null && REFUSAL_REASONS.has(finishReason)) return refuse(`the reply was stopped by the provider's safety filters (${finishReason})`);
    if (finishReason === 'MALFORMED_FUNCTION_CALL') return unreadableReply(`the model wrote a malformed function call${reply.finishMessage ? `: ${reply.finishMessage}` : ''}`);
    const summary = nonEmpty(partTexts(parts, false).join('\n\n'));
    if (summary === null) {
      const cut = finishReason === 'MAX_TOKENS' ? ' (the reply was cut off at the output token limit)' : '';
      return unreadableReply(`no function call and no text in the reply${cut}`);
    }
    return { ok: true, thought, actions: [{ type: 'finished', summary }], calls, finishReason, refusal: null };
  }
  return { ok: true, thought, actions, calls, finishReason, refusal: null };
}

function safetyOf(decision: unknown, id: string): SafetyCheck | null {
  if (!isRecord(decision) || decision.decision !== 'require_confirmation') return null;
  const explanation = typeof decision.explanation === 'string' ? decision.explanation : null;
  return { id, code: 'require_confirmation', message: explanation };
}

type Mapped = { ok: true; actions: ActionInput[] } | ParseFailure;

function ok(...actions: ActionInput[]): Mapped {
  return { ok: true, actions };
}

/** A grid coordinate pair of the call, mapped onto the image. */
function pointOf(name: string, args: Record<string, unknown>, xKey: string, yKey: string, image: ImageSize | undefined): { ok: true; point: { x: number; y: number } } | ParseFailure {
  const x = args[xKey];
  const y = args[yKey];
  if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y)) return unreadableReply(`${name} needs numbers ${xKey} and ${yKey} on the 0-999 grid`);
  if (x < 0 || y < 0 || x > GEMINI_GRID || y > GEMINI_GRID) return unreadableReply(`${name} at (${x}, ${y}) is off the 0-999 grid`);
  return { ok: true, point: fromGeminiGrid({ x, y }, image) };
}

/** Wheel notches for a movement of `magnitude` grid units along the scroll's axis. */
function notches(magnitude: number, direction: ScrollDirection, image: ImageSize | undefined): number {
  const size = image ?? { width: GEMINI_GRID, height: GEMINI_GRID };
  const pixels = (magnitude * (direction === 'up' || direction === 'down' ? size.height : size.width)) / GEMINI_GRID;
  return Math.min(100, Math.max(1, Math.round(pixels / CUA_SCROLL_PIXELS_PER_NOTCH)));
}

const DIRECTIONS = new Set<string>(['up', 'down', 'left', 'right']);

function scrollAt(name: string, point: { x: number; y: number }, args: Record<string, unknown>, image: ImageSize | undefined): Mapped {
  const direction = args.direction;
  if (typeof direction !== 'string' || !DIRECTIONS.has(direction)) return unreadableReply(`${name} needs a direction: up, down, left or right`);
  const magnitude = typeof args.magnitude === 'number' && args.magnitude > 0 ? args.magnitude : GEMINI_SCROLL_MAGNITUDE;
  return ok({ type: 'scroll', ...point, direction: direction as ScrollDirection, amount: notches(magnitude, direction as ScrollDirection, image) });
}

/** `"ctrl+c"`, `["ctrl", "c"]` or `"Enter"` as a list of key names. */
function keysOf(value: unknown): string[] | null {
  if (Array.isArray(value)) return value.every((key) => typeof key === 'string' && key !== '') ? (value as string[]) : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  return value
    .split(/(?<=.)\+(?=.)/)
    .map((key) => key.trim())
    .filter((key) => key !== '');
}

/** Select all and delete: `cmd` is Ctrl on Linux and Windows, Command on macOS. */
const CLEAR_FIELD: ActionInput[] = [
  { type: 'hotkey', keys: ['cmd', 'a'] },
  { type: 'hotkey', keys: ['delete'] },
];
const PRESS_ENTER: ActionInput = { type: 'hotkey', keys: ['enter'] };

const CLICKS: Record<string, { type: 'click' | 'double_click' | 'triple_click'; button?: MouseButton }> = {
  click_at: { type: 'click' },
  click: { type: 'click' },
  double_click: { type: 'double_click' },
  triple_click: { type: 'triple_click' },
  middle_click: { type: 'click', button: 'middle' },
  right_click: { type: 'click', button: 'right' },
};

/** One function call as wire-format actions (not yet validated). */
function mapFunctionCall(name: string, args: Record<string, unknown>, image: ImageSize | undefined): Mapped {
  const at = (xKey = 'x', yKey = 'y') => pointOf(name, args, xKey, yKey, image);
  const click = CLICKS[name];
  if (click !== undefined) {
    const point = at();
    return point.ok ? ok({ type: click.type, ...point.point, ...(click.button ? { button: click.button } : {}) }) : point;
  }
  const keys = GEMINI_KEY_EQUIVALENTS[name];
  if (keys !== undefined) return ok({ type: 'hotkey', keys: [...keys] });
  switch (name) {
    case 'hover_at':
    case 'move': {
      const point = at();
      return point.ok ? ok({ type: 'mouse_move', ...point.point }) : point;
    }
    case 'mouse_down':
    case 'mouse_up': {
      const point = at();
      return point.ok ? ok({ type: name, ...point.point }) : point;
    }
    case 'type_text_at': {
      const point = at();
      if (!point.ok) return point;
      if (typeof args.text !== 'string') return unreadableReply('type_text_at needs a text');
      const clear = args.clear_before_typing !== false;
      return ok({ type: 'click', ...point.point }, ...(clear ? CLEAR_FIELD : []), { type: 'type', text: args.text }, ...(args.press_enter === true ? [PRESS_ENTER] : []));
    }
    case 'type':
      if (typeof args.text !== 'string') return unreadableReply('type needs a text');
      return ok({ type: 'type', text: args.text }, ...(args.press_enter === true ? [PRESS_ENTER] : []));
    case 'key_combination':
    case 'hotkey':
    case 'press_key':
    case 'key_down':
    case 'key_up': {
      const list = keysOf(args.keys ?? args.key);
      if (list === null || list.length === 0) return unreadableReply(`${name} needs keys, e.g. "ctrl+c"`);
      return ok({ type: name === 'key_down' || name === 'key_up' ? name : 'hotkey', keys: list });
    }
    case 'scroll_at':
    case 'scroll': {
      const point = at();
      return point.ok ? scrollAt(name, point.point, args, image) : point;
    }
    case 'scroll_document':
      return scrollAt(name, fromGeminiGrid({ x: GEMINI_GRID / 2, y: GEMINI_GRID / 2 }, image), { direction: args.direction }, image);
    case 'drag_and_drop': {
      const from = at();
      if (!from.ok) return from;
      const to = at('destination_x', 'destination_y');
      if (!to.ok) return to;
      return ok({ type: 'drag', x: from.point.x, y: from.point.y, toX: to.point.x, toY: to.point.y });
    }
    case 'wait_5_seconds':
      return ok({ type: 'wait', ms: GEMINI_WAIT_MS });
    case 'wait': {
      const seconds = typeof args.seconds === 'number' && args.seconds >= 0 ? args.seconds : 1;
      return ok({ type: 'wait', ms: Math.min(600_000, Math.round(seconds * 1000)) });
    }
    case 'take_screenshot':
      return ok({ type: 'screenshot' });
    case 'ask_user':
      return typeof args.question === 'string' ? ok({ type: 'ask_user', question: args.question }) : unreadableReply('ask_user needs a question');
    case 'save_fact':
    case 'query_long_term_memory':
    case 'run_workflow':
    case 'click_element':
    case 'type_into': {
      const { safety_decision: _safety, ...rest } = args;
      return ok({ ...rest, type: name } as ActionInput);
    }
    default:
      if ((GEMINI_EXCLUDED_FUNCTIONS as readonly string[]).includes(name)) return unreadableReply(`"${name}" is not available: Mnemo drives a whole desktop, not a browser of its own (click the address bar and type instead)`);
      return unreadableReply(`unknown function "${name}"`);
  }
}
