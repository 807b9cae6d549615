/**
 * The keyboard on Windows and macOS: libnut keys at their US positions (key-map.ts), Shift
 * pressed explicitly, the clipboard for everything else.
 *
 * Not layout-aware, and not run here (no Windows or macOS machine in this project's CI): reading
 * the layout there needs native calls that libnut does not expose (Windows: GetKeyboardLayout and
 * VkKeyScanExW; macOS: TISCopyCurrentKeyboardLayoutInputSource and UCKeyTranslate). On a non-US
 * layout this types symbols wrong, as Linux did before x11-keyboard.ts. Letters in hotkeys are
 * less exposed: libnut looks letter keys up through the system's layout on both platforms.
 */
import { Key } from '../native-keys';
import { throwIfAborted } from '../aborted';
import { keystrokeForChar, nutKeysFor } from '../key-map';
import type { NutModule } from '../nut';
import type { Keyboard, KeyboardOutcome, KeyboardSession } from './keyboard';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class UsKeyboard implements Keyboard, KeyboardSession {
  constructor(
    private readonly nut: NutModule,
    private readonly keyDelayMs: number,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  async open(): Promise<KeyboardOutcome<{ session: KeyboardSession }>> {
    return { ok: true, session: this };
  }

  canType(char: string): boolean {
    return keystrokeForChar(char) !== undefined;
  }

  async type(text: string, signal?: AbortSignal): Promise<KeyboardOutcome<{ keystrokes: number }>> {
    const { keyboard } = this.nut;
    let keystrokes = 0;
    for (const char of text) {
      throwIfAborted(signal);
      const stroke = keystrokeForChar(char);
      if (!stroke) return { ok: false, message: `no US key types ${JSON.stringify(char)}` };
      if (stroke.shift) await keyboard.pressKey(Key.LeftShift);
      try {
        await keyboard.pressKey(stroke.key);
        await keyboard.releaseKey(stroke.key);
      } finally {
        if (stroke.shift) await keyboard.releaseKey(Key.LeftShift);
      }
      keystrokes++;
      await sleep(this.keyDelayMs);
    }
    return { ok: true, keystrokes };
  }

  async chord(names: readonly string[]): Promise<KeyboardOutcome> {
    const keys: Key[] = [];
    for (const name of names) {
      const lookup = nutKeysFor(name, this.platform);
      if (!lookup.ok) return lookup;
      keys.push(...lookup.keys);
    }
    const pressed: Key[] = [];
    try {
      // ["shift", "!"] resolves to Shift twice; press each key once.
      for (const key of new Set(keys)) {
        await this.nut.keyboard.pressKey(key);
        pressed.push(key);
        await sleep(this.keyDelayMs);
      }
    } finally {
      for (const key of pressed.reverse()) {
        await this.nut.keyboard.releaseKey(key);
        await sleep(this.keyDelayMs);
      }
    }
    return { ok: true };
  }
}
