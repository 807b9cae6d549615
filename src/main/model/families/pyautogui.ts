/**
 * The `pyautogui` family: replies written as Python pyautogui calls, the action space of OSWorld
 * that OpenCUA, Agent-S and many open agents write. The code is read (python-calls.ts), never run.
 *
 * A reply is a thought and code: the code in ```python fences (every fenced block, in order), or,
 * without fences, the lines from the first one that is code. A line is code when it reads as a
 * Python statement of any kind (`os.system(...)`, `x = 1`, `import os`: python-calls.ts
 * `looksLikePythonStatement`), so code Mnemo does not read is refused naming its line, never taken
 * for the thought; with fences, such a line outside them is refused too. The thought is the prose
 * around the code (its `Thought:` section when it has one), else the `Thought:` of a docstring that
 * opens the code, as OSWorld's agents record it. Each statement is one of:
 *
 *   pyautogui.click(x, y, clicks=1, button='left')   doubleClick  tripleClick  rightClick  middleClick
 *   pyautogui.moveTo(x, y)   pyautogui.dragTo(x, y, button='left')   mouseDown(x, y)   mouseUp(x, y)
 *   pyautogui.scroll(clicks, x, y)  (positive: up)   hscroll(clicks, x, y)  (positive: right)
 *   pyautogui.write('text') / typewrite('text' or a list of keys)   press('enter' or a list, presses=1)
 *   pyautogui.hotkey('ctrl', 'c') (or keys=[...])   keyDown('shift')   keyUp('shift')   time.sleep(seconds)
 *   pyperclip.copy('text') then a paste (hotkey('ctrl', 'v'), ...): typing the text (pyautogui-clipboard.ts)
 *   WAIT   DONE   FAIL                    (OSWorld's markers)
 *   computer.wait()   computer.terminate(status='success'|'failure', answer=...)   (OpenCUA's)
 *   mnemo.ask_user(question)   mnemo.save_fact(keyword, description, value)   mnemo.query_long_term_memory(hint)
 *   mnemo.run_workflow(workflow, PARAM=value, …)
 *
 * a string alone (a docstring), and `import pyautogui` / `time` / `pyperclip`. Anything else is a
 * failure naming its line in the reply.
 * Points are written in the model's coordinate space (pixels of the image by default) and come
 * back in pixels of the image sent.
 */
import { actionPoints, type Action, type ActionInput, type MouseButton, type Point } from '../../../shared/actions';
import { buildAction, describePoint, unreadableReply, nonEmpty } from './common';
import { actionToImage, checkActionOnGrid, frameFor, type CoordinateFrame, type ModelCoordinates } from './coordinates';
import { clipboardEffectAt } from './pyautogui-clipboard';
import { hotkeyKeys, keyOf, keysOf } from './pyautogui-keys';
import { looksLikePythonStatement, pythonRepr, pythonString, readStatements, sequenceOf, type PythonStatement, type PythonValue } from './python-calls';
import { type ImageSize, type ParseFailure, type ReplyParse } from './types';

/** How long `WAIT` and `computer.wait()` wait: OSWorld pauses 2 s after each step. */
export const PYAUTOGUI_WAIT_MS = 2000;
/** Wheel notches one scroll call may turn (the action's own limit). */
export const PYAUTOGUI_MAX_SCROLL = 100;
/** `time.sleep` longer than this is refused (the wait action's limit). */
const MAX_SLEEP_MS = 600_000;

export interface PyautoguiOptions {
  /** The image sent: points are checked on the model's grid for it and mapped onto it. */
  readonly image?: ImageSize;
  /** The space the model writes points in (default: pixels of the image). */
  readonly coordinates?: ModelCoordinates | undefined;
}

export interface PyautoguiExtras {
  /** The code read, as the model wrote it. */
  readonly code: string;
  /**
   * The text of the reply's last `pyperclip.copy()` when no paste after it typed it: it does
   * nothing (Mnemo keeps no clipboard of its own between replies), and says so.
   */
  readonly unpastedCopy: string | null;
}

export type PyautoguiParse = ReplyParse<PyautoguiExtras>;

