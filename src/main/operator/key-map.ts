/**
 * Canonical key names (shared/keys.ts) and characters → libnut keys at their US positions.
 *
 * Used where Mnemo presses keys through libnut: modifiers held around clicks, key_down / key_up,
 * and typing on Windows and macOS (keyboard/us-keyboard.ts). On X11, typing and hotkeys follow
 * the active layout instead (keyboard/x11-keyboard.ts). libnut's own typing drops Shift for
 * symbols such as `! @ #`, so Shift is explicit here.
 */
import { Key } from './native-keys';

export interface Keystroke {
  key: Key;
  shift: boolean;
}

const UNSHIFTED_SYMBOLS: Record<string, Key> = {
  '`': Key.Grave,
  '-': Key.Minus,
  '=': Key.Equal,
  '[': Key.LeftBracket,
  ']': Key.RightBracket,
  '\\': Key.Backslash,
  ';': Key.Semicolon,
  "'": Key.Quote,
  ',': Key.Comma,
  '.': Key.Period,
  '/': Key.Slash,
  ' ': Key.Space,
};

/** Shifted character → the unshifted character on the same US key. */
const SHIFTED_SYMBOLS: Record<string, string> = {
  '~': '`',
  '!': '1',
  '@': '2',
  '#': '3',
  $: '4',
  '%': '5',
  '^': '6',
  '&': '7',
  '*': '8',
  '(': '9',
  ')': '0',
  _: '-',
  '+': '=',
  '{': '[',
  '}': ']',
  '|': '\\',
  ':': ';',
  '"': "'",
  '<': ',',
  '>': '.',
  '?': '/',
};

const DIGIT_KEYS: readonly Key[] = [
  Key.Num0,
  Key.Num1,
  Key.Num2,
  Key.Num3,
  Key.Num4,
  Key.Num5,
  Key.Num6,
  Key.Num7,
  Key.Num8,
  Key.Num9,
];

function unshiftedKey(char: string): Key | undefined {
  if (char >= 'a' && char <= 'z') return Key[char.toUpperCase() as keyof typeof Key];
  if (char >= '0' && char <= '9') return DIGIT_KEYS[char.charCodeAt(0) - 48];
  return UNSHIFTED_SYMBOLS[char];
}

/** The keystroke that types `char` on a US layout, or undefined when no key does. */
export function keystrokeForChar(char: string): Keystroke | undefined {
  if (char === '\n' || char === '\r') return { key: Key.Return, shift: false };
  if (char === '\t') return { key: Key.Tab, shift: false };
  if (char >= 'A' && char <= 'Z') return { key: unshiftedKey(char.toLowerCase()) as Key, shift: true };
  const base = SHIFTED_SYMBOLS[char];
  if (base !== undefined) return { key: unshiftedKey(base) as Key, shift: true };
  const key = unshiftedKey(char);
  return key === undefined ? undefined : { key, shift: false };
}

const NAMED: Record<string, Key | undefined> = {
  ctrl: Key.LeftControl,
  shift: Key.LeftShift,
  alt: Key.LeftAlt,
  enter: Key.Return,
  escape: Key.Escape,
  tab: Key.Tab,
  space: Key.Space,
  backspace: Key.Backspace,
  delete: Key.Delete,
  insert: Key.Insert,
  home: Key.Home,
  end: Key.End,
  pageup: Key.PageUp,
  pagedown: Key.PageDown,
  up: Key.Up,
  down: Key.Down,
  left: Key.Left,
  right: Key.Right,
  printscreen: Key.Print,
  capslock: Key.CapsLock,
  numlock: Key.NumLock,
  scrolllock: Key.ScrollLock,
  menu: Key.Menu,
  // libnut has no native code for Pause.
  pause: undefined,
};

export type KeyLookup = { ok: true; keys: Key[] } | { ok: false; message: string };

/**
 * The libnut keys to hold for one canonical key name. A shifted symbol in a hotkey ("ctrl" "+")
 * means Shift plus the symbol's key.
 */
export function nutKeysFor(canonical: string, platform: NodeJS.Platform = process.platform): KeyLookup {
  const mac = platform === 'darwin';
  if (canonical === 'cmd') return { ok: true, keys: [mac ? Key.LeftCmd : Key.LeftControl] };
  if (canonical === 'meta') return { ok: true, keys: [mac ? Key.LeftCmd : Key.LeftSuper] };
  const fn = /^f([1-9]|1\d|2[0-4])$/.exec(canonical);
  if (fn) return { ok: true, keys: [Key[`F${fn[1]}` as keyof typeof Key]] };
  if (canonical in NAMED) {
    const key = NAMED[canonical];
    return key === undefined ? { ok: false, message: `the key "${canonical}" cannot be pressed on this platform` } : { ok: true, keys: [key] };
  }
  if (canonical.length === 1) {
    const stroke = keystrokeForChar(canonical);
    if (stroke) return { ok: true, keys: stroke.shift ? [Key.LeftShift, stroke.key] : [stroke.key] };
  }
  return { ok: false, message: `unknown key "${canonical}"` };
}
