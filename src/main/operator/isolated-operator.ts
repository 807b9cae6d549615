/**
 * The Operator with the X connection in a child process (operator-host.ts), for the CLI and the
 * app. Xlib ends a process whose X server goes away with exit(1), and libnut crashes on a display
 * it cannot open; neither can be caught. Out here, the host's death is a value: the display being
 * gone becomes `kind: 'no_display'` with a message naming DISPLAY and what to do, and a host that
 * died while the display is still there (a crash, a server reset) is started again.
 *
 * Same methods as the DesktopOperator, except that displays() and pointerPosition() return result
 * values, and close() ends the host.
 */
import type { Action, Point } from '../../shared/actions';
import { actionFailure, type ActionResult } from '../../shared/action-result';
import type { DisplayInfo, Frame } from '../../shared/frame';
import type { CaptureOptions, CaptureResult, LiveFrameOptions, LiveFrameResult } from './capture';
import type { DesktopOperatorOptions, Operator } from './desktop-operator';
import { displayListening, displayLostMessage, displayUnreachableMessage } from './display-check';
import { HostExitCode, type HostCalls, type HostMethod } from './host-protocol';
import { defaultHostLaunch, HostProcess, type HostDeath, type HostLaunch } from './host-process';
import type { ScreenFingerprint } from './screen-diff';

export interface IsolatedOperatorOptions extends DesktopOperatorOptions {
  /** How to start the host; by default the one beside this module (sources or build). */
  launch?: HostLaunch;
}

/** A failure of the display itself: it cannot be opened, or it went away. */
export interface DisplayFailure {
  ok: false;
  message: string;
  kind?: 'no_display';
}

export type DisplaysResult = { ok: true; displays: DisplayInfo[] } | DisplayFailure;
export type PointerResult = { ok: true; point: Point } | DisplayFailure;

export type IsolatedOperatorLoad = { ok: true; operator: IsolatedOperator } | { ok: false; message: string };

type Reply<M extends HostMethod> = Awaited<ReturnType<HostCalls[M]>>;
type Called<T> = { ok: true; value: T } | DisplayFailure;

/** Starts of a host that died while the display stayed up (resets are short). */
const MAX_STARTS = 5;

