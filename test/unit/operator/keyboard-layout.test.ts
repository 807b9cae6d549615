/**
 * The layout built from keyboard mappings captured on the test display (test/fixtures/keymaps/),
 * one per layout: which key and which level modifiers type each character, and which key a hotkey
 * names. Keycodes are evdev's: 50 Shift_L, 92 ISO_Level3_Shift (AltGr / Right Alt), 65 space.
 *
 * Most cases are rows of one table (CASES): a keymap, an XKB state, and the keys expected for some
 * characters and hotkey names. The properties that hold for every character have tests of their own.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KeyboardLayout, type KeyStroke } from '../../../src/main/operator/keyboard/layout';
import type { XkbState } from '../../../src/main/operator/x11/requests';

const SHIFT = 50;
const ALTGR = 92;
const SPACE = 65;
const CAPS_LOCK: Partial<XkbState> = { mods: 0x02 };

interface Capture {
  minKeycode: number;
  modifiers: number[][];
  rows: number[][];
}

function layout(name: string, state: Partial<XkbState> = {}): KeyboardLayout {
  const capture = JSON.parse(readFileSync(new URL(`../../fixtures/keymaps/${name}.json`, import.meta.url), 'utf8')) as Capture;
  return KeyboardLayout.fromCore({
    mapping: { minKeycode: capture.minKeycode, rows: capture.rows },
    modifiers: capture.modifiers,
    state: { group: 0, mods: 0, ...state },
  });
}

const key = (keycode: number, ...modifiers: number[]): KeyStroke => ({ keycode, modifiers });

const PRINTABLE_ASCII = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));

interface LayoutCase {
  keymap: string;
  state?: Partial<XkbState>;
  title: string;
  /** Characters and the strokes that type them; undefined where no key does (they are pasted). */
  types?: Record<string, KeyStroke[] | undefined>;
  /** Hotkey names and the key each presses. */
  hotkeys?: Record<string, KeyStroke>;
}

const CASES: LayoutCase[] = [
  { keymap: 'us', title: 'symbols at their US keys, Enter and Tab for line breaks and tabs', types: { '@': [key(11, SHIFT)], '/': [key(61)], '\n': [key(36)], '\t': [key(23)] } },
  // 187/188 are the keypad's own parentheses.
  { keymap: 'us', title: 'prefers the typing block to the keypad extras', types: { '(': [key(18, SHIFT)], ')': [key(19, SHIFT)] } },
  { keymap: 'us', title: 'has no key for accents, CJK or emoji (they are pasted)', types: { é: undefined, ä: undefined, '€': undefined, 世: undefined, '🎉': undefined } },
  { keymap: 'us', title: '+ is Shift and =, as the user means the character', hotkeys: { '+': key(21, SHIFT) } },
  {
    keymap: 'de',
    title: 'the issue’s characters: @ is AltGr+Q, " is Shift+2, / is Shift+7, # its own key',
    types: { '@': [key(24, ALTGR)], '"': [key(11, SHIFT)], '/': [key(16, SHIFT)], '#': [key(51)], '(': [key(17, SHIFT)], '[': [key(17, ALTGR)], '\\': [key(20, ALTGR)], y: [key(52)], Z: [key(29, SHIFT)] },
  },
  { keymap: 'de', title: '^ and ` exist only as dead keys: dead key, then Space', types: { '^': [key(49), key(SPACE)], '`': [key(21, SHIFT), key(SPACE)] } },
  { keymap: 'de', title: 'types its own letters and the euro sign on keys', types: { ä: [key(48)], Ü: [key(34, SHIFT)], ß: [key(20)], '€': [key(26, ALTGR)], ñ: undefined } },
  {
    keymap: 'de',
    title: 'hotkeys: letters name the labelled key, symbols the key that types them',
    hotkeys: { z: key(29), y: key(52), a: key(38), '+': key(35), ctrl: key(37), enter: key(36), f5: key(71) },
  },
  {
    keymap: 'fr',
    title: 'digits are shifted, symbols where AZERTY has them',
    types: { '1': [key(10, SHIFT)], '&': [key(10)], '@': [key(19, ALTGR)], '.': [key(59, SHIFT)], ';': [key(59)], '#': [key(12, ALTGR)], a: [key(24)], é: [key(11)] },
  },
  { keymap: 'fr', title: 'hotkeys: Ctrl+A and Ctrl+Z are the A and Z keys; Ctrl+1 the "& 1" key, unshifted', hotkeys: { a: key(24), z: key(25), q: key(38), '1': key(10) } },
  {
    keymap: 'us-intl',
    title: "' \" ` ~ ^ are dead at their US places: the plain characters come from AltGr levels",
    types: { "'": [key(48, ALTGR)], '"': [key(48, SHIFT, ALTGR)], '`': [key(49, ALTGR)], '~': [key(49, SHIFT, ALTGR)], '^': [key(15, SHIFT, ALTGR)] },
  },
  { keymap: 'us-intl', title: 'AltGr letters', types: { ä: [key(24, ALTGR)], é: [key(26, ALTGR)] } },
  { keymap: 'us', state: CAPS_LOCK, title: 'Caps Lock swaps the first two levels of letter keys only', types: { a: [key(38, SHIFT)], A: [key(38)], '1': [key(10)], '!': [key(10, SHIFT)] } },
  { keymap: 'de', state: CAPS_LOCK, title: 'Caps Lock swaps the first two levels of letter keys only', types: { ä: [key(48, SHIFT)], ß: [key(20)] } },
  {
    keymap: 'us-intl',
    state: CAPS_LOCK,
    title: 'Caps Lock: pastes what a letter key has on its higher levels (the key type decides, which the core map hides)',
    types: { ä: undefined, "'": [key(48, ALTGR)] },
  },
  { keymap: 'us-de', state: { group: 0 }, title: 'group 1 active: us keys, and no level 3 (its columns cannot be told from group 2’s)', types: { '@': [key(11, SHIFT)], z: [key(52)], ä: undefined } },
  { keymap: 'us-de', state: { group: 1 }, title: 'group 2 active: de keys on levels 1-2, the rest pasted', types: { z: [key(29)], '"': [key(11, SHIFT)], ä: [key(48)], '@': undefined }, hotkeys: { z: key(29) } },
  { keymap: 'us-de', state: { group: 2 }, title: 'a group the core map does not show: shortcuts mean the first group’s key, as toolkits resolve them', hotkeys: { a: key(38) } },
];