/** The calls Mnemo reads, with their Python parameters in order (the ones it ignores included). */
const SIGNATURES: Record<string, readonly string[]> = {
  'pyautogui.click': ['x', 'y', 'clicks', 'interval', 'button', 'duration', 'tween', 'logScreenshot', '_pause'],
  'pyautogui.doubleClick': ['x', 'y', 'interval', 'button', 'duration', 'tween', 'logScreenshot', '_pause'],
  'pyautogui.tripleClick': ['x', 'y', 'interval', 'button', 'duration', 'tween', 'logScreenshot', '_pause'],
  'pyautogui.rightClick': ['x', 'y', 'duration', 'tween', 'logScreenshot', '_pause'],
  'pyautogui.middleClick': ['x', 'y', 'duration', 'tween', 'logScreenshot', '_pause'],
  'pyautogui.moveTo': ['x', 'y', 'duration', 'tween', 'logScreenshot', '_pause'],
  'pyautogui.dragTo': ['x', 'y', 'duration', 'tween', 'button', 'logScreenshot', '_pause', 'mouseDownUp'],
  'pyautogui.mouseDown': ['x', 'y', 'button', 'duration', 'tween', 'logScreenshot', '_pause'],
  'pyautogui.mouseUp': ['x', 'y', 'button', 'duration', 'tween', 'logScreenshot', '_pause'],
  'pyautogui.scroll': ['clicks', 'x', 'y', 'logScreenshot', '_pause'],
  'pyautogui.vscroll': ['clicks', 'x', 'y', 'logScreenshot', '_pause'],
  'pyautogui.hscroll': ['clicks', 'x', 'y', 'logScreenshot', '_pause'],
  'pyautogui.write': ['message', 'interval', 'logScreenshot', '_pause'],
  'pyautogui.typewrite': ['message', 'interval', 'logScreenshot', '_pause'],
  'pyautogui.press': ['keys', 'presses', 'interval', 'logScreenshot', '_pause'],
  'pyautogui.keyDown': ['key', 'logScreenshot', '_pause'],
  'pyautogui.keyUp': ['key', 'logScreenshot', '_pause'],
  'time.sleep': ['secs'],
  // Reads the clipboard and drops what it read: nothing to do. `pyperclip.copy` is read with the pastes.
  'pyperclip.paste': [],
  'computer.wait': ['seconds'],
  'computer.terminate': ['status', 'answer'],
  'computer.triple_click': ['x', 'y'],
  'mnemo.ask_user': ['question'],
  'mnemo.save_fact': ['keyword', 'description', 'value', 'values', 'subject'],
  'mnemo.query_long_term_memory': ['hint'],
  // And a keyword per parameter of the workflow (read apart: runWorkflowActions).
  'mnemo.run_workflow': ['workflow'],
};

const MARKERS = new Set(['WAIT', 'DONE', 'FAIL']);
const IMPORTABLE = new Set(['pyautogui', 'time', 'pyperclip']);

/** The calls a reply may make, for messages and the prompt. */
export const PYAUTOGUI_CALLS = [...Object.keys(SIGNATURES).filter((name) => name.startsWith('pyautogui.')), 'pyautogui.hotkey', 'time.sleep', 'pyperclip.copy'];

// ---------------------------------------------------------------------------------------------
// The reply: thought and code

interface CodeBlock {
  code: string;
  /** The line of the reply the block's first line is. */
  firstLine: number;
}

interface SplitReply {
  thought: string | null;
  blocks: CodeBlock[];
  /** A line of code outside the fences, which is read neither as code nor as the thought. */
  stray: { line: number; source: string } | null;
}

