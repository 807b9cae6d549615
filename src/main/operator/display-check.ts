/**
 * Finds out whether the X display can be opened BEFORE libnut touches it, and keeps it from
 * resetting while libnut does.
 *
 * libnut calls XOpenDisplay and dereferences the result: a display that cannot be opened is a
 * segfault rather than an error. And an X server with no other client (a bare Xvfb, as in most
 * containers and CI images) resets when its last client leaves, killing any client that connects
 * in that moment: after `xrandr` or a display check of our own, libnut's XOpenDisplay can get NULL.
 * So the check opens the display in plain JavaScript (x11/setup.ts), where every failure is a
 * value, waits out a reset in progress, and can hold that connection open: while it is open the
 * server has a client and cannot reset under libnut.
 */
import { connect, type Socket } from 'node:net';
import { readCookie } from './x11/auth';
import { addressesOf, parseDisplayName, type DisplayName, type XAddress } from './x11/display-name';
import { openX } from './x11/setup';

export type DisplayCheck = { ok: true; display: string | null } | { ok: false; message: string };

/** An open display: `release()` closes our connection; `lost` settles when the server closes it. */
export type DisplayHold = { ok: true; display: string | null; release(): void; lost: Promise<void> } | { ok: false; message: string };

export interface HoldOptions {
  /** How long one connection attempt may take. */
  timeoutMs?: number;
  /** How long to keep trying while the server hangs up during the setup (a reset in progress). */
  resetWaitMs?: number;
}

const DEFAULTS = { timeoutMs: 2000, resetWaitMs: 3000 } as const;

function xvfbHint(display: string): string {
  return `for example \`Xvfb ${display.startsWith(':') ? display : ':99'} -screen 0 1280x800x24 &\``;
}

/** DISPLAY, or why there is none to try. `null` on systems that have no DISPLAY (macOS, Windows). */
function displayFromEnv(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): { ok: true; value: string; parsed: DisplayName } | { ok: true; value: null } | { ok: false; message: string } {
  if (platform === 'darwin' || platform === 'win32') return { ok: true, value: null };
  const value = env.DISPLAY;
  if (value === undefined || value.trim() === '') {
    const wayland = env.WAYLAND_DISPLAY ? ` (WAYLAND_DISPLAY=${env.WAYLAND_DISPLAY} is set, but Mnemo needs X11 or XWayland)` : '';
    return {
      ok: false,
      message: `No display: the DISPLAY environment variable is not set${wayland}. Start an X server (for example \`Xvfb :99 -screen 0 1280x800x24 &\`) and set DISPLAY=:99.`,
    };
  }
  const parsed = parseDisplayName(value);
  if (!parsed) return { ok: false, message: `No display: DISPLAY="${value}" is not a valid X display name (expected something like :0 or localhost:10.0).` };
  return { ok: true, value, parsed };
}

/** Why DISPLAY names no display (unset, not a display name), without connecting; undefined when it names one. */
export function displayNotNamed(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  const display = displayFromEnv(env, platform);
  return display.ok ? undefined : display.message;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Opens the display in plain JavaScript and keeps the connection until `release()`. A server that
 * hangs up during the setup is resetting (or about to): it is tried again for `resetWaitMs`.
 */
export async function holdDisplay(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, options: HoldOptions = {}): Promise<DisplayHold> {
  const { timeoutMs, resetWaitMs } = { ...DEFAULTS, ...options };
  const display = displayFromEnv(env, platform);
  if (!display.ok) return display;
  if (display.value === null) return { ok: true, display: null, release: () => undefined, lost: new Promise(() => undefined) };
  const { value, parsed } = display;
  const addresses = addressesOf(parsed, platform);
  const cookie = await readCookie(String(parsed.number), env);
  const deadline = Date.now() + resetWaitMs;
  let attempts = 0;
  for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
    attempts++;
    const opened = await openX(addresses, cookie, timeoutMs);
    if (opened.ok) return held(value, opened.socket);
    if (opened.kind === 'unreachable') return { ok: false, message: displayUnreachableMessage(value) };
    if (opened.kind === 'refused') {
      return { ok: false, message: `No display: the X server at DISPLAY=${value} refused the connection (${opened.reason}). Check access to it (XAUTHORITY, xhost).` };
    }
    if (Date.now() + pause > deadline) {
      const why = opened.kind === 'dropped' ? `it hung up during the connection setup, ${attempts} times in ${resetWaitMs / 1000} s` : opened.reason;
      return {
        ok: false,
        message: `No display: the X server at DISPLAY=${value} answers, but it cannot be opened (${why}). Check that it is an X server that runs normally and that you may use it (XAUTHORITY, xhost).`,
      };
    }
    await sleep(pause);
  }
}

function held(display: string, socket: Socket): DisplayHold {
  // Nothing is asked of the server after the setup; whatever it sends is of no interest.
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  // Our connection alone must never keep a process alive.
  socket.unref();
  const lost = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { ok: true, display, release: () => socket.destroy(), lost };
}

/**
 * On Linux and other X11 systems: DISPLAY must be set and an X server must let us open it.
 * macOS and Windows always have a display for a logged-in user. Note that on a bare server the
 * check's own connection, closed here, is a client leaving: use holdDisplay() before libnut.
 */
export async function checkDisplay(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, timeoutMs: number = DEFAULTS.timeoutMs): Promise<DisplayCheck> {
  const hold = await holdDisplay(env, platform, { timeoutMs });
  if (!hold.ok) return hold;
  hold.release();
  return { ok: true, display: hold.display };
}

function socketAnswers(address: XAddress, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(address);
    const finish = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

/**
 * Whether anything still listens where DISPLAY points. It connects without the X setup, so it is
 * no client of the server: unlike checkDisplay(), it cannot make a bare server reset.
 */
export async function displayListening(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, timeoutMs: number = DEFAULTS.timeoutMs): Promise<boolean> {
  const display = displayFromEnv(env, platform);
  if (!display.ok) return false;
  if (display.value === null) return true;
  for (const address of addressesOf(display.parsed, platform)) if (await socketAnswers(address, timeoutMs)) return true;
  return false;
}

export function displayUnreachableMessage(display: string): string {
  return `No display: cannot connect to the X server at DISPLAY=${display}. Is it running? (${xvfbHint(display)})`;
}

/** What to tell the user when the display went away under a running operator. */
export function displayLostMessage(display: string | null): string {
  if (display === null) return 'Lost the display: the screen could no longer be reached. Log in again and run the task again.';
  return `Lost the display: the X server at DISPLAY=${display} went away (it was stopped or crashed). Start it again (${xvfbHint(display)}) and run the task again.`;
}
