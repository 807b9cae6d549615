/**
 * How typing pastes the characters no key of the layout types: put the text where the paste keys
 * take it from, press them, and return only once the application has it (or as near as the
 * platform lets us tell). Each platform implements it (x11-paster.ts, NutClipboardPaster here);
 * failures are values. Saving and restoring the user's clipboard around a typing action stays
 * with the input layer (input.ts): it is the same on every platform.
 */
import type { NutModule } from '../nut';
import type { KeyboardOutcome } from '../keyboard/keyboard';

export interface Paster {
  /** Offers `text`, then calls `pressPasteKeys` (whose failure is returned as is). */
  paste(text: string, pressPasteKeys: () => Promise<KeyboardOutcome>, signal?: AbortSignal): Promise<KeyboardOutcome>;
}

export interface NutPasterOptions {
  /** How long the clipboard gets to serve the text to paste before the paste is given up. */
  clipboardReadyTimeoutMs: number;
  /** How long the application gets to fetch the text before the clipboard may change again. */
  pasteSettleMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The clipboard's text (clipboardy's, through nut.ts), '' when nothing owns it. */
export async function readNutClipboard(nut: NutModule): Promise<string> {
  try {
    return await nut.clipboard.getContent();
  } catch {
    // Nothing owned the clipboard.
    return '';
  }
}

/**
 * Pastes through clipboardy's clipboard (a helper process owns it on X11). Nothing tells when the
 * application fetched the text, so it waits a fixed pasteSettleMs: a timing bet, kept for macOS
 * and Windows, where the system clipboard holds the text itself and a later change cannot race
 * the paste the way an X11 selection owner can (and for texts too large for x11-paster.ts).
 */
export class NutClipboardPaster implements Paster {
  constructor(
    private readonly nut: NutModule,
    private readonly options: NutPasterOptions,
  ) {}

  async paste(text: string, pressPasteKeys: () => Promise<KeyboardOutcome>): Promise<KeyboardOutcome> {
    await this.nut.clipboard.setContent(text);
    // On X11 the clipboard changes owner through a helper process: paste only once it serves the
    // new text, or a busy machine pastes nothing (or the old text).
    const timeoutMs = this.options.clipboardReadyTimeoutMs;
    const deadline = Date.now() + timeoutMs;
    while ((await readNutClipboard(this.nut)) !== text) {
      if (Date.now() > deadline) return { ok: false, message: `the clipboard did not take the text to paste within ${timeoutMs} ms` };
      await sleep(20);
    }
    const pressed = await pressPasteKeys();
    if (!pressed.ok) return pressed;
    // The application fetches the clipboard asynchronously; do not pull it away too soon.
    await sleep(this.options.pasteSettleMs);
    return { ok: true };
  }
}
