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
import { parseAction, type ActionInput } from '../../src/shared/actions';
import type { ActionResult, ActionSuccess } from '../../src/shared/action-result';
import type { Frame } from '../../src/shared/frame';
import { createDesktopOperator, type DesktopOperator } from '../../src/main/operator/desktop-operator';
import { screenFrame } from '../../src/main/operator/geometry';
import { startEventServer, type EventServer } from '../fixtures/desktop/event-server';
import { launchKiosk, type Kiosk } from '../fixtures/desktop/chromium';
import { launchXterm, type Xterm } from '../fixtures/desktop/xterm';
import { failureScreenshot, requireDisplay, runX, xdotool } from '../fixtures/desktop/display';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { DE, FR, restoreUs, switchLayout, US, US_INTL, type TestLayout } from '../fixtures/desktop/keyboard-layout';

let display: string;
let server: EventServer;
let kiosk: Kiosk;
let xterm: Xterm;
let operator: DesktopOperator;
let screen: Frame;
const files: string[] = [];

async function act(input: ActionInput): Promise<ActionResult> {
  const parsed = parseAction(input);
  if (!parsed.ok) throw new Error(parsed.message);
  return operator.execute(parsed.action, screen);
}

async function actOk(input: ActionInput): Promise<ActionSuccess> {
  const result = await act(input);
  expect(result, JSON.stringify(input)).toMatchObject({ ok: true });
  return result as ActionSuccess;
}

const fieldValue = async () => (await server.state()).field.value;

/**
 * Clicks into the field, right of its text, and waits until it has the focus (keys sent sooner
 * may go elsewhere). `dx` moves the click: two clicks in one spot in quick succession would be a
 * double click, which selects a word.
 */
async function focusField(dx = 0): Promise<void> {
  const since = server.mark();
  const centre = centreOf(TARGET_LAYOUT.field);
  await actOk({ type: 'click', x: centre.x + dx, y: centre.y });
  await server.waitForType('focusin', (e) => e.target === 'field', { since });
}

async function typeIntoField(text: string): Promise<ActionSuccess> {
  await focusField();
  const result = await actOk({ type: 'type', text });
  await expect.poll(fieldValue, { timeout: 5000 }).toBe(text);
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
  display = requireDisplay();
  // nut-js and the keyboard read DISPLAY when they connect.
  process.env.DISPLAY = display;
  const loaded = await createDesktopOperator();
  if (!loaded.ok) throw new Error(loaded.message);
  operator = loaded.operator;
  const [primary] = await operator.displays();
  screen = screenFrame(primary!.bounds);
  server = await startEventServer();
  kiosk = await launchKiosk(server, { display });
  xterm = await launchXterm({ display });
});

afterAll(async () => {
  await restoreUs(display);
  await xterm?.close();
  await kiosk?.close();
  await server?.close();
  for (const file of files) rmSync(file, { force: true });
});

beforeEach(async ({ task, onTestFailed }) => {
  onTestFailed(async () => {
    await failureScreenshot(display, `layouts-${task.name}`);
  });
  await runX(display, 'xdotool', ['mousemove', '640', '600']);
  operator.resetFailSafe();
  await kiosk.focus();
  await server.reset();
  server.clear();
});

// Every test leaves the display on us, whatever happened in it.
afterEach(async () => {
  await restoreUs(display);
});

for (const layout of [US, DE, FR, US_INTL] satisfies TestLayout[]) {
  describe(`layout ${layout.name}`, () => {
    beforeEach(async () => {
      await switchLayout(display, server, layout);
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
      await server.reset();
      const mixed = await typeIntoField('漢字 ok');
      expect(mixed.detail).toMatch(/, 2 pasted\)$/);
    });

    it('hotkey ctrl+a selects all', async () => {
      await server.setValue('field', 'select me entirely');
      await server.focus('field');
      const since = server.mark();
      await actOk({ type: 'hotkey', keys: ['ctrl', 'a'] });
      await server.waitForType('selection', (e) => e.target === 'field' && e.selectionStart === 0 && e.selectionEnd === 18, { since });
      expect(await server.waitForType('keydown', (e) => e.ctrlKey && e.key !== 'Control', { since })).toMatchObject({ key: 'a' });
    });

    it('hotkey ctrl+z undoes, on the key labelled Z', async () => {
      await typeIntoField('undo me');
      const since = server.mark();
      await actOk({ type: 'hotkey', keys: ['ctrl', 'z'] });
      expect(await server.waitForType('keydown', (e) => e.ctrlKey && e.key !== 'Control', { since })).toMatchObject({ key: 'z' });
      await expect.poll(fieldValue, { timeout: 5000 }).not.toBe('undo me');
      expect('undo me'.startsWith(await fieldValue())).toBe(true);
    });

    it('types a shell command full of symbols into an xterm', async () => {
      const file = join(tmpdir(), `mnemo-layout-${randomUUID()}`);
      files.push(file);
      const payload = 'a@b.com x/y-z;#1 (ok) [x] {p|q} <r> ~s^t`u "v" \\w $x %y &z *!? +=_:,.';
      await xterm.focus();
      const before = xterm.prompts();
      const result = await actOk({ type: 'type', text: `printf '%s' '${payload}' > ${file}\n` });
      expect(result.detail).toMatch(/, 0 pasted\)$/);
      expect(await xterm.waitForPrompt(before)).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(payload);
    });
  });
}

describe('switching layouts', () => {
  it('a layout switched between two actions is picked up', async () => {
    await switchLayout(display, server, DE);
    await typeIntoField('a@b.com;');
    // The probe keys of the switch must not land in the field: a button has the focus meanwhile.
    await server.focus('btn-center');
    await switchLayout(display, server, FR);
    await focusField(100);
    await actOk({ type: 'type', text: 'x/y-z; #1 (ok) [x]' });
    await expect.poll(fieldValue, { timeout: 5000 }).toBe('a@b.com;x/y-z; #1 (ok) [x]');
    await server.focus('btn-center');
    await switchLayout(display, server, US_INTL);
    await focusField(200);
    await actOk({ type: 'type', text: ` it's "~^'` });
    await expect.poll(fieldValue, { timeout: 5000 }).toBe(`a@b.com;x/y-z; #1 (ok) [x] it's "~^'`);
  });

  it('Caps Lock on: letters keep their case', async () => {
    await switchLayout(display, server, DE);
    await xdotool(display, ['key', 'Caps_Lock']);
    try {
      const letters = await typeIntoField('Hello Wörld, ÄÖÜ äöü 123!');
      expect(letters.detail).toMatch(/, 0 pasted\)$/);
      // AltGr on a letter key under Caps Lock depends on the key type, which the core keyboard
      // mapping does not tell: Mnemo pastes such a character rather than guess.
      await server.reset();
      const at = await typeIntoField('Q@q');
      expect(at.detail).toMatch(/, 1 pasted\)$/);
    } finally {
      await xdotool(display, ['key', 'Caps_Lock']);
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
        const result = await act(action);
        expect(result).toMatchObject({ ok: false, error: { kind: 'input_failed', message: expect.stringContaining('keyboard layout') } });
      }
    } finally {
      process.env.DISPLAY = real;
    }
    await server.settle(200);
    expect(server.events().filter((e) => e.type === 'keydown' || e.type === 'input')).toEqual([]);
    // And with the display back, it types again.
    await actOk({ type: 'type', text: 'a@b' });
    await expect.poll(fieldValue, { timeout: 5000 }).toBe('a@b');
  });
});
