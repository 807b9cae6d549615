/**
 * Mnemo's own owner of the CLIPBOARD selection on X11, on its own connection and hidden window.
 *
 * Pasting through a helper process (xsel) that owns the clipboard leaves no way to know when the
 * application fetched the text, so the old path slept a fixed time and then restored the user's
 * clipboard: on a busy machine the application fetched after that and pasted the restored text.
 * Owning the selection ourselves, we answer every request and so know when the text itself (not
 * just the list of its targets) has been handed over; only then may the clipboard change again.
 *
 * Texts larger than one property (about 256 KB) would need the INCR protocol, which this owner
 * does not speak: maxTextBytes tells the caller, who pastes those another way.
 */
import { AbortedError } from '../aborted';
import { describeX11Error, X11Connection, type Opened } from './connection';
import { internAtom } from './requests';
import {
  answerSelectionRequest,
  CHANGE_PROPERTY_HEADER_BYTES,
  changeProperty,
  createHiddenWindow,
  eventCode,
  getSelectionOwner,
  NONE,
  parsePropertyNotify,
  parseSelectionClear,
  parseSelectionRequest,
  PROPERTY_NOTIFY,
  SELECTION_CLEAR,
  SELECTION_REQUEST,
  selectionNotify,
  sendEvent,
  setSelectionOwner,
  TEXT_ATOM_NAMES,
  touchProperty,
  type SelectionRequest,
  type TextAtoms,
} from './selection';

export type OwnerOutcome = { ok: true } | { ok: false; message: string };

/** How a wait for the application to fetch the text ended. */
export type FetchWait = 'fetched' | 'lost' | 'timeout';

interface Offer {
  text: string;
  /** The server time the selection was taken at. */
  since: number;
  /** Another client took the selection since. */
  lost: boolean;
  /** Requests for the text itself answered so far. */
  fetches: number;
  /** Requests of any kind answered so far (TARGETS included). */
  requests: number;
}

const SERVER_TIMEOUT_MS = 5000;

/**
 * The quiet window after a fetch is this many times as long as the application took to send its
 * first request after the paste keys, when that is longer than the configured quiet: a busy
 * machine slows the application's second read of the same paste as much as its first.
 */
const QUIET_PER_RESPONSE_TIME = 4;
/**
 * The longest quiet window the application's pace may stretch it to. Twice 2 s was not enough:
 * under CI load Chromium's second read of an emoji paste came later still and the paste was lost.
 * An idle application answers in milliseconds, so the configured quiet (150 ms) applies there.
 */
export const MAX_QUIET_MS = 5000;

export class ClipboardOwner {
  private offer: Offer | undefined;
  /** Called after every answered request and when the selection is lost. */
  private readonly watchers = new Set<() => void>();
  private readonly timeWaiters = new Set<(time: number) => void>();
  /** Requests are answered one at a time, so each answer's round trip reports its own errors. */
  private serving: Promise<void> = Promise.resolve();

  private constructor(
    private readonly connection: X11Connection,
    private readonly window: number,
    private readonly clipboard: number,
    /** A property of our own window, touched to learn the server's time. */
    private readonly clock: number,
    private readonly atoms: TextAtoms,
  ) {
    connection.onEvent((event) => this.onEvent(event));
  }

  static async open(display: string, env: NodeJS.ProcessEnv = process.env): Promise<Opened<ClipboardOwner>> {
    const opened = await X11Connection.open(display, env);
    if (!opened.ok) return opened;
    const connection = opened.value;
    const root = connection.screen?.root;
    if (root === undefined) {
      connection.close();
      return { ok: false, message: `the X server on ${display} described no screen to own the clipboard on` };
    }
    const window = connection.newId();
    try {
      const names = Object.entries(TEXT_ATOM_NAMES) as Array<[keyof TextAtoms, string]>;
      const [clipboard, clock, ...interned] = await Promise.all([
        internAtom(connection, 'CLIPBOARD', false),
        internAtom(connection, '_MNEMO_CLIPBOARD_TIME', false),
        ...names.map(([, name]) => internAtom(connection, name, false)),
      ]);
      const atoms = Object.fromEntries(names.map(([key], i) => [key, interned[i]])) as unknown as TextAtoms;
      createHiddenWindow(connection, window, root);
      const [error] = await connection.sync();
      if (error) {
        connection.close();
        return { ok: false, message: `could not create the window that owns the clipboard: ${describeX11Error(error)}` };
      }
      return { ok: true, value: new ClipboardOwner(connection, window, clipboard as number, clock as number, atoms) };
    } catch (error) {
      connection.close();
      return { ok: false, message: `could not prepare to own the clipboard: ${messageOf(error)}` };
    }
  }

  get closed(): boolean {
    return this.connection.closed;
  }

  /** The largest text, in UTF-8 bytes, that one answer can carry (beyond it ICCCM needs INCR). */
  get maxTextBytes(): number {
    return this.connection.maxRequestBytes - CHANGE_PROPERTY_HEADER_BYTES;
  }

  /** Takes the CLIPBOARD selection to serve `text`, and checks that the server made us its owner. */
  async take(text: string): Promise<OwnerOutcome> {
    try {
      // ICCCM: take a selection with a real timestamp, never CurrentTime, so that the server and
      // the requestors can order ownership changes.
      const since = await this.serverTime();
      this.offer = { text, since, lost: false, fetches: 0, requests: 0 };
      setSelectionOwner(this.connection, this.window, this.clipboard, since);
      const owner = await getSelectionOwner(this.connection, this.clipboard);
      if (owner !== this.window) return { ok: false, message: 'the X server did not make Mnemo the owner of the clipboard' };
      return { ok: true };
    } catch (error) {
      return { ok: false, message: `could not take the clipboard: ${messageOf(error)}` };
    }
  }

