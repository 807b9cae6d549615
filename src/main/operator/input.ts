/**
 * Mouse and keyboard through nut-js, with our own pacing and character-exact typing.
 * Points are integer logical screen coordinates (the operator maps model coordinates first).
 */
import type { MouseButton, Point, ScrollDirection } from '../../shared/actions';
import type { Key } from '@nut-tree-fork/shared';
import type { NutModule } from './nut';
import { throwIfAborted } from './aborted';
import { nutKeysFor } from './key-map';
import type { Keyboard, KeyboardOutcome, KeyboardSession } from './keyboard/keyboard';
import { platformKeyboard } from './keyboard/platform-keyboard';
import { planTyping, type TypingMode } from './typing';

export { AbortedError } from './aborted';

export interface InputOptions {
  /** Gap after each key event; X applications read XTest events in order, so this can be small. */
  keyDelayMs: number;
  /** Gap between the clicks of a double or triple click (well inside the 400 ms double-click time). */
  multiClickGapMs: number;
  /** Pause after moving the pointer, so the target sees the hover before the press. */
  settleAfterMoveMs: number;
  /** Keys that paste the clipboard in the focused application. */
  pasteKeys: string[];
  /** How long the application gets to fetch a pasted selection before the clipboard is restored. */
  pasteSettleMs: number;
  /** How long the clipboard gets to serve the text to paste before the paste is given up. */
  clipboardReadyTimeoutMs: number;
  typingMode: TypingMode;
  /** A drag moves in steps of at most this many px, so targets see intermediate motion. */
  dragStepPx: number;
  dragStepDelayMs: number;
}

export const DEFAULT_INPUT_OPTIONS: InputOptions = {
  keyDelayMs: 4,
  multiClickGapMs: 40,
  settleAfterMoveMs: 15,
  pasteKeys: ['cmd', 'v'],
  pasteSettleMs: 150,
  clipboardReadyTimeoutMs: 2000,
  typingMode: 'auto',
  dragStepPx: 12,
  dragStepDelayMs: 8,
};

export type TypeOutcome = { ok: true; keystrokes: number; pasted: number } | { ok: false; message: string };

