/**
 * The active keyboard layout as Mnemo types with it: which key, and which modifier keys for its
 * shift level, produce each character; which key a hotkey's letter names. Built from the X
 * server's core keyboard mapping, its modifier mapping and the XKB state, read when an action
 * starts (x11-keyboard.ts). Pure, so captured mappings are tested without a display.
 *
 * How XKB projects a keymap onto the core mapping (XKB protocol, "core keyboard mapping"): each
 * key's columns are G1L1 G1L2 G2L1 G2L2 G1L3 G1L4 ... (group 1 levels 1-2, group 2 levels 1-2,
 * then group 1's higher levels). Level 2 is Shift, level 3 the ISO_Level3_Shift key (AltGr on de
 * and fr, Right Alt on us intl), level 4 both: the four-level key types every common layout uses.
 * When the keymap has several groups, group 1's higher columns cannot be told from group 2's, so
 * only levels 1-2 are trusted there; a character out of reach goes through the clipboard.
 */
import type { CoreKeyboardMapping, XkbState } from '../x11/requests';
import { keysymToChar, namedKeysym, XK } from './keysyms';

/** A key to tap and the modifier keys to hold around it (in press order). */
export interface KeyStroke {
  keycode: number;
  modifiers: number[];
}

export interface LayoutSource {
  mapping: CoreKeyboardMapping;
  /** Eight rows (Shift, Lock, Control, Mod1-Mod5) of keycodes. */
  modifiers: number[][];
  state: XkbState;
}

export type StrokeLookup = { ok: true; stroke: KeyStroke } | { ok: false; message: string };

export const LOCK_MASK = 0x02;

/**
 * Characters that some layouts have only as a dead key (^ and ` on de): the dead key then Space
 * types the character itself, in every X compose table and in Chromium's. (Not dead acute or
 * diaeresis: with Space they give ' and " in some compose tables and ´ ¨ in others.)
 */
const DEAD_THEN_SPACE: ReadonlyArray<[string, number]> = [
  ['`', XK.dead_grave],
  ['^', XK.dead_circumflex],
  ['~', XK.dead_tilde],
];
/**
 * evdev and kbd keycodes put the typing block below 100; higher keys are keypad and media extras
 * (the keypad's own "(" and ")" on 187/188) that some programs treat as keypad input.
 */
const MAIN_BLOCK_END = 100;

interface Candidate {
  keycode: number;
  /** 0-3 for levels 1-4. */
  level: number;
}

function better(a: Candidate, b: Candidate): boolean {
  const blockA = a.keycode < MAIN_BLOCK_END ? 0 : 1;
  const blockB = b.keycode < MAIN_BLOCK_END ? 0 : 1;
  if (blockA !== blockB) return blockA < blockB;
  if (a.level !== b.level) return a.level < b.level;
  return a.keycode < b.keycode;
}

export class KeyboardLayout {
  private readonly chars = new Map<string, Candidate>();
  /** Characters typed as a dead key then Space, by the dead key. */
  private readonly deadKeys = new Map<string, Candidate>();
  /** Letters and digits by the key that carries them on levels 1-2 (the key's label). */
  private readonly labels = new Map<string, Candidate>();
  private readonly shiftKey: number | undefined;
  private readonly level3Key: number | undefined;

  private constructor(private readonly source: LayoutSource) {
    const { mapping, modifiers, state } = source;
    const keysymAt = (keycode: number, column: number): number => mapping.rows[keycode - mapping.minKeycode]?.[column] ?? 0;
    const firstKeycode = (keysym: number, among: (keycode: number) => boolean): number | undefined => {
      for (let index = 0; index < mapping.rows.length; index++) {
        const keycode = mapping.minKeycode + index;
        if (keysymAt(keycode, 0) === keysym && among(keycode)) return keycode;
      }
      return undefined;
    };
    const shiftRow = modifiers[0] ?? [];
    this.shiftKey = shiftRow.find((keycode) => keysymAt(keycode, 0) === XK.Shift_L) ?? shiftRow[0];
    // The level-3 key only works when it sets a modifier.
    const modifierKeys = new Set(modifiers.flat());
    this.level3Key = firstKeycode(XK.ISO_Level3_Shift, (keycode) => modifierKeys.has(keycode));

    const columns = levelColumns(mapping, state);
    const capsLock = (state.mods & LOCK_MASK) !== 0;

    for (let index = 0; index < mapping.rows.length; index++) {
      const keycode = mapping.minKeycode + index;
      const produced = columns.map((column) => keysymToChar(keysymAt(keycode, column)));
      let levels = produced;
      // Caps Lock swaps the first two levels of letter keys (XKB's alphabetic types) and leaves
      // other keys alone; what it does to a letter key's higher levels depends on the key type,
      // which the core mapping does not tell: those characters are pasted instead.
      if (capsLock && isCasePair(produced[0], produced[1])) levels = [produced[1], produced[0]];
      levels.forEach((char, level) => {
        if (char === undefined) return;
        if (!this.levelReachable(level)) return;
        const candidate = { keycode, level };
        const known = this.chars.get(char);
        if (!known || better(candidate, known)) this.chars.set(char, candidate);
      });
      this.addLabels(keycode, produced.slice(0, 2));
    }
    const space = this.chars.get(' ');
    for (const [char, deadKeysym] of DEAD_THEN_SPACE) {
      if (this.chars.has(char) || !space) continue;
      for (let index = 0; index < mapping.rows.length; index++) {
        const keycode = mapping.minKeycode + index;
        columns.forEach((column, level) => {
          if (keysymAt(keycode, column) !== deadKeysym || !this.levelReachable(level)) return;
          const candidate = { keycode, level };
          const known = this.deadKeys.get(char);
          if (!known || better(candidate, known)) this.deadKeys.set(char, candidate);
        });
      }
    }
    // A non-Latin active group (ru in "us,ru") has no key labelled A: shortcuts then mean the
    // first group's key, as toolkits resolve them.
    if (state.group !== 0) {
      for (let index = 0; index < mapping.rows.length; index++) {
        const keycode = mapping.minKeycode + index;
        this.addLabels(keycode, [keysymToChar(keysymAt(keycode, 0)), keysymToChar(keysymAt(keycode, 1))], false);
      }
    }
  }

