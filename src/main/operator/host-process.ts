/**
 * One operator host process seen from the main process: starting it, calling it, noticing that it
 * died. It knows nothing of displays; isolated-operator.ts decides what a death means.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { DesktopOperatorOptions } from './desktop-operator';
import type { FromHost, HostCalls, HostMethod, ToHost } from './host-protocol';

/** How to run the host: a program and its arguments, plus environment to add. */
export interface HostLaunch {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

export interface HostDeath {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The end of what the host wrote to stderr (Xlib's last words, for example). */
  stderr: string;
}

export type HostStart = { ok: true; host: HostProcess } | { ok: false; cannotOpen: string } | { ok: false; died: HostDeath };

export type CallOutcome<T> = { ok: true; value: T } | { ok: false; threw: string } | { ok: false; died: HostDeath };

type Reply<M extends HostMethod> = Awaited<ReturnType<HostCalls[M]>>;

const STDERR_TAIL = 2000;
/** Loading libnut, sharp and (from the sources) compiling TypeScript; generous for a busy machine. */
const START_TIMEOUT_MS = 60_000;
const CLOSE_GRACE_MS = 3000;
/** After the exit, how long the last messages and stderr may take to arrive. */
const LAST_WORDS_MS = 500;

/**
 * The host beside this module: from the sources (tests, benches) its TypeScript through
 * bin/run-ts.js; from a build (the CLI's dist/cli/, electron-vite's out/main/), operator-host.js
 * next to the entry, run as plain Node (by Electron too, as ELECTRON_RUN_AS_NODE says).
 */
export function defaultHostLaunch(moduleUrl: string = import.meta.url): HostLaunch {
  if (moduleUrl.endsWith('.ts')) {
    return {
      command: process.execPath,
      args: [fileURLToPath(new URL('../../../bin/run-ts.js', moduleUrl)), fileURLToPath(new URL('./operator-host.ts', moduleUrl))],
    };
  }
  // Bundled code may sit in a chunk folder below the entries.
  const candidates = ['./operator-host.js', '../operator-host.js'].map((relative) => fileURLToPath(new URL(relative, moduleUrl)));
  const script = candidates.find((path) => existsSync(path)) ?? (candidates[0] as string);
  return { command: process.execPath, args: [script], env: { ELECTRON_RUN_AS_NODE: '1' } };
}

export class HostProcess {
  private readonly calls = new Map<number, (outcome: CallOutcome<unknown>) => void>();
  private nextId = 1;
  private stderrTail = '';
  private starting = false;
  private death: HostDeath | undefined;
  readonly exited: Promise<HostDeath>;

  private constructor(private readonly child: ChildProcess) {
    child.stderr?.on('data', (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL)));
    this.exited = new Promise((resolve) => {
      const died = (code: number | null, signal: NodeJS.Signals | null, why?: string) => {
        if (this.death) return;
        this.death = { code, signal, stderr: why ? `${this.stderrTail}${why}\n` : this.stderrTail };
        for (const settle of this.calls.values()) settle({ ok: false, died: this.death });
        this.calls.clear();
        this.updateRef();
        resolve(this.death);
      };
      child.once('exit', (code, signal) => {
        // Messages sent just before the exit are still in the channel: read them first. (Not
        // 'close': a helper the host started, such as a clipboard server, may keep a pipe open.)
        if (!child.connected) return died(code, signal);
        const timer = setTimeout(() => died(code, signal), LAST_WORDS_MS);
        child.once('disconnect', () => {
          clearTimeout(timer);
          died(code, signal);
        });
      });
      child.once('error', (error) => died(null, null, `could not start the operator host: ${error.message}`));
    });
    child.on('message', (message: FromHost) => {
      if (message.type !== 'result' && message.type !== 'threw') return;
      const settle = this.calls.get(message.id);
      this.calls.delete(message.id);
      settle?.(message.type === 'result' ? { ok: true, value: message.value } : { ok: false, threw: message.message });
      this.updateRef();
    });
    // Neither the process nor its pipes may keep the main process alive when nothing is asked of it.
    (child.stderr as Socket | null)?.unref();
    this.updateRef();
  }

  /** Spawns the host and waits until it holds the display, or says it cannot, or dies. */
  static start(launch: HostLaunch, env: NodeJS.ProcessEnv, options: DesktopOperatorOptions): Promise<HostStart> {
    const child = spawn(launch.command, launch.args, {
      env: { ...env, ...launch.env },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const host = new HostProcess(child);
    host.starting = true;
    host.updateRef();
    return new Promise((resolve) => {
      let cannotOpen: string | undefined;
      const timer = setTimeout(() => {
        host.stderrTail += `the operator host did not start within ${START_TIMEOUT_MS / 1000} s\n`;
        child.kill('SIGKILL');
      }, START_TIMEOUT_MS);
      const onMessage = (message: FromHost) => {
        if (message.type === 'cannot-open') cannotOpen = message.message;
        if (message.type !== 'ready') return;
        finish();
        resolve({ ok: true, host });
      };
      const finish = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        host.starting = false;
        host.updateRef();
      };
      child.on('message', onMessage);
      void host.exited.then((death) => {
        finish();
        resolve(cannotOpen !== undefined ? { ok: false, cannotOpen } : { ok: false, died: death });
      });
      host.send({ type: 'start', options });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.death === undefined;
  }

  call<M extends HostMethod>(method: M, args: Parameters<HostCalls[M]>, signal?: AbortSignal): Promise<CallOutcome<Reply<M>>> {
    if (this.death) return Promise.resolve({ ok: false, died: this.death });
    const id = this.nextId++;
    return new Promise((resolve) => {
      const onAbort = () => this.send({ type: 'cancel', id });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.calls.set(id, (outcome) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome as CallOutcome<Reply<M>>);
      });
      this.updateRef();
      this.send({ type: 'call', id, method, args } as ToHost);
      if (signal?.aborted) onAbort();
    });
  }

  /** Ends the host (it exits when its channel closes); killed if it does not within a grace period. */
  async close(): Promise<void> {
    if (this.death) return;
    this.child.ref();
    if (this.child.connected) this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), CLOSE_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private send(message: ToHost): void {
    if (!this.child.connected) return; // its death settles every call
    // A callback turns a failed send into nothing rather than an 'error' event: the exit follows.
    this.child.send(message, (error) => {
      if (error && this.child.connected) this.child.kill('SIGKILL');
    });
  }

  /** Keep the main process alive only while it waits for the host. */
  private updateRef(): void {
    const waiting = this.death === undefined && (this.starting || this.calls.size > 0);
    if (waiting) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }
}
