/**
 * Typing and hotkeys on real keyboard layouts (us, de, fr, us intl with dead keys), set with
 * setxkbmap on the test display: Mnemo's operator types into the instrumented page's field and
 * into an xterm (which does not take the clipboard's Ctrl+V, so only keys can get text there),
 * and the field's value, the file the shell wrote and the page's key events are checked.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ActionInput } from '../../src/shared/actions';
import type { ActionSuccess } from '../../src/shared/action-result';
import { launchXterm, type Xterm } from '../fixtures/desktop/xterm';
import { failureScreenshot, xdotool } from '../fixtures/desktop/display';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { DE, FR, restoreUs, switchLayout, US, US_INTL, type TestLayout } from '../fixtures/desktop/keyboard-layout';
import { openOperatorOnPage, type OperatorOnPage } from '../fixtures/desktop/operator-page';

let page: OperatorOnPage;
let xterm: Xterm;
const files: string[] = [];

const fieldValue = async () => (await page.server.state()).field.value;

/**
 * Clicks into the field, right of its text, and waits until it has the focus (keys sent sooner
 * may go elsewhere). `dx` moves the click: two clicks in one spot in quick succession would be a
 * double click, which selects a word.
 */
async function focusField(dx = 0): Promise<void> {
  const since = page.server.mark();
  const centre = centreOf(TARGET_LAYOUT.field);
  await page.actOk({ type: 'click', x: centre.x + dx, y: centre.y });
  await page.server.waitForType('focusin', (e) => e.target === 'field', { since });
}

async function typeIntoField(text: string): Promise<ActionSuccess> {
  await focusField();
  const result = await page.actOk({ type: 'type', text });
  await expect.poll(fieldValue, { timeout: 30_000 }).toBe(text);
  return result;
}

/** Symbols that the layouts put in different places, as users type them. */
const SYMBOL_TEXTS: Array<[string, string]> = [
  ['the issue’s examples', 'a@b.com x/y-z; #1 (ok) [x]'],
  ['an e-mail address', 'first.last+tag_1@mail-server.example.com'],
  ['paths', 'C:\\Users\\jo\\a_b~1.txt ~/src/{app,lib}/*.ts ../x?y=1&z=2#top'],
  ['code', 'if (a[i] != b && c <= d || !e) { x->y = "z" + `s` ^ 2 % 3 | 4; } // ok'],
  ['a password', "P@$$w0rd!#%^&*()_+-=[]{}|;:'\",.<>/?`~\\"],
  ['every printable ASCII character', Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('')],
];

/** Letters each layout has keys for, typed without the clipboard. */
const OWN_LETTERS: Record<string, string> = {
  us: 'Hello World',
  de: 'Grüße, Äpfel für 5 € — nein: Grüße!',
  fr: 'Où ça ? Déjà été là, 5 € près',
  'us intl': 'Ärger, café, niño, 5 €',
};

beforeAll(async () => {
  // The keyboard reads DISPLAY when it connects: the fixture sets it.
  page = await openOperatorOnPage();
  xterm = await launchXterm({ display: page.display });
});

afterAll(async () => {
  if (page) await restoreUs(page.display);
  await xterm?.close();
  await page?.close();
  for (const file of files) rmSync(file, { force: true });
});

beforeEach(async ({ task, onTestFailed }) => {
  onTestFailed(async () => {
    await failureScreenshot(page.display, `layouts-${task.name}`);
  });
  await page.reset();
});

// Every test leaves the display on us, whatever happened in it.
afterEach(async () => {
  await restoreUs(page.display);
});

