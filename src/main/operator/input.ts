/**
 * Mouse and keyboard through libnut (nut.ts), with our own pacing and character-exact typing.
 * Points are integer logical screen coordinates (the operator maps model coordinates first).
 */
import { screenPoint, type MouseButton, type ScreenPoint, type ScrollDirection } from '../../shared/actions';
import type { Key } from './native-keys';
import type { NutModule } from './nut';
import { throwIfAborted } from './aborted';
import { nutKeysFor } from './key-map';
import type { Keyboard, KeyboardOutcome } from './keyboard/keyboard';
import { platformKeyboard } from './keyboard/platform-keyboard';
import { readNutClipboard, type Paster } from './clipboard/paster';
import { platformPaster } from './clipboard/platform-paster';
import { planTyping, type TypingMode } from './typing';

export { AbortedError } from './aborted';

export interface InputOptions {
  /** Gap after each key event; X applications read XTest events in order, so this can be small. */
  keyDelayMs: number;
  /** Gap between the clicks of a double or triple click (well inside the 400 ms double-click time). */
  multiClickGapMs: number;
  /** Pause after moving the pointer, so the target sees the hover before the press. */
  settleAfterMoveMs: number;
  /**
   * Keys pressed this soon after a mouse button wait for the rest of it. A click moves the focus
   * in the application's own time (Chromium's page tells its browser process that a text field has
   * the focus only after handling the press): a key arriving before that inserts nothing.
   */
  keysAfterPressMs: number;
  /** Keys that paste the clipboard in the focused application. */
  pasteKeys: string[];
  /**
   * How long a paste gets before the clipboard may change again. On X11 it counts from the
   * application's last clipboard request, once it has fetched the text (applications may read it
   * more than once per paste); elsewhere, where nothing tells when the text was fetched, from the
   * paste keys.
   */
  pasteSettleMs: number;
  /** X11: how long the application gets to fetch a paste before it counts as not pasted. */
  pasteFetchTimeoutMs: number;
  /** How long the clipboard (clipboardy's) gets to serve the text to paste before the paste is given up. */
  clipboardReadyTimeoutMs: number;
  typingMode: TypingMode;
  /** A drag moves in steps of at most this many px, so targets see intermediate motion. */
  dragStepPx: number;
  dragStepDelayMs: number;
}

/** How long after typing a clipboard that was empty is emptied again (see pendingEmpty). */
const EMPTY_CLIPBOARD_AFTER_MS = 5000;

