/**
 * The Operator on the real desktop: observe = capture, execute = map through the Frame and drive
 * libnut (nut.ts). Every expected failure comes back as an ActionResult value.
 */
import { actionPoints, isElementAction, type Action, type ImagePoint, type Point, type ScreenPoint } from '../../shared/actions';
import { actionFailure, type ActionResult } from '../../shared/action-result';
import type { DisplayInfo, Frame } from '../../shared/frame';
import type { Key } from './native-keys';
import { ScreenCapture, type CaptureOptions, type CaptureResult, type LiveFrameOptions, type LiveFrameResult } from './capture';
import { listDisplays } from './displays';
import { imageToScreen } from './geometry';
import { AbortedError, NutInput, type InputOptions } from './input';
import { loadNut, type NutModule } from './nut';
import type { ScreenFingerprint } from './screen-diff';

export interface Operator {
  observe(options?: CaptureOptions): Promise<CaptureResult>;
  execute(action: Action, frame: Frame, signal?: AbortSignal): Promise<ActionResult>;
  /** A cheap thumbnail for change detection; undefined when it cannot be had. */
  fingerprint(display?: number | 'all'): Promise<ScreenFingerprint | undefined>;
  /** The title of the focused window, for confirmation rules; undefined when unknown. */
  activeWindowTitle(): Promise<string | undefined>;
  /** A live-view frame when the screen changed since `previous` (operators that can watch the display). */
  liveFrame?(previous: string | undefined, options: LiveFrameOptions): Promise<LiveFrameResult>;
}

export interface FailSafeOptions {
  enabled: boolean;
  /** The pointer within this many px of the top-left corner (0,0) trips the fail-safe. */
  cornerPx: number;
}

const DISPLAY_CACHE_MS = 5000;

export const DEFAULT_FAIL_SAFE: FailSafeOptions = { enabled: true, cornerPx: 2 };

export interface DesktopOperatorOptions {
  input?: Partial<InputOptions>;
  failSafe?: Partial<FailSafeOptions>;
  capture?: CaptureOptions;
}

type Mapped = { ok: true; points: ScreenPoint[] } | { ok: false; message: string };