for (const layout of [US, DE, FR, US_INTL] satisfies TestLayout[]) {
  describe(`layout ${layout.name}`, () => {
    beforeEach(async () => {
      await switchLayout(page.display, page.server, layout);
    });

    for (const [name, text] of SYMBOL_TEXTS) {
      it(`types ${name} exactly, on keys alone`, async () => {
        const result = await typeIntoField(text);
        expect(result.detail).toMatch(/, 0 pasted\)$/);
      });
    }

    it('types the letters it has keys for on keys, the rest through the clipboard', async () => {
      const own = await typeIntoField(OWN_LETTERS[layout.name] as string);
      expect(own.detail).toMatch(/, 0 pasted\)$/);
      await page.server.reset();
      const mixed = await typeIntoField('漢字 ok');
      expect(mixed.detail).toMatch(/, 2 pasted\)$/);
    });

    it('hotkey ctrl+a selects all', async () => {
      await page.server.setValue('field', 'select me entirely');
      await page.server.focus('field');
      const since = page.server.mark();
      await page.actOk({ type: 'hotkey', keys: ['ctrl', 'a'] });
      await page.server.waitForType('selection', (e) => e.target === 'field' && e.selectionStart === 0 && e.selectionEnd === 18, { since });
      expect(await page.server.waitForType('keydown', (e) => e.ctrlKey && e.key !== 'Control', { since })).toMatchObject({ key: 'a' });
    });

    it('hotkey ctrl+z undoes, on the key labelled Z', async () => {
      await typeIntoField('undo me');
      const since = page.server.mark();
      await page.actOk({ type: 'hotkey', keys: ['ctrl', 'z'] });
      expect(await page.server.waitForType('keydown', (e) => e.ctrlKey && e.key !== 'Control', { since })).toMatchObject({ key: 'z' });
      await expect.poll(fieldValue, { timeout: 30_000 }).not.toBe('undo me');
      expect('undo me'.startsWith(await fieldValue())).toBe(true);
    });

    it('types a shell command full of symbols into an xterm', async () => {
      const file = join(tmpdir(), `mnemo-layout-${randomUUID()}`);
      files.push(file);
      const payload = 'a@b.com x/y-z;#1 (ok) [x] {p|q} <r> ~s^t`u "v" \\w $x %y &z *!? +=_:,.';
      await xterm.focus();
      const before = xterm.prompts();
      const result = await page.actOk({ type: 'type', text: `printf '%s' '${payload}' > ${file}\n` });
      expect(result.detail).toMatch(/, 0 pasted\)$/);
      expect(await xterm.waitForPrompt(before)).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(payload);
    });
  });
}

describe('switching layouts', () => {
  it('a layout switched between two actions is picked up', async () => {
    await switchLayout(page.display, page.server, DE);
    await typeIntoField('a@b.com;');
    // The probe keys of the switch must not land in the field: a button has the focus meanwhile.
    await page.server.focus('btn-center');
    await switchLayout(page.display, page.server, FR);
    await focusField(100);
    await page.actOk({ type: 'type', text: 'x/y-z; #1 (ok) [x]' });
    await expect.poll(fieldValue, { timeout: 30_000 }).toBe('a@b.com;x/y-z; #1 (ok) [x]');
    await page.server.focus('btn-center');
    await switchLayout(page.display, page.server, US_INTL);
    await focusField(200);
    await page.actOk({ type: 'type', text: ` it's "~^'` });
    await expect.poll(fieldValue, { timeout: 30_000 }).toBe(`a@b.com;x/y-z; #1 (ok) [x] it's "~^'`);
  });

  it('Caps Lock on: letters keep their case', async () => {
    await switchLayout(page.display, page.server, DE);
    await xdotool(page.display, ['key', 'Caps_Lock']);
    try {
      const letters = await typeIntoField('Hello Wörld, ÄÖÜ äöü 123!');
      expect(letters.detail).toMatch(/, 0 pasted\)$/);
      // AltGr on a letter key under Caps Lock depends on the key type, which the core keyboard
      // mapping does not tell: Mnemo pastes such a character rather than guess.
      await page.server.reset();
      const at = await typeIntoField('Q@q');
      expect(at.detail).toMatch(/, 1 pasted\)$/);
    } finally {
      await xdotool(page.display, ['key', 'Caps_Lock']);
    }
  });
});

describe('no silent success', () => {
  it('a keyboard layout that cannot be read is an error result, and nothing is typed', async () => {
    await focusField();
    const real = process.env.DISPLAY;
    // A display nobody serves: the layout lookup fails (nut-js keeps its own connection).
    process.env.DISPLAY = ':4095';
    try {
      const actions: ActionInput[] = [
        { type: 'type', text: 'a@b.com' },
        { type: 'hotkey', keys: ['ctrl', 'a'] },
      ];
      for (const action of actions) {
        const result = await page.act(action);
        expect(result).toMatchObject({ ok: false, error: { kind: 'input_failed', message: expect.stringContaining('keyboard layout') } });
      }
    } finally {
      process.env.DISPLAY = real;
    }
    await page.server.settle(200);
    expect(page.server.events().filter((e) => e.type === 'keydown' || e.type === 'input')).toEqual([]);
    // And with the display back, it types again.
    await page.actOk({ type: 'type', text: 'a@b' });
    await expect.poll(fieldValue, { timeout: 30_000 }).toBe('a@b');
  });
});
