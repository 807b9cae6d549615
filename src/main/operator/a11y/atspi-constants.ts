/**
 * The numbers of AT-SPI2 (atspi-constants.h) that Mnemo asks by: state bits, and the roles a user
 * acts on. Role names come from the application itself (GetRoleName), so only the roles queried
 * by number are listed here.
 */

/** AtspiStateType, by bit: the names AT-SPI gives them (atspi_state_type_get_name). */
export const STATE_NAMES = [
  'invalid', 'active', 'armed', 'busy', 'checked', 'collapsed', 'defunct', 'editable', 'enabled', 'expandable',
  'expanded', 'focusable', 'focused', 'has tooltip', 'horizontal', 'iconified', 'modal', 'multi line', 'multiselectable', 'opaque',
  'pressed', 'resizable', 'selectable', 'selected', 'sensitive', 'showing', 'single line', 'stale', 'transient', 'vertical',
  'visible', 'manages descendants', 'indeterminate', 'required', 'truncated', 'animated', 'invalid entry', 'supports autocompletion', 'selectable text', 'is default',
  'visited', 'checkable', 'has popup', 'read only',
] as const;

export const State = {
  active: 1,
  checked: 4,
  defunct: 6,
  editable: 7,
  enabled: 8,
  focusable: 11,
  focused: 12,
  managesDescendants: 31,
  showing: 25,
  visible: 30,
  checkable: 41,
} as const;

/** The state names of a state set (two 32-bit words), in bit order; the noise every element has left out. */
export function stateNames(words: readonly number[]): string[] {
  const names: string[] = [];
  for (let bit = 0; bit < STATE_NAMES.length; bit++) {
    if (hasState(words, bit) && !QUIET_STATES.has(bit)) names.push(STATE_NAMES[bit] as string);
  }
  return names;
}

/** True of nearly every element a snapshot holds: said by being in it, not in each one's list. */
const QUIET_STATES = new Set<number>([State.showing, State.visible, 24 /* sensitive */, 19 /* opaque */]);

export function hasState(words: readonly number[], bit: number): boolean {
  const word = words[Math.floor(bit / 32)] ?? 0;
  return ((word >>> (bit % 32)) & 1) === 1;
}

/** AtspiRole numbers of the roles a user acts on (what the model clicks or types into). */
export const INTERACTIVE_ROLES = {
  calendar: 5,
  'check box': 7,
  'check menu item': 8,
  'combo box': 11,
  'date editor': 12,
  dial: 15,
  link: 88,
  'list item': 32,
  'menu item': 35,
  'page tab': 37,
  'password text': 40,
  'push button': 43,
  'radio button': 44,
  'radio menu item': 45,
  slider: 51,
  'spin button': 52,
  text: 61,
  'toggle button': 62,
  'table cell': 56,
  'tree item': 91,
  entry: 79,
  'menu': 33,
  'push button menu': 129,
} as const;

const INTERACTIVE_ROLE_NAMES = new Set<string>(Object.keys(INTERACTIVE_ROLES));

/** Roles whose elements hold text a field shows (read with the Text interface). */
export const TEXT_FIELD_ROLES = new Set<string>(['entry', 'text', 'combo box', 'spin button', 'date editor']);

export const PASSWORD_ROLE = 'password text';

/** Roles that only hold others: left out of a snapshot even when named (their parts are in it). */
export const CONTAINER_ROLES = new Set<string>([
  'panel', 'filler', 'section', 'grouping', 'redundant object', 'unknown', 'layered pane', 'root pane', 'glass pane',
  'viewport', 'scroll pane', 'split pane', 'form', 'html container', 'document web', 'document frame', 'tool bar',
  'menu bar', 'page tab list', 'list', 'list box', 'tree', 'tree table', 'table', 'table row', 'frame', 'window', 'dialog', 'application',
  'separator', 'scroll bar', 'block quote', 'article', 'landmark', 'description list', 'alert', 'info bar',
]);

export function isInteractive(role: string, states: readonly number[]): boolean {
  if (INTERACTIVE_ROLE_NAMES.has(role)) return true;
  return hasState(states, State.editable) || hasState(states, State.checkable);
}
