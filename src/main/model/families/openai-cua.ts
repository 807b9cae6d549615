/**
 * OpenAI computer use over the Responses API.
 *
 * Two tools (`model.computerTool`): the GA `{"type": "computer"}` (GPT-5.4 and later; no display
 * size: coordinates are pixels of the screenshots sent) and the older `computer_use_preview` with
 * the display size. The response's `output` holds `reasoning`, `message` and `computer_call`
 * items; a GA call carries `actions`, a batch run in order, where a preview call carries one
 * `action` (both are read, whichever tool was sent). Each computer call is answered
 * in the next request (with `previous_response_id`) by a `computer_call_output` carrying the new
 * screenshot, and by acknowledging its `pending_safety_checks`, which the user must accept first:
 * the parsed action then has `confirm: true`, so the loop asks through the ask-user path before it
 * runs. A refusal ends the run (a `fail` action).
 *
 * Mapping into the wire format: click (button wheel → middle; back/forward are refused), double
 * click, drag along its path, keypress → hotkey, move → mouse_move, scroll (the axis of the larger
 * movement; pixels → notches, see `CUA_SCROLL_PIXELS_PER_NOTCH`), type, wait, screenshot. `keys`
 * on a click, double click, scroll or drag are held while it happens (`modifiers`); on a move,
 * pressed around it. A response with a message and no computer call ends the turn: it becomes
 * `finished` with the message as summary.
 */
import { type Action, type ActionInput, type MouseButton, type ScrollDirection } from '../../../shared/actions';
import { type OpenAiComputerTool } from '../../../shared/model-families';
import { buildAction, checkActionsInImage, unreadableReply, isRecord, nonEmpty, parseJsonReply } from './common';
import { type CuaCall, type ImageSize, type ParseFailure, type ReplyParse, type SafetyCheck } from './types';

/** Pixels of `scroll_x`/`scroll_y` per wheel notch; a scroll is at least one notch, at most 100. */
export const CUA_SCROLL_PIXELS_PER_NOTCH = 100;
/** A `wait` without a duration waits as long as OpenAI's reference loop does. */
export const CUA_WAIT_MS = 2000;

export const CUA_ENVIRONMENTS = ['linux', 'ubuntu', 'windows', 'mac', 'browser'] as const;
export type CuaEnvironment = (typeof CUA_ENVIRONMENTS)[number];

export interface CuaExtras {
  /** The response id, for `previous_response_id` in the next request (null for a single item). */
  readonly responseId: string | null;
  readonly calls: CuaCall[];
  /** The model's refusal; the actions are then one `fail`. */
  readonly refusal: string | null;
}

export type CuaParse = ReplyParse<CuaExtras>;

export interface CuaOptions {
  /** The display size declared in the tool: coordinates are checked to lie within it. */
  readonly image?: ImageSize;
  /**
   * The tool the reply must have been written for (`mnemo parse --computer-tool`): a call of the
   * other shape (`actions` for the GA tool, `action` for the preview) is refused. Absent: both are read.
   */
  readonly tool?: OpenAiComputerTool | undefined;
}

/** The GA computer tool: no display size, no environment; coordinates are pixels of the screenshots sent. */
export const COMPUTER_TOOL = { type: 'computer' as const };

/** The tool a request carries for a computer tool choice. */
export function cuaToolEntry(tool: OpenAiComputerTool, display: ImageSize, environment: CuaEnvironment) {
  return tool === 'computer' ? COMPUTER_TOOL : computerUsePreviewTool(display, environment);
}

/** The preview tool, with the display the model's coordinates are pixels of. */
export function computerUsePreviewTool(display: ImageSize, environment: CuaEnvironment = 'linux') {
  return {
    type: 'computer_use_preview' as const,
    display_width: display.width,
    display_height: display.height,
    environment,
  };
}

/**
 * Mnemo's memory actions as function tools beside the computer tool: the model recalls or saves a
 * fact with a `function_call`, answered in the next request by a `function_call_output`.
 */
export function memoryFunctionTools() {
  return [
    {
      type: 'function' as const,
      name: 'save_fact',
      description: 'Remember a lasting fact for later tasks (a preference, a name, how this machine is set up).',
      strict: false,
      parameters: {
        type: 'object',
        properties: {
          subject: { type: 'string', description: 'Who or what the fact is about: "user" (default) or "machine".' },
          keyword: { type: 'string', description: 'A short identifier of the fact, e.g. "preferred-editor".' },
          description: { type: 'string', description: 'What the keyword means.' },
          value: { type: 'string', description: 'The fact.' },
          values: { type: 'array', items: { type: 'string' }, description: 'The facts, when the concept holds several.' },
        },
        required: ['keyword'],
      },
    },
    {
      type: 'function' as const,
      name: 'query_long_term_memory',
      description: 'Recall what earlier tasks and conversations taught (preferences, names, places).',
      strict: false,
      parameters: { type: 'object', properties: { hint: { type: 'string', description: 'What you are trying to remember.' } }, required: ['hint'] },
    },
  ];
}

