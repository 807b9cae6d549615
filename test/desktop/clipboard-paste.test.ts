/**
 * Pasting on X11 with Mnemo as the owner of the clipboard, on the real test display: a requestor
 * that fetches the text long after the paste keys (far beyond the fixed settle delay the paste
 * used to bet on) still gets it, the user's clipboard comes back only after that, an application
 * that never fetches the text makes the type action fail saying so, and the owner answers the
 * requests of ICCCM (TARGETS, refusals, a request without a property) as a real client sees them.
 *
 * The paste keys here are Shift alone, which pastes nothing anywhere: the requestors are xsel and
 * the test's own X client, so what they fetch, and when, is the test's decision.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAction } from '../../src/shared/actions';
import type { ActionResult } from '../../src/shared/action-result';
import { createDesktopOperator, type DesktopOperator } from '../../src/main/operator/desktop-operator';
import { screenFrame } from '../../src/main/operator/geometry';
import { ClipboardOwner, MAX_QUIET_MS } from '../../src/main/operator/x11/clipboard-owner';
import { adoptDisplay, runX } from '../fixtures/desktop/display';
import { openSelectionRequestor, type SelectionRequestor } from '../fixtures/x11/selection-requestor';

const SETTLE_MS = 150;
/** Short, for the application that never fetches: the action waits this long before it fails. */
const FETCH_TIMEOUT_MS = 1500;
/**
 * For the late requestor: far beyond its lateness, so a loaded machine slow to start xsel is not
 * taken for an application that never fetches (the action ends as soon as the text is fetched).
 */
const PATIENT_FETCH_TIMEOUT_MS = 20_000;

let display: string;
let operator: DesktopOperator;
let patientOperator: DesktopOperator;

const operatorFetchingWithin = async (fetchTimeoutMs: number): Promise<DesktopOperator> => {
  const loaded = await createDesktopOperator({ input: { pasteKeys: ['shift'], pasteSettleMs: SETTLE_MS, pasteFetchTimeoutMs: fetchTimeoutMs } });
  if (!loaded.ok) throw new Error(loaded.message);
  return loaded.operator;
};

beforeAll(async () => {
  display = adoptDisplay();
  operator = await operatorFetchingWithin(FETCH_TIMEOUT_MS);
  patientOperator = await operatorFetchingWithin(PATIENT_FETCH_TIMEOUT_MS);
});

const typeText = async (text: string, by: DesktopOperator = operator): Promise<ActionResult> => {
  const parsed = parseAction({ type: 'type', text });
  if (!parsed.ok) throw new Error(parsed.message);
  return by.execute(parsed.action, screenFrame({ x: 0, y: 0, width: 1280, height: 800 }));
};

const setUserClipboard = (text: string) => runX(display, 'sh', ['-c', `printf '%s' '${text}' | xsel --clipboard --input`]);
const readClipboard = () => runX(display, 'xsel', ['--clipboard', '--output']);

describe('type on X11, pasting what no key types', () => {
  it('a requestor that fetches late still gets the text, and the user’s clipboard comes back after it', async () => {
    await setUserClipboard('the user’s clipboard');
    const typing = typeText('漢字かな', patientOperator);
    // Lateness on purpose, not a wait for something: the old paste restored the clipboard
    // SETTLE_MS after the paste keys, so a requestor this late got the user's text instead.
    await new Promise((resolve) => setTimeout(resolve, 3 * SETTLE_MS));
    // Until Mnemo owns the clipboard, xsel reads the user's text; once it does, the pasted one.
    await expect.poll(readClipboard, { timeout: PATIENT_FETCH_TIMEOUT_MS, interval: 50 }).toBe('漢字かな');
    // That read may have come in the moment between Mnemo taking the clipboard and pressing the
    // paste keys: a clipboard watcher's read, not the paste's, which the paste rightly does not
    // count. So the requestor, still late, reads again whenever the paste has not ended within the
    // longest quiet window a read may open.
    let ended = false;
    const result = typing.finally(() => (ended = true));
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([result, new Promise((resolve) => (timer = setTimeout(resolve, MAX_QUIET_MS + 1000)))]);
      clearTimeout(timer);
      if (ended) break;
      expect(await readClipboard()).toBe('漢字かな');
    }
    expect(await result).toMatchObject({ ok: true, detail: 'typed 4 characters (0 keystrokes, 4 pasted)' });
    expect(await readClipboard()).toBe('the user’s clipboard');
  });

  it('an application that never fetches the text fails the action, saying which characters, and the clipboard is given back', async () => {
    await setUserClipboard('kept');
    const result = await typeText('漢字');
    expect(result).toMatchObject({
      ok: false,
      error: {
        kind: 'input_failed',
        message: `type failed: characters 1-2 of 2 were not pasted: the focused application did not fetch the pasted text within ${FETCH_TIMEOUT_MS} ms (it may not accept a paste there) (the 0 before them were typed)`,
      },
    });
    expect(await readClipboard()).toBe('kept');
  });
});

