/**
 * The user's mouse and keys on the live view, as actions in the shared wire format, in pixels of
 * the run's display: the view is the display scaled to fit, so a point on the image is mapped
 * through the image's shown size to the frame's own size. Pure, so the mapping is tested apart
 * from the DOM.
 */
import type { ActionInput, MouseButton } from '../../../../shared/actions';
import type { Size } from '../../../../shared/frame';

export type { Size };

/** A point on the shown image (CSS pixels from its top-left) to display pixels, inside the display. */
export function toDisplay(offset: { x: number; y: number }, shown: Size, display: Size): { x: number; y: number } {
  const clamp = (value: number, max: number) => Math.min(Math.max(Math.round(value), 0), max - 1);
  return { x: clamp((offset.x * display.width) / shown.width, display.width), y: clamp((offset.y * display.height) / shown.height, display.height) };
}

export function buttonOf(button: number): MouseButton {
  return button === 2 ? 'right' : button === 1 ? 'middle' : 'left';
}

/** A press and its release: a click (double and triple from the browser's click count) or, when it moved, a drag. */
export function pointerAction(down: { x: number; y: number }, up: { x: number; y: number }, button: MouseButton, clicks: number): ActionInput {
  // A few display pixels of wobble between press and release is still a click.
  if (Math.hypot(up.x - down.x, up.y - down.y) > 3) return { type: 'drag', x: down.x, y: down.y, toX: up.x, toY: up.y, button };
  const type = clicks >= 3 ? 'triple_click' : clicks === 2 ? 'double_click' : 'click';
  return { type, x: up.x, y: up.y, button };
}

/** A wheel turn: one notch per 100 pixels of delta (at least one), in the wheel's direction. */
export function wheelAction(at: { x: number; y: number }, deltaX: number, deltaY: number): ActionInput | null {
  const vertical = Math.abs(deltaY) >= Math.abs(deltaX);
  const delta = vertical ? deltaY : deltaX;
  if (delta === 0) return null;
  const direction = vertical ? (delta > 0 ? 'down' : 'up') : delta > 0 ? 'right' : 'left';
  return { type: 'scroll', x: at.x, y: at.y, direction, amount: Math.min(100, Math.max(1, Math.round(Math.abs(delta) / 100))) };
}

const DOM_KEYS: Record<string, string> = {
  Enter: 'enter',
  Escape: 'escape',
  Tab: 'tab',
  Backspace: 'backspace',
  Delete: 'delete',
  Insert: 'insert',
  Home: 'home',
  End: 'end',
  PageUp: 'pageup',
  PageDown: 'pagedown',
  ArrowUp: 'up',
  ArrowDown: 'down',
  ArrowLeft: 'left',
  ArrowRight: 'right',
  ' ': 'space',
};

const MODIFIER_ONLY = new Set(['Control', 'Shift', 'Alt', 'Meta', 'AltGraph', 'CapsLock', 'NumLock', 'ScrollLock', 'Dead', 'Unidentified', 'Process']);

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
}

/**
 * A key pressed on the live view: text to type (a character, Shift included) or a key with its
 * modifiers; null for a modifier pressed alone (it goes with the next key).
 */
export function keyAction(press: KeyPress): ActionInput | null {
  if (MODIFIER_ONLY.has(press.key)) return null;
  const chord = press.ctrlKey || press.altKey || press.metaKey;
  if (!chord && [...press.key].length === 1) return { type: 'type', text: press.key };
  const named = DOM_KEYS[press.key] ?? (/^F\d{1,2}$/.test(press.key) ? press.key.toLowerCase() : press.key.toLowerCase());
  const modifiers = [press.ctrlKey && 'ctrl', press.altKey && 'alt', press.metaKey && 'meta', press.shiftKey && [...press.key].length !== 1 && 'shift'].filter((key): key is string => typeof key === 'string');
  return { type: 'hotkey', keys: [...modifiers, named] };
}

/** Consecutive typed characters as one action (sent while the previous input is carried out). */
export function mergeTyping(queue: ActionInput[]): ActionInput[] {
  const merged: ActionInput[] = [];
  for (const action of queue) {
    const last = merged.at(-1);
    if (last?.type === 'type' && action.type === 'type') merged[merged.length - 1] = { ...last, text: last.text + action.text };
    else merged.push(action);
  }
  return merged;
}
