/**
 * The layout read the other way round: what a key the user pressed means (a modifier, a named key,
 * a dead key, or the character it types at a shift level), from the same core mapping the layout
 * types with (layout.ts), so a recorded "z" on a German keyboard reads as "z", not as the "y" of
 * the US key in that place. Pure.
 */
import type { LayoutSource } from './layout';
import { isCasePair, LOCK_MASK, levelColumns } from './layout';
import { DEAD_KEYS, keysymName, keysymToChar, XK } from './keysyms';

export type ModifierName = 'shift' | 'ctrl' | 'alt' | 'meta' | 'level3';

export type KeyRole =
  | { kind: 'modifier'; modifier: ModifierName }
  | { kind: 'capslock' }
  /** A key with a name (enter, tab, f5, left...). */
  | { kind: 'named'; name: string }
  /** A key that types a character (or is a dead key) at some level. */
  | { kind: 'typing' };

export type Produced = { kind: 'char'; char: string } | { kind: 'dead'; spacing: string; combining: string } | { kind: 'none' };

const MODIFIER_KEYSYMS: ReadonlyMap<number, ModifierName> = new Map([
  [XK.Shift_L, 'shift'],
  [XK.Shift_R, 'shift'],
  [XK.Control_L, 'ctrl'],
  [0xffe4, 'ctrl'],
  [XK.Alt_L, 'alt'],
  [0xffea, 'alt'],
  [0xffe7, 'alt'],
  [0xffe8, 'alt'],
  [XK.Super_L, 'meta'],
  [0xffec, 'meta'],
  [XK.ISO_Level3_Shift, 'level3'],
  // Mode_switch
  [0xff7e, 'level3'],
]);

export class KeyDecoder {
  private readonly columns: number[];
  /** Caps Lock as it was when the layout was read. */
  readonly capsLock: boolean;

  private constructor(private readonly source: LayoutSource) {
    this.columns = levelColumns(source.mapping, source.state);
    this.capsLock = (source.state.mods & LOCK_MASK) !== 0;
  }

  static fromCore(source: LayoutSource): KeyDecoder {
    return new KeyDecoder(source);
  }

  private keysym(keycode: number, column: number): number {
    return this.source.mapping.rows[keycode - this.source.mapping.minKeycode]?.[column] ?? 0;
  }

  /** What the key is, by its first level. */
  role(keycode: number): KeyRole {
    const first = this.keysym(keycode, 0);
    const modifier = MODIFIER_KEYSYMS.get(first);
    if (modifier) return { kind: 'modifier', modifier };
    if (first === XK.Caps_Lock) return { kind: 'capslock' };
    const name = keysymName(first);
    // Space types a character; a named key's second level (Shift+Tab's ISO_Left_Tab) is still the key.
    if (name !== undefined && name !== 'space') return { kind: 'named', name };
    return { kind: 'typing' };
  }

  /** What the key types at a level (0-3: plain, Shift, level 3, both), Caps Lock applied to letters. */
  produce(keycode: number, level: number, capsLock: boolean): Produced {
    const keysymAt = (at: number) => {
      const column = this.columns[at];
      return column === undefined ? 0 : this.keysym(keycode, column);
    };
    let keysym = keysymAt(level);
    if (capsLock && level < 2) {
      const [lower, upper] = [keysymToChar(keysymAt(0)), keysymToChar(keysymAt(1))];
      if (isCasePair(lower, upper)) keysym = keysymAt(1 - level);
    }
    // A level the key lacks types its first level (a digit with AltGr on a layout without one there).
    if (keysym === 0 && level > 0) keysym = keysymAt(level & 1) || keysymAt(0);
    const dead = DEAD_KEYS.get(keysym);
    if (dead) return { kind: 'dead', ...dead };
    const char = keysymToChar(keysym);
    return char === undefined ? { kind: 'none' } : { kind: 'char', char };
  }

  /**
   * The key's name in a hotkey: a named key's name, else the character of its first level (the
   * key's label: Ctrl+Z is the key labelled Z, whatever its place), lower case.
   */
  label(keycode: number): string | undefined {
    const role = this.role(keycode);
    if (role.kind === 'named') return role.name;
    const first = keysymToChar(this.keysym(keycode, this.columns[0] ?? 0));
    if (first === ' ') return 'space';
    return first?.toLowerCase();
  }
}