function describeDeath(death: HostDeath): string {
  const how = death.signal ? `was killed by ${death.signal}` : `exited with code ${death.code}`;
  const said = death.stderr.trim().split('\n').filter(Boolean).slice(-2).join(' / ');
  return said ? `${how}; it said: ${said}` : how;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface IsolatedOperatorDeps {
  launch: HostLaunch;
  /** The environment of the host (DISPLAY, XAUTHORITY, ...). */
  env: NodeJS.ProcessEnv;
  options: DesktopOperatorOptions;
}

export class IsolatedOperator implements Operator {
  private current: HostProcess | undefined;
  private starting: Promise<Called<HostProcess>> | undefined;
  /** The last host went away with the display: a failed restart is worded as a loss. */
  private displayLost = false;
  /** Some host of this operator held the display once. */
  private everReady = false;
  private closed = false;
  private readonly display: string | null;

  constructor(private readonly deps: IsolatedOperatorDeps) {
    this.display = deps.env.DISPLAY?.trim() || null;
  }

  /** Starts the host now (the factory does): a display that cannot be opened is known at once. */
  async start(): Promise<Called<undefined>> {
    const host = await this.host();
    return host.ok ? { ok: true, value: undefined } : host;
  }

  async observe(options?: CaptureOptions): Promise<CaptureResult> {
    const called = await this.call('observe', [options], { retry: true });
    return called.ok ? called.value : called;
  }

  async execute(action: Action, frame: Frame, signal?: AbortSignal): Promise<ActionResult> {
    if (signal?.aborted) return actionFailure('aborted', 'the action was cancelled before it started', action.type);
    // Never repeated: an action cut short may have had part of its effect.
    const called = await this.call('execute', [action, frame], { retry: false, signal });
    if (called.ok) return called.value;
    return actionFailure(called.kind ?? 'input_failed', `${action.type}: ${called.message}`, action.type);
  }

  async fingerprint(display?: number | 'all'): Promise<ScreenFingerprint | undefined> {
    const called = await this.call('fingerprint', [display], { retry: true });
    return called.ok ? called.value : undefined;
  }

  async liveFrame(previous: string | undefined, options: LiveFrameOptions): Promise<LiveFrameResult> {
    const called = await this.call('liveFrame', [previous, options], { retry: true });
    return called.ok ? called.value : called;
  }

  async activeWindowTitle(): Promise<string | undefined> {
    const called = await this.call('activeWindowTitle', [], { retry: true });
    return called.ok ? called.value : undefined;
  }

  async displays(): Promise<DisplaysResult> {
    const called = await this.call('displays', [], { retry: true });
    return called.ok ? { ok: true, displays: called.value } : called;
  }

  async pointerPosition(): Promise<PointerResult> {
    const called = await this.call('pointerPosition', [], { retry: true });
    return called.ok ? { ok: true, point: called.value } : called;
  }

  /** Lets actions through again after the fail-safe tripped. A host started later starts untripped. */
  async resetFailSafe(): Promise<void> {
    if (this.current?.alive) await this.current.call('resetFailSafe', []);
  }

  /** The host's process id while one runs (for diagnostics and tests). */
  get hostPid(): number | undefined {
    return this.current?.alive ? this.current.pid : undefined;
  }

  /** Ends the host; calls after this fail. */
  async close(): Promise<void> {
    this.closed = true;
    await this.starting;
    await this.current?.close();
  }

  private async call<M extends HostMethod>(method: M, args: Parameters<HostCalls[M]>, how: { retry: boolean; signal?: AbortSignal }): Promise<Called<Reply<M>>> {
    for (let attempt = 1; ; attempt++) {
      const host = await this.host();
      if (!host.ok) return host;
      const outcome = await host.value.call(method, args, how.signal);
      if (outcome.ok) return outcome;
      if ('threw' in outcome) return { ok: false, message: outcome.threw };
      if (await this.lostWith(outcome.died)) return { ok: false, kind: 'no_display', message: this.goneMessage() };
      if (!how.retry || attempt >= 2) return { ok: false, message: `the process that drives the display ${describeDeath(outcome.died)}` };
      // Died while the display stayed up: a fresh host gets one more try.
    }
  }

  /** A display that was in use went away; one never opened was not there. */
  private goneMessage(): string {
    if (this.everReady || this.display === null) return displayLostMessage(this.display);
    return displayUnreachableMessage(this.display);
  }

  /** Whether the display went away with the host (remembered for the next restart's wording). */
  private async lostWith(death: HostDeath): Promise<boolean> {
    const lost =
      death.code === HostExitCode.displayLost ||
      // Xlib's own last words when the server vanished under a call.
      /XIO:|X connection to \S+ broken/.test(death.stderr) ||
      !(await displayListening(this.deps.env));
    this.displayLost = lost;
    return lost;
  }

  /** The running host, or a new one. Concurrent callers share one start. */
  private async host(): Promise<Called<HostProcess>> {
    if (this.closed) return { ok: false, message: 'the operator is closed' };
    if (this.current?.alive) return { ok: true, value: this.current };
    const dead = this.current;
    if (dead) {
      // It died between calls: was it the display?
      await this.lostWith(await dead.exited);
      if (this.current === dead) this.current = undefined;
      if (this.current?.alive) return { ok: true, value: this.current };
    }
    this.starting ??= this.startHost().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async startHost(): Promise<Called<HostProcess>> {
    // After a loss, a display that is still not there needs no process to say so.
    if (this.displayLost && !(await displayListening(this.deps.env))) return { ok: false, kind: 'no_display', message: this.goneMessage() };
    let death: HostDeath | undefined;
    for (let attempt = 1; attempt <= MAX_STARTS; attempt++) {
      const started = await HostProcess.start(this.deps.launch, this.deps.env, this.deps.options);
      if (started.ok) {
        if (this.closed) {
          await started.host.close();
          return { ok: false, message: 'the operator is closed' };
        }
        this.current = started.host;
        this.displayLost = false;
        this.everReady = true;
        return { ok: true, value: started.host };
      }
      if ('cannotOpen' in started) return { ok: false, kind: 'no_display', message: this.everReady && this.displayLost ? this.goneMessage() : started.cannotOpen };
      death = started.died;
      if (await this.lostWith(death)) return { ok: false, kind: 'no_display', message: this.goneMessage() };
      await sleep(50 * attempt);
    }
    return {
      ok: false,
      kind: 'no_display',
      message: `No display: DISPLAY=${this.display} answers, but opening it failed ${MAX_STARTS} times (the process that opens it ${describeDeath(death as HostDeath)}). Check that the X server runs normally; try again.`,
    };
  }
}

/**
 * The CLI's and the app's operator: starts the host and returns once it holds the display, or
 * says why it cannot.
 */
export async function createIsolatedOperator(options: IsolatedOperatorOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<IsolatedOperatorLoad> {
  const { launch, ...operatorOptions } = options;
  const operator = new IsolatedOperator({ launch: launch ?? defaultHostLaunch(), env, options: operatorOptions });
  const started = await operator.start();
  if (!started.ok) return { ok: false, message: started.message };
  return { ok: true, operator };
}
