/**
 * The layout built from keyboard mappings captured on the test display (test/fixtures/keymaps/),
 * one per layout: which key and which level modifiers type each character, and which key a hotkey
 * names. Keycodes are evdev's: 50 Shift_L, 92 ISO_Level3_Shift (AltGr / Right Alt), 65 space.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KeyboardLayout, type KeyStroke } from '../../../src/main/operator/keyboard/layout';
import type { XkbState } from '../../../src/main/operator/x11/requests';

const SHIFT = 50;
const ALTGR = 92;
const SPACE = 65;

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

describe('us', () => {
  const us = layout('us');
  it('types every printable ASCII character with at most Shift', () => {
    for (const char of PRINTABLE_ASCII) {
      const strokes = us.strokesFor(char);
      expect(strokes, char).toHaveLength(1);
      expect(strokes?.[0]?.modifiers.every((modifier) => modifier === SHIFT), char).toBe(true);
    }
  });
  it('symbols at their US keys, Enter and Tab for line breaks and tabs', () => {
    expect(us.strokesFor('@')).toEqual([key(11, SHIFT)]);
    expect(us.strokesFor('/')).toEqual([key(61)]);
    expect(us.strokesFor('\n')).toEqual([key(36)]);
    expect(us.strokesFor('\t')).toEqual([key(23)]);
  });
  it('prefers the typing block to the keypad extras', () => {
    // 187/188 are the keypad's own parentheses.
    expect(us.strokesFor('(')).toEqual([key(18, SHIFT)]);
    expect(us.strokesFor(')')).toEqual([key(19, SHIFT)]);
  });
  it('has no key for accents, CJK or emoji (they are pasted)', () => {
    for (const char of ['é', 'ä', '€', '世', '🎉']) expect(us.strokesFor(char), char).toBeUndefined();
  });
});

describe('de (QWERTZ, AltGr)', () => {
  const de = layout('de');
  it('the issue’s characters: @ is AltGr+Q, " is Shift+2, / is Shift+7, # its own key', () => {
    expect(de.strokesFor('@')).toEqual([key(24, ALTGR)]);
    expect(de.strokesFor('"')).toEqual([key(11, SHIFT)]);
    expect(de.strokesFor('/')).toEqual([key(16, SHIFT)]);
    expect(de.strokesFor('#')).toEqual([key(51)]);
    expect(de.strokesFor('(')).toEqual([key(17, SHIFT)]);
    expect(de.strokesFor('[')).toEqual([key(17, ALTGR)]);
    expect(de.strokesFor('\\')).toEqual([key(20, ALTGR)]);
    expect(de.strokesFor('y')).toEqual([key(52)]);
    expect(de.strokesFor('Z')).toEqual([key(29, SHIFT)]);
  });
  it('^ and ` exist only as dead keys: dead key, then Space', () => {
    expect(de.strokesFor('^')).toEqual([key(49), key(SPACE)]);
    expect(de.strokesFor('`')).toEqual([key(21, SHIFT), key(SPACE)]);
  });
  it('every printable ASCII character has keys', () => {
    for (const char of PRINTABLE_ASCII) expect(de.strokesFor(char), char).toBeDefined();
  });
  it('types its own letters and the euro sign on keys', () => {
    expect(de.strokesFor('ä')).toEqual([key(48)]);
    expect(de.strokesFor('Ü')).toEqual([key(34, SHIFT)]);
    expect(de.strokesFor('ß')).toEqual([key(20)]);
    expect(de.strokesFor('€')).toEqual([key(26, ALTGR)]);
    expect(de.strokesFor('ñ')).toBeUndefined();
  });
  it('hotkeys: letters name the labelled key, symbols the key that types them', () => {
    expect(de.hotkeyKey('z')).toEqual({ ok: true, stroke: key(29) });
    expect(de.hotkeyKey('y')).toEqual({ ok: true, stroke: key(52) });
    expect(de.hotkeyKey('a')).toEqual({ ok: true, stroke: key(38) });
    expect(de.hotkeyKey('+')).toEqual({ ok: true, stroke: key(35) });
    expect(de.hotkeyKey('ctrl')).toEqual({ ok: true, stroke: key(37) });
    expect(de.hotkeyKey('enter')).toEqual({ ok: true, stroke: key(36) });
    expect(de.hotkeyKey('f5')).toEqual({ ok: true, stroke: key(71) });
    // A dead key cannot be held in a chord.
    expect(de.hotkeyKey('^')).toMatchObject({ ok: false, message: expect.stringContaining('"^"') });
  });
});

describe('fr (AZERTY)', () => {
  const fr = layout('fr');
  it('digits are shifted, symbols where AZERTY has them', () => {
    expect(fr.strokesFor('1')).toEqual([key(10, SHIFT)]);
    expect(fr.strokesFor('&')).toEqual([key(10)]);
    expect(fr.strokesFor('@')).toEqual([key(19, ALTGR)]);
    expect(fr.strokesFor('.')).toEqual([key(59, SHIFT)]);
    expect(fr.strokesFor(';')).toEqual([key(59)]);
    expect(fr.strokesFor('#')).toEqual([key(12, ALTGR)]);
    expect(fr.strokesFor('a')).toEqual([key(24)]);
    expect(fr.strokesFor('é')).toEqual([key(11)]);
  });
  it('every printable ASCII character has keys', () => {
    for (const char of PRINTABLE_ASCII) expect(fr.strokesFor(char), char).toBeDefined();
  });
  it('hotkeys: Ctrl+A and Ctrl+Z are the A and Z keys; Ctrl+1 the "& 1" key, unshifted', () => {
    expect(fr.hotkeyKey('a')).toEqual({ ok: true, stroke: key(24) });
    expect(fr.hotkeyKey('z')).toEqual({ ok: true, stroke: key(25) });
    expect(fr.hotkeyKey('q')).toEqual({ ok: true, stroke: key(38) });
    expect(fr.hotkeyKey('1')).toEqual({ ok: true, stroke: key(10) });
  });
});

describe('us intl (dead keys)', () => {
  const intl = layout('us-intl');
  it("' \" ` ~ ^ are dead at their US places: the plain characters come from AltGr levels", () => {
    expect(intl.strokesFor("'")).toEqual([key(48, ALTGR)]);
    expect(intl.strokesFor('"')).toEqual([key(48, SHIFT, ALTGR)]);
    expect(intl.strokesFor('`')).toEqual([key(49, ALTGR)]);
    expect(intl.strokesFor('~')).toEqual([key(49, SHIFT, ALTGR)]);
    expect(intl.strokesFor('^')).toEqual([key(15, SHIFT, ALTGR)]);
  });
  it('no character is typed through a dead key', () => {
    const deadKeys = new Set([48, 49]);
    for (const char of PRINTABLE_ASCII) {
      const strokes = intl.strokesFor(char) ?? [];
      expect(strokes, char).toHaveLength(1);
      // 6 and 15 carry dead_circumflex on level 2 only.
      if (deadKeys.has(strokes[0]!.keycode)) expect(strokes[0]!.modifiers, char).toContain(ALTGR);
    }
  });
  it('AltGr letters', () => {
    expect(intl.strokesFor('ä')).toEqual([key(24, ALTGR)]);
    expect(intl.strokesFor('é')).toEqual([key(26, ALTGR)]);
  });
});

describe('Caps Lock', () => {
  it('swaps the first two levels of letter keys only', () => {
    const us = layout('us', { mods: 0x02 });
    expect(us.strokesFor('a')).toEqual([key(38, SHIFT)]);
    expect(us.strokesFor('A')).toEqual([key(38)]);
    expect(us.strokesFor('1')).toEqual([key(10)]);
    expect(us.strokesFor('!')).toEqual([key(10, SHIFT)]);
    const de = layout('de', { mods: 0x02 });
    expect(de.strokesFor('ä')).toEqual([key(48, SHIFT)]);
    expect(de.strokesFor('ß')).toEqual([key(20)]);
  });
  it('pastes what a letter key has on its higher levels (the key type decides, which the core map hides)', () => {
    const intl = layout('us-intl', { mods: 0x02 });
    expect(intl.strokesFor('ä')).toBeUndefined();
    expect(intl.strokesFor("'")).toEqual([key(48, ALTGR)]);
  });
});

describe('two groups (us,de)', () => {
  it('group 1 active: us keys, and no level 3 (its columns cannot be told from group 2’s)', () => {
    const us = layout('us-de', { group: 0 });
    expect(us.strokesFor('@')).toEqual([key(11, SHIFT)]);
    expect(us.strokesFor('z')).toEqual([key(52)]);
    expect(us.strokesFor('ä')).toBeUndefined();
  });
  it('group 2 active: de keys on levels 1-2, the rest pasted', () => {
    const de = layout('us-de', { group: 1 });
    expect(de.strokesFor('z')).toEqual([key(29)]);
    expect(de.strokesFor('"')).toEqual([key(11, SHIFT)]);
    expect(de.strokesFor('ä')).toEqual([key(48)]);
    expect(de.strokesFor('@')).toBeUndefined();
    expect(de.hotkeyKey('z')).toEqual({ ok: true, stroke: key(29) });
  });
});

describe('hotkey names', () => {
  const us = layout('us');
  it('+ is Shift and =, as the user means the character', () => {
    expect(us.hotkeyKey('+')).toEqual({ ok: true, stroke: key(21, SHIFT) });
  });
  it('explains what it cannot find', () => {
    expect(us.hotkeyKey('blah')).toMatchObject({ ok: false, message: 'unknown key "blah"' });
    expect(layout('us-de', { group: 2 }).hotkeyKey('a')).toEqual({ ok: true, stroke: key(38) });
  });
});