/**
 * Running a saved workflow (procedural memory), declared beside them when the run's instructions
 * offer workflows (`PredictInput.workflows`); answered like them.
 */
export function workflowFunctionTool() {
  return {
    type: 'function' as const,
    name: 'run_workflow',
    description: 'Run a saved workflow (one offered in the instructions) with values for its parameters: its recorded steps are done again on the screen; its report comes back.',
    strict: false,
    parameters: {
      type: 'object',
      properties: {
        name: { type: 'string', description: "The workflow's name." },
        params: { type: 'object', additionalProperties: { type: 'string' }, description: 'A value for each of its parameters, by name.' },
      },
      required: ['name'],
    },
  };
}

/**
 * The elements aid's actions (model.elements `list` or `marks`), declared only then: act on an
 * element of the step's numbered list, where the accessibility tree says it is now.
 */
export function elementFunctionTools() {
  const n = { type: 'integer', minimum: 1, description: "The element's number in this step's list of elements." };
  return [
    {
      type: 'function' as const,
      name: 'click_element',
      description: "Click element n of this step's list of elements, where it is now. Fails, saying so, when the element is gone: look again.",
      strict: false,
      parameters: { type: 'object', properties: { n }, required: ['n'] },
    },
    {
      type: 'function' as const,
      name: 'type_into',
      description: "Click element n of this step's list, select what it holds and type the text in its place; the field is read back afterwards.",
      strict: false,
      parameters: {
        type: 'object',
        properties: { n, text: { type: 'string', description: 'Text to type.' }, secret: { type: 'boolean', description: 'The text is a secret (a password): recorded masked.' } },
        required: ['n', 'text'],
      },
    },
  ];
}

/** The function tools of a request: the memory's, run_workflow where workflows are offered, the element actions with the elements aid on. */
export function mnemoFunctionTools(workflows: boolean, elements = false) {
  return [...memoryFunctionTools(), ...(workflows ? [workflowFunctionTool()] : []), ...(elements ? elementFunctionTools() : [])];
}

/** The functions answered by Mnemo (their result as text), not by the computer tool. */
const MNEMO_FUNCTIONS = new Set(['save_fact', 'query_long_term_memory', 'run_workflow', 'click_element', 'type_into']);

/** The input item that answers a computer call with the screenshot taken after it. */
export function computerCallOutput(callId: string, screenshotUrl: string, acknowledged: readonly SafetyCheck[] = []) {
  return {
    type: 'computer_call_output' as const,
    call_id: callId,
    output: { type: 'computer_screenshot' as const, image_url: screenshotUrl },
    ...(acknowledged.length > 0
      ? { acknowledged_safety_checks: acknowledged.map(({ id, code, message }) => ({ id, code, message })) }
      : {}),
  };
}

/** Parse a reply given as text: one output item, an array of items, or a whole response. */
export function parseOpenAiCuaReply(text: string, options: CuaOptions = {}): CuaParse {
  return parseJsonReply(text, (value) => parseOpenAiCuaResponse(value, options));
}

