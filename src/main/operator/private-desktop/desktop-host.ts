/**
 * Private desktops: an X display of a run's own, so the agent never touches the user's pointer,
 * keyboard or clipboard, and several runs can work side by side. The host starts Xvfb on a free
 * display number, a window manager when one is installed (openbox by default), then each app
 * command, waiting until its window shows; and stops them all again, apps first. A run is given
 * only the desktop's environment (DISPLAY, XAUTHORITY): to the run it is just another display.
 *
 * Everything started is written down under the data directory (records.ts) before it can
 * outlive us, and the host stops the leftovers of dead Mnemo processes before its first start.
 */
import { existsSync, openSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Size } from '../../../shared/frame';
import { formatDesktopSize } from '../../../shared/desktop-size';
import { makePrivateDir, openPrivate, PRIVATE_FILE_MODE } from '../../disk/files';
import { currentWriter } from '../../disk/process-identity';
import { X11Connection } from '../x11/connection';
import { rootTextProperty, topLevelWindows } from '../x11/windows';
import { busEnvironment, findBusPrograms, prepareBuses } from './accessibility-bus';
import { launch, waitForNewWindow, waitForWindowManager } from './apps';
import { describeProcess, findOnPath, type StartedProcess } from './processes';
import { claimDisplay, desktopsDir, logPath, reapLeftovers, removeDesktopFiles, stopRecorded, writeRecord, type DesktopRecord } from './records';
import { withRendererAccessibility } from './renderer-accessibility';
import { startXvfb, type XvfbFiles } from './xvfb';

export interface DesktopHostOptions {
  dataDir: string;
  /** The first X display number tried (then the next free one). Default 200. */
  firstDisplay?: number;
  /** The window manager command; null for none; default: openbox when it is installed. */
  windowManager?: string | null;
  /** How long an app may take to show its window. Default 60 s (a browser's cold start on a busy machine). */
  appTimeoutMs?: number;
  /** How long Xvfb may take to accept connections. Default 15 s (then the next display number is tried: another process may have won a race for it). */
  serverTimeoutMs?: number;
  /** The environment the desktop's programs start from (the user's, less what points at their display). */
  env?: NodeJS.ProcessEnv;
  /** The X server program. Default Xvfb. */
  xvfb?: string;
  /**
   * A session bus and an accessibility bus of the desktop's own, started before its apps, so its
   * elements can be read (default true; without dbus-daemon and at-spi2-core, a note and pixels only).
   */
  accessibility?: boolean;
}

/** How desktops start, per start where given (the settings as they are now), else the host's. */
type StartSettings = Pick<DesktopHostOptions, 'firstDisplay' | 'windowManager' | 'appTimeoutMs'>;

export interface DesktopSpec extends StartSettings {
  size: Size;
  apps: readonly string[];
  signal?: AbortSignal;
}

export type DesktopStart = { ok: true; desktop: PrivateDesktop } | { ok: false; message: string };

export const DEFAULT_FIRST_DISPLAY = 200;
const NUMBERS_TRIED = 100;
const WINDOW_MANAGER_WAIT_MS = 5000;
/** How long the desktop's buses may take to come up (a busy machine). */
const BUS_WAIT_MS = 15_000;
/** How often at-spi-bus-launcher is started before a desktop goes without its accessibility bus. */
const LAUNCHER_STARTS = 2;

/**
 * What points a program at the user's session: gone from a private desktop's environment, so
 * GTK, Qt, Firefox and Chromium open their windows on the private display, never on Wayland, and
 * join the desktop's accessibility bus, never the user's (nor none: NO_AT_BRIDGE).
 */
const USER_SESSION_VARIABLES = ['WAYLAND_DISPLAY', 'WAYLAND_SOCKET', 'DISPLAY', 'XAUTHORITY', 'AT_SPI_BUS_ADDRESS', 'NO_AT_BRIDGE'];

export function desktopEnvironment(base: NodeJS.ProcessEnv, display: string, xauthority: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of USER_SESSION_VARIABLES) delete env[name];
  return { ...env, DISPLAY: display, XAUTHORITY: xauthority, XDG_SESSION_TYPE: 'x11', GDK_BACKEND: 'x11', QT_QPA_PLATFORM: 'xcb', MOZ_ENABLE_WAYLAND: '0' };
}

export class DesktopHost {
  private readonly dir: string;
  private readonly claimed = new Set<number>();
  private reaped: Promise<string[]> | undefined;

  constructor(private readonly options: DesktopHostOptions) {
    this.dir = desktopsDir(options.dataDir);
  }

  /** Stops the desktops that Mnemo processes now gone left behind (once per host); one line per desktop stopped. */
  reapLeftovers(): Promise<string[]> {
    this.reaped ??= reapLeftovers(this.dir).catch(() => []);
    return this.reaped;
  }

