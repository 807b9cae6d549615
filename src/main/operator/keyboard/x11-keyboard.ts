/**
 * The keyboard on X11: reads the active layout from the server when a session opens (the core
 * keyboard mapping, the modifier mapping and the XKB group and locks, a few ms), and presses the
 * exact key and level modifiers through XTEST on its own connection.
 *
 * libnut is not used for keys here: it presses a keysym's first keycode without the level's
 * modifier, so "@" became Shift+2 (`"` on de) and AltGr could not be pressed at all on de or fr.
 * XTEST events from both connections land in one server queue; every session call ends with a
 * round trip, so the mouse events libnut sends afterwards come after these keys.
 */
import { AbortedError, throwIfAborted } from '../aborted';
import { describeX11Error, X11Connection } from '../x11/connection';
import { fakeKey, getKeyboardMapping, getModifierMapping, getXkbState, queryExtension, useXkb, type XkbState } from '../x11/requests';
import type { Keyboard, KeyboardOutcome, KeyboardSession } from './keyboard';
import { KeyboardLayout, type KeyStroke, type LayoutSource } from './layout';

export interface X11KeyboardOptions {
  /** Gap after each key event, as the rest of the input layer paces its events. */
  keyDelayMs: number;
  env?: NodeJS.ProcessEnv;
}

interface Link {
  display: string;
  connection: X11Connection;
  xtest: number;
  xkb: number | undefined;
}

/** Group 1, no locks: what a server without XKB types with. */
const PLAIN_STATE: XkbState = { group: 0, mods: 0 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** XKB's major opcode, announced on this connection; undefined on a server without it. */
export async function xkbOpcode(connection: X11Connection): Promise<number | undefined> {
  const xkb = await queryExtension(connection, 'XKEYBOARD');
  return xkb !== undefined && (await useXkb(connection, xkb)) ? xkb : undefined;
}

/** The active layout as the server describes it: the core mappings and the XKB group and locks. */
export async function readLayoutSource(connection: X11Connection, xkb: number | undefined): Promise<LayoutSource> {
  const [mapping, modifiers, state] = await Promise.all([
    getKeyboardMapping(connection),
    getModifierMapping(connection),
    xkb === undefined ? PLAIN_STATE : getXkbState(connection, xkb),
  ]);
  return { mapping, modifiers, state };
}

export class X11Keyboard implements Keyboard {
  private link: Link | undefined;

  constructor(private readonly options: X11KeyboardOptions) {}

  async open(): Promise<KeyboardOutcome<{ session: KeyboardSession }>> {
    const linked = await this.connect();
    if (!linked.ok) return linked;
    const { connection, xkb } = linked.link;
    try {
      const layout = KeyboardLayout.fromCore(await readLayoutSource(connection, xkb));
      return { ok: true, session: new X11Session(linked.link, layout, this.options.keyDelayMs) };
    } catch (error) {
      this.drop();
      return { ok: false, message: `could not read the keyboard layout: ${messageOf(error)}` };
    }
  }

  /** Closes the connection (a later open() makes a new one). */
  close(): void {
    this.drop();
  }

  private async connect(): Promise<{ ok: true; link: Link } | { ok: false; message: string }> {
    const display = (this.options.env ?? process.env).DISPLAY?.trim();
    if (!display) return { ok: false, message: 'could not read the keyboard layout: DISPLAY is not set' };
    if (this.link && !this.link.connection.closed && this.link.display === display) return { ok: true, link: this.link };
    this.drop();
    const opened = await X11Connection.open(display, this.options.env ?? process.env);
    if (!opened.ok) return { ok: false, message: `could not read the keyboard layout: ${opened.message}` };
    const connection = opened.value;
    try {
      const xtest = await queryExtension(connection, 'XTEST');
      if (xtest === undefined) {
        connection.close();
        return { ok: false, message: `the X server on ${display} has no XTEST extension: keys cannot be pressed` };
      }
      this.link = { display, connection, xtest, xkb: await xkbOpcode(connection) };
      return { ok: true, link: this.link };
    } catch (error) {
      connection.close();
      return { ok: false, message: `could not read the keyboard layout: ${messageOf(error)}` };
    }
  }

  private drop(): void {
    this.link?.connection.close();
    this.link = undefined;
  }
}

class X11Session implements KeyboardSession {
  /** Keycodes this session pressed and has not released. */
  private readonly down: number[] = [];

  constructor(
    private readonly link: Link,
    private readonly layout: KeyboardLayout,
    private readonly keyDelayMs: number,
  ) {}

  canType(char: string): boolean {
    return this.layout.strokesFor(char) !== undefined;
  }

  async type(text: string, signal?: AbortSignal): Promise<KeyboardOutcome<{ keystrokes: number }>> {
    const strokes: KeyStroke[] = [];
    for (const char of text) {
      const forChar = this.layout.strokesFor(char);
      if (!forChar) return { ok: false, message: `no key of the active keyboard layout types ${JSON.stringify(char)}` };
      strokes.push(...forChar);
    }
    const pressed = await this.run(async () => {
      for (const stroke of strokes) {
        throwIfAborted(signal);
        for (const keycode of [...stroke.modifiers, stroke.keycode]) this.press(keycode);
        await this.releaseAll();
        await sleep(this.keyDelayMs);
      }
    });
    return pressed.ok ? { ok: true, keystrokes: strokes.length } : pressed;
  }

  async chord(names: readonly string[]): Promise<KeyboardOutcome> {
    const strokes: KeyStroke[] = [];
    for (const name of names) {
      const found = this.layout.hotkeyKey(name);
      if (!found.ok) return found;
      strokes.push(found.stroke);
    }
    return this.run(async () => {
      for (const stroke of strokes) {
        // ["shift", "!"] asks for Shift twice: each key goes down once.
        for (const keycode of [...stroke.modifiers, stroke.keycode]) {
          if (this.down.includes(keycode)) continue;
          this.press(keycode);
          await sleep(this.keyDelayMs);
        }
      }
      await this.releaseAll(this.keyDelayMs);
    });
  }

  /** Runs a burst of key events, releases whatever it left down, and waits for the server. */
  private async run(body: () => Promise<void>): Promise<KeyboardOutcome> {
    try {
      await body();
    } catch (error) {
      if (error instanceof AbortedError) throw error;
      return { ok: false, message: `a key event could not be sent: ${messageOf(error)}` };
    } finally {
      await this.releaseAll();
    }
    let errors;
    try {
      errors = await this.link.connection.sync();
    } catch (error) {
      return { ok: false, message: `the keys may not have been pressed: ${messageOf(error)}` };
    }
    const [first] = errors;
    return first ? { ok: false, message: `the X server refused a key event: ${describeX11Error(first)}` } : { ok: true };
  }

  private press(keycode: number): void {
    fakeKey(this.link.connection, this.link.xtest, keycode, true);
    this.down.push(keycode);
  }

  private async releaseAll(gapMs = 0): Promise<void> {
    while (this.down.length > 0) {
      const keycode = this.down.pop() as number;
      if (!this.link.connection.closed) fakeKey(this.link.connection, this.link.xtest, keycode, false);
      if (gapMs > 0) await sleep(gapMs);
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