const FENCE = /^[ \t]*```[ \t]*([\w+-]*)[ \t]*$/;
/** The modules Mnemo reads calls of: a line starting with one is code, whatever follows. */
const READ_MODULE = /^[ \t]*(?:pyautogui|time|computer|mnemo|pyperclip)\./;
const MARKER_LINE = /^[ \t]*(?:WAIT|DONE|FAIL)[ \t]*(?:#.*)?$/;
const THOUGHT_HEADER = /^[ \t]*(?:#+[ \t]*)?\**(?:Thought|Thinking)\**[ \t]*[:：]\**/im;
const OTHER_HEADER = /^[ \t]*(?:#+[ \t]*)?\**(?:Action|Code|Grounded Action)\**[ \t]*[:：]?\**[ \t]*$/im;

/** A line of a reply that is code: a call of a module Mnemo reads, a marker, or any Python statement. */
function isCodeLine(line: string): boolean {
  return READ_MODULE.test(line) || MARKER_LINE.test(line) || looksLikePythonStatement(line);
}

/** The reply taken apart into its prose and its code, each line keeping its number in the reply. */
function splitReply(text: string): SplitReply {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const prose: { line: number; text: string }[] = [];
  const blocks: CodeBlock[] = [];
  let open: CodeBlock | null = null;
  lines.forEach((line, index) => {
    if (FENCE.test(line)) {
      if (open) {
        blocks.push(open);
        open = null;
      } else open = { code: '', firstLine: index + 2 };
      return;
    }
    if (open) open.code += `${open.code === '' && open.firstLine === index + 1 ? '' : '\n'}${line}`;
    else prose.push({ line: index + 1, text: line });
  });
  // A block left open runs to the end of the reply (a reply cut off, or a model that never closes it).
  if (open) blocks.push(open);
  if (blocks.length > 0) {
    // The markers stay prose here: a fenced reply says WAIT, DONE or FAIL inside its block.
    const stray = prose.find(({ text }) => READ_MODULE.test(text) || looksLikePythonStatement(text));
    return { thought: thoughtOf(prose.map(({ text }) => text).join('\n')), blocks, stray: stray ? { line: stray.line, source: stray.text.trim() } : null };
  }

  // No fences: the code starts at the first line that is code.
  const start = lines.findIndex(isCodeLine);
  if (start < 0) return { thought: thoughtOf(lines.join('\n')), blocks: [], stray: null };
  return { thought: thoughtOf(lines.slice(0, start).join('\n')), blocks: [{ code: lines.slice(start).join('\n'), firstLine: start + 1 }], stray: null };
}

/** The prose's `Thought:` section when it has one, else the prose without its headers. */
function thoughtOf(prose: string): string | null {
  const header = THOUGHT_HEADER.exec(prose);
  if (header) {
    const rest = prose.slice(header.index + header[0].length);
    const next = /^[ \t]*(?:#+[ \t]*)?\**(?:Action|Code|Grounded Action|Observation)\**[ \t]*[:：]/im.exec(rest);
    return nonEmpty(next ? rest.slice(0, next.index) : rest);
  }
  return nonEmpty(prose.replace(new RegExp(OTHER_HEADER.source, 'gim'), ''));
}

// ---------------------------------------------------------------------------------------------
// Parsing

/** Parse one reply of pyautogui code. Never throws for a bad reply. */
export function parsePyautoguiReply(text: string, options: PyautoguiOptions = {}): PyautoguiParse {
  const split = splitReply(text);
  if (split.blocks.length === 0) return unreadableReply('no code in the reply: write the actions as pyautogui calls in a ```python block (or WAIT, DONE or FAIL)');
  if (split.stray !== null) return unreadableReply(`line ${split.stray.line}: code outside the \`\`\`python block is not read: ${clip(split.stray.source)}`);
  const statements: PythonStatement[] = [];
  for (const block of split.blocks) {
    const read = readStatements(block.code, block.firstLine);
    if (!read.ok) return read;
    statements.push(...read.statements);
  }
  const docstrings = statements.flatMap((statement) => (statement.kind === 'string' ? [statement.value] : []));
  const thought = split.thought ?? (docstrings.length > 0 ? thoughtOf(docstrings.join('\n')) : null);
  const context: CallContext = { thought, frame: frameOf(options) };
  const read = actionsOfStatements(statements, context);
  if (!read.ok) return read;
  if (read.actions.length === 0) {
    if (read.unpastedCopy !== null) return unreadableReply("no action in the code: pyperclip.copy() only fills the clipboard, and no paste in the same reply types it (pyautogui.hotkey('ctrl', 'v'))");
    return unreadableReply('no action in the code: only imports and comments');
  }
  return { ok: true, thought, actions: read.actions, code: split.blocks.map((block) => block.code.trim()).join('\n'), unpastedCopy: read.unpastedCopy };
}

function clip(source: string): string {
  return source.length > 80 ? `${source.slice(0, 77)}...` : source;
}

/**
 * The actions of the statements in order, pastes of a `pyperclip.copy` text read as typing it
 * (pyautogui-clipboard.ts). The clipboard is known from a copy until a copy or cut chord replaces
 * it with the screen's selection; a paste of an unknown clipboard stays the keys pressed.
 */
