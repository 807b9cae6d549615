/**
 * Key names as the models spell them, reduced to one canonical name each.
 *
 * Models write the same key many ways ("return", "Enter", "pgdn", "ArrowLeft", "cmd"). Every action
 * that carries keys stores the canonical name, so sessions, replay and the input layer see one
 * spelling. Pure TypeScript: shared by main, CLI and renderer.
 */

/** Modifier names. `cmd` is the platform's primary shortcut modifier (Ctrl on Linux/Windows). */
export const MODIFIER_KEYS = ['ctrl', 'shift', 'alt', 'meta', 'cmd'] as const;

/** Named (non-character) keys in canonical spelling. */
export const NAMED_KEYS = [
  ...MODIFIER_KEYS,
  'enter',
  'escape',
  'tab',
  'space',
  'backspace',
  'delete',
  'insert',
  'home',
  'end',
  'pageup',
  'pagedown',
  'up',
  'down',
  'left',
  'right',
  'printscreen',
  'capslock',
  'numlock',
  'scrolllock',
  'pause',
  'menu',
  ...Array.from({ length: 24 }, (_, i) => `f${i + 1}`),
] as const;

export type CanonicalKey = string;

const ALIASES: Record<string, string> = {
  control: 'ctrl',
  ctl: 'ctrl',
  lctrl: 'ctrl',
  rctrl: 'ctrl',
  leftctrl: 'ctrl',
  rightctrl: 'ctrl',
  leftcontrol: 'ctrl',
  rightcontrol: 'ctrl',
  lshift: 'shift',
  rshift: 'shift',
  leftshift: 'shift',
  rightshift: 'shift',
  option: 'alt',
  opt: 'alt',
  lalt: 'alt',
  ralt: 'alt',
  leftalt: 'alt',
  rightalt: 'alt',
  altgr: 'alt',
  command: 'cmd',
  cmdorctrl: 'cmd',
  commandorcontrol: 'cmd',
  super: 'meta',
  win: 'meta',
  windows: 'meta',
  os: 'meta',
  lwin: 'meta',
  rwin: 'meta',
  leftmeta: 'meta',
  rightmeta: 'meta',
  leftsuper: 'meta',
  return: 'enter',
  ret: 'enter',
  newline: 'enter',
  kpenter: 'enter',
  esc: 'escape',
  spacebar: 'space',
  ' ': 'space',
  back: 'backspace',
  bksp: 'backspace',
  bs: 'backspace',
  del: 'delete',
  forwarddelete: 'delete',
  ins: 'insert',
  pgup: 'pageup',
  prior: 'pageup',
  pgdn: 'pagedown',
  pgdown: 'pagedown',
  next: 'pagedown',
  arrowup: 'up',
  uparrow: 'up',
  arrowdown: 'down',
  downarrow: 'down',
  arrowleft: 'left',
  leftarrow: 'left',
  arrowright: 'right',
  rightarrow: 'right',
  print: 'printscreen',
  prtsc: 'printscreen',
  prtscn: 'printscreen',
  printscrn: 'printscreen',
  snapshot: 'printscreen',
  caps: 'capslock',
  capital: 'capslock',
  scroll: 'scrolllock',
  break: 'pause',
  apps: 'menu',
  contextmenu: 'menu',
  // Single characters that models sometimes spell out.
  plus: '+',
  minus: '-',
  hyphen: '-',
  equal: '=',
  equals: '=',
  comma: ',',
  period: '.',
  dot: '.',
  slash: '/',
  backslash: '\\',
  semicolon: ';',
  quote: "'",
  apostrophe: "'",
  backquote: '`',
  backtick: '`',
  grave: '`',
  bracketleft: '[',
  leftbracket: '[',
  bracketright: ']',
  rightbracket: ']',
};

const NAMED = new Set<string>(NAMED_KEYS);

/** Printable ASCII characters that can be a key on their own (US layout, shifted ones included). */
function isSingleAsciiCharacter(value: string): boolean {
  return value.length === 1 && value >= '!' && value <= '~';
}

export type KeyParse = { ok: true; key: CanonicalKey } | { ok: false; message: string };

/**
 * Canonical name of a key, or an error naming the key.
 * Letters become lowercase ("A" → "a"): a hotkey means the physical key, Shift is explicit.
 */
export function normalizeKey(raw: string): KeyParse {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, message: 'empty key name' };
  if (raw === ' ') return { ok: true, key: 'space' };
  const trimmed = raw.trim();
  if (isSingleAsciiCharacter(trimmed)) return { ok: true, key: trimmed.toLowerCase() };
  const folded = trimmed.toLowerCase().replace(/[\s_-]+/g, '');
  if (NAMED.has(folded)) return { ok: true, key: folded };
  const alias = ALIASES[folded];
  if (alias !== undefined) return { ok: true, key: alias };
  // "key_a", "KeyA", "digit1" as some models and DOM code names spell them.
  const domCode = /^(?:key)([a-z])$|^(?:digit)([0-9])$/.exec(folded);
  if (domCode) return { ok: true, key: (domCode[1] ?? domCode[2]) as string };
  return { ok: false, message: `unknown key "${raw}"` };
}

export function isModifier(key: CanonicalKey): boolean {
  return (MODIFIER_KEYS as readonly string[]).includes(key);
}