describe('the clipboard owner, as a requestor sees it', () => {
  let owner: ClipboardOwner;
  let requestor: SelectionRequestor;

  beforeAll(async () => {
    const opened = await ClipboardOwner.open(display);
    if (!opened.ok) throw new Error(opened.message);
    owner = opened.value;
    requestor = await openSelectionRequestor(display);
  });

  afterAll(() => {
    owner?.close();
    requestor?.close();
  });

  it('lists its targets, and serves UTF-8 text, Latin-1 only when the text fits in it', async () => {
    expect(await owner.take('naïve')).toEqual({ ok: true });
    const targets = await requestor.convert('CLIPBOARD', 'TARGETS');
    if (targets.refused) throw new Error('TARGETS was refused');
    expect(targets.type).toBe(await requestor.atom('ATOM'));
    expect(await requestor.atomNames(targets.data)).toEqual(['TARGETS', 'TIMESTAMP', 'UTF8_STRING', 'text/plain;charset=utf-8', 'TEXT', 'STRING', 'text/plain']);
    expect(await requestor.convert('CLIPBOARD', 'UTF8_STRING')).toMatchObject({ refused: false, type: await requestor.atom('UTF8_STRING'), format: 8, data: Buffer.from('naïve', 'utf8') });
    expect(await requestor.convert('CLIPBOARD', 'STRING')).toMatchObject({ refused: false, type: 31, format: 8, data: Buffer.from('naïve', 'latin1') });
    // TEXT leaves the encoding to the owner, who says which it chose.
    expect(await requestor.convert('CLIPBOARD', 'TEXT')).toMatchObject({ refused: false, type: await requestor.atom('UTF8_STRING'), data: Buffer.from('naïve', 'utf8') });

    expect(await owner.take('漢字')).toEqual({ ok: true });
    const cjkTargets = await requestor.convert('CLIPBOARD', 'TARGETS');
    if (cjkTargets.refused) throw new Error('TARGETS was refused');
    expect(await requestor.atomNames(cjkTargets.data)).not.toContain('STRING');
    expect(await requestor.convert('CLIPBOARD', 'STRING')).toEqual({ refused: true });
    expect(await requestor.convert('CLIPBOARD', 'UTF8_STRING')).toMatchObject({ refused: false, data: Buffer.from('漢字', 'utf8') });
  });

  it('refuses targets it does not convert to, and answers a request without a property in its target', async () => {
    expect(await owner.take('plain')).toEqual({ ok: true });
    expect(await requestor.convert('CLIPBOARD', 'image/png')).toEqual({ refused: true });
    expect(await requestor.convert('CLIPBOARD', 'UTF8_STRING', 0)).toMatchObject({
      refused: false,
      property: await requestor.atom('UTF8_STRING'),
      data: Buffer.from('plain', 'utf8'),
    });
  });

  it('a paste is done once the text was fetched and the requests went quiet; TARGETS alone is not a fetch', async () => {
    expect(await owner.take('fetch me')).toEqual({ ok: true });
    let settled: string | undefined;
    const paste = owner.nextPaste(10_000, SETTLE_MS).then((result) => (settled = result));
    await requestor.convert('CLIPBOARD', 'TARGETS');
    // The TARGETS answer has been read back: had it counted, the quiet window would be running.
    await new Promise((resolve) => setTimeout(resolve, 3 * SETTLE_MS));
    expect(settled).toBeUndefined();
    await requestor.convert('CLIPBOARD', 'UTF8_STRING');
    expect(await paste).toBe('fetched');
  });

  it('a paste whose clipboard another client takes first is "lost"', async () => {
    expect(await owner.take('mine')).toEqual({ ok: true });
    const paste = owner.nextPaste(10_000, SETTLE_MS);
    await setUserClipboard('theirs');
    expect(await paste).toBe('lost');
  });
});