function actionsOfStatements(statements: readonly PythonStatement[], context: CallContext): { ok: true; actions: Action[]; unpastedCopy: string | null } | ParseFailure {
  const actions: Action[] = [];
  let clipboard: string | null = null;
  let unpastedCopy: string | null = null;
  for (let index = 0; index < statements.length; ) {
    const statement = statements[index] as PythonStatement;
    const effect = clipboardEffectAt(statements, index);
    if (!effect.ok) return unreadableReply(`line ${statement.line}: ${effect.reason}`);
    if (effect.kind === 'set') {
      clipboard = effect.text;
      unpastedCopy = effect.text;
      index += 1;
      continue;
    }
    if (effect.kind === 'paste' && clipboard !== null) {
      // Pasting an empty clipboard types nothing.
      const typed = clipboard === '' ? { ok: true as const, actions: [] } : placedActions([{ type: 'type', text: clipboard }], context.frame);
      if (!typed.ok) return unreadableReply(`line ${statement.line}: ${typed.reason}`);
      actions.push(...typed.actions);
      unpastedCopy = null;
      index += effect.statements;
      continue;
    }
    if (effect.kind === 'replace') clipboard = null;
    const read = actionsOfStatement(statement, context);
    if (!read.ok) return unreadableReply(`line ${statement.line}: ${read.reason}`);
    actions.push(...read.actions);
    index += 1;
  }
  return { ok: true, actions, unpastedCopy };
}

/** Where points are read: on the model's grid for the image, or, without an image, a relative grid as written. */
function frameOf(options: PyautoguiOptions): CoordinateFrame | null {
  const coordinates = options.coordinates ?? { space: 'image' };
  if (options.image) return frameFor(coordinates, options.image);
  if (coordinates.space === 'relative-1000') return frameFor(coordinates, { width: 1000, height: 1000 });
  if (coordinates.space === 'relative-1') return frameFor(coordinates, { width: 1, height: 1 });
  return null;
}

interface CallContext {
  thought: string | null;
  frame: CoordinateFrame | null;
}

type Actions = { ok: true; actions: Action[] } | ParseFailure;

function actionsOfStatement(statement: PythonStatement, context: CallContext): Actions {
  if (statement.kind === 'string') return { ok: true, actions: [] };
  if (statement.kind === 'import') {
    const other = statement.modules.find((module) => !IMPORTABLE.has(module));
    return other === undefined ? { ok: true, actions: [] } : unreadableReply(`only pyautogui, time and pyperclip are read, not "${other}"`);
  }
  const inputs = statement.kind === 'name' ? markerActions(statement.name, context) : callActions(statement.callee, statement.args, context);
  return inputs.ok ? placedActions(inputs.actions, context.frame) : inputs;
}

/** Wire-format actions built from their inputs, their points brought onto the image. */
function placedActions(inputs: readonly ActionInput[], frame: CoordinateFrame | null): Actions {
  const actions: Action[] = [];
  for (const input of inputs) {
    const built = buildAction(input);
    if (!built.ok) return built;
    const placed = place(built.action, frame);
    if (!placed.ok) return placed;
    actions.push(placed.action);
  }
  return { ok: true, actions };
}

/** An action's points checked on the model's grid and brought into pixels of the image. */
function place(action: Action, frame: CoordinateFrame | null): { ok: true; action: Action } | ParseFailure {
  if (frame === null) {
    const negative = actionPoints(action).find((point) => point.x < 0 || point.y < 0);
    return negative ? unreadableReply(`coordinates ${describePoint(negative)} are negative`) : { ok: true, action };
  }
  const problem = checkActionOnGrid(action, frame);
  return problem === null ? { ok: true, action: actionToImage(action, frame) } : unreadableReply(problem);
}

type Inputs = { ok: true; actions: ActionInput[] } | ParseFailure;

function markerActions(name: string, context: CallContext): Inputs {
  switch (name) {
    case 'WAIT':
      return { ok: true, actions: [{ type: 'wait', ms: PYAUTOGUI_WAIT_MS }] };
    case 'DONE':
      return { ok: true, actions: [{ type: 'finished', summary: context.thought ?? '' }] };
    case 'FAIL':
      return { ok: true, actions: [{ type: 'fail', reason: context.thought ?? 'the model answered FAIL: the task cannot be done' }] };
    default:
      return unreadableReply(`"${name}" is not a call (the markers are ${[...MARKERS].join(', ')})`);
  }
}

/** Arguments bound to a call's parameters, as Python binds them. */
class Bound {
  constructor(
    readonly callee: string,
    private readonly values: ReadonlyMap<string, PythonValue>,
  ) {}

  has(name: string): boolean {
    const value = this.values.get(name);
    return value !== undefined && value !== null;
  }

  value(name: string): PythonValue | undefined {
    const value = this.values.get(name);
    return value === null ? undefined : value;
  }

  number(name: string, fallback?: number): { ok: true; value: number } | ParseFailure {
    const value = this.value(name);
    if (value === undefined && fallback !== undefined) return { ok: true, value: fallback };
    if (typeof value !== 'number') return unreadableReply(`${this.callee}() needs ${name} as a number${value === undefined ? '' : `, not ${pythonRepr(value)}`}`);
    return { ok: true, value };
  }

