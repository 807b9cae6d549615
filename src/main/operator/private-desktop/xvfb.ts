/**
 * Starts an X server of our own: Xvfb on the first free display number from `firstDisplay` up,
 * with access control (a fresh cookie in a file of our own, so no other process of the machine can
 * draw on it or read it), TCP off, no reset when its last client leaves. It says when it is ready
 * by writing its display number on a pipe (`-displayfd`), so there is no polling for the socket.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { Size } from '../../../shared/frame';
import { cookieFile } from '../x11/auth';

/** Where a display's files go (the desktop host keeps them under the data directory). */
export interface XvfbFiles {
  /**
   * Claims a display number among the processes that share the data directory, before any file
   * of it is written: false when another live process holds it (it is starting a desktop there).
   * Without it, two Mnemos starting desktops at once wrote the same cookie file, and the one whose
   * server lost the number removed the files of the one whose server won.
   */
  claim(number: number): Promise<boolean>;
  /** Writes the cookie file (owner-only) for a display number; returns its path. */
  cookie(number: number, content: Buffer): Promise<string>;
  /** Opens the log file the server's output goes to (an fd), so a kept desktop outlives our pipes. */
  log(number: number): Promise<number>;
  readLog(number: number): Promise<string>;
  /** Told the moment Xvfb is spawned, before it is ready (to record it at once). */
  spawned(number: number, pid: number, xauthority: string): Promise<void>;
  /** Removes what was written for a number whose server did not start. */
  abandon(number: number): Promise<void>;
}

export interface XvfbOptions {
  size: Size;
  /** The first display number to try; the next ones follow while a number is taken. */
  firstDisplay: number;
  /** How many numbers to try. */
  attempts: number;
  files: XvfbFiles;
  readyTimeoutMs: number;
  command?: string;
  /** Numbers being started by this process right now (two runs starting at once). */
  claimed: Set<number>;
}

export interface StartedXvfb {
  number: number;
  display: string;
  child: ChildProcess;
  xauthority: string;
}

export type XvfbStart = { ok: true; server: StartedXvfb } | { ok: false; message: string };

function taken(number: number): boolean {
  return existsSync(`/tmp/.X${number}-lock`) || existsSync(`/tmp/.X11-unix/X${number}`);
}

/** Xvfb's words when the number was taken between our look and its start. */
const NUMBER_TAKEN = /already (active|running)|Cannot establish any listening sockets/i;

type Attempt = { ok: true; server: StartedXvfb } | { ok: false; taken: boolean; slow?: boolean; message: string };

async function tryNumber(number: number, options: XvfbOptions): Promise<Attempt> {
  const { files } = options;
  const xauthority = await files.cookie(number, cookieFile(String(number), randomBytes(16)));
  const log = await files.log(number);
  const command = options.command ?? 'Xvfb';
  const args = [`:${number}`, '-screen', '0', `${options.size.width}x${options.size.height}x24`, '-nolisten', 'tcp', '-noreset', '-auth', xauthority, '-displayfd', '3'];
  // Its own process group: stopped as a whole, and no Ctrl+C of the terminal reaches it before we stop it in order.
  const child = spawn(command, args, { detached: true, stdio: ['ignore', log, log, 'pipe'] });
  closeSync(log); // the server has its own copy
  const failedToSpawn = new Promise<string>((resolve) => child.once('error', (error) => resolve(error.message)));
  if (child.pid === undefined) return { ok: false, taken: false, message: `cannot start ${command}: ${await failedToSpawn}` };
  await files.spawned(number, child.pid, xauthority);
  const pipe = child.stdio[3] as Readable;
  let said = '';
  const ready = new Promise<boolean>((resolve) => {
    pipe.on('data', (chunk: Buffer) => {
      said += chunk.toString('latin1');
      if (said.includes('\n')) resolve(true);
    });
    pipe.once('close', () => resolve(false));
  });
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ? `was killed by ${signal}` : `exited with code ${code}`)));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), options.readyTimeoutMs)));
  const outcome = await Promise.race([ready.then((ok) => (ok ? ('ready' as const) : exited)), exited, timeout, failedToSpawn.then((message) => `could not start: ${message}`)]);
  clearTimeout(timer);
  pipe.destroy();
  if (outcome === 'ready') {
    child.unref();
    return { ok: true, server: { number, display: `:${number}`, child, xauthority } };
  }
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    return { ok: false, taken: false, slow: true, message: `Xvfb on :${number} was not ready within ${options.readyTimeoutMs / 1000} s` };
  }
  return { ok: false, taken: true, message: `Xvfb on :${number} ${outcome}` };
}

/**
 * Xvfb on a free number. Numbers with a lock or a socket are skipped; a number taken meanwhile
 * (Xvfb says so and exits) moves on to the next one.
 */
export async function startXvfb(options: XvfbOptions): Promise<XvfbStart> {
  let last = '';
  for (let number = options.firstDisplay, tried = 0; tried < options.attempts; number++) {
    if (options.claimed.has(number) || taken(number)) continue;
    options.claimed.add(number);
    if (!(await options.files.claim(number))) {
      options.claimed.delete(number);
      continue;
    }
    tried++;
    try {
      const attempt = await tryNumber(number, options);
      if (attempt.ok) return attempt;
      const output = (await options.files.readLog(number)).trim();
      await options.files.abandon(number);
      // A server that never got ready may have lost a race for the number to another process's
      // (two runs starting at once): the next number is tried as for a taken one.
      if (!attempt.slow && (!attempt.taken || !NUMBER_TAKEN.test(output))) {
        const tail = output.split('\n').filter(Boolean).slice(-3).join(' / ');
        return { ok: false, message: `${attempt.message}${tail ? `; it said: ${tail}` : ''}` };
      }
      last = attempt.message;
    } finally {
      options.claimed.delete(number);
    }
  }
  return { ok: false, message: `no free X display number from :${options.firstDisplay} (${options.attempts} tried${last ? `; last: ${last}` : ''})` };
}