  /**
   * Waits until the application has fetched the offered text (a request for the text itself, not
   * TARGETS or TIMESTAMP, made from now on) and then asked nothing more for `quietMs`: Chromium
   * reads the text more than once for one paste (for the paste event, then to insert it) and drops
   * the paste when the clipboard changes owner in between, and ICCCM has no "done" message. The
   * quiet window only starts once the application has engaged, so its slowness to notice the
   * paste keys is waited for, not bet on. 'lost' when another client took the clipboard before
   * the text was fetched, 'timeout' when nothing fetched it within `timeoutMs` (a fetched text
   * whose requests never go quiet counts as fetched then). The quiet window grows with the time
   * the application took to answer the paste keys at all (QUIET_PER_RESPONSE_TIME), up to
   * MAX_QUIET_MS: on a busy machine its reads are that far apart. Throws AbortedError when `signal`
   * aborts.
   */
  nextPaste(timeoutMs: number, quietMs: number, signal?: AbortSignal): Promise<FetchWait> {
    const offer = this.offer;
    if (!offer || offer.lost || this.connection.closed) return Promise.resolve('lost');
    const before = offer.fetches;
    const requestsBefore = offer.requests;
    const fetched = () => offer.fetches > before;
    const started = performance.now();
    /** How long the application took to send its first request, once it has. */
    let responseMs: number | undefined;
    return new Promise((resolve, reject) => {
      let quiet: NodeJS.Timeout | undefined;
      const finish = (result: FetchWait | AbortedError) => {
        clearTimeout(deadline);
        clearTimeout(quiet);
        this.watchers.delete(check);
        signal?.removeEventListener('abort', onAbort);
        if (result instanceof AbortedError) reject(result);
        else resolve(result);
      };
      // Called after every answered request and when the selection is lost.
      const check = () => {
        if (offer.lost || this.connection.closed) return finish(fetched() ? 'fetched' : 'lost');
        if (responseMs === undefined && offer.requests > requestsBefore) responseMs = performance.now() - started;
        if (!fetched()) return;
        clearTimeout(quiet);
        const paced = Math.min(MAX_QUIET_MS, QUIET_PER_RESPONSE_TIME * (responseMs ?? 0));
        quiet = setTimeout(() => finish('fetched'), Math.max(quietMs, paced));
      };
      const onAbort = () => finish(new AbortedError('the action was cancelled'));
      const deadline = setTimeout(() => finish(fetched() ? 'fetched' : 'timeout'), timeoutMs);
      this.watchers.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  }

  close(): void {
    // Closing the connection destroys the window, and with it the ownership.
    this.connection.close();
    for (const watch of [...this.watchers]) watch();
  }

  /** The server's current time, from the PropertyNotify of a zero-length append to our window. */
  private async serverTime(): Promise<number> {
    let heard: (time: number) => void = () => undefined;
    const time = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.timeWaiters.delete(heard);
        reject(new Error(`the X server sent no property change within ${SERVER_TIMEOUT_MS} ms`));
      }, SERVER_TIMEOUT_MS);
      heard = (at) => {
        clearTimeout(timer);
        this.timeWaiters.delete(heard);
        resolve(at);
      };
      this.timeWaiters.add(heard);
    });
    touchProperty(this.connection, this.window, this.clock);
    return time;
  }

  private onEvent(event: Buffer): void {
    const code = eventCode(event);
    if (code === PROPERTY_NOTIFY) {
      const notified = parsePropertyNotify(event);
      if (notified.window === this.window && notified.atom === this.clock) for (const heard of [...this.timeWaiters]) heard(notified.time);
    } else if (code === SELECTION_CLEAR) {
      const cleared = parseSelectionClear(event);
      // A clear stamped before our latest take belongs to an earlier ownership.
      if (cleared.selection === this.clipboard && this.offer && cleared.time >= this.offer.since) {
        this.offer.lost = true;
        this.notify();
      }
    } else if (code === SELECTION_REQUEST) {
      const request = parseSelectionRequest(event);
      this.serving = this.serving.then(() => this.answer(request)).catch(() => undefined);
    }
  }

  private async answer(request: SelectionRequest): Promise<void> {
    const offer = this.offer;
    const ours = offer && !offer.lost && request.owner === this.window && request.selection === this.clipboard;
    const answer = ours ? answerSelectionRequest(request, offer.text, offer.since, this.atoms) : ({ kind: 'refuse' } as const);
    // The text's size was checked against maxTextBytes before it was offered; a TARGETS list is tiny.
    const fits = answer.kind === 'serve' && answer.data.length <= this.maxTextBytes;
    if (answer.kind === 'serve' && fits) changeProperty(this.connection, request.requestor, answer.property, answer.type, answer.format, answer.data);
    sendEvent(this.connection, request.requestor, selectionNotify(request, answer.kind === 'serve' && fits ? answer.property : NONE));
    // A requestor whose window is gone makes these fail: that request fetched nothing.
    const errors = await this.connection.sync();
    if (ours) offer.requests += 1;
    if (answer.kind === 'serve' && fits && answer.text && errors.length === 0 && offer) offer.fetches += 1;
    this.notify();
  }

  private notify(): void {
    for (const watch of [...this.watchers]) watch();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