  text(name: string): { ok: true; value: string } | ParseFailure {
    const value = this.value(name);
    if (typeof value !== 'string') return unreadableReply(`${this.callee}() needs ${name} as a string${value === undefined ? '' : `, not ${pythonRepr(value)}`}`);
    return { ok: true, value };
  }

  optionalText(name: string): string | undefined {
    const value = this.value(name);
    return typeof value === 'string' ? value : undefined;
  }
}

function bind(callee: string, args: readonly { name: string | null; value: PythonValue }[]): { ok: true; bound: Bound } | ParseFailure {
  const parameters = SIGNATURES[callee] as readonly string[];
  const values = new Map<string, PythonValue>();
  let position = 0;
  for (const arg of args) {
    if (arg.name === null) {
      const parameter = parameters[position];
      if (parameter === undefined) return unreadableReply(`${callee}() takes at most ${parameters.length} arguments`);
      values.set(parameter, arg.value);
      position += 1;
    } else {
      if (!parameters.includes(arg.name)) return unreadableReply(`${callee}() has no argument ${arg.name}`);
      if (values.has(arg.name)) return unreadableReply(`${callee}() got the argument ${arg.name} twice`);
      values.set(arg.name, arg.value);
    }
  }
  return { ok: true, bound: new Bound(callee, values) };
}

function callActions(callee: string, args: readonly { name: string | null; value: PythonValue }[], context: CallContext): Inputs {
  if (callee === 'pyautogui.hotkey') {
    const keys = hotkeyKeys(args);
    return keys.ok ? { ok: true, actions: [{ type: 'hotkey', keys: keys.keys }] } : keys;
  }
  if (callee === 'mnemo.run_workflow') return runWorkflowActions(args);
  if (SIGNATURES[callee] === undefined) {
    return unreadableReply(`${callee}() is not a call Mnemo reads (it reads ${PYAUTOGUI_CALLS.map((name) => name.replace('pyautogui.', '')).join(', ')}, and WAIT, DONE, FAIL)`);
  }
  const bound = bind(callee, args);
  if (!bound.ok) return bound;
  const a = bound.bound;
  switch (callee) {
    case 'pyautogui.click': {
      const clicks = a.number('clicks', 1);
      if (!clicks.ok) return clicks;
      return clickActions(a, clicks.value, 'left');
    }
    case 'pyautogui.doubleClick':
      return clickActions(a, 2, 'left');
    case 'pyautogui.tripleClick':
    case 'computer.triple_click':
      return clickActions(a, 3, 'left');
    case 'pyautogui.rightClick':
      return clickActions(a, 1, 'right');
    case 'pyautogui.middleClick':
      return clickActions(a, 1, 'middle');
    case 'pyautogui.moveTo': {
      const at = pointOf(a);
      if (!at.ok) return at;
      if (at.point === null) return unreadableReply(`${callee}() needs x and y`);
      return { ok: true, actions: [{ type: 'mouse_move', ...at.point }] };
    }
    case 'pyautogui.dragTo': {
      const at = pointOf(a);
      if (!at.ok) return at;
      if (at.point === null) return unreadableReply(`${callee}() needs x and y`);
      const button = buttonOf(a);
      if (!button.ok) return button;
      // From where the pointer is: press there, move with the button held, release.
      return { ok: true, actions: [{ type: 'mouse_down', button: button.button }, { type: 'mouse_move', ...at.point }, { type: 'mouse_up', button: button.button }] };
    }
    case 'pyautogui.mouseDown':
    case 'pyautogui.mouseUp': {
      const at = pointOf(a);
      if (!at.ok) return at;
      const button = buttonOf(a);
      if (!button.ok) return button;
      return { ok: true, actions: [{ type: callee === 'pyautogui.mouseDown' ? 'mouse_down' : 'mouse_up', ...(at.point ?? {}), button: button.button }] };
    }
    case 'pyautogui.scroll':
    case 'pyautogui.vscroll':
    case 'pyautogui.hscroll':
      return scrollActions(a, callee === 'pyautogui.hscroll');
    case 'pyautogui.write':
    case 'pyautogui.typewrite':
      return writeActions(a);
    case 'pyautogui.press':
      return pressActions(a);
    case 'pyautogui.keyDown':
    case 'pyautogui.keyUp': {
      const name = a.text('key');
      if (!name.ok) return name;
      const key = keyOf(name.value);
      if (!key.ok) return key;
      return { ok: true, actions: [{ type: callee === 'pyautogui.keyDown' ? 'key_down' : 'key_up', keys: [key.key] }] };
    }
    case 'time.sleep': {
      const seconds = a.number('secs');
      if (!seconds.ok) return seconds;
      return waitActions(seconds.value);
    }
    case 'computer.wait': {
      const seconds = a.number('seconds', PYAUTOGUI_WAIT_MS / 1000);
      if (!seconds.ok) return seconds;
      return waitActions(seconds.value);
    }
    case 'computer.terminate': {
      const status = a.optionalText('status') ?? 'success';
      const answer = a.optionalText('answer');
      if (status === 'success') return { ok: true, actions: [{ type: 'finished', summary: nonEmpty(answer) ?? context.thought ?? '' }] };
      if (status === 'failure') return { ok: true, actions: [{ type: 'fail', reason: nonEmpty(answer) ?? context.thought ?? 'the model gave up on the task' }] };
      return unreadableReply(`computer.terminate() takes status 'success' or 'failure', not ${pythonString(status)}`);
    }
    case 'mnemo.ask_user': {
      const question = a.text('question');
      if (!question.ok) return question;
      return { ok: true, actions: [{ type: 'ask_user', question: question.value }] };
    }
    case 'mnemo.query_long_term_memory': {
      const hint = a.text('hint');
      if (!hint.ok) return hint;
      return { ok: true, actions: [{ type: 'query_long_term_memory', hint: hint.value }] };
    }
    case 'mnemo.save_fact':
      return saveFactActions(a);
    case 'pyperclip.paste':
      return { ok: true, actions: [] };
    default:
      return unreadableReply(`${callee}() is not a call Mnemo reads`);
  }
}

