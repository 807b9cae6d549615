/**
 * X keysyms: which character a keysym types, and the keysyms of the named keys.
 *
 * Latin-1 keysyms equal their code point and Unicode keysyms are 0x01000000 + code point; the
 * older keysym sets (Latin-2, Cyrillic, Greek, publishing...) are mapped here only for the few
 * characters that European layouts put on their keys. A keysym missing here is treated as typing
 * nothing, so its character goes through the clipboard: slower, never wrong.
 */

const UNICODE_KEYSYM_BASE = 0x01000000;

/** Legacy keysyms found on common layouts (de, fr, us intl...), from X11's keysymdef.h. */
const LEGACY: ReadonlyMap<number, string> = new Map([
  [0x20ac, '€'], // EuroSign
  [0x13bc, 'Œ'], // OE
  [0x13bd, 'œ'], // oe
  [0x13be, 'Ÿ'], // Ydiaeresis
  [0x0aa9, '—'], // emdash
  [0x0aaa, '–'], // endash
  [0x0aae, '…'], // ellipsis
  [0x0ac3, '⅛'], // oneeighth
  [0x0ac4, '⅜'], // threeeighths
  [0x0ac5, '⅝'], // fiveeighths
  [0x0ac6, '⅞'], // seveneighths
  [0x0ac9, '™'], // trademark
  [0x0ad0, '‘'], // leftsinglequotemark
  [0x0ad1, '’'], // rightsinglequotemark
  [0x0ad2, '“'], // leftdoublequotemark
  [0x0ad3, '”'], // rightdoublequotemark
  [0x0af1, '†'], // dagger
  [0x0af2, '‡'], // doubledagger
  [0x0afd, '‚'], // singlelowquotemark
  [0x0afe, '„'], // doublelowquotemark
]);

export const XK = {
  space: 0x0020,
  BackSpace: 0xff08,
  Tab: 0xff09,
  Return: 0xff0d,
  Pause: 0xff13,
  Scroll_Lock: 0xff14,
  Escape: 0xff1b,
  Home: 0xff50,
  Left: 0xff51,
  Up: 0xff52,
  Right: 0xff53,
  Down: 0xff54,
  Prior: 0xff55,
  Next: 0xff56,
  End: 0xff57,
  Print: 0xff61,
  Insert: 0xff63,
  Menu: 0xff67,
  Num_Lock: 0xff7f,
  F1: 0xffbe,
  Shift_L: 0xffe1,
  Shift_R: 0xffe2,
  Control_L: 0xffe3,
  Caps_Lock: 0xffe5,
  Alt_L: 0xffe9,
  Super_L: 0xffeb,
  Delete: 0xffff,
  ISO_Level3_Shift: 0xfe03,
  dead_grave: 0xfe50,
  dead_acute: 0xfe51,
  dead_circumflex: 0xfe52,
  dead_tilde: 0xfe53,
  dead_diaeresis: 0xfe57,
} as const;

/** The character a keysym types, or undefined (function keys, dead keys, unmapped legacy sets). */
export function keysymToChar(keysym: number): string | undefined {
  if (keysym === XK.Return) return '\n';
  if (keysym === XK.Tab) return '\t';
  if ((keysym >= 0x20 && keysym <= 0x7e) || (keysym >= 0xa0 && keysym <= 0xff)) return String.fromCodePoint(keysym);
  if (keysym >= UNICODE_KEYSYM_BASE + 0x100 && keysym <= UNICODE_KEYSYM_BASE + 0x10ffff) {
    const codePoint = keysym - UNICODE_KEYSYM_BASE;
    // Surrogates are not characters.
    return codePoint >= 0xd800 && codePoint <= 0xdfff ? undefined : String.fromCodePoint(codePoint);
  }
  return LEGACY.get(keysym);
}

/** Canonical key names (shared/keys.ts) that are not characters → their keysym on X11. */
const NAMED: Record<string, number> = {
  ctrl: XK.Control_L,
  // cmd is the primary shortcut modifier: Ctrl off macOS.
  cmd: XK.Control_L,
  shift: XK.Shift_L,
  alt: XK.Alt_L,
  meta: XK.Super_L,
  enter: XK.Return,
  escape: XK.Escape,
  tab: XK.Tab,
  space: XK.space,
  backspace: XK.BackSpace,
  delete: XK.Delete,
  insert: XK.Insert,
  home: XK.Home,
  end: XK.End,
  pageup: XK.Prior,
  pagedown: XK.Next,
  up: XK.Up,
  down: XK.Down,
  left: XK.Left,
  right: XK.Right,
  printscreen: XK.Print,
  capslock: XK.Caps_Lock,
  numlock: XK.Num_Lock,
  scrolllock: XK.Scroll_Lock,
  pause: XK.Pause,
  menu: XK.Menu,
};

/** The keysym of a named (non-character) key, or undefined for characters and unknown names. */
export function namedKeysym(canonical: string): number | undefined {
  const fn = /^f([1-9]|1\d|2[0-4])$/.exec(canonical);
  if (fn) return XK.F1 + Number(fn[1]) - 1;
  return Object.hasOwn(NAMED, canonical) ? NAMED[canonical] : undefined;
}

/** Keysyms of keys that are read back (a recorded demonstration) but never pressed by name. */
const READ_ONLY_NAMES: ReadonlyMap<number, string> = new Map([
  [0xffe2, 'shift'], // Shift_R
  [0xffe4, 'ctrl'], // Control_R
  [0xffea, 'alt'], // Alt_R
  [0xffe7, 'alt'], // Meta_L
  [0xffe8, 'alt'], // Meta_R
  [0xffec, 'meta'], // Super_R
  [0xffed, 'meta'], // Hyper_L
  [0xff8d, 'enter'], // KP_Enter
  [0xfe20, 'tab'], // ISO_Left_Tab
  [0xff9f, 'delete'], // KP_Delete
]);

/**
 * The canonical name of a named key's keysym (`enter`, `ctrl`, `f5`), the reverse of
 * namedKeysym: what a recorded key press is called in a hotkey. Undefined for characters.
 */
export function keysymName(keysym: number): string | undefined {
  if (keysym >= XK.F1 && keysym < XK.F1 + 24) return `f${keysym - XK.F1 + 1}`;
  const readOnly = READ_ONLY_NAMES.get(keysym);
  if (readOnly) return readOnly;
  // `cmd` names Control_L too; the recorded key is ctrl.
  for (const [name, named] of Object.entries(NAMED)) if (named === keysym && name !== 'cmd') return name;
  return undefined;
}

/** A dead key: the character it types before a space, and the combining mark it puts on a letter. */
export const DEAD_KEYS: ReadonlyMap<number, { spacing: string; combining: string }> = new Map([
  [XK.dead_grave, { spacing: '`', combining: '\u0300' }],
  [XK.dead_acute, { spacing: '´', combining: '\u0301' }],
  [XK.dead_circumflex, { spacing: '^', combining: '\u0302' }],
  [XK.dead_tilde, { spacing: '~', combining: '\u0303' }],
  [XK.dead_diaeresis, { spacing: '¨', combining: '\u0308' }],
]);
