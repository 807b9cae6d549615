/**
 * OpenAI computer use over the Responses API.
 *
 * The request carries the `computer_use_preview` tool with the display size; the response's
 * `output` holds `reasoning`, `message` and `computer_call` items. Each computer call is answered
 * in the next request (with `previous_response_id`) by a `computer_call_output` carrying the new
 * screenshot, and by acknowledging its `pending_safety_checks`, which the user must accept first:
 * the parsed action then has `confirm: true`, so the loop asks through the ask-user path before it
 * runs. A refusal ends the run (a `fail` action).
 *
 * Mapping into the wire format: click (button wheel → middle; back/forward are refused), double
 * click, drag along its path, keypress → hotkey, move → mouse_move, scroll (the axis of the larger
 * movement; pixels → notches, see `CUA_SCROLL_PIXELS_PER_NOTCH`), type, wait, screenshot. A response
 * with a message and no computer call ends the turn: it becomes `finished` with the message as summary.
 */
import { type Action, type ActionInput, type MouseButton, type ScrollDirection } from '../../../shared/actions';
import { buildAction, checkActionsInImage, failure, isRecord, nonEmpty, parseJsonReply } from './common';
import { type ImageSize, type ParseFailure, type ReplyParse } from './types';

/** Pixels of `scroll_x`/`scroll_y` per wheel notch; a scroll is at least one notch, at most 100. */
export const CUA_SCROLL_PIXELS_PER_NOTCH = 100;
/** A `wait` without a duration waits as long as OpenAI's reference loop does. */
export const CUA_WAIT_MS = 2000;

export const CUA_ENVIRONMENTS = ['linux', 'ubuntu', 'windows', 'mac', 'browser'] as const;
export type CuaEnvironment = (typeof CUA_ENVIRONMENTS)[number];

export interface SafetyCheck {
  id: string;
  code: string | null;
  message: string | null;
}

export interface CuaCall {
  /** `computer`: answered with a `computer_call_output` (the new screenshot); `function`: with a `function_call_output`. */
  kind?: 'computer' | 'function';
  /** To answer with a `computer_call_output` (or `function_call_output`). */
  callId: string;
  /** Index of the call's action in `actions`. */
  actionIndex: number;
  /** To acknowledge (after the user accepts) in the `computer_call_output`. */
  pendingSafetyChecks: SafetyCheck[];
}

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
}

/** The tool to send in every request. */
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

/** The function tools of a request: the memory's, and run_workflow where workflows are offered. */
export function mnemoFunctionTools(workflows: boolean) {
  return workflows ? [...memoryFunctionTools(), workflowFunctionTool()] : memoryFunctionTools();
}

const MEMORY_FUNCTIONS = new Set(['save_fact', 'query_long_term_memory', 'run_workflow']);

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
  else return failure('expected a response ({"output": [...]}) or an output item');

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
        const checks = safetyChecksOf(item.pending_safety_checks);
        const mapped = mapComputerAction(item.action);
        if (!mapped.ok) return mapped;
        const withConfirm = checks.length > 0 ? { ...mapped.action, confirm: true } : mapped.action;
        const built = buildAction(withConfirm);
        if (!built.ok) return built;
        const callId = typeof item.call_id === 'string' ? item.call_id : typeof item.id === 'string' ? item.id : '';
        calls.push({ callId, actionIndex: actions.length, pendingSafetyChecks: checks });
        actions.push(built.action);
        break;
      }
      case 'function_call': {
        const name = typeof item.name === 'string' ? item.name : '';
        if (!MEMORY_FUNCTIONS.has(name)) return failure(`unknown function "${name}"`);
        let args: unknown;
        try {
          args = typeof item.arguments === 'string' ? JSON.parse(item.arguments || '{}') : item.arguments;
        } catch (error) {
          return failure(`the arguments of ${name} are not JSON: ${(error as Error).message}`);
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
    if (message === null) return failure('no action in the reply');
    return { ok: true, thought, actions: [{ type: 'finished', summary: message }], responseId, calls, refusal };
  }
  const problem = checkActionsInImage(actions, options.image);
  if (problem !== null) return failure(problem);
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

type Mapped = { ok: true; action: ActionInput } | ParseFailure;

const BUTTONS: Record<string, MouseButton> = { left: 'left', right: 'right', wheel: 'middle', middle: 'middle' };

function mapComputerAction(raw: unknown): Mapped {
  if (!isRecord(raw)) return failure('computer_call without an action');
  const type = raw.type;
  if (typeof type !== 'string') return failure('computer_call action has no "type"');
  const hasPoint = raw.x !== undefined && raw.x !== null && raw.y !== undefined && raw.y !== null;
  const point = { x: raw.x, y: raw.y } as { x: number; y: number };
  switch (type) {
    case 'click': {
      if (!hasPoint) return failure('click without a point');
      const name = typeof raw.button === 'string' ? raw.button : 'left';
      const button = BUTTONS[name];
      if (button === undefined) {
        if (name === 'back' || name === 'forward') return failure(`click with button "${name}" is not supported`);
        return failure(`click with unknown button "${name}"`);
      }
      return { ok: true, action: { type: 'click', ...point, button } };
    }
    case 'double_click':
      if (!hasPoint) return failure('double_click without a point');
      return { ok: true, action: { type: 'double_click', ...point } };
    case 'move':
      if (!hasPoint) return failure('move without a point');
      return { ok: true, action: { type: 'mouse_move', ...point } };
    case 'drag': {
      if (!Array.isArray(raw.path) || raw.path.length < 2) return failure('drag without a path of at least two points');
      const path = (raw.path as unknown[]).map((p) => (isRecord(p) ? { x: p.x, y: p.y } : p));
      return { ok: true, action: { type: 'drag', path } as ActionInput };
    }
    case 'keypress': {
      if (!Array.isArray(raw.keys) || raw.keys.length === 0) return failure('keypress without keys');
      return { ok: true, action: { type: 'hotkey', keys: raw.keys as string[] } };
    }
    case 'scroll': {
      const dx = typeof raw.scroll_x === 'number' ? raw.scroll_x : 0;
      const dy = typeof raw.scroll_y === 'number' ? raw.scroll_y : 0;
      if (dx === 0 && dy === 0) return failure('scroll without a movement (scroll_x and scroll_y are 0)');
      // Positive scroll_y scrolls down, positive scroll_x right; the larger movement wins.
      const vertical = Math.abs(dy) >= Math.abs(dx);
      const distance = vertical ? dy : dx;
      const direction: ScrollDirection = vertical ? (dy > 0 ? 'down' : 'up') : dx > 0 ? 'right' : 'left';
      const amount = Math.min(100, Math.max(1, Math.round(Math.abs(distance) / CUA_SCROLL_PIXELS_PER_NOTCH)));
      return { ok: true, action: { type: 'scroll', ...(hasPoint ? point : {}), direction, amount } };
    }
    case 'type':
      if (typeof raw.text !== 'string') return failure('type without text');
      return { ok: true, action: { type: 'type', text: raw.text } };
    case 'wait':
      return { ok: true, action: { type: 'wait', ms: typeof raw.ms === 'number' ? raw.ms : CUA_WAIT_MS } };
    case 'screenshot':
      return { ok: true, action: { type: 'screenshot' } };
    default:
      return failure(`unknown action "${type}"`);
  }
}
