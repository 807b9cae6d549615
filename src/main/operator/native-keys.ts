/**
 * The keys Mnemo presses through libnut, by the names libnut knows them by. Letters, digits and
 * US punctuation are the characters themselves (libnut finds their keycodes through the system's
 * layout); the rest are libnut's own names.
 */
const LETTERS = {
  A: 'a', B: 'b', C: 'c', D: 'd', E: 'e', F: 'f', G: 'g', H: 'h', I: 'i', J: 'j', K: 'k', L: 'l', M: 'm',
  N: 'n', O: 'o', P: 'p', Q: 'q', R: 'r', S: 's', T: 't', U: 'u', V: 'v', W: 'w', X: 'x', Y: 'y', Z: 'z',
} as const;

const FUNCTION_KEYS = {
  F1: 'f1', F2: 'f2', F3: 'f3', F4: 'f4', F5: 'f5', F6: 'f6', F7: 'f7', F8: 'f8', F9: 'f9', F10: 'f10', F11: 'f11', F12: 'f12',
  F13: 'f13', F14: 'f14', F15: 'f15', F16: 'f16', F17: 'f17', F18: 'f18', F19: 'f19', F20: 'f20', F21: 'f21', F22: 'f22', F23: 'f23', F24: 'f24',
} as const;

export const Key = {
  ...LETTERS,
  ...FUNCTION_KEYS,
  Num0: '0', Num1: '1', Num2: '2', Num3: '3', Num4: '4', Num5: '5', Num6: '6', Num7: '7', Num8: '8', Num9: '9',
  Grave: '`', Minus: '-', Equal: '=', LeftBracket: '[', RightBracket: ']', Backslash: '\\', Semicolon: ';', Quote: "'", Comma: ',', Period: '.', Slash: '/',
  Space: 'space', Return: 'return', Tab: 'tab', Escape: 'escape', Backspace: 'backspace', Delete: 'delete', Insert: 'insert',
  Home: 'home', End: 'end', PageUp: 'pageup', PageDown: 'pagedown', Up: 'up', Down: 'down', Left: 'left', Right: 'right',
  Print: 'printscreen', CapsLock: 'caps_lock', NumLock: 'num_lock', ScrollLock: 'scroll_lock', Menu: 'menu',
  LeftShift: 'shift', LeftControl: 'control', LeftAlt: 'alt', LeftSuper: 'meta', LeftCmd: 'cmd',
} as const;

/** A key as libnut names it. */
export type Key = (typeof Key)[keyof typeof Key];
