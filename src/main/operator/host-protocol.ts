/**
 * The messages between the main process and the operator host (operator-host.ts), a child process
 * that owns the X connection. They travel over Node's IPC channel with `serialization: 'advanced'`
 * (structured clone), so Buffers and typed arrays arrive as such.
 */
import type { Action, Point } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import type { DisplayInfo, Frame } from '../../shared/frame';
import type { CaptureOptions, CaptureResult, LiveFrameOptions, LiveFrameResult } from './capture';
import type { DesktopOperatorOptions } from './desktop-operator';
import type { ScreenFingerprint } from './screen-diff';

/** What the host does for the main process: the DesktopOperator's methods, one to one. */
export interface HostCalls {
  observe(options?: CaptureOptions): Promise<CaptureResult>;
  /** Cancelled by a `cancel` message carrying the call's id. */
  execute(action: Action, frame: Frame): Promise<ActionResult>;
  fingerprint(display?: number | 'all'): Promise<ScreenFingerprint | undefined>;
  liveFrame(previous: string | undefined, options: LiveFrameOptions): Promise<LiveFrameResult>;
  activeWindowTitle(): Promise<string | undefined>;
  displays(): Promise<DisplayInfo[]>;
  pointerPosition(): Promise<Point>;
  resetFailSafe(): Promise<void>;
}

export type HostMethod = keyof HostCalls;

export type ToHost =
  | { type: 'start'; options: DesktopOperatorOptions }
  | { [M in HostMethod]: { type: 'call'; id: number; method: M; args: Parameters<HostCalls[M]> } }[HostMethod]
  | { type: 'cancel'; id: number };

export type FromHost =
  /** The display is open and held, libnut loaded: calls may come. */
  | { type: 'ready' }
  /** The display cannot be opened; the message says why and what to do. The host exits next. */
  | { type: 'cannot-open'; message: string }
  | { type: 'result'; id: number; value: unknown }
  /** The call threw: a bug, or libnut failing underneath. */
  | { type: 'threw'; id: number; message: string };

/** Exit codes of the host that mean something to the main process. */
export const HostExitCode = {
  /** The X server closed the host's connection: it was stopped or crashed. */
  displayLost: 70,
  /** The host could not open the display (it sent `cannot-open` first). */
  cannotOpen: 71,
} as const;
