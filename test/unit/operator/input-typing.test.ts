/**
 * NutInput's typing and hotkeys over a recording keyboard and clipboard: which characters go to
 * the keys and which through the clipboard, and that every failure it can see (a layout that
 * cannot be read, a clipboard that never serves the text, a key the layout lacks) is a value.
 * The real keyboard on real layouts is tested in test/desktop/keyboard-layouts.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { NutInput } from '../../../src/main/operator/input';
import type { Keyboard, KeyboardOutcome, KeyboardSession } from '../../../src/main/operator/keyboard/keyboard';
import type { NutModule } from '../../../src/main/operator/nut';
import { NutClipboardPaster, type Paster } from '../../../src/main/operator/clipboard/paster';

type Call = [string, ...unknown[]];

function recorder(options: { open?: KeyboardOutcome; canType?: (char: string) => boolean; chord?: KeyboardOutcome } = {}) {
  const calls: Call[] = [];
  const session: KeyboardSession = {
    canType: options.canType ?? ((char) => char.charCodeAt(0) < 0x80),
    async type(text) {
      calls.push(['keys', text]);
      return { ok: true, keystrokes: [...text].length };
    },
    async chord(names) {
      calls.push(['chord', ...names]);
      return options.chord ?? { ok: true };
    },
  };
  const keyboard: Keyboard = {
    async open() {
      calls.push(['open']);
      return options.open && !options.open.ok ? options.open : { ok: true, session };
    },
  };
  return { keyboard, calls };
}

/** A clipboard that holds what it is given, or that never takes new text (`stuck`). */
function fakeNut(clipboard: { content: string; stuck?: boolean }, calls: Call[]): NutModule {
  return {
    clipboard: {
      async getContent() {
        return clipboard.content;
      },
      async setContent(text: string) {
        calls.push(['clipboard', text]);
        if (!clipboard.stuck) clipboard.content = text;
      },
    },
  } as unknown as NutModule;
}

const FAST = { pasteSettleMs: 0, keyDelayMs: 0, clipboardReadyTimeoutMs: 100 };

/** NutInput on the recording keyboard, pasting through nut-js's clipboard (the non-X11 path). */
function nutInput(clipboard: { content: string; stuck?: boolean }, calls: Call[], keyboard: Keyboard, paster?: Paster): NutInput {
  const nut = fakeNut(clipboard, calls);
  return new NutInput(nut, FAST, 'linux', keyboard, paster ?? new NutClipboardPaster(nut, FAST));
}

describe('NutInput.type', () => {
  it('types what the layout has keys for, pastes the rest with the paste keys, and gives the clipboard back', async () => {
    const { keyboard, calls } = recorder();
    const input = nutInput({ content: 'the user’s' }, calls, keyboard);
    expect(await input.type('a@b é!')).toEqual({ ok: true, keystrokes: 5, pasted: 1 });
    expect(calls).toEqual([['open'], ['keys', 'a@b '], ['clipboard', 'é'], ['chord', 'cmd', 'v'], ['keys', '!'], ['clipboard', 'the user’s']]);
  });

  it('a layout that cannot be read is an error, and nothing is typed', async () => {
    const { keyboard, calls } = recorder({ open: { ok: false, message: 'could not read the keyboard layout: no display' } });
    const input = nutInput({ content: '' }, calls, keyboard);
    expect(await input.type('a@b')).toEqual({ ok: false, message: 'could not read the keyboard layout: no display' });
    expect(calls).toEqual([['open']]);
  });

  it('a clipboard that never serves the text is an error, not a paste of the old text', async () => {
    const { keyboard, calls } = recorder();
    const input = nutInput({ content: 'old', stuck: true }, calls, keyboard);
    const typed = await input.type('ok 漢字');
    expect(typed).toMatchObject({ ok: false, message: expect.stringContaining('did not take the text to paste within 100 ms') });
    expect(calls.filter(([kind]) => kind === 'chord')).toEqual([]);
  });

  it('a paste the application never fetched is an error naming which characters (not the text, which may be a secret), and the clipboard is still given back', async () => {
    const { keyboard, calls } = recorder();
    const unfetched: Paster = {
      async paste(text, pressPasteKeys) {
        calls.push(['offer', text]);
        const pressed = await pressPasteKeys();
        return pressed.ok ? { ok: false, message: 'the focused application did not fetch the pasted text within 100 ms' } : pressed;
      },
    };
    const input = nutInput({ content: 'mine' }, calls, keyboard, unfetched);
    const typed = await input.type('ab 漢字 cd');
    expect(typed).toEqual({
      ok: false,
      message: 'characters 4-5 of 8 were not pasted: the focused application did not fetch the pasted text within 100 ms (the 3 before them were typed)',
    });
    expect(calls).toEqual([['open'], ['keys', 'ab '], ['offer', '漢字'], ['chord', 'cmd', 'v'], ['clipboard', 'mine']]);
  });

  it('paste keys the layout lacks are an error', async () => {
    const { keyboard, calls } = recorder({ chord: { ok: false, message: 'no key of the active keyboard layout types "v"' } });
    const input = nutInput({ content: '' }, calls, keyboard);
    expect(await input.type('漢字')).toMatchObject({ ok: false, message: expect.stringContaining('paste keys: no key') });
  });
});

describe('NutInput.hotkey', () => {
  it('is a chord on a session opened now', async () => {
    const { keyboard, calls } = recorder();
    const input = nutInput({ content: '' }, calls, keyboard);
    expect(await input.hotkey(['ctrl', 'z'])).toEqual({ ok: true });
    expect(await input.hotkey(['ctrl', 'a'])).toEqual({ ok: true });
    expect(calls).toEqual([['open'], ['chord', 'ctrl', 'z'], ['open'], ['chord', 'ctrl', 'a']]);
  });

  it('a layout that cannot be read is an error', async () => {
    const { keyboard, calls } = recorder({ open: { ok: false, message: 'no layout' } });
    const input = nutInput({ content: '' }, calls, keyboard);
    expect(await input.hotkey(['ctrl', 'z'])).toEqual({ ok: false, message: 'no layout' });
  });
});

describe('keys after a mouse button', () => {
  it('wait until keysAfterPressMs has passed since the button, so the focus the click moved is there first', async () => {
    const { keyboard, calls } = recorder();
    const times: Record<string, number> = {};
    const nut = {
      ...fakeNut({ content: '' }, calls),
      Point: class {
        constructor(
          readonly x: number,
          readonly y: number,
        ) {}
      },
      mouse: {
        async setPosition() {},
        async pressButton() {},
        async releaseButton() {
          times.released = performance.now();
        },
      },
    } as unknown as NutModule;
    const input = new NutInput(nut, { ...FAST, settleAfterMoveMs: 0, keysAfterPressMs: 120 }, 'linux', keyboard, new NutClipboardPaster(nut, FAST));
    await input.click({ x: 10, y: 10 } as never, 'left', 1, []);
    expect(await input.type('abc')).toMatchObject({ ok: true });
    const typedAt = performance.now();
    expect(calls).toContainEqual(['keys', 'abc']);
    // Timers may fire a millisecond early against performance.now().
    expect(typedAt - (times.released as number)).toBeGreaterThanOrEqual(118);
  });
});