  async start(spec: DesktopSpec): Promise<DesktopStart> {
    const options = { ...this.options, ...definedOf(spec) };
    await this.reapLeftovers();
    await makePrivateDir(this.dir);
    const record: DesktopRecord = {
      display: '',
      number: -1,
      owner: currentWriter(),
      kept: false,
      size: formatDesktopSize(spec.size),
      apps: [...spec.apps],
      xauthority: '',
      processes: [],
      startedAt: Date.now(),
    };
    const files = this.files(record);
    const server = await startXvfb({
      size: spec.size,
      firstDisplay: options.firstDisplay ?? DEFAULT_FIRST_DISPLAY,
      attempts: NUMBERS_TRIED,
      files,
      readyTimeoutMs: this.options.serverTimeoutMs ?? 15_000,
      claimed: this.claimed,
      ...(this.options.xvfb ? { command: this.options.xvfb } : {}),
    });
    if (!server.ok) return { ok: false, message: `cannot start a private desktop: ${server.message}` };
    const { display, number, xauthority } = server.server;
    const env = desktopEnvironment(this.options.env ?? process.env, display, xauthority);
    const desktop = new PrivateDesktop(this.dir, record, env, exitOf(server.server.child));
    const fail = async (message: string): Promise<DesktopStart> => {
      await desktop.stop();
      return { ok: false, message: `cannot start a private desktop: ${message}` };
    };
    const connection = await X11Connection.open(display, env);
    if (!connection.ok) return fail(connection.message);
    try {
      const notes: string[] = [];
      const manager = options.windowManager === undefined ? (findOnPath('openbox', env) ? 'openbox' : null) : options.windowManager;
      if (manager) {
        const started = await this.startProgram(record, 'window-manager', manager, env, number);
        if (!started.ok) notes.push(`the window manager did not start (${started.message}); the desktop has none`);
        else if (!(await waitForWindowManager(connection.value, started.exited, WINDOW_MANAGER_WAIT_MS))) notes.push(`the window manager "${manager}" did not take the screen within ${WINDOW_MANAGER_WAIT_MS / 1000} s`);
      } else if (options.windowManager === undefined) {
        notes.push('no window manager is installed (openbox, for example): app windows have no frames and cannot be moved');
      }
      const readable = options.accessibility === false ? false : await this.startBuses(record, env, number, connection.value);
      if (typeof readable === 'string') notes.push(readable);
      for (const asked of spec.apps) {
        const command = readable === true ? withRendererAccessibility(asked) : asked;
        if (spec.signal?.aborted) return fail('stopped while it was starting');
        const before = new Set(await topLevelWindows(connection.value));
        const log = `app-${record.processes.filter((started) => started.role === 'app').length + 1}`;
        const started = await this.startProgram(record, 'app', command, env, number, log);
        if (!started.ok) return fail(started.message);
        const waited = await waitForNewWindow(
          connection.value,
          before,
          { command, launched: started, output: () => this.readLog(number, log) },
          options.appTimeoutMs ?? 60_000,
          spec.signal,
        );
        if (!waited.ok) return fail(waited.message);
      }
      desktop.notes.push(...notes);
      return { ok: true, desktop };
    } finally {
      connection.value.close();
    }
  }

  /**
   * The desktop's session bus, then its accessibility bus (accessibility-bus.ts), each waited for;
   * `env` then points at them. True when both are up; otherwise why not, as a note (the desktop
   * still works, from pixels).
   */
  private async startBuses(record: DesktopRecord, env: NodeJS.ProcessEnv, number: number, connection: X11Connection): Promise<true | string> {
    const programs = findBusPrograms(env);
    if (!programs.ok) return programs.message;
    const runtimeDir = await mkdtemp(join(tmpdir(), `mnemo-desktop-${number}-`));
    record.runtimeDir = runtimeDir;
    await writeRecord(this.dir, record);
    const prepared = await prepareBuses(runtimeDir, programs.programs);
    const unreadable = (why: string) => `the desktop has no accessibility bus (elements cannot be read there, only pixels): ${why}`;
    const session = await this.startProgram(record, 'bus', prepared.sessionBusCommand, env, number, 'buses');
    if (!session.ok) return unreadable(session.message);
    if (!(await pollUntil(async () => existsSync(prepared.socket), session.exited, BUS_WAIT_MS))) return unreadable(`its session bus (dbus-daemon) did not listen within ${BUS_WAIT_MS / 1000} s`);
    Object.assign(env, busEnvironment(prepared.address, runtimeDir));
    // at-spi-bus-launcher names its bus on the display's root window once the bus listens.
    const announced = async () => ((await rootTextProperty(connection, 'AT_SPI_BUS').catch(() => undefined)) ?? '') !== '';
    // On a busy machine the launcher has been seen to quit a second after its start, the bus never
    // announced: it gets a second start before the desktop goes without elements.
    for (let attempt = 1; ; attempt++) {
      const launcher = await this.startProgram(record, 'bus', prepared.launcherCommand, env, number, 'buses');
      if (!launcher.ok) return unreadable(launcher.message);
      let ended: string | undefined;
      void launcher.exited.then((how) => (ended = how));
      if (await pollUntil(announced, launcher.exited, BUS_WAIT_MS)) return true;
      if (ended === undefined) return unreadable(`at-spi-bus-launcher did not start the accessibility bus within ${BUS_WAIT_MS / 1000} s`);
      if (attempt === LAUNCHER_STARTS) {
        const said = lastLine(await this.readLog(number, 'buses'));
        return unreadable(`at-spi-bus-launcher ${ended} before it started the accessibility bus, ${LAUNCHER_STARTS} times${said ? ` (it said: ${said})` : ''}`);
      }
    }
  }

