/**
 * Pastes on X11 with Mnemo as the owner of the CLIPBOARD selection (x11/clipboard-owner.ts): the
 * paste is done when the application has fetched the text, not after a guessed delay, so the next
 * segment or the user's restored clipboard can never replace it before the application reads it.
 * An application that never fetches it (the focus is not on a text field, or it pastes with other
 * keys) is a failure that says so, not text lost in silence.
 */
import { throwIfAborted } from '../aborted';
import type { KeyboardOutcome } from '../keyboard/keyboard';
import { ClipboardOwner } from '../x11/clipboard-owner';
import type { Paster } from './paster';

/** How long clipboard watchers get to see Mnemo take the clipboard before the paste keys. */
const OWNER_CHANGE_GRACE_MS = 100;

export interface X11PasterOptions {
  /** How long the application gets to fetch the text after the paste keys. */
  fetchTimeoutMs: number;
  /** How long the application must have asked nothing, after fetching the text, for its paste to count as done. */
  quietMs: number;
  env?: NodeJS.ProcessEnv;
}

export class X11Paster implements Paster {
  private owner: { display: string; owner: ClipboardOwner } | undefined;

  /** `large` pastes the texts one selection answer cannot carry (INCR, which the owner lacks). */
  constructor(
    private readonly options: X11PasterOptions,
    private readonly large: Paster,
  ) {}

  async paste(text: string, pressPasteKeys: () => Promise<KeyboardOutcome>, signal?: AbortSignal): Promise<KeyboardOutcome> {
    const opened = await this.open();
    if (!opened.ok) return opened;
    const { owner } = opened;
    // Beyond one property the fixed-delay path is the lesser evil: xsel speaks INCR, and a paste of
    // more than 256 KB by an agent is rare enough not to warrant an INCR implementation here.
    if (Buffer.byteLength(text, 'utf8') > owner.maxTextBytes) return this.large.paste(text, pressPasteKeys, signal);
    const taken = await owner.take(text);
    if (!taken.ok) return taken;
    // Chromium caches the clipboard and learns of a new owner from an XFixes event it handles in a
    // task of its own: a paste pressed before that task ran pasted the cached, old text without
    // asking (seen on a busy CI). Give clipboard watchers a moment to see the change first.
    await new Promise((resolve) => setTimeout(resolve, OWNER_CHANGE_GRACE_MS));
    throwIfAborted(signal);
    // Listen before pressing: the application may ask before the key round trip returns.
    const unpressed = new AbortController();
    const fetched = owner.nextPaste(this.options.fetchTimeoutMs, this.options.quietMs, signal ? AbortSignal.any([signal, unpressed.signal]) : unpressed.signal);
    const pressed = await pressPasteKeys();
    if (!pressed.ok) {
      // Nothing will come: end the wait now.
      unpressed.abort();
      await fetched.catch(() => undefined);
      return pressed;
    }
    const result = await fetched;
    if (result === 'fetched') return { ok: true };
    if (result === 'lost') {
      const why = owner.closed ? 'the X connection that held the clipboard closed' : 'another application took the clipboard';
      return { ok: false, message: `${why} before the focused application fetched the text to paste` };
    }
    return { ok: false, message: `the focused application did not fetch the pasted text within ${this.options.fetchTimeoutMs} ms (it may not accept a paste there)` };
  }

  close(): void {
    this.owner?.owner.close();
    this.owner = undefined;
  }

  private async open(): Promise<{ ok: true; owner: ClipboardOwner } | { ok: false; message: string }> {
    const env = this.options.env ?? process.env;
    const display = env.DISPLAY?.trim();
    if (!display) return { ok: false, message: 'cannot paste: DISPLAY is not set' };
    if (this.owner && !this.owner.owner.closed && this.owner.display === display) return { ok: true, owner: this.owner.owner };
    this.close();
    const opened = await ClipboardOwner.open(display, env);
    if (!opened.ok) return { ok: false, message: `cannot paste: ${opened.message}` };
    this.owner = { display, owner: opened.value };
    return { ok: true, owner: opened.value };
  }
}