type PointRead = { ok: true; point: Point | null } | ParseFailure;

/** `x, y`, or `(x, y)` as the first argument; null when neither is given (where the pointer is). */
function pointOf(a: Bound): PointRead {
  const x = a.value('x');
  const y = a.value('y');
  if (x === undefined && y === undefined) return { ok: true, point: null };
  if (typeof x === 'string') return unreadableReply(`${a.callee}() with an image to find on the screen is not read: give x and y`);
  const pair = x === undefined ? null : sequenceOf(x);
  if (pair !== null) {
    if (y !== undefined) return unreadableReply(`${a.callee}() got a point and y`);
    const [px, py] = pair;
    if (pair.length !== 2 || typeof px !== 'number' || typeof py !== 'number') return unreadableReply(`${a.callee}() needs a point of two numbers, not ${pythonRepr(x as PythonValue)}`);
    return { ok: true, point: { x: px, y: py } };
  }
  if (typeof x !== 'number' || typeof y !== 'number') return unreadableReply(`${a.callee}() needs both x and y as numbers`);
  return { ok: true, point: { x, y } };
}

const BUTTONS: Record<string, MouseButton> = { left: 'left', right: 'right', middle: 'middle', primary: 'left', secondary: 'right' };

function buttonOf(a: Bound, fallback: MouseButton = 'left'): { ok: true; button: MouseButton } | ParseFailure {
  const value = a.value('button');
  if (value === undefined) return { ok: true, button: fallback };
  const button = typeof value === 'string' ? BUTTONS[value.toLowerCase()] : undefined;
  if (button === undefined) return unreadableReply(`${a.callee}() button must be 'left', 'right' or 'middle', not ${pythonRepr(value)}`);
  return { ok: true, button };
}

function clickActions(a: Bound, clicks: number, fallback: MouseButton): Inputs {
  if (!Number.isInteger(clicks) || clicks < 1) return unreadableReply(`${a.callee}() clicks must be a whole number of at least 1, not ${clicks}`);
  const at = pointOf(a);
  if (!at.ok) return at;
  const button = buttonOf(a, fallback);
  if (!button.ok) return button;
  if (at.point === null) {
    // Where the pointer is: press and release there, as many times as asked.
    const pair: ActionInput[] = [{ type: 'mouse_down', button: button.button }, { type: 'mouse_up', button: button.button }];
    return { ok: true, actions: Array.from({ length: clicks }, () => pair).flat() };
  }
  const { x, y } = at.point;
  if (clicks === 2) return { ok: true, actions: [{ type: 'double_click', x, y, button: button.button }] };
  if (clicks === 3) return { ok: true, actions: [{ type: 'triple_click', x, y, button: button.button }] };
  return { ok: true, actions: Array.from({ length: clicks }, () => ({ type: 'click' as const, x, y, button: button.button })) };
}

