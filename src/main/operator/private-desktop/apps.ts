/**
 * The programs of a private desktop: the window manager and the user's apps, each a shell command
 * in a process group of its own, started one after the other. An app counts as up when a new
 * top-level window shows on the display; one that exits first, or shows none in time, is a
 * message that says which and what it printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync } from 'node:fs';
import type { X11Connection } from '../x11/connection';
import { topLevelWindows, windowManagerRunning } from '../x11/windows';

export interface Launch {
  /** A shell command line, run by /bin/sh -c. */
  command: string;
  env: NodeJS.ProcessEnv;
  /** An fd for the program's output (closed here once the program has its copy). */
  log: number;
}

export interface Launched {
  child: ChildProcess;
  pid: number;
  /** Settles when the program exits: how, in words. */
  exited: Promise<string>;
}

export type LaunchResult = { ok: true; launched: Launched } | { ok: false; message: string };

export function launch({ command, env, log }: Launch): LaunchResult {
  const child = spawn('/bin/sh', ['-c', command], { env, detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  if (child.pid === undefined) return { ok: false, message: `cannot start "${command}"` };
  child.unref();
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    child.once('error', (error) => resolve(`could not start: ${error.message}`));
  });
  return { ok: true, launched: { child, pid: child.pid, exited } };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const POLL_MS = 50;

export type WindowWait = { ok: true; windows: number[] } | { ok: false; message: string };

/**
 * Waits until a top-level window that was not there before (`before`) shows. A program that exits
 * with an error first fails at once; one that exits cleanly (a launcher that handed over) gets
 * the rest of the time, since its window may still come from a process it left behind.
 */
export async function waitForNewWindow(
  connection: X11Connection,
  before: ReadonlySet<number>,
  app: { command: string; launched: Launched; output: () => Promise<string> },
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<WindowWait> {
  const deadline = Date.now() + timeoutMs;
  let exit: string | undefined;
  void app.launched.exited.then((how) => (exit = how));
  const said = async () => {
    const tail = (await app.output()).trim().split('\n').filter(Boolean).slice(-3).join(' / ');
    return tail ? `; it said: ${tail}` : '';
  };
  for (;;) {
    const windows = (await topLevelWindows(connection)).filter((window) => !before.has(window));
    if (windows.length > 0) return { ok: true, windows };
    if (signal?.aborted) return { ok: false, message: `stopped while waiting for the window of "${app.command}"` };
    if (exit !== undefined && exit !== 'exited with code 0') return { ok: false, message: `the app "${app.command}" ${exit} before showing a window${await said()}` };
    if (Date.now() >= deadline) {
      const handedOver =
        exit === 'exited with code 0'
          ? ' It exited at once without an error: it may have handed the work to an instance already running on another display (give it a profile of its own, e.g. a browser\'s --user-data-dir).'
          : '';
      return { ok: false, message: `the app "${app.command}" showed no window within ${Math.round(timeoutMs / 1000)} s.${handedOver}${(await said()).replace(/^; /, ' ')}`.trim() };
    }
    await sleep(POLL_MS);
  }
}

/** Waits until a window manager has taken the screen; false when none did in time. */
export async function waitForWindowManager(connection: X11Connection, exited: Promise<string>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  while (Date.now() < deadline && !gone) {
    if (await windowManagerRunning(connection).catch(() => false)) return true;
    await sleep(POLL_MS);
  }
  return false;
}