/** Parse a response object (`{"output":[...]}`), an array of output items, or one item. */
export function parseOpenAiCuaResponse(value: unknown, options: CuaOptions = {}): CuaParse {
  let items: unknown[];
  let responseId: string | null = null;
  if (Array.isArray(value)) items = value;
  else if (isRecord(value) && Array.isArray(value.output)) {
    items = value.output;
    responseId = typeof value.id === 'string' ? value.id : null;
  } else if (isRecord(value) && typeof value.type === 'string') items = [value];
  else return unreadableReply('expected a response ({"output": [...]}) or an output item');

  const reasoning: string[] = [];
  const messages: string[] = [];
  let refusal: string | null = null;
  const actions: Action[] = [];
  const calls: CuaCall[] = [];

  for (const item of items) {
    if (!isRecord(item)) continue;
    switch (item.type) {
      case 'reasoning':
        reasoning.push(...textsOf(item.summary, 'text'));
        break;
      case 'message':
        for (const part of Array.isArray(item.content) ? (item.content as unknown[]) : [item.content]) {
          if (typeof part === 'string') messages.push(part);
          else if (isRecord(part) && part.type === 'refusal' && typeof part.refusal === 'string') refusal ??= part.refusal;
          else if (isRecord(part) && typeof part.text === 'string') messages.push(part.text);
        }
        break;
      case 'computer_call': {
        if (options.tool === 'computer_use_preview' && Array.isArray(item.actions)) return unreadableReply('a computer_call with actions is the GA computer tool\'s; computer_use_preview calls carry one action');
        if (options.tool === 'computer' && !Array.isArray(item.actions)) return unreadableReply('a computer_call with one action is the computer_use_preview tool\'s; computer calls carry actions');
        const checks = safetyChecksOf(item.pending_safety_checks);
        const mapped = mapComputerCall(item);
        if (!mapped.ok) return mapped;
        const built: Action[] = [];
        for (const [index, raw] of mapped.actions.entries()) {
          // The user's yes, asked once before the call's first action, covers the call.
          const one = buildAction(checks.length > 0 && index === 0 ? { ...raw, confirm: true } : raw);
          if (!one.ok) return mapped.batch ? unreadableReply(`action ${index + 1} of the batch: ${one.reason}`) : one;
          built.push(one.action);
        }
        const callId = typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : '';
        calls.push({ callId, actionIndex: actions.length, ...(built.length !== 1 ? { actionCount: built.length } : {}), pendingSafetyChecks: checks });
        actions.push(...built);
        break;
      }
      case 'function_call': {
        const name = typeof item.name === 'string' ? item.name : '';
        if (!MNEMO_FUNCTIONS.has(name)) return unreadableReply(`unknown function "${name}"`);
        let args: unknown;
        try {
          args = typeof item.arguments === 'string' ? JSON.parse(item.arguments || '{}') : item.arguments;
        } catch (error) {
          return unreadableReply(`the arguments of ${name} are not JSON: ${(error as Error).message}`);
        }
        const built = buildAction({ ...(isRecord(args) ? args : {}), type: name } as ActionInput);
        if (!built.ok) return built;
        const callId = typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : '';
        calls.push({ kind: 'function', callId, actionIndex: actions.length, pendingSafetyChecks: [] });
        actions.push(built.action);
        break;
      }
      default:
        // Other items (tool outputs echoed back, web search calls, ...) carry no action.
        break;
    }
  }

  const message = nonEmpty(messages.join('\n\n'));
  const thought = nonEmpty(reasoning.join('\n\n')) ?? message;
  if (refusal !== null) {
    return { ok: true, thought, actions: [{ type: 'fail', reason: refusal }], responseId, calls: [], refusal };
  }
  if (actions.length === 0) {
    if (message === null) return unreadableReply('no action in the reply');
    return { ok: true, thought, actions: [{ type: 'finished', summary: message }], responseId, calls, refusal };
  }
  const problem = checkActionsInImage(actions, options.image);
  if (problem !== null) return unreadableReply(problem);
  return { ok: true, thought, actions, responseId, calls, refusal };
}

function textsOf(parts: unknown, field: string): string[] {
  if (!Array.isArray(parts)) return [];
  return parts
    .map((part: unknown) => (isRecord(part) && typeof part[field] === 'string' ? (part[field] as string) : null))
    .filter((part): part is string => part !== null && part.trim() !== '');
}

function safetyChecksOf(value: unknown): SafetyCheck[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((check) => ({
    id: typeof check.id === 'string' ? check.id : '',
    code: typeof check.code === 'string' ? check.code : null,
    message: typeof check.message === 'string' ? check.message : null,
  }));
}

type Mapped = { ok: true; actions: ActionInput[] } | ParseFailure;
type MappedCall = { ok: true; actions: ActionInput[]; batch: boolean } | ParseFailure;

const BUTTONS: Record<string, MouseButton> = { left: 'left', right: 'right', wheel: 'middle', middle: 'middle' };

/**
 * A computer call's actions: the GA tool's `actions` batch in order (an empty batch is a look at
 * the screen: the call is answered with a screenshot all the same), or the preview tool's `action`.
 */
