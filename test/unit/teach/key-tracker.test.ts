/**
 * Keys as the user meant them, on the layouts captured on the test display
 * (test/fixtures/keymaps/): every character a layout types, pressed as the layout would press it,
 * reads back as that character (so a German "z" or "@" is what the user saw); named keys and
 * shortcuts are chords; dead keys compose; Caps Lock; the stop chord.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KeyDecoder } from '../../../src/main/operator/keyboard/key-decoder';
import { KeyboardLayout, type LayoutSource } from '../../../src/main/operator/keyboard/layout';
import { KeyTracker, type KeyInput } from '../../../src/main/teach/key-tracker';

const SHIFT = 50;
const CTRL = 37;
const ALT = 64;
const ALTGR = 92;
const CAPS = 66;
const SPACE = 65;
const TAB = 23;
const ENTER = 36;

function source(name: string, mods = 0): LayoutSource {
  const capture = JSON.parse(readFileSync(new URL(`../../fixtures/keymaps/${name}.json`, import.meta.url), 'utf8')) as { minKeycode: number; modifiers: number[][]; rows: number[][] };
  return { mapping: { minKeycode: capture.minKeycode, rows: capture.rows }, modifiers: capture.modifiers, state: { group: 0, mods } };
}

/** Presses the modifiers, taps the key, releases the modifiers; what the tap meant. */
function stroke(tracker: KeyTracker, keycode: number, ...modifiers: number[]): KeyInput | null {
  for (const modifier of modifiers) expect(tracker.press(modifier)).toBeNull();
  const meant = tracker.press(keycode);
  tracker.release(keycode);
  for (const modifier of modifiers.reverse()) tracker.release(modifier);
  return meant;
}

/** Letters on the same keycode as US keys: the key labelled Z on QWERTZ is US Y's (29). */
function keycodeOf(layout: KeyboardLayout, char: string): number {
  return (layout.strokesFor(char) as Array<{ keycode: number }>)[0]!.keycode;
}

const PRINTABLE_ASCII = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));

describe.each(['us', 'de', 'fr', 'us-intl'])('on the %s layout', (name) => {
  it('every character the layout types reads back as itself, however many keys it took', () => {
    const layout = KeyboardLayout.fromCore(source(name));
    const chars = [...PRINTABLE_ASCII, ...'äöüßéèàçœ€£§°µ'].filter((char) => layout.strokesFor(char) !== undefined);
    expect(chars.length).toBeGreaterThan(90);
    for (const char of chars) {
      const tracker = new KeyTracker(KeyDecoder.fromCore(source(name)));
      const meant = (layout.strokesFor(char) ?? []).map((s) => stroke(tracker, s.keycode, ...s.modifiers)).filter((input) => input !== null);
      expect(meant, `${name}: ${JSON.stringify(char)}`).toEqual([{ kind: 'text', char }]);
    }
  });
});

describe('KeyTracker', () => {
  it('reads keycodes with the active layout: the German Z key types "z", AltGr+Q "@"', () => {
    const de = new KeyTracker(KeyDecoder.fromCore(source('de')));
    const us = new KeyTracker(KeyDecoder.fromCore(source('us')));
    expect(stroke(de, 29)).toEqual({ kind: 'text', char: 'z' });
    expect(stroke(us, 29)).toEqual({ kind: 'text', char: 'y' });
    expect(stroke(de, 24, ALTGR)).toEqual({ kind: 'text', char: '@' });
    expect(stroke(de, 29, SHIFT)).toEqual({ kind: 'text', char: 'Z' });
  });

  it('a dead key then a letter composes it; then Space types the accent itself', () => {
    const de = new KeyTracker(KeyDecoder.fromCore(source('de')));
    const circumflex = 49; // ^ / ° on QWERTZ: dead_circumflex
    expect(stroke(de, circumflex)).toBeNull();
    expect(stroke(de, keycodeOf(KeyboardLayout.fromCore(source('de')), 'e'))).toEqual({ kind: 'text', char: 'ê' });
    expect(stroke(de, circumflex)).toBeNull();
    expect(stroke(de, SPACE)).toEqual({ kind: 'text', char: '^' });
  });

  it('named keys and shortcuts are chords, named by the key’s label', () => {
    const de = new KeyTracker(KeyDecoder.fromCore(source('de')));
    expect(stroke(de, ENTER)).toEqual({ kind: 'key', keys: ['enter'] });
    expect(stroke(de, TAB, SHIFT)).toEqual({ kind: 'key', keys: ['shift', 'tab'] });
    expect(stroke(de, 29, CTRL)).toEqual({ kind: 'key', keys: ['ctrl', 'z'] });
    expect(stroke(de, 38, CTRL, SHIFT)).toEqual({ kind: 'key', keys: ['ctrl', 'shift', 'a'] });
    expect(stroke(de, 67)).toEqual({ kind: 'key', keys: ['f1'] });
  });

  it('Caps Lock turns letters upper case, not digits; a second press turns it off', () => {
    const us = new KeyTracker(KeyDecoder.fromCore(source('us')));
    expect(stroke(us, CAPS)).toBeNull();
    expect(stroke(us, 38)).toEqual({ kind: 'text', char: 'A' });
    expect(stroke(us, 38, SHIFT)).toEqual({ kind: 'text', char: 'a' });
    expect(stroke(us, 10)).toEqual({ kind: 'text', char: '1' });
    expect(stroke(us, CAPS)).toBeNull();
    expect(stroke(us, 38)).toEqual({ kind: 'text', char: 'a' });
    // Locked when the layout was read.
    expect(stroke(new KeyTracker(KeyDecoder.fromCore(source('us', 0x02))), 38)).toEqual({ kind: 'text', char: 'A' });
  });

  it('ctrl+alt+shift+s is the stop chord; the modifiers held are said for clicks', () => {
    const us = new KeyTracker(KeyDecoder.fromCore(source('us')));
    for (const modifier of [CTRL, ALT, SHIFT]) us.press(modifier);
    expect(us.modifiers).toEqual(['ctrl', 'alt', 'shift']);
    expect(us.press(39)).toEqual({ kind: 'stop' });
  });
});