function mapPoints(points: readonly ImagePoint[], frame: Frame): Mapped {
  const mapped: ScreenPoint[] = [];
  for (const point of points) {
    const result = imageToScreen(point, frame);
    if (!result.ok) return result;
    mapped.push(result.point);
  }
  return { ok: true, points: mapped };
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class DesktopOperator implements Operator {
  private readonly capture: ScreenCapture;
  private readonly input: NutInput;
  private readonly failSafe: FailSafeOptions;
  private failSafeTripped = false;
  private displayCache: { at: number; list: Promise<DisplayInfo[]> } | undefined;

  constructor(
    private readonly nut: NutModule,
    private readonly options: DesktopOperatorOptions = {},
  ) {
    this.capture = new ScreenCapture({ nut, listDisplays: () => this.displays() });
    this.input = new NutInput(nut, options.input);
    this.failSafe = { ...DEFAULT_FAIL_SAFE, ...options.failSafe };
  }

  /**
   * The display list, cached briefly: listing spawns xrandr (tens of ms), far too slow to repeat
   * at every observation, while monitors come and go rarely.
   */
  displays(): Promise<DisplayInfo[]> {
    const now = Date.now();
    if (!this.displayCache || now - this.displayCache.at > DISPLAY_CACHE_MS) {
      const list = listDisplays(async () => ({ width: await this.nut.screen.width(), height: await this.nut.screen.height() }));
      this.displayCache = { at: now, list };
      list.catch(() => (this.displayCache = undefined));
    }
    return this.displayCache.list;
  }

  observe(options?: CaptureOptions): Promise<CaptureResult> {
    return this.capture.capture({ ...this.options.capture, ...options });
  }

  fingerprint(display?: number | 'all'): Promise<ScreenFingerprint | undefined> {
    return this.capture.fingerprint(display ?? this.options.capture?.display);
  }

  liveFrame(previous: string | undefined, options: LiveFrameOptions): Promise<LiveFrameResult> {
    return this.capture.liveFrame(previous, { ...options, display: options.display ?? this.options.capture?.display });
  }

  async activeWindowTitle(): Promise<string | undefined> {
    try {
      return await this.nut.activeWindowTitle();
    } catch {
      return undefined;
    }
  }

  pointerPosition(): Promise<Point> {
    return this.input.position();
  }

  /** Lets actions through again after the fail-safe tripped (the user's explicit decision). */
  resetFailSafe(): void {
    this.failSafeTripped = false;
  }

  get failSafeActive(): boolean {
    return this.failSafeTripped;
  }

  async execute(action: Action, frame: Frame, signal?: AbortSignal): Promise<ActionResult> {
    const started = performance.now();
    if (signal?.aborted) return actionFailure('aborted', 'the action was cancelled before it started', action.type);
    const refusal = await this.checkFailSafe();
    if (refusal) return { ...refusal, type: action.type };
    // Element numbers mean something only to the run that listed them (run/elements.ts acts on them through the tree).
    if (isElementAction(action)) return actionFailure('unsupported', `${action.type} needs the elements of the display's accessibility tree, and this run has none: act by coordinates instead`, action.type);

    const mapped = mapPoints(actionPoints(action), frame);
    if (!mapped.ok) return actionFailure('out_of_bounds', mapped.message, action.type);

    const keyNames = 'keys' in action ? action.keys : 'modifiers' in action ? (action.modifiers ?? []) : [];
    const keys = this.input.resolveKeys(keyNames);
    if (!keys.ok) return actionFailure('unsupported', keys.message, action.type);

    try {
      const detail = await this.perform(action, mapped.points, keys.groups, signal);
      if (detail === false) return actionFailure('aborted', 'the action was cancelled', action.type);
      if (typeof detail === 'object') return actionFailure('input_failed', `${action.type} failed: ${detail.failed}`, action.type);
      return {
        ok: true,
        type: action.type,
        ...(mapped.points.length > 0 ? { points: mapped.points } : {}),
        ...(detail ? { detail } : {}),
        durationMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      if (error instanceof AbortedError) {
        await this.input.releaseAll().catch(() => undefined);
        return actionFailure('aborted', error.message, action.type);
      }
      return actionFailure('input_failed', `${action.type} failed: ${error instanceof Error ? error.message : String(error)}`, action.type);
    }
  }

  /** Returns a note for the result, false when a wait was cancelled, or why the input failed. */
  private async perform(action: Action, points: ScreenPoint[], keys: Key[][], signal?: AbortSignal): Promise<string | undefined | false | { failed: string }> {
    const [point] = points;
    switch (action.type) {
      case 'click':
        await this.input.click(point as ScreenPoint, action.button, 1, keys, signal);
        return undefined;
      case 'double_click':
        await this.input.click(point as ScreenPoint, action.button, 2, keys, signal);
        return undefined;
      case 'triple_click':
        await this.input.click(point as ScreenPoint, action.button, 3, keys, signal);
        return undefined;
      case 'mouse_move':
        // Nothing is pressed after a move alone: the loop observes next, so no hover pause.
        await this.input.moveTo(point as ScreenPoint, false);
        return undefined;
      case 'mouse_down':
        await this.input.mouseDown(point, action.button);
        return undefined;
      case 'mouse_up':
        await this.input.mouseUp(point, action.button);
        return undefined;
      case 'drag':
        // The mapped path: a drag's points are always there (the schema asks for a start and an end).
        await this.input.drag(points, action.button, signal, keys);
        return undefined;
      case 'scroll':
        await this.input.scroll(point, action.direction, action.amount, keys);
        return `scrolled ${action.direction} ${action.amount}${action.modifiers?.length ? ` with ${action.modifiers.join('+')} held` : ''}`;
      case 'type': {
        const typed = await this.input.type(action.text, signal);
        if (!typed.ok) return { failed: typed.message };
        return `typed ${[...action.text].length} characters (${typed.keystrokes} keystrokes, ${typed.pasted} pasted)`;
      }
      case 'hotkey': {
        const pressed = await this.input.hotkey(action.keys);
        return pressed.ok ? `pressed ${action.keys.join('+')}` : { failed: pressed.message };
      }
      case 'key_down':
        await this.input.keyDown(keys);
        return `holding ${action.keys.join('+')}`;
      case 'key_up':
        await this.input.keyUp(keys);
        return `released ${action.keys.join('+')}`;
      case 'wait':
        return (await abortableSleep(action.ms, signal)) ? `waited ${action.ms} ms` : false;
      case 'zoom':
        // Nothing on the desktop: the loop's next look is the region.
        return 'the next screenshot is this region';
      case 'screenshot':
      case 'query_long_term_memory':
      case 'save_fact':
      case 'run_workflow':
      case 'click_element':
      case 'type_into':
      case 'finished':
      case 'ask_user':
      case 'fail':
        // Nothing to do on the desktop: the loop observes next, or ends, or asks.
        return undefined;
    }
  }

  private async checkFailSafe(): Promise<ActionResult | undefined> {
    if (!this.failSafe.enabled) return undefined;
    if (!this.failSafeTripped) {
      const { x, y } = await this.input.position();
      if (x <= this.failSafe.cornerPx && y <= this.failSafe.cornerPx) this.failSafeTripped = true;
    }
    if (!this.failSafeTripped) return undefined;
    return actionFailure(
      'user_abort',
      `fail-safe: the mouse is in the top-left corner of the screen; actions are refused until the fail-safe is reset (move the mouse away and reset)`,
    );
  }
}

export type OperatorLoad = { ok: true; operator: DesktopOperator } | { ok: false; message: string };

/** Checks the display, loads libnut and builds the operator; a missing display is a message. */
export async function createDesktopOperator(options: DesktopOperatorOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<OperatorLoad> {
  const nut = await loadNut(env);
  if (!nut.ok) return nut;
  return { ok: true, operator: new DesktopOperator(nut.nut, options) };
}
