/**
 * Finds out whether an X display is reachable BEFORE nut-js is loaded: libnut calls XOpenDisplay
 * and dereferences the result, so a missing display is a segfault rather than an error.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { connect } from 'node:net';

export type DisplayCheck = { ok: true; display: string | null } | { ok: false; message: string };

interface ParsedDisplay {
  host: string;
  number: number;
}

/** `[host]:number[.screen]` as X11 spells it. */
export function parseDisplayName(value: string): ParsedDisplay | null {
  const match = /^([^:]*):(\d+)(?:\.\d+)?$/.exec(value.trim());
  if (!match) return null;
  return { host: match[1] ?? '', number: Number(match[2]) };
}

function tryConnect(options: { path: string } | { host: string; port: number }, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(options);
    const finish = (reachable: boolean) => {
      socket.destroy();
      resolve(reachable);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

async function xServerReachable(display: ParsedDisplay, timeoutMs: number): Promise<boolean> {
  const local = display.host === '' || display.host === 'unix';
  if (local) {
    const path = `/tmp/.X11-unix/X${display.number}`;
    // Linux X servers also listen on the abstract socket of the same name.
    if (await tryConnect({ path }, timeoutMs)) return true;
    if (process.platform === 'linux' && (await tryConnect({ path: `\0${path}` }, timeoutMs))) return true;
    return display.host === '' ? tryConnect({ host: '127.0.0.1', port: 6000 + display.number }, timeoutMs) : false;
  }
  return tryConnect({ host: display.host, port: 6000 + display.number }, timeoutMs);
}

/**
 * On Linux and other X11 systems: DISPLAY must be set and an X server must answer on it.
 * macOS and Windows always have a display for a logged-in user.
 */
export async function checkDisplay(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  timeoutMs = 2000,
): Promise<DisplayCheck> {
  if (platform === 'darwin' || platform === 'win32') return { ok: true, display: null };
  const value = env.DISPLAY;
  if (value === undefined || value.trim() === '') {
    const wayland = env.WAYLAND_DISPLAY ? ` (WAYLAND_DISPLAY=${env.WAYLAND_DISPLAY} is set, but Mnemo needs X11 or XWayland)` : '';
    return {
      ok: false,
      message: `No display: the DISPLAY environment variable is not set${wayland}. Start an X server (for example \`Xvfb :99 -screen 0 1280x800x24 &\`) and set DISPLAY=:99.`,
    };
  }
  const parsed = parseDisplayName(value);
  if (!parsed) {
    return { ok: false, message: `No display: DISPLAY="${value}" is not a valid X display name (expected something like :0 or localhost:10.0).` };
  }
  if (!(await xServerReachable(parsed, timeoutMs))) {
    return {
      ok: false,
      message: `No display: cannot connect to the X server at DISPLAY=${value}. Is it running? (for example \`Xvfb ${value.startsWith(':') ? value : ':99'} -screen 0 1280x800x24 &\`)`,
    };
  }
  // A listening socket is not yet an open display: the server may refuse us (authorisation) or
  // still be starting. Open it the way nut-js will, in a child process that may crash instead of us.
  const probe = await probeNativeDisplay(env, platform, timeoutMs * 2);
  if (!probe.ok) return { ok: false, message: `No display: the X server at DISPLAY=${value} answers, but it cannot be opened (${probe.reason}). Check access to it (XAUTHORITY, xhost).` };
  return { ok: true, display: value };
}

/** The native input library nut-js loads on Linux, resolved from here; undefined when not installed. */
function nativeLibraryPath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@nut-tree-fork/libnut-linux');
  } catch {
    return undefined;
  }
}

/** Opens the display with libnut in a child process: a crash there is a message here. */
function probeNativeDisplay(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, timeoutMs: number): Promise<{ ok: true } | { ok: false; reason: string }> {
  const library = platform === 'linux' ? nativeLibraryPath() : undefined;
  if (library === undefined) return Promise.resolve({ ok: true });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', `require(${JSON.stringify(library)}).getScreenSize()`], {
      // In the packaged app process.execPath is Electron: make it behave as Node.
      env: { ...env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: timeoutMs,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', () => resolve({ ok: true })); // cannot probe: fall back on the socket check
    child.on('close', (code, signal) => {
      if (code === 0) return resolve({ ok: true });
      const said = stderr.trim().split('\n')[0];
      resolve({ ok: false, reason: said ? said : signal ? `the X client crashed with ${signal}` : `the X client exited with code ${code}` });
    });
  });
}