  private async startProgram(record: DesktopRecord, role: StartedProcess['role'], command: string, env: NodeJS.ProcessEnv, number: number, log = 'server') {
    const launched = launch({ command, env, log: await this.openLog(number, log) });
    if (!launched.ok) return launched;
    record.processes.push(describeProcess(launched.launched.pid, role, command));
    await writeRecord(this.dir, record);
    return { ok: true as const, ...launched.launched };
  }

  /** One log per program that may fail (the server, each app), so each message quotes its own program. */
  private logPath(number: number, name: string): string {
    return logPath(this.dir, number, name);
  }

  private async openLog(number: number, name: string): Promise<number> {
    // Created owner-only (what the apps print may be private), then opened for appending by fd.
    const created = await openPrivate(this.logPath(number, name), 'a');
    await created.close();
    return openSync(this.logPath(number, name), 'a', PRIVATE_FILE_MODE);
  }

  private async readLog(number: number, name: string): Promise<string> {
    const handle = await open(this.logPath(number, name), 'r').catch(() => null);
    if (!handle) return '';
    try {
      const { size } = await handle.stat();
      const start = Math.max(0, size - 8192);
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      return buffer.toString('utf8');
    } finally {
      await handle.close();
    }
  }

  private files(record: DesktopRecord): XvfbFiles {
    return {
      claim: (number) => claimDisplay(this.dir, number, record.owner),
      cookie: async (number, content) => {
        const path = join(this.dir, `display-${number}.xauth`);
        const file = await openPrivate(path, 'w');
        await file.writeFile(content);
        await file.close();
        return path;
      },
      log: (number) => this.openLog(number, 'server'),
      readLog: (number) => this.readLog(number, 'server'),
      spawned: async (number, pid, xauthority) => {
        Object.assign(record, { number, display: `:${number}`, xauthority, processes: [describeProcess(pid, 'xvfb', `Xvfb :${number}`)] });
        await writeRecord(this.dir, record);
      },
      abandon: (number) => removeDesktopFiles(this.dir, number),
    };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The last line a program wrote to its log, trimmed; '' when it wrote nothing. */
function lastLine(log: string): string {
  return log.trim().split('\n').pop()?.trim() ?? '';
}

/** Polls until the condition holds (true), the program exits or the time is up (false). */
async function pollUntil(condition: () => Promise<boolean>, exited: Promise<string>, timeoutMs: number): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !gone) {
    if (await condition()) return true;
    await sleep(50);
  }
  return condition();
}

/** The start settings a spec gives (undefined ones leave the host's). */
function definedOf(spec: DesktopSpec): StartSettings {
  const { firstDisplay, windowManager, appTimeoutMs } = spec;
  return { ...(firstDisplay !== undefined ? { firstDisplay } : {}), ...(windowManager !== undefined ? { windowManager } : {}), ...(appTimeoutMs !== undefined ? { appTimeoutMs } : {}) };
}

function exitOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ? `was killed by ${signal}` : `exited with code ${code}`)));
}

/** A running private desktop: its display and environment, and how to stop it (or leave it running). */
export class PrivateDesktop {
  /** Said once the desktop is up (no window manager, ...). */
  readonly notes: string[] = [];
  private stopping: Promise<void> | undefined;
  private kept = false;

  constructor(
    private readonly dir: string,
    private readonly record: DesktopRecord,
    /** DISPLAY and XAUTHORITY of the desktop, over the user's environment without their display. */
    readonly env: NodeJS.ProcessEnv,
    /** Settles when the X server exits (stopped, or on its own): how, in words. */
    readonly serverExit: Promise<string>,
  ) {}

  get display(): string {
    return this.record.display;
  }

  get size(): string {
    return this.record.size;
  }

  get apps(): readonly string[] {
    return this.record.apps;
  }

  /** The X server's process id (for `--keep-desktop`'s message and tests). */
  get serverPid(): number | undefined {
    return this.record.processes.find((started) => started.role === 'xvfb')?.pid;
  }

  /** Stops the apps, the window manager and the X server, and removes the desktop's files. */
  stop(): Promise<void> {
    if (this.kept) return Promise.resolve();
    this.stopping ??= stopRecorded(this.dir, this.record);
    return this.stopping;
  }

  /** Leaves the desktop running after this process (`--keep-desktop`); its record says so, and it is cleaned up once its X server is gone. */
  async keep(): Promise<void> {
    this.kept = true;
    this.record.kept = true;
    await writeRecord(this.dir, this.record).catch(() => undefined);
  }
}
