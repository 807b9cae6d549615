/**
 * The UI-TARS text format (UI-TARS-1.0, UI-TARS-1.5 and the Doubao UI-TARS models).
 *
 * A reply has sections, each starting a line, with an ASCII or full-width colon:
 *
 *   Thought: I should open the File menu.          (or Reflection: … Action_Summary: …)
 *   Action: click(start_box='(120,30)')
 *
 *   type(content='hello\n')
 *
 * Several actions follow `Action:`, separated by blank lines (any whitespace is accepted). Points
 * are written `(x,y)`, `(x1,y1,x2,y2)`, `<|box_start|>(x,y)<|box_end|>`, `<point>x y</point>`,
 * `<bbox>x1 y1 x2 y2</bbox>` or `[x1,y1,x2,y2]`; a box means its centre.
 *
 * Coordinates: UI-TARS-1.0 and Doubao write 0–1000 relative to the image; UI-TARS-1.5 writes
 * absolute pixels of the image after its smart resize (see `smartResize`). A model set up with
 * another space (`coordinates`) is read in that one, through coordinates.ts.
 */
import { type Action, type ActionInput, type Point, type ScrollDirection } from '../../../shared/actions';
import { type CanonicalKey, normalizeKey } from '../../../shared/keys';
import { buildAction, describePoint, unreadableReply, nonEmpty } from './common';
import { frameFor, onGrid, readModelPoint, type CoordinateFrame, type ModelCoordinates } from './coordinates';
import { type ImageSize, type ParseFailure, type ReplyParse, type UiTarsVersion } from './types';
import { UI_TARS_VERSIONS } from '../../../shared/model-families';

export { SMART_RESIZE_MAX_RATIO, UI_TARS_1_5_RESIZE, fromSmartResized, smartResize, type SmartResizeOptions } from './coordinates';

export { UI_TARS_VERSIONS };
export type { UiTarsVersion };

/** UI-TARS-1.0 and Doubao coordinates run from 0 to this value on each axis. */
export const UI_TARS_RELATIVE_RANGE = 1000;
/** Wheel notches of one `scroll(...)`: UI-TARS's own executor scrolls 5 clicks. */
export const UI_TARS_SCROLL_AMOUNT = 5;
/** `wait()` means five seconds in UI-TARS. */
export const UI_TARS_WAIT_MS = 5000;
/** The question of `call_user()` when the reply has neither a thought nor a summary. */
export const UI_TARS_CALL_USER_QUESTION = 'The agent needs your help to continue.';

export interface UiTarsOptions {
  readonly version: UiTarsVersion;
  /**
   * Without `coordinates`:
   * 1.0: the image to map the 0–1000 coordinates onto; absent, the output stays in the 0–1000
   * space (as if the image were 1000x1000). Relative coordinates are rounded to whole pixels.
   * 1.5: the size of the image the model saw (after its smart resize); coordinates are returned
   * as written, checked to lie within it; absent, they are returned unchecked (only negative
   * values are refused).
   * With `coordinates`: the image sent, which the points are mapped onto.
   */
  readonly image?: ImageSize;
  /** The space the model writes in (the model's settings); absent: the version's, as above. */
  readonly coordinates?: ModelCoordinates | undefined;
}

export interface UiTarsExtras {
  readonly reflection: string | null;
  readonly actionSummary: string | null;
}

export type UiTarsParse = ReplyParse<UiTarsExtras>;

/** Parse one UI-TARS reply. Never throws for a bad reply. */
export function parseUiTarsReply(text: string, options: UiTarsOptions): UiTarsParse {
  const sections = readSections(text);
  const thought = sections.thought ?? sections.think ?? sections.actionSummary;
  const calls = scanCalls(sections.actionText);
  if (!calls.ok) return sections.hasActionHeader ? calls : unreadableReply('no action in the reply');
  if (calls.calls.length === 0) return unreadableReply('no action in the reply');

  const context: CallContext = {
    options,
    question: nonEmpty(thought) ?? UI_TARS_CALL_USER_QUESTION,
  };
  const actions: Action[] = [];
  for (const call of calls.calls) {
    const input = callToAction(call, context);
    if (!input.ok) return input;
    const built = buildAction(input.action);
    if (!built.ok) return built;
    actions.push(built.action);
  }
  return {
    ok: true,
    thought,
    actions,
    reflection: sections.reflection,
    actionSummary: sections.actionSummary,
  };
}