export const DEFAULT_INPUT_OPTIONS: InputOptions = {
  keyDelayMs: 4,
  multiClickGapMs: 40,
  settleAfterMoveMs: 15,
  keysAfterPressMs: 250,
  pasteKeys: ['cmd', 'v'],
  pasteSettleMs: 150,
  pasteFetchTimeoutMs: 5000,
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
  private readonly paster: Paster;
  /** When a mouse button last went down or up (performance.now()). */
  private lastPressAt = Number.NEGATIVE_INFINITY;
  /**
   * The clipboard was empty before a paste: it is emptied again only a while after the typing,
   * since emptying it at once takes the text from an application still reading it (a browser
   * just started reads a paste twice, the second time later). Until then, the clipboard the user
   * had is known: empty, unless they have copied something since.
   */
  private pendingEmpty: NodeJS.Timeout | undefined;
  /** The text pasted last (what the clipboard holds until it is emptied). */
  private lastPasted: string | undefined;

  constructor(
    private readonly nut: NutModule,
    options: Partial<InputOptions> = {},
    private readonly platform: NodeJS.Platform = process.platform,
    keyboard?: Keyboard,
    paster?: Paster,
  ) {
    this.options = { ...DEFAULT_INPUT_OPTIONS, ...options };
    this.keyboard = keyboard ?? platformKeyboard(nut, this.options.keyDelayMs, platform);
    this.paster = paster ?? platformPaster(nut, this.options, platform);
  }

  /** libnut keys for each canonical key name, or the first name that has none. */
  resolveKeys(names: readonly string[]): KeyResolution {
    const groups: Key[][] = [];
    for (const name of names) {
      const lookup = nutKeysFor(name, this.platform);
      if (!lookup.ok) return lookup;
      groups.push(lookup.keys);
    }
    return { ok: true, groups };
  }

  async position(): Promise<ScreenPoint> {
    const { x, y } = await this.nut.mouse.getPosition();
    return screenPoint({ x, y });
  }

  /** Moves the pointer; `hover` waits briefly so a press that follows lands on a target that saw it arrive. */
  async moveTo(point: ScreenPoint, hover = true): Promise<void> {
    await this.nut.mouse.setPosition({ x: point.x, y: point.y });
    if (hover) await sleep(this.options.settleAfterMoveMs);
  }

  async click(point: ScreenPoint, button: MouseButton, count: number, modifiers: Key[][], signal?: AbortSignal): Promise<void> {
    await this.moveTo(point);
    await this.withKeysHeld(modifiers, async () => {
      for (let i = 0; i < count; i++) {
        throwIfAborted(signal);
        if (i > 0) await sleep(this.options.multiClickGapMs);
        await this.nut.mouse.pressButton(button);
        await this.nut.mouse.releaseButton(button);
        this.pressed();
      }
    });
  }

  async mouseDown(point: ScreenPoint | undefined, button: MouseButton): Promise<void> {
    if (point) await this.moveTo(point);
    await this.nut.mouse.pressButton(button);
    this.pressed();
  }

  async mouseUp(point: ScreenPoint | undefined, button: MouseButton): Promise<void> {
    if (point) await this.moveTo(point);
    await this.nut.mouse.releaseButton(button);
    this.pressed();
  }

  async drag(path: readonly ScreenPoint[], button: MouseButton, signal?: AbortSignal, modifiers: Key[][] = []): Promise<void> {
    const [start, ...rest] = path;
    if (!start) return;
    await this.moveTo(start);
    await this.withKeysHeld(modifiers, () => this.dragFrom(start, rest, button, signal));
  }

  private async dragFrom(start: ScreenPoint, rest: readonly ScreenPoint[], button: MouseButton, signal?: AbortSignal): Promise<void> {
    await this.nut.mouse.pressButton(button);
    try {
      let from = start;
      for (const to of rest) {
        const steps = Math.max(1, Math.ceil(Math.hypot(to.x - from.x, to.y - from.y) / this.options.dragStepPx));
        for (let step = 1; step <= steps; step++) {
          throwIfAborted(signal);
          const x = Math.round(from.x + ((to.x - from.x) * step) / steps);
          const y = Math.round(from.y + ((to.y - from.y) * step) / steps);
          await this.nut.mouse.setPosition({ x, y });
          await sleep(this.options.dragStepDelayMs);
        }
        from = to;
      }
      await sleep(this.options.settleAfterMoveMs);
    } finally {
      await this.nut.mouse.releaseButton(button);
      this.pressed();
    }
  }

  async scroll(point: ScreenPoint | undefined, direction: ScrollDirection, amount: number, modifiers: Key[][] = []): Promise<void> {
    if (point) await this.moveTo(point);
    await this.withKeysHeld(modifiers, () => this.wheel(direction, amount));
  }

  private async wheel(direction: ScrollDirection, amount: number): Promise<void> {
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
    await this.settleAfterPress();
    const opened = await this.keyboard.open();
    if (!opened.ok) return opened;
    return opened.session.chord(names);
  }

  /** Presses and leaves held (until keyUp), as xdotool keydown does. */
  async keyDown(groups: Key[][]): Promise<void> {
    await this.settleAfterPress();
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
   * clipboard for the rest. A layout that cannot be read, a clipboard that never serves the
   * text or an application that never fetches it is a failure, never a guess; the message says
   * which characters were not typed.
   */
  async type(text: string, signal?: AbortSignal): Promise<TypeOutcome> {
    await this.settleAfterPress();
    const opened = await this.keyboard.open();
    if (!opened.ok) return opened;
    const { session } = opened;
    const plan = planTyping(text, (char) => session.canType(char), this.options.typingMode);
    let keystrokes = 0;
    let pasted = 0;
    /** Characters typed or pasted so far, for a failure to say where it stopped. */
    let done = 0;
    let savedClipboard: string | undefined;
    if (this.pendingEmpty !== undefined) {
      clearTimeout(this.pendingEmpty);
      this.pendingEmpty = undefined;
      // Still the text pasted last: the user's clipboard is the empty one it replaced.
      const now = await readNutClipboard(this.nut);
      savedClipboard = now === this.lastPasted ? '' : now;
    }
    try {
      const total = [...text].length;
      for (const segment of plan) {
        throwIfAborted(signal);
        const count = [...segment.text].length;
        if (segment.kind === 'keys') {
          const typed = await session.type(segment.text, signal);
          if (!typed.ok) return typed;
          keystrokes += typed.keystrokes;
          done += count;
        } else {
          savedClipboard ??= await readNutClipboard(this.nut);
          const pasting = await this.paster.paste(
            segment.text,
            async () => {
              const pressed = await session.chord(this.options.pasteKeys);
              return pressed.ok ? pressed : { ok: false, message: `paste keys: ${pressed.message}` };
            },
            signal,
          );
          if (!pasting.ok) {
            // Positions, not the text: a secret's characters must not reach the record or the model.
            return { ok: false, message: `characters ${done + 1}-${done + count} of ${total} were not pasted: ${pasting.message} (the ${done} before them were typed)` };
          }
          this.lastPasted = segment.text;
          pasted += count;
          done += count;
        }
      }
    } finally {
      // Give the user back what they had on the clipboard (nothing: a while later).
      if (savedClipboard) await this.nut.clipboard.setContent(savedClipboard);
      else if (savedClipboard === '') this.emptyClipboardLater();
    }
    return { ok: true, keystrokes, pasted };
  }

  private emptyClipboardLater(): void {
    this.pendingEmpty = setTimeout(() => {
      this.pendingEmpty = undefined;
      void this.nut.clipboard.setContent('').catch(() => undefined);
    }, EMPTY_CLIPBOARD_AFTER_MS);
    // A process that ends first takes its clipboard with it (X11: the owner's connection closes).
    this.pendingEmpty.unref();
  }

  private pressed(): void {
    this.lastPressAt = performance.now();
  }

  /** Waits out what is left of keysAfterPressMs since the last mouse button. */
  private async settleAfterPress(): Promise<void> {
    const left = this.lastPressAt + this.options.keysAfterPressMs - performance.now();
    if (left > 0) await sleep(left);
  }

  /** Releases whatever this instance still holds (after an abort mid-action). */
  async releaseAll(): Promise<void> {
    for (const key of [...this.heldKeys].reverse()) {
      await this.nut.keyboard.releaseKey(key);
      this.heldKeys.delete(key);
    }
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
}
