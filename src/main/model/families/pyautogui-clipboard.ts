/**
 * The clipboard in pyautogui code. OSWorld's UI-TARS and Doubao agents type every text by putting
 * it on the clipboard and pasting it, because `pyautogui.write` types only ASCII:
 *
 *   pyperclip.copy('ls /home/user')
 *   pyautogui.hotkey('ctrl', 'v')
 *
 * Mnemo has no clipboard of its own to fill, and pressing Ctrl+V would paste whatever the user's
 * clipboard holds; it reads such a paste as what it means, typing the text (in any script). This
 * module says what the statements at a place in the code do to the clipboard: set it
 * (`pyperclip.copy`), paste it (a paste chord: Ctrl+V, Cmd+V, Shift+Insert, the terminal's
 * Ctrl+Shift+V, as one `hotkey` or as modifiers held down around the key), or replace it with the
 * screen's selection (a copy or cut chord), after which Mnemo no longer knows what it holds.
 */
import { type CanonicalKey, isModifier } from '../../../shared/keys';
import { unreadableReply } from './common';
import { pythonRepr, type PythonArgument, type PythonStatement } from './python-calls';
import { hotkeyKeys, keysOf } from './pyautogui-keys';
import { type ParseFailure } from './types';

export type ClipboardEffect =
  | { readonly ok: true; readonly kind: 'none' }
  /** `pyperclip.copy(text)`: one statement. */
  | { readonly ok: true; readonly kind: 'set'; readonly text: string }
  /** A paste chord over `statements` statements. */
  | { readonly ok: true; readonly kind: 'paste'; readonly statements: number }
  /** A copy or cut chord: the clipboard now holds the screen's selection. */
  | { readonly ok: true; readonly kind: 'replace' };

const PASTE_CHORDS: readonly (readonly CanonicalKey[])[] = [['ctrl', 'v'], ['cmd', 'v'], ['shift', 'insert'], ['ctrl', 'shift', 'v']];
const COPY_CHORDS: readonly (readonly CanonicalKey[])[] = [['ctrl', 'c'], ['cmd', 'c'], ['ctrl', 'x'], ['cmd', 'x'], ['ctrl', 'insert'], ['shift', 'delete'], ['ctrl', 'shift', 'c']];

const NONE: ClipboardEffect = { ok: true, kind: 'none' };

/** What the statements from `index` on do to the clipboard; a failure only for a `pyperclip.copy` that cannot be read. */
export function clipboardEffectAt(statements: readonly PythonStatement[], index: number): ClipboardEffect | ParseFailure {
  const statement = statements[index];
  if (statement?.kind !== 'call') return NONE;
  if (statement.callee === 'pyperclip.copy') return copiedText(statement.args);
  const chord = chordAt(statements, index);
  if (chord === null) return NONE;
  if (PASTE_CHORDS.some((keys) => sameKeys(keys, chord.keys))) return { ok: true, kind: 'paste', statements: chord.statements };
  if (COPY_CHORDS.some((keys) => sameKeys(keys, chord.keys))) return { ok: true, kind: 'replace' };
  return NONE;
}

function copiedText(args: readonly PythonArgument[]): ClipboardEffect | ParseFailure {
  const [arg, ...rest] = args;
  if (arg === undefined || rest.length > 0 || (arg.name !== null && arg.name !== 'text')) return unreadableReply('pyperclip.copy() takes one argument, the text');
  if (typeof arg.value !== 'string') return unreadableReply(`pyperclip.copy() needs the text as a string, not ${pythonRepr(arg.value)}`);
  return { ok: true, kind: 'set', text: arg.value };
}

function sameKeys(a: readonly CanonicalKey[], b: readonly CanonicalKey[]): boolean {
  return a.length === b.length && a.every((key) => b.includes(key));
}

interface Chord {
  keys: CanonicalKey[];
  /** How many statements press it. */
  statements: number;
}

/**
 * The chord the statements from `index` press: one `hotkey(...)`, or modifiers held down around one
 * key, as scripts write a paste (`keyDown('ctrl')`, `press('v')`, `keyUp('ctrl')`, or the key
 * itself pressed with `keyDown('v')`, `keyUp('v')`). Null for anything else, left to the parser.
 */
function chordAt(statements: readonly PythonStatement[], index: number): Chord | null {
  const first = statements[index];
  if (first?.kind === 'call' && first.callee === 'pyautogui.hotkey') {
    const keys = hotkeyKeys(first.args);
    return keys.ok ? { keys: keys.keys, statements: 1 } : null;
  }
  const held: CanonicalKey[] = [];
  let at = index;
  for (let key = soleKey(statements[at], 'pyautogui.keyDown'); key !== null && isModifier(key); key = soleKey(statements[at], 'pyautogui.keyDown')) {
    held.push(key);
    at += 1;
  }
  if (held.length === 0) return null;
  let key = soleKey(statements[at], 'pyautogui.press');
  if (key !== null) at += 1;
  else {
    key = soleKey(statements[at], 'pyautogui.keyDown');
    if (key === null || soleKey(statements[at + 1], 'pyautogui.keyUp') !== key) return null;
    at += 2;
  }
  const released = new Set<CanonicalKey>();
  while (released.size < held.length) {
    const up = soleKey(statements[at], 'pyautogui.keyUp');
    if (up === null || !held.includes(up) || released.has(up)) return null;
    released.add(up);
    at += 1;
  }
  return { keys: [...held, key], statements: at - index };
}

/** The one key of a call to `callee` that has one argument (`keyDown('ctrl')`, `press(keys='v')`), else null. */
function soleKey(statement: PythonStatement | undefined, callee: string): CanonicalKey | null {
  if (statement?.kind !== 'call' || statement.callee !== callee || statement.args.length !== 1) return null;
  const arg = statement.args[0] as PythonArgument;
  if (arg.name !== null && arg.name !== (callee === 'pyautogui.press' ? 'keys' : 'key')) return null;
  const keys = keysOf(callee, arg.value);
  return keys.ok && keys.keys.length === 1 ? (keys.keys[0] as CanonicalKey) : null;
}