describe('keys for characters and hotkey names', () => {
  for (const { keymap, state, title, types = {}, hotkeys = {} } of CASES) {
    it(`${keymap}${state ? ` ${JSON.stringify(state)}` : ''}: ${title}`, () => {
      const active = layout(keymap, state);
      for (const [char, strokes] of Object.entries(types)) expect(active.strokesFor(char), char).toEqual(strokes);
      for (const [name, stroke] of Object.entries(hotkeys)) expect(active.hotkeyKey(name), name).toEqual({ ok: true, stroke });
    });
  }
});

describe('every printable ASCII character', () => {
  it('us: with at most Shift', () => {
    const us = layout('us');
    for (const char of PRINTABLE_ASCII) {
      const strokes = us.strokesFor(char);
      expect(strokes, char).toHaveLength(1);
      expect(strokes?.[0]?.modifiers.every((modifier) => modifier === SHIFT), char).toBe(true);
    }
  });
  it('de and fr: on keys', () => {
    for (const name of ['de', 'fr']) {
      const active = layout(name);
      for (const char of PRINTABLE_ASCII) expect(active.strokesFor(char), `${name} ${char}`).toBeDefined();
    }
  });
  it('us intl: never through a dead key', () => {
    const intl = layout('us-intl');
    const deadKeys = new Set([48, 49]);
    for (const char of PRINTABLE_ASCII) {
      const strokes = intl.strokesFor(char) ?? [];
      expect(strokes, char).toHaveLength(1);
      // 6 and 15 carry dead_circumflex on level 2 only.
      if (deadKeys.has(strokes[0]!.keycode)) expect(strokes[0]!.modifiers, char).toContain(ALTGR);
    }
  });
});

describe('hotkey names it cannot press', () => {
  it('a dead key cannot be held in a chord', () => {
    expect(layout('de').hotkeyKey('^')).toMatchObject({ ok: false, message: expect.stringContaining('"^"') });
  });
  it('explains what it cannot find', () => {
    expect(layout('us').hotkeyKey('blah')).toMatchObject({ ok: false, message: 'unknown key "blah"' });
  });
});