// ---------------------------------------------------------------------------------------------
// Sections

interface Sections {
  thought: string | null;
  reflection: string | null;
  actionSummary: string | null;
  /** A `<think>…</think>` block some prompts ask for before the sections. */
  think: string | null;
  actionText: string;
  hasActionHeader: boolean;
}

const SECTION_HEADER = /^[ \t]*(Thought|Reflection|Action_Summary|Action)[ \t]*[:：]/gm;
const THINK_BLOCK = /<think>([\s\S]*?)<\/think>/;

function readSections(text: string): Sections {
  let body = text.replace(/\r\n?/g, '\n');
  const think = THINK_BLOCK.exec(body);
  if (think) body = body.replace(THINK_BLOCK, '\n');

  // "Thought: … Action: click(…)" on one line: give the Action header a line of its own.
  if (!/^[ \t]*Action[ \t]*[:：]/m.test(body)) body = body.replace(/(?<!\w)(Action[ \t]*[:：])/g, '\n$1');

  const headers = [...body.matchAll(SECTION_HEADER)];
  const content = new Map<string, string[]>();
  headers.forEach((header, index) => {
    const start = (header.index ?? 0) + header[0].length;
    const end = headers[index + 1]?.index ?? body.length;
    const name = header[1] as string;
    content.set(name, [...(content.get(name) ?? []), body.slice(start, end)]);
  });
  const first = (name: string): string | null => nonEmpty(content.get(name)?.[0]);

  const actionParts = content.get('Action');
  let actionText: string;
  if (actionParts) actionText = actionParts.join('\n\n');
  else if (headers.length === 0) actionText = body; // a bare call, as some prompts produce
  else actionText = '';

  return {
    thought: first('Thought'),
    reflection: first('Reflection'),
    actionSummary: first('Action_Summary'),
    think: nonEmpty(think?.[1]),
    actionText: stripCodeFences(actionText),
    hasActionHeader: actionParts !== undefined,
  };
}

function stripCodeFences(text: string): string {
  return text.replace(/^[ \t]*```[\w-]*[ \t]*$/gm, '');
}

// ---------------------------------------------------------------------------------------------
// Calls: `name(key='value', key=value, 'positional')`

interface RawArgument {
  key: string | null;
  value: string;
  quoted: boolean;
}

interface RawCall {
  name: string;
  args: RawArgument[];
  source: string;
}

type CallScan = { ok: true; calls: RawCall[] } | ParseFailure;

const CALL_START = /([A-Za-z_][\w.]*)[ \t]*\(/y;
const ARGUMENT_KEY = /([A-Za-z_]\w*)\s*=(?!=)/y;
const NEXT_KEYWORD = /\s*[A-Za-z_]\w*\s*=(?!=)/y;

function snippet(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/**
 * Read the calls of an Action section. Quotes are matched leniently: a quote closes a string only
 * when a `,` or `)` follows it, so `type(content='it's')` reads as models mean it.
 */
function scanCalls(text: string): CallScan {
  const calls: RawCall[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (i < text.length && /[\s;]/.test(text[i] as string)) i += 1;
  };
  for (;;) {
    skipSpace();
    if (i >= text.length) break;
    const start = i;
    CALL_START.lastIndex = i;
    const head = CALL_START.exec(text);
    if (!head) return unreadableReply(`cannot read the action "${snippet(text.slice(i))}"`);
    i = CALL_START.lastIndex;
    const args: RawArgument[] = [];
    for (;;) {
      while (i < text.length && /\s/.test(text[i] as string)) i += 1;
      if (i >= text.length) return unreadableReply(`unclosed call "${snippet(text.slice(start))}"`);
      if (text[i] === ')') {
        i += 1;
        break;
      }
      ARGUMENT_KEY.lastIndex = i;
      const key = ARGUMENT_KEY.exec(text);
      if (key) {
        i = ARGUMENT_KEY.lastIndex;
        while (i < text.length && /\s/.test(text[i] as string)) i += 1;
      }
      const value = text[i] === "'" || text[i] === '"' ? readQuoted(text, i) : readUnquoted(text, i);
      if (!value) return unreadableReply(`unterminated string in "${snippet(text.slice(start))}"`);
      args.push({ key: key ? (key[1] as string) : null, value: value.value, quoted: value.quoted });
      i = value.end;
      while (i < text.length && /\s/.test(text[i] as string)) i += 1;
      if (i >= text.length) return unreadableReply(`unclosed call "${snippet(text.slice(start))}"`);
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (text[i] === ')') {
        i += 1;
        break;
      }
      return unreadableReply(`cannot read the arguments of "${snippet(text.slice(start))}"`);
    }
    calls.push({ name: head[1] as string, args, source: text.slice(start, i) });
  }
  return { ok: true, calls };
}

interface ScannedValue {
  value: string;
  quoted: boolean;
  /** Index just after the value. */
  end: number;
}

function readQuoted(text: string, start: number): ScannedValue | null {
  const quote = text[start];
  let firstClose = -1;
  for (let j = start + 1; j < text.length; j += 1) {
    const c = text[j];
    if (c === '\\') {
      j += 1;
      continue;
    }
    if (c !== quote) continue;
    if (firstClose < 0) firstClose = j;
    let k = j + 1;
    while (k < text.length && /\s/.test(text[k] as string)) k += 1;
    if (k >= text.length || text[k] === ',' || text[k] === ')') {
      return { value: text.slice(start + 1, j), quoted: true, end: j + 1 };
    }
  }
  if (firstClose < 0) return null;
  return { value: text.slice(start + 1, firstClose), quoted: true, end: firstClose + 1 };
}

/** An unquoted value runs to the `)` that closes the call, or to a `,` before the next `key=`. */
function readUnquoted(text: string, start: number): ScannedValue {
  let depth = 0;
  let j = start;
  for (; j < text.length; j += 1) {
    const c = text[j] as string;
    if (c === '(' || c === '[' || c === '{') depth += 1;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) break;
      depth -= 1;
    } else if (c === ',' && depth === 0) {
      NEXT_KEYWORD.lastIndex = j + 1;
      if (NEXT_KEYWORD.test(text)) break;
    }
  }
  return { value: text.slice(start, j).trim(), quoted: false, end: j };
}