  static fromCore(source: LayoutSource): KeyboardLayout {
    return new KeyboardLayout(source);
  }

  /** The keys that type `char` on this layout, one or two strokes, or undefined when none does (→ clipboard). */
  strokesFor(char: string): KeyStroke[] | undefined {
    const candidate = this.chars.get(char);
    if (candidate) return [this.toStroke(candidate)];
    const dead = this.deadKeys.get(char);
    const space = this.chars.get(' ');
    return dead && space ? [this.toStroke(dead), this.toStroke(space)] : undefined;
  }

  /**
   * The key a hotkey names. Letters and digits name the key labelled with them (Ctrl+Z is the Z
   * key of QWERTZ and AZERTY too; Ctrl+1 the "& 1" key of AZERTY, unshifted); other characters
   * name what types them ("+" is Shift+= on us, the + key on de); named keys their keysym.
   */
  hotkeyKey(canonical: string): StrokeLookup {
    const named = namedKeysym(canonical);
    if (named !== undefined) {
      const keycode = this.keycodeOf(named);
      return keycode === undefined
        ? { ok: false, message: `the active keyboard layout has no "${canonical}" key` }
        : { ok: true, stroke: { keycode, modifiers: [] } };
    }
    if ([...canonical].length !== 1) return { ok: false, message: `unknown key "${canonical}"` };
    if (/^[a-z0-9]$/i.test(canonical)) {
      const label = this.labels.get(canonical.toLowerCase());
      if (label) return { ok: true, stroke: { keycode: label.keycode, modifiers: [] } };
    }
    // A chord holds single keys: a character typed with a dead key cannot be part of one.
    const candidate = this.chars.get(canonical);
    return candidate ? { ok: true, stroke: this.toStroke(candidate) } : { ok: false, message: `no key of the active keyboard layout types "${canonical}"` };
  }

  /** The keycode whose first level is `keysym`, else any that has it. */
  private keycodeOf(keysym: number): number | undefined {
    const { rows, minKeycode } = this.source.mapping;
    let fallback: number | undefined;
    for (let index = 0; index < rows.length; index++) {
      const row = rows[index] as number[];
      if (row[0] === keysym) return minKeycode + index;
      if (fallback === undefined && row.includes(keysym)) fallback = minKeycode + index;
    }
    return fallback;
  }

  private addLabels(keycode: number, levels: Array<string | undefined>, replace = true): void {
    levels.forEach((char, level) => {
      if (char === undefined || !/^[a-z0-9]$/i.test(char)) return;
      const name = char.toLowerCase();
      const candidate = { keycode, level };
      const known = this.labels.get(name);
      if (!known || (replace && better(candidate, known))) this.labels.set(name, candidate);
    });
  }

  /** Level 2 needs a Shift key, level 3 the level-3 key, level 4 both. */
  private levelReachable(level: number): boolean {
    if ((level === 1 || level === 3) && this.shiftKey === undefined) return false;
    return level < 2 || this.level3Key !== undefined;
  }

  private toStroke({ keycode, level }: Candidate): KeyStroke {
    const modifiers: number[] = [];
    if (level === 1 || level === 3) modifiers.push(this.shiftKey as number);
    if (level >= 2) modifiers.push(this.level3Key as number);
    return { keycode, modifiers };
  }
}

/**
 * The core mapping's columns that hold levels 1-4 of the active group (see the module comment):
 * group 1's four when the keymap has one group, only its first two when it has several.
 */
export function levelColumns(mapping: CoreKeyboardMapping, state: XkbState): number[] {
  const multiGroup = mapping.rows.some((row) => {
    const [l1 = 0, l2 = 0, g2l1 = 0, g2l2 = 0] = row;
    return (g2l1 !== 0 && g2l1 !== l1) || (g2l2 !== 0 && g2l2 !== l2);
  });
  return state.group === 0 ? (multiGroup ? [0, 1] : [0, 1, 4, 5]) : state.group === 1 ? [2, 3] : [];
}

export function isCasePair(lower: string | undefined, upper: string | undefined): boolean {
  return lower !== undefined && upper !== undefined && lower !== upper && lower.toUpperCase() === upper && upper.toLowerCase() === lower;
}