function mapComputerCall(item: Record<string, unknown>): MappedCall {
  if (Array.isArray(item.actions)) {
    if (item.actions.length === 0) return { ok: true, actions: [{ type: 'screenshot' }], batch: true };
    const actions: ActionInput[] = [];
    for (const [index, raw] of (item.actions as unknown[]).entries()) {
      const mapped = mapComputerAction(raw);
      if (!mapped.ok) return unreadableReply(`action ${index + 1} of the batch: ${mapped.reason}`);
      actions.push(...mapped.actions);
    }
    return { ok: true, actions, batch: true };
  }
  if (item.action === undefined || item.action === null) return unreadableReply('computer_call without an action');
  const mapped = mapComputerAction(item.action);
  return mapped.ok ? { ...mapped, batch: false } : mapped;
}

const one = (action: ActionInput): Mapped => ({ ok: true, actions: [action] });

/** The keys a call holds while it happens (`keys`), as the wire format's `modifiers`. */
function keysHeld(raw: Record<string, unknown>): { modifiers?: string[] } | ParseFailure {
  if (raw.keys === undefined || raw.keys === null) return {};
  if (!Array.isArray(raw.keys) || !raw.keys.every((key) => typeof key === 'string')) return unreadableReply(`keys must be a list of key names, got ${JSON.stringify(raw.keys)}`);
  return raw.keys.length > 0 ? { modifiers: raw.keys as string[] } : {};
}

function mapComputerAction(raw: unknown): Mapped {
  if (!isRecord(raw)) return unreadableReply('computer_call without an action');
  const type = raw.type;
  if (typeof type !== 'string') return unreadableReply('computer_call action has no "type"');
  const hasPoint = raw.x !== undefined && raw.x !== null && raw.y !== undefined && raw.y !== null;
  const point = { x: raw.x, y: raw.y } as { x: number; y: number };
  const held = keysHeld(raw);
  if ('ok' in held) return held;
  switch (type) {
    case 'click': {
      if (!hasPoint) return unreadableReply('click without a point');
      const name = typeof raw.button === 'string' ? raw.button : 'left';
      const button = BUTTONS[name];
      if (button === undefined) {
        if (name === 'back' || name === 'forward') return unreadableReply(`click with button "${name}" is not supported`);
        return unreadableReply(`click with unknown button "${name}"`);
      }
      return one({ type: 'click', ...point, button, ...held });
    }
    case 'double_click':
      if (!hasPoint) return unreadableReply('double_click without a point');
      return one({ type: 'double_click', ...point, ...held });
    case 'move':
      if (!hasPoint) return unreadableReply('move without a point');
      // A move takes no modifiers of its own: the keys are pressed around it.
      if (!held.modifiers) return one({ type: 'mouse_move', ...point });
      return { ok: true, actions: [{ type: 'key_down', keys: held.modifiers }, { type: 'mouse_move', ...point }, { type: 'key_up', keys: held.modifiers }] };
    case 'drag': {
      if (!Array.isArray(raw.path) || raw.path.length < 2) return unreadableReply('drag without a path of at least two points');
      const path = (raw.path as unknown[]).map((p) => (isRecord(p) ? { x: p.x, y: p.y } : p));
      return one({ type: 'drag', path, ...held } as ActionInput);
    }
    case 'keypress': {
      if (!Array.isArray(raw.keys) || raw.keys.length === 0) return unreadableReply('keypress without keys');
      return one({ type: 'hotkey', keys: raw.keys as string[] });
    }
    case 'scroll': {
      const dx = typeof raw.scroll_x === 'number' ? raw.scroll_x : 0;
      const dy = typeof raw.scroll_y === 'number' ? raw.scroll_y : 0;
      if (dx === 0 && dy === 0) return unreadableReply('scroll without a movement (scroll_x and scroll_y are 0)');
      // Positive scroll_y scrolls down, positive scroll_x right; the larger movement wins.
      const vertical = Math.abs(dy) >= Math.abs(dx);
      const distance = vertical ? dy : dx;
      const direction: ScrollDirection = vertical ? (dy > 0 ? 'down' : 'up') : dx > 0 ? 'right' : 'left';
      const amount = Math.min(100, Math.max(1, Math.round(Math.abs(distance) / CUA_SCROLL_PIXELS_PER_NOTCH)));
      return one({ type: 'scroll', ...(hasPoint ? point : {}), direction, amount, ...held });
    }
    case 'type':
      if (typeof raw.text !== 'string') return unreadableReply('type without text');
      return one({ type: 'type', text: raw.text });
    case 'wait':
      return one({ type: 'wait', ms: typeof raw.ms === 'number' ? raw.ms : CUA_WAIT_MS });
    case 'screenshot':
      return one({ type: 'screenshot' });
    default:
      return unreadableReply(`unknown action "${type}"`);
  }
}
