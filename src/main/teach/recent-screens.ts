/**
 * The screen as it was just before each of the user's actions. An action's effect shows on the
 * screen within milliseconds of its first event, before anything could capture it, so the screen
 * is captured all along (one capture every `intervalMs`, back to back at most) and an action gets
 * the latest capture begun before its first event. A typed text's screenshot is the one from
 * before its first key, however long the typing lasts: `keepFrom` holds on to it while the action
 * is open, and only a few captures are held otherwise.
 */
import type { CaptureResult, Observation } from '../operator/capture';

export interface RecentScreensOptions {
  /** Pause between two captures. */
  intervalMs: number;
  /** Captures held besides the one an open action needs. */
  keep: number;
}

export const DEFAULT_RECENT_SCREENS: RecentScreensOptions = { intervalMs: 250, keep: 8 };

export class RecentScreens {
  /** Oldest first. */
  private screens: Observation[] = [];
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;
  private lastFailure: string | null = null;
  private keepFromTime: number | null = null;

  constructor(
    private readonly capture: () => Promise<CaptureResult>,
    private readonly options: RecentScreensOptions = DEFAULT_RECENT_SCREENS,
  ) {}

  /** Takes the first capture (a failure is the answer) and goes on capturing in the background. */
  async start(): Promise<{ ok: true } | { ok: false; message: string }> {
    const first = await this.capture();
    if (!first.ok) return first;
    this.screens.push(first.observation);
    this.running = true;
    this.loop = this.captureAll();
    return { ok: true };
  }

  /** Why the last capture failed, while captures fail; null when they work. */
  get failure(): string | null {
    return this.lastFailure;
  }

  /** The latest capture begun before `time` (ms since the epoch); the oldest held when none was. */
  before(time: number): Observation {
    let chosen = this.screens[0] as Observation;
    for (const screen of this.screens) if (screen.capturedAt < time) chosen = screen;
    return chosen;
  }

  /** The newest capture when it was begun after `time` (the screen since an action began); else null. */
  newestAfter(time: number): Observation | null {
    const newest = this.screens.at(-1);
    return newest && newest.capturedAt > time ? newest : null;
  }

  /** An action open since `time` (null: none) still needs the capture from before it. */
  keepFrom(time: number | null): void {
    this.keepFromTime = time;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async captureAll(): Promise<void> {
    while (this.running) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, this.options.intervalMs);
      });
      this.wake = null;
      if (!this.running) return;
      const captured = await this.capture();
      if (!captured.ok) {
        this.lastFailure = captured.message;
        continue;
      }
      this.lastFailure = null;
      this.screens.push(captured.observation);
      this.prune();
    }
  }

  private prune(): void {
    const { keep } = this.options;
    if (this.screens.length <= keep) return;
    const needed = this.keepFromTime === null ? null : this.before(this.keepFromTime);
    const recent = this.screens.slice(-keep);
    this.screens = needed && !recent.includes(needed) ? [needed, ...recent] : recent;
  }
}