// ---------------------------------------------------------------------------------------------
// From a call to a wire-format action

interface CallContext {
  options: UiTarsOptions;
  question: string;
}

type ActionInputResult = { ok: true; action: ActionInput } | ParseFailure;

/** Argument names models use for the same thing. */
const ARGUMENT_ALIASES: Record<string, string> = {
  point: 'start_box',
  start_point: 'start_box',
  end_point: 'end_box',
  keys: 'key',
  text: 'content',
};

/** Where positional arguments go, per action. */
const POSITIONAL: Record<string, readonly string[]> = {
  click: ['start_box'],
  left_single: ['start_box'],
  left_double: ['start_box'],
  right_single: ['start_box'],
  hover: ['start_box'],
  drag: ['start_box', 'end_box'],
  type: ['content'],
  hotkey: ['key'],
  press: ['key'],
  release: ['key'],
  scroll: ['start_box', 'direction'],
  finished: ['content'],
  call_user: ['content'],
  query_long_term_memory: ['hint'],
  run_workflow: ['name', 'params'],
};

function argumentsOf(call: RawCall, name: string): Map<string, RawArgument> {
  const named = new Map<string, RawArgument>();
  const positions = POSITIONAL[name] ?? [];
  let position = 0;
  for (const arg of call.args) {
    let key = arg.key?.toLowerCase() ?? null;
    if (key === null) {
      key = positions[position] ?? null;
      position += 1;
      if (key === null) continue;
    }
    named.set(ARGUMENT_ALIASES[key] ?? key, arg);
  }
  return named;
}