function scrollActions(a: Bound, horizontal: boolean): Inputs {
  const clicks = a.number('clicks');
  if (!clicks.ok) return clicks;
  if (!Number.isInteger(clicks.value) || clicks.value === 0) return unreadableReply(`${a.callee}() clicks must be a whole number other than 0, not ${clicks.value}`);
  const at = pointOf(a);
  if (!at.ok) return at;
  const direction = horizontal ? (clicks.value > 0 ? 'right' : 'left') : clicks.value > 0 ? 'up' : 'down';
  const amount = Math.min(Math.abs(clicks.value), PYAUTOGUI_MAX_SCROLL);
  return { ok: true, actions: [{ type: 'scroll', ...(at.point ?? {}), direction, amount }] };
}

function waitActions(seconds: number): Inputs {
  const ms = Math.round(seconds * 1000);
  if (!(ms >= 0)) return unreadableReply(`a wait of ${seconds} seconds`);
  if (ms > MAX_SLEEP_MS) return unreadableReply(`a wait of ${seconds} seconds is longer than ${MAX_SLEEP_MS / 60_000} minutes`);
  return { ok: true, actions: [{ type: 'wait', ms }] };
}

function pressActions(a: Bound): Inputs {
  const keys = keysOf(a.callee, a.value('keys'));
  if (!keys.ok) return keys;
  const presses = a.number('presses', 1);
  if (!presses.ok) return presses;
  if (!Number.isInteger(presses.value) || presses.value < 1) return unreadableReply(`pyautogui.press() presses must be a whole number of at least 1, not ${presses.value}`);
  const once = keys.keys.map((key): ActionInput => ({ type: 'hotkey', keys: [key] }));
  return { ok: true, actions: Array.from({ length: presses.value }, () => once).flat() };
}

/** `write('text')`, or `typewrite([...])` with key names among single characters. */
function writeActions(a: Bound): Inputs {
  const message = a.value('message');
  if (typeof message === 'string') return { ok: true, actions: [{ type: 'type', text: message }] };
  const items = message === undefined ? null : sequenceOf(message);
  if (items === null) return unreadableReply(`${a.callee}() needs the text as a string${message === undefined ? '' : `, not ${pythonRepr(message)}`}`);
  const actions: ActionInput[] = [];
  let text = '';
  for (const item of items) {
    if (typeof item !== 'string') return unreadableReply(`${a.callee}() needs strings in its list, not ${pythonRepr(item)}`);
    if ([...item].length === 1) {
      text += item;
      continue;
    }
    const key = keyOf(item);
    if (!key.ok) return key;
    if (text !== '') actions.push({ type: 'type', text });
    text = '';
    actions.push({ type: 'hotkey', keys: [key.key] });
  }
  if (text !== '') actions.push({ type: 'type', text });
  return actions.length > 0 ? { ok: true, actions } : unreadableReply(`${a.callee}() with nothing to type`);
}

/** `mnemo.run_workflow('name', PARAM='value', …)`: the workflow first (or `workflow=`), each parameter as a keyword. */
function runWorkflowActions(args: readonly { name: string | null; value: PythonValue }[]): Inputs {
  let workflow: string | null = null;
  const params: Record<string, string> = {};
  for (const [i, arg] of args.entries()) {
    if (arg.name === null || arg.name === 'workflow') {
      if ((arg.name === null && i > 0) || workflow !== null) return unreadableReply("mnemo.run_workflow() takes the workflow's name first, then each parameter as a keyword: mnemo.run_workflow('form', name='Ada')");
      if (typeof arg.value !== 'string' || arg.value.trim() === '') return unreadableReply("mnemo.run_workflow() needs the workflow's name as a string");
      workflow = arg.value.trim();
    } else {
      if (typeof arg.value !== 'string' && typeof arg.value !== 'number') return unreadableReply(`mnemo.run_workflow(): the value of ${arg.name} must be a string`);
      params[arg.name] = String(arg.value);
    }
  }
  if (workflow === null) return unreadableReply("mnemo.run_workflow() needs the workflow's name: mnemo.run_workflow('form', name='Ada')");
  return { ok: true, actions: [{ type: 'run_workflow', name: workflow, params }] };
}

