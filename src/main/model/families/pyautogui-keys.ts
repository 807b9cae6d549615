/**
 * Key names as pyautogui calls take them (`press('enter')`, `hotkey('ctrl', 'c')`,
 * `keyDown('shiftleft')`), read into Mnemo's canonical key names. Shared by the pyautogui parser
 * and its reading of clipboard chords (pyautogui-clipboard.ts).
 */
import { type CanonicalKey, normalizeKey } from '../../../shared/keys';
import { unreadableReply } from './common';
import { pythonRepr, sequenceOf, type PythonArgument, type PythonValue } from './python-calls';
import { type ParseFailure } from './types';

/** pyautogui's spellings of keys that the shared key names do not know. */
const PYAUTOGUI_KEYS: Record<string, string> = {
  prntscrn: 'printscreen',
  prtscr: 'printscreen',
  printscreen: 'printscreen',
  accept: 'enter',
};

/** `hotkey` takes its keys as `*args` (or, as OpenCUA writes it, `keys=[...]`); only these keywords besides. */
const HOTKEY_KEYWORDS = new Set(['interval', 'logScreenshot', '_pause']);

export type KeyRead = { ok: true; key: CanonicalKey } | ParseFailure;
export type KeysRead = { ok: true; keys: CanonicalKey[] } | ParseFailure;

export function keyOf(name: string): KeyRead {
  // pyautogui writes the side after the modifier: ctrlleft, shiftright, winleft, optionleft.
  const side = /^(ctrl|shift|alt|win|option|command)(left|right)$/i.exec(name);
  const spelled = side ? (side[1] as string) : (PYAUTOGUI_KEYS[name.toLowerCase()] ?? name);
  const key = normalizeKey(spelled);
  return key.ok ? key : unreadableReply(key.message);
}

/** A key name or a list (or tuple) of them. */
export function keysOf(callee: string, value: PythonValue | undefined): KeysRead {
  const names = typeof value === 'string' ? [value] : value === undefined ? null : sequenceOf(value);
  if (names === null || names.length === 0) return unreadableReply(`${callee}() needs a key name or a list of them`);
  const keys: CanonicalKey[] = [];
  for (const name of names) {
    if (typeof name !== 'string') return unreadableReply(`${callee}() needs key names as strings, not ${pythonRepr(name)}`);
    const key = keyOf(name);
    if (!key.ok) return key;
    keys.push(key.key);
  }
  return { ok: true, keys };
}

/** The keys of a `pyautogui.hotkey(...)` call: `('ctrl', 'c')`, `(['ctrl', 'c'])` or `(keys=['ctrl', 'c'])`. */
export function hotkeyKeys(args: readonly PythonArgument[]): KeysRead {
  const unknown = args.find((arg) => arg.name !== null && arg.name !== 'keys' && !HOTKEY_KEYWORDS.has(arg.name));
  if (unknown) return unreadableReply(`pyautogui.hotkey() has no argument ${unknown.name}`);
  const positional = args.filter((arg) => arg.name === null).map((arg) => arg.value);
  const keyword = args.find((arg) => arg.name === 'keys');
  if (keyword !== undefined && positional.length > 0) return unreadableReply('pyautogui.hotkey() got its keys both as arguments and as keys=');
  // hotkey('ctrl', 'c'); hotkey(['ctrl', 'c']) as some models write it; hotkey(keys=[...]) as OpenCUA does.
  const single = positional.length === 1 ? (positional[0] as PythonValue) : undefined;
  const value = keyword?.value ?? (single !== undefined && sequenceOf(single) !== null ? single : positional);
  return keysOf('pyautogui.hotkey', value);
}
