/**
 * The keyboard side of a demonstration: key presses and releases (keycodes) become what the user
 * meant, with the modifiers they held. Pure and stateful (held modifiers, Caps Lock, a pending
 * dead key):
 *
 * - a character (Shift and AltGr pick its level; a dead key then a letter composes `â`; a dead key
 *   then Space types the accent itself): `text`;
 * - a named key (Enter, Tab, Escape, an arrow, F5...) or any key with Ctrl, Alt or Meta held: a
 *   `key` with its chord (`["ctrl", "a"]`, `["shift", "tab"]`);
 * - the stop chord (ctrl+alt+shift+s): `stop`.
 *
 * Modifiers alone are nothing: they only shape the next key.
 */
import type { KeyDecoder, ModifierName } from '../operator/keyboard/key-decoder';

export type KeyInput = { kind: 'text'; char: string } | { kind: 'key'; keys: string[] } | { kind: 'stop' };

/** Chord modifiers in the order a hotkey names them. */
const CHORD_ORDER = ['ctrl', 'alt', 'shift', 'meta'] as const;

/** ctrl+alt+shift+s ends a demonstration. */
export const STOP_CHORD = ['ctrl', 'alt', 'shift', 's'] as const;

export class KeyTracker {
  /** Held modifier keys, by keycode. */
  private readonly held = new Map<number, ModifierName>();
  private capsLock: boolean;
  private dead: { spacing: string; combining: string } | null = null;

  constructor(private readonly decoder: KeyDecoder) {
    this.capsLock = decoder.capsLock;
  }

  private holds(modifier: ModifierName): boolean {
    for (const held of this.held.values()) if (held === modifier) return true;
    return false;
  }

  /** The chord modifiers held now (a click with Ctrl held: `["ctrl"]`). */
  get modifiers(): string[] {
    return CHORD_ORDER.filter((modifier) => this.holds(modifier));
  }

  press(keycode: number): KeyInput | null {
    const role = this.decoder.role(keycode);
    if (role.kind === 'modifier') {
      this.held.set(keycode, role.modifier);
      return null;
    }
    if (role.kind === 'capslock') {
      this.capsLock = !this.capsLock;
      return null;
    }
    const chord = this.modifiers;
    const label = this.decoder.label(keycode);
    if (label === STOP_CHORD[3] && STOP_CHORD.slice(0, 3).every((modifier) => chord.includes(modifier))) return { kind: 'stop' };
    const shortcut = chord.some((modifier) => modifier !== 'shift');
    if (role.kind === 'named' || shortcut) {
      // A dead key pending before a named key or a shortcut types nothing: it is dropped.
      this.dead = null;
      return label === undefined ? null : { kind: 'key', keys: [...chord, label] };
    }
    const level = (this.holds('shift') ? 1 : 0) + (this.holds('level3') ? 2 : 0);
    const produced = this.decoder.produce(keycode, level, this.capsLock);
    if (produced.kind === 'none') return null;
    if (produced.kind === 'dead') {
      const pending = this.takeDead();
      // Two dead keys: the first one's accent, the second waits.
      this.dead = produced;
      return pending ? { kind: 'text', char: pending.spacing } : null;
    }
    const dead = this.takeDead();
    if (!dead) return { kind: 'text', char: produced.char };
    if (produced.char === ' ') return { kind: 'text', char: dead.spacing };
    const composed = (produced.char + dead.combining).normalize('NFC');
    return { kind: 'text', char: [...composed].length === 1 ? composed : dead.spacing + produced.char };
  }

  release(keycode: number): void {
    this.held.delete(keycode);
  }

  private takeDead(): { spacing: string; combining: string } | null {
    const dead = this.dead;
    this.dead = null;
    return dead;
  }
}
