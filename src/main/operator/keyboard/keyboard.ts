/**
 * The keyboard as the input layer uses it: a session bound to the layout active when an action
 * starts, so a layout switched between two actions is picked up. Each platform implements it
 * (x11-keyboard.ts, us-keyboard.ts); failures are values.
 */

export type KeyboardOutcome<T extends object = object> = ({ ok: true } & T) | { ok: false; message: string };

export interface KeyboardSession {
  /** Whether a key of this layout types `char`; the typing plan pastes the rest. */
  canType(char: string): boolean;
  /** Types `text`, every character of which canType accepted. Throws AbortedError when cancelled. */
  type(text: string, signal?: AbortSignal): Promise<KeyboardOutcome<{ keystrokes: number }>>;
  /** Presses the keys (canonical names, shared/keys.ts) in order and releases them in reverse. */
  chord(names: readonly string[]): Promise<KeyboardOutcome>;
}

export interface Keyboard {
  /** Reads the active layout and opens a session on it. */
  open(): Promise<KeyboardOutcome<{ session: KeyboardSession }>>;
}