function saveFactActions(a: Bound): Inputs {
  const keyword = a.text('keyword');
  if (!keyword.ok) return keyword;
  const values = a.value('values');
  const list = values === undefined ? null : sequenceOf(values);
  if (values !== undefined && (list === null || list.some((value) => typeof value !== 'string'))) return unreadableReply('mnemo.save_fact() needs values as a list of strings');
  return {
    ok: true,
    actions: [
      {
        type: 'save_fact',
        subject: (a.optionalText('subject') ?? 'user').toLowerCase(),
        keyword: keyword.value,
        description: a.optionalText('description') ?? '',
        ...(list !== null ? { values: list as string[] } : { value: a.optionalText('value') ?? '' }),
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Writing actions back as code (the history of a step whose reply is not kept)

/** One action as pyautogui code (one or more lines), points passed through `toModel`; null for none. */
export function formatPyautoguiAction(action: Action, toModel: (point: Point) => Point): string | null {
  const point = (x: number, y: number) => {
    const at = toModel({ x, y });
    return `${at.x}, ${at.y}`;
  };
  const button = (value: MouseButton) => (value === 'left' ? '' : `, button=${pythonString(value)}`);
  const held = (keys: readonly string[] | undefined, line: string) =>
    keys && keys.length > 0 ? [...keys.map((key) => `pyautogui.keyDown(${pythonString(key)})`), line, ...[...keys].reverse().map((key) => `pyautogui.keyUp(${pythonString(key)})`)].join('\n') : line;
  switch (action.type) {
    case 'click':
      return held(action.modifiers, `pyautogui.click(${point(action.x, action.y)}${button(action.button)})`);
    case 'double_click':
      return held(action.modifiers, `pyautogui.doubleClick(${point(action.x, action.y)}${button(action.button)})`);
    case 'triple_click':
      return held(action.modifiers, `pyautogui.tripleClick(${point(action.x, action.y)}${button(action.button)})`);
    case 'mouse_move':
      return `pyautogui.moveTo(${point(action.x, action.y)})`;
    case 'mouse_down':
    case 'mouse_up': {
      const name = action.type === 'mouse_down' ? 'mouseDown' : 'mouseUp';
      const at = action.x !== undefined && action.y !== undefined ? point(action.x, action.y) : '';
      const which = action.button === 'left' ? '' : `${at === '' ? '' : ', '}button=${pythonString(action.button)}`;
      return `pyautogui.${name}(${at}${which})`;
    }
    case 'drag': {
      const path = action.path ?? [
        { x: action.x as number, y: action.y as number },
        { x: action.toX as number, y: action.toY as number },
      ];
      const [first, ...rest] = path as [Point, ...Point[]];
      return [`pyautogui.moveTo(${point(first.x, first.y)})`, ...rest.map((to) => `pyautogui.dragTo(${point(to.x, to.y)}${button(action.button)})`)].join('\n');
    }
    case 'scroll': {
      const vertical = action.direction === 'up' || action.direction === 'down';
      const clicks = action.direction === 'up' || action.direction === 'right' ? action.amount : -action.amount;
      const at = action.x !== undefined && action.y !== undefined ? `, ${point(action.x, action.y)}` : '';
      return `pyautogui.${vertical ? 'scroll' : 'hscroll'}(${clicks}${at})`;
    }
    case 'type':
      return `pyautogui.write(${pythonString(action.text)})`;
    case 'hotkey':
      return action.keys.length === 1 ? `pyautogui.press(${pythonString(action.keys[0] as string)})` : `pyautogui.hotkey(${action.keys.map(pythonString).join(', ')})`;
    case 'key_down':
    case 'key_up':
      return action.keys.map((key) => `pyautogui.${action.type === 'key_down' ? 'keyDown' : 'keyUp'}(${pythonString(key)})`).join('\n');
    case 'wait':
      return `time.sleep(${action.ms / 1000})`;
    case 'finished':
      return 'DONE';
    case 'fail':
      return 'FAIL';
    case 'ask_user':
      return `mnemo.ask_user(${pythonString(action.question)})`;
    case 'query_long_term_memory':
      return `mnemo.query_long_term_memory(${pythonString(action.hint)})`;
    case 'save_fact': {
      const value = action.values !== undefined ? `values=[${action.values.map(pythonString).join(', ')}]` : `value=${pythonString(action.value ?? '')}`;
      return `mnemo.save_fact(keyword=${pythonString(action.keyword)}, description=${pythonString(action.description)}, ${value}, subject=${pythonString(action.subject)})`;
    }
    case 'run_workflow': {
      const params = Object.entries(action.params).map(([name, value]) => `, ${name}=${pythonString(value)}`);
      return `mnemo.run_workflow(${pythonString(action.name)}${params.join('')})`;
    }
    default:
      return null;
  }
}