export type KeyResolution = { ok: true; groups: Key[][] } | { ok: false; message: string };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class NutInput {
  private readonly options: InputOptions;
  /** Keys and buttons this instance pressed and has not released, released on abort. */
  private readonly heldKeys = new Set<Key>();
  private readonly keyboard: Keyboard;

  constructor(
    private readonly nut: NutModule,
    options: Partial<InputOptions> = {},
    private readonly platform: NodeJS.Platform = process.platform,
    keyboard?: Keyboard,
  ) {
    this.options = { ...DEFAULT_INPUT_OPTIONS, ...options };
    this.keyboard = keyboard ?? platformKeyboard(nut, this.options.keyDelayMs, platform);
  }

  /** nut-js keys for each canonical key name, or the first name that has none. */
  resolveKeys(names: readonly string[]): KeyResolution {
    const groups: Key[][] = [];
    for (const name of names) {
      const lookup = nutKeysFor(name, this.platform);
      if (!lookup.ok) return lookup;
      groups.push(lookup.keys);
    }
    return { ok: true, groups };
  }

  async position(): Promise<Point> {
    const { x, y } = await this.nut.mouse.getPosition();
    return { x, y };
  }

  /** Moves the pointer; `hover` waits briefly so a press that follows lands on a target that saw it arrive. */
  async moveTo(point: Point, hover = true): Promise<void> {
    await this.nut.mouse.setPosition(new this.nut.Point(point.x, point.y));
    if (hover) await sleep(this.options.settleAfterMoveMs);
  }

  async click(point: Point, button: MouseButton, count: number, modifiers: Key[][], signal?: AbortSignal): Promise<void> {
    await this.moveTo(point);
    await this.withKeysHeld(modifiers, async () => {
      for (let i = 0; i < count; i++) {
        throwIfAborted(signal);
        if (i > 0) await sleep(this.options.multiClickGapMs);
        await this.nut.mouse.pressButton(this.nutButton(button));
        await this.nut.mouse.releaseButton(this.nutButton(button));
      }
    });
  }

  async mouseDown(point: Point | undefined, button: MouseButton): Promise<void> {
    if (point) await this.moveTo(point);
    await this.nut.mouse.pressButton(this.nutButton(button));
  }

  async mouseUp(point: Point | undefined, button: MouseButton): Promise<void> {
    if (point) await this.moveTo(point);
    await this.nut.mouse.releaseButton(this.nutButton(button));
  }

  async drag(path: readonly Point[], button: MouseButton, signal?: AbortSignal): Promise<void> {
    const [start, ...rest] = path;
    if (!start) return;
    await this.moveTo(start);
    const nutButton = this.nutButton(button);
    await this.nut.mouse.pressButton(nutButton);
    try {
      let from = start;
      for (const to of rest) {
        const steps = Math.max(1, Math.ceil(Math.hypot(to.x - from.x, to.y - from.y) / this.options.dragStepPx));
        for (let step = 1; step <= steps; step++) {
          throwIfAborted(signal);
          const x = Math.round(from.x + ((to.x - from.x) * step) / steps);
          const y = Math.round(from.y + ((to.y - from.y) * step) / steps);
          await this.nut.mouse.setPosition(new this.nut.Point(x, y));
          await sleep(this.options.dragStepDelayMs);
        }
        from = to;
      }
      await sleep(this.options.settleAfterMoveMs);
    } finally {
      await this.nut.mouse.releaseButton(nutButton);
    }
  }

  async scroll(point: Point | undefined, direction: ScrollDirection, amount: number): Promise<void> {
    if (point) await this.moveTo(point);
    const { mouse } = this.nut;
    // libnut's X11 backend sends the horizontal wheel buttons the wrong way round (scrollRight
    // arrives as deltaX < 0 in Chromium); measured on Xvfb, corrected here.
    const horizontal = this.platform === 'linux' ? { left: 'right', right: 'left' } : { left: 'left', right: 'right' };
    // One wheel notch at a time: some applications coalesce or drop a burst of notches.
    for (let i = 0; i < amount; i++) {
      if (direction === 'up') await mouse.scrollUp(1);
      else if (direction === 'down') await mouse.scrollDown(1);
      else if (direction === 'left' ? horizontal.left === 'left' : horizontal.right === 'left') await mouse.scrollLeft(1);
      else await mouse.scrollRight(1);
      await sleep(this.options.keyDelayMs);
    }
  }

  /**
   * Presses the keys (canonical names) in order and releases them in reverse: a chord, on the
   * layout active now (Ctrl+Z is the key labelled Z on QWERTZ and AZERTY too).
   */
  async hotkey(names: readonly string[]): Promise<KeyboardOutcome> {
    const opened = await this.keyboard.open();
    if (!opened.ok) return opened;
    return opened.session.chord(names);
  }

  /** Presses and leaves held (until keyUp), as xdotool keydown does. */
  async keyDown(groups: Key[][]): Promise<void> {
    for (const key of groups.flat()) {
      await this.nut.keyboard.pressKey(key);
      this.heldKeys.add(key);
      await sleep(this.options.keyDelayMs);
    }
  }

  async keyUp(groups: Key[][]): Promise<void> {
    for (const key of groups.flat().reverse()) {
      await this.nut.keyboard.releaseKey(key);
      this.heldKeys.delete(key);
      await sleep(this.options.keyDelayMs);
    }
  }

  /**
   * Types `text` exactly on the layout active now: keystrokes for what its keys produce, the
   * clipboard for the rest. A layout that cannot be read or a clipboard that never serves the
   * text is a failure, never a guess.
   */
  async type(text: string, signal?: AbortSignal): Promise<TypeOutcome> {
    const opened = await this.keyboard.open();
    if (!opened.ok) return opened;
    const { session } = opened;
    const plan = planTyping(text, (char) => session.canType(char), this.options.typingMode);
    let keystrokes = 0;
    let pasted = 0;
    let savedClipboard: string | undefined;
    try {
      for (const segment of plan) {
        throwIfAborted(signal);
        if (segment.kind === 'keys') {
          const typed = await session.type(segment.text, signal);
          if (!typed.ok) return typed;
          keystrokes += typed.keystrokes;
        } else {
          savedClipboard ??= await this.readClipboard();
          const done = await this.paste(segment.text, session);
          if (!done.ok) return done;
          pasted += [...segment.text].length;
        }
      }
    } finally {
      // Give the user back what they had on the clipboard.
      if (savedClipboard !== undefined) await this.nut.clipboard.setContent(savedClipboard);
    }
    return { ok: true, keystrokes, pasted };
  }

  /** Releases whatever this instance still holds (after an abort mid-action). */
  async releaseAll(): Promise<void> {
    for (const key of [...this.heldKeys].reverse()) {
      await this.nut.keyboard.releaseKey(key);
      this.heldKeys.delete(key);
    }
  }

  private async readClipboard(): Promise<string> {
    try {
      return await this.nut.clipboard.getContent();
    } catch {
      // Nothing owned the clipboard: restore it as empty.
      return '';
    }
  }

  private async paste(text: string, session: KeyboardSession): Promise<KeyboardOutcome> {
    await this.nut.clipboard.setContent(text);
    // On X11 the clipboard changes owner through a helper process: paste only once it serves the
    // new text, or a busy machine pastes nothing (or the old text).
    const timeoutMs = this.options.clipboardReadyTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    while ((await this.readClipboard()) !== text) {
      if (Date.now() > deadline) return { ok: false, message: `the clipboard did not take the text to paste within ${timeoutMs} ms` };
      await sleep(20);
    }
    const pressed = await session.chord(this.options.pasteKeys);
    if (!pressed.ok) return { ok: false, message: `paste keys: ${pressed.message}` };
    // The application fetches the selection asynchronously; do not pull it away too soon.
    await sleep(this.options.pasteSettleMs);
    return { ok: true };
  }

  private async withKeysHeld(groups: Key[][], body: () => Promise<void>): Promise<void> {
    // ["shift", "!"] resolves to Shift twice; press each physical key once.
    const keys = [...new Set(groups.flat())];
    const pressed: Key[] = [];
    try {
      for (const key of keys) {
        await this.nut.keyboard.pressKey(key);
        pressed.push(key);
        await sleep(this.options.keyDelayMs);
      }
      await body();
    } finally {
      for (const key of pressed.reverse()) {
        await this.nut.keyboard.releaseKey(key);
        await sleep(this.options.keyDelayMs);
      }
    }
  }

  private nutButton(button: MouseButton) {
    const { Button } = this.nut;
    return button === 'right' ? Button.RIGHT : button === 'middle' ? Button.MIDDLE : Button.LEFT;
  }
}