function callToAction(call: RawCall, context: CallContext): ActionInputResult {
  const name = call.name.toLowerCase();
  const args = argumentsOf(call, name);
  const point = (key: string, missing: string): { ok: true; point: Point } | ParseFailure => {
    const arg = args.get(key);
    if (!arg || arg.value.trim() === '') return unreadableReply(missing);
    return toImagePoint(arg.value, context.options);
  };
  const pointed = (type: 'click' | 'double_click' | 'mouse_move', extra: object = {}): ActionInputResult => {
    const at = point('start_box', `${call.name} without a point`);
    if (!at.ok) return at;
    return { ok: true, action: { type, x: at.point.x, y: at.point.y, ...extra } as ActionInput };
  };
  const content = (): string | null => {
    const arg = args.get('content');
    return arg ? unescapeContent(arg.value) : null;
  };
  /** A named argument's text, trimmed ('' when absent): Mnemo's own actions take named arguments. */
  const text = (key: string): string => {
    const arg = args.get(key);
    return arg ? unescapeContent(arg.value).trim() : '';
  };

  switch (name) {
    case 'click':
    case 'left_single':
      return pointed('click');
    case 'left_double':
      return pointed('double_click');
    case 'right_single':
      return pointed('click', { button: 'right' });
    case 'hover':
      return pointed('mouse_move');
    case 'drag': {
      const from = point('start_box', 'drag without a start point');
      if (!from.ok) return from;
      const to = point('end_box', 'drag without an end point');
      if (!to.ok) return to;
      return {
        ok: true,
        action: { type: 'drag', x: from.point.x, y: from.point.y, toX: to.point.x, toY: to.point.y },
      };
    }
    case 'type': {
      const text = content();
      if (text === null) return unreadableReply('type without content');
      return { ok: true, action: { type: 'type', text } };
    }
    case 'hotkey':
    case 'press':
    case 'release': {
      const keys = readKeys(args.get('key')?.value ?? '', call.name);
      if (!keys.ok) return keys;
      const type = name === 'hotkey' ? 'hotkey' : name === 'press' ? 'key_down' : 'key_up';
      return { ok: true, action: { type, keys: keys.keys } };
    }
    case 'scroll': {
      const rawDirection = args.get('direction')?.value.trim().toLowerCase() ?? '';
      if (rawDirection === '') return unreadableReply('scroll without a direction');
      if (!['up', 'down', 'left', 'right'].includes(rawDirection)) {
        return unreadableReply(`scroll direction "${rawDirection}" is not up, down, left or right`);
      }
      const direction = rawDirection as ScrollDirection;
      // Without a point, UI-TARS scrolls where the pointer is.
      const hasPoint = (args.get('start_box')?.value.trim() ?? '') !== '';
      if (!hasPoint) return { ok: true, action: { type: 'scroll', direction, amount: UI_TARS_SCROLL_AMOUNT } };
      const at = point('start_box', 'scroll without a point');
      if (!at.ok) return at;
      return {
        ok: true,
        action: { type: 'scroll', x: at.point.x, y: at.point.y, direction, amount: UI_TARS_SCROLL_AMOUNT },
      };
    }
    case 'wait':
      return { ok: true, action: { type: 'wait', ms: UI_TARS_WAIT_MS } };
    case 'finished':
      return { ok: true, action: { type: 'finished', summary: content() ?? '' } };
    case 'call_user':
      return { ok: true, action: { type: 'ask_user', question: nonEmpty(content()) ?? context.question } };
    // Mnemo's memory actions, written with named arguments like the others.
    case 'save_fact': {
      const keyword = text('keyword');
      if (keyword === '') return unreadableReply('save_fact without a keyword');
      const values = text('values');
      const value = text('value');
      if (value === '' && values === '') return unreadableReply('save_fact without a value');
      return {
        ok: true,
        action: {
          type: 'save_fact',
          subject: text('subject').toLowerCase() || 'user',
          keyword,
          description: text('description'),
          ...(values !== '' ? { values: values.split(';').map((part) => part.trim()).filter((part) => part !== '') } : { value }),
        },
      };
    }
    case 'query_long_term_memory': {
      const hint = args.get('hint');
      const text = hint ? unescapeContent(hint.value).trim() : '';
      if (text === '') return unreadableReply('query_long_term_memory without a hint');
      return { ok: true, action: { type: 'query_long_term_memory', hint: text } };
    }
    case 'run_workflow': {
      const workflow = text('name');
      if (workflow === '') return unreadableReply('run_workflow without a name');
      const params = workflowParamsOf(text('params'));
      if (!params.ok) return unreadableReply(`run_workflow: ${params.message}`);
      return { ok: true, action: { type: 'run_workflow', name: workflow, params: params.params } };
    }
    default:
      return unreadableReply(`unknown action "${call.name}"`);
  }
}

