import { describe, expect, it } from 'vitest';
import { Key } from '../../../src/main/operator/native-keys';
import { planTyping } from '../../../src/main/operator/typing';
import { keystrokeForChar, nutKeysFor } from '../../../src/main/operator/key-map';

describe('every printable ASCII character has a US keystroke', () => {
  for (let code = 0x20; code <= 0x7e; code++) {
    const char = String.fromCharCode(code);
    it(JSON.stringify(char), () => expect(keystrokeForChar(char)).toBeDefined());
  }
  it('shifted symbols press Shift explicitly', () => {
    for (const char of '!@#$%^&*_+{}|:"<>?~()ABCZ') expect(keystrokeForChar(char)?.shift, char).toBe(true);
    for (const char of "1234567890-=[]\\;',./`abcz ") expect(keystrokeForChar(char)?.shift, char).toBe(false);
    expect(keystrokeForChar('!')).toEqual({ key: Key.Num1, shift: true });
    expect(keystrokeForChar('"')).toEqual({ key: Key.Quote, shift: true });
  });
});

/** What a US layout has keys for. */
const us = (char: string) => keystrokeForChar(char) !== undefined;

describe('planTyping', () => {
  it('types ASCII as keys and pastes the rest', () => {
    const plan = planTyping('Café 世界 !\n', us);
    expect(plan.map((s) => [s.kind, s.text])).toEqual([
      ['keys', 'Caf'],
      ['paste', 'é 世界'],
      ['keys', ' !\n'],
    ]);
  });
  it('keys between two pastes on one line go with them; a line break or a tab stays a key', () => {
    expect(planTyping('漢字かな 中文 ok', us).map((s) => [s.kind, s.text])).toEqual([
      ['paste', '漢字かな 中文'],
      ['keys', ' ok'],
    ]);
    expect(planTyping('é\tö', us).map((s) => [s.kind, s.text])).toEqual([
      ['paste', 'é'],
      ['keys', '\t'],
      ['paste', 'ö'],
    ]);
    expect(planTyping('ab é\nü cd', us).map((s) => [s.kind, s.text])).toEqual([
      ['keys', 'ab '],
      ['paste', 'é'],
      ['keys', '\n'],
      ['paste', 'ü'],
      ['keys', ' cd'],
    ]);
  });
  it('a text with non-ASCII characters on more than two lines is pasted whole, newlines still Enter', () => {
    expect(planTyping('Crème brûlée,\nnaïve,\nfaçade', us).map((s) => [s.kind, s.text])).toEqual([
      ['paste', 'Crème brûlée,'],
      ['keys', '\n'],
      ['paste', 'naïve,'],
      ['keys', '\n'],
      ['paste', 'façade'],
    ]);
  });
  it('one Enter per line break whatever the convention', () => {
    const plan = planTyping('a\r\nb\rc\n', us);
    expect(plan).toHaveLength(1);
    expect(plan[0]?.text).toBe('a\nb\nc\n');
  });
  it('keeps code points whole', () => {
    expect(planTyping('a👍🏽b', us).map((s) => [s.kind, s.text])).toEqual([
      ['keys', 'a'],
      ['paste', '👍🏽'],
      ['keys', 'b'],
    ]);
  });
  it('clipboard mode still presses Enter for newlines', () => {
    expect(planTyping('ab\ncd', us, 'clipboard').map((s) => [s.kind, s.text])).toEqual([
      ['paste', 'ab'],
      ['keys', '\n'],
      ['paste', 'cd'],
    ]);
  });
});

describe('nutKeysFor', () => {
  it('maps cmd to Ctrl off macOS and to Cmd on macOS', () => {
    expect(nutKeysFor('cmd', 'linux')).toEqual({ ok: true, keys: [Key.LeftControl] });
    expect(nutKeysFor('cmd', 'win32')).toEqual({ ok: true, keys: [Key.LeftControl] });
    expect(nutKeysFor('cmd', 'darwin')).toEqual({ ok: true, keys: [Key.LeftCmd] });
  });
  it('function keys, named keys, shifted symbols', () => {
    expect(nutKeysFor('f24', 'linux')).toEqual({ ok: true, keys: [Key.F24] });
    expect(nutKeysFor('enter', 'linux')).toEqual({ ok: true, keys: [Key.Return] });
    expect(nutKeysFor('+', 'linux')).toEqual({ ok: true, keys: [Key.LeftShift, Key.Equal] });
  });
  it('explains keys it cannot press', () => {
    expect(nutKeysFor('pause', 'linux')).toMatchObject({ ok: false, message: expect.stringMatching(/pause/) });
  });
});