function readKeys(raw: string, actionName: string): { ok: true; keys: CanonicalKey[] } | ParseFailure {
  // "ctrl c" as UI-TARS writes it; "ctrl+c" as other models do (a lone "+" stays a key).
  const names = raw
    .trim()
    .split(/\s+/)
    .flatMap((token) => token.split(/(?<=.)\+(?=.)/))
    .filter((token) => token !== '');
  if (names.length === 0) return unreadableReply(`${actionName} without a key`);
  const keys: CanonicalKey[] = [];
  for (const name of names) {
    const key = normalizeKey(name);
    if (!key.ok) return unreadableReply(key.message);
    keys.push(key.key);
  }
  return { ok: true, keys };
}

/** Python string escapes UI-TARS is told to use in `content`: \' \" \n \\ (and \t, \r). */
function unescapeContent(raw: string): string {
  return raw.replace(/\\([\s\S])/g, (whole, c: string) => {
    switch (c) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case "'":
      case '"':
      case '\\':
        return c;
      default:
        return whole;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Points

const POINT_TOKENS = /<\|box_start\|>|<\|box_end\|>|<\/?point>|<\/?bbox>|[()[\]]/g;
const NUMBER_LIST = /^[\s,]*-?\d+(?:\.\d+)?(?:[\s,]+-?\d+(?:\.\d+)?)*[\s,]*$/;

/** A point or box as written (centre of a box), in the model's own coordinates. */
export function readUiTarsPoint(value: string): { ok: true; point: Point } | ParseFailure {
  const bare = value.replace(POINT_TOKENS, ' ');
  if (!NUMBER_LIST.test(bare)) return unreadableReply(`cannot read the point "${value.trim()}"`);
  const numbers = (bare.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
  if (numbers.length === 2) return { ok: true, point: { x: numbers[0] as number, y: numbers[1] as number } };
  if (numbers.length === 4) {
    const [x1, y1, x2, y2] = numbers as [number, number, number, number];
    return { ok: true, point: { x: (x1 + x2) / 2, y: (y1 + y2) / 2 } };
  }
  return unreadableReply(`cannot read the point "${value.trim()}"`);
}

function toImagePoint(value: string, options: UiTarsOptions): { ok: true; point: Point } | ParseFailure {
  const read = readUiTarsPoint(value);
  if (!read.ok) return read;
  const frame = frameOf(options);
  if (frame) return readModelPoint(read.point, frame);
  const { point } = read;
  if (options.coordinates?.space === 'relative-1' && !onGrid(point, frameFor(options.coordinates, { width: 1, height: 1 }))) {
    return unreadableReply(`coordinates ${describePoint(point)} outside the 0-1 relative range`);
  }
  if (point.x < 0 || point.y < 0) return unreadableReply(`coordinates ${describePoint(point)} are negative`);
  return { ok: true, point };
}

const RELATIVE_RANGE: ImageSize = { width: UI_TARS_RELATIVE_RANGE, height: UI_TARS_RELATIVE_RANGE };

/**
 * The frame the points are read in: the space set, else the version's (1.0: 0–1000 of the image;
 * 1.5: the image given, which is then the model's own). Without an image, 0–1000 is read on its own
 * grid; the other spaces are returned as written (null), only their range checked.
 */
function frameOf(options: UiTarsOptions): CoordinateFrame | null {
  const coordinates: ModelCoordinates = options.coordinates ?? { space: options.version === '1.0' ? 'relative-1000' : 'image' };
  if (options.image) return frameFor(coordinates, options.image);
  // On 0–1000 the point is read on its own grid (rounded as on an image); 0–1 stays as written.
  return coordinates.space === 'relative-1000' ? frameFor(coordinates, RELATIVE_RANGE) : null;
}

/** A workflow's parameter values written as a JSON object of strings (empty: none). */
export function workflowParamsOf(text: string): { ok: true; params: Record<string, string> } | { ok: false; message: string } {
  if (text === '') return { ok: true, params: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: `params must be a JSON object such as {"name": "Ada"}, got ${JSON.stringify(text)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'params must be a JSON object of parameter names and values' };
  const params: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value)) {
    if (typeof entry !== 'string' && typeof entry !== 'number') return { ok: false, message: `the value of "${name}" must be a string` };
    params[name] = String(entry);
  }
  return { ok: true, params };
}
