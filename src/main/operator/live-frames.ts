/**
 * The live view of a run's display: one watcher per run, however many windows look. While anyone
 * looks, the display is grabbed at most `fps` times a second and a JPEG goes out only when the
 * pixels changed; nobody looking costs nothing. A new viewer gets the latest frame at once, so an
 * image shows even on a still screen.
 */
import type { LiveFrameOptions, LiveFrameResult } from './capture';

export interface LiveFrame {
  jpeg: Buffer;
  width: number;
  height: number;
  /** When it was grabbed (ms since the epoch). */
  at: number;
}

/** What the watcher needs of an operator. */
export interface LiveCapture {
  liveFrame(previous: string | undefined, options: LiveFrameOptions): Promise<LiveFrameResult>;
}

export interface LiveViewer {
  frame(frame: LiveFrame): void;
  /** The run ended: no frame comes any more. */
  end(): void;
}

export interface LiveFramesOptions {
  /** Frames a second at most. Default 5. */
  fps?: number;
  /** JPEG quality. Default 70: a screen of text stays legible at a fraction of the bytes. */
  quality?: number;
  display?: number | 'all';
}

export const DEFAULT_LIVE_FPS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class LiveFrames {
  private readonly viewers = new Set<LiveViewer>();
  private latest: LiveFrame | undefined;
  private latestHash: string | undefined;
  private running: Promise<void> | undefined;
  private closed = false;
  private readonly intervalMs: number;

  constructor(
    private readonly capture: LiveCapture,
    private readonly options: LiveFramesOptions = {},
  ) {
    this.intervalMs = 1000 / Math.max(0.1, options.fps ?? DEFAULT_LIVE_FPS);
  }

  get ended(): boolean {
    return this.closed;
  }

  /** Starts showing the display to a viewer; returns how to stop. An ended run ends the viewer at once. */
  watch(viewer: LiveViewer): () => void {
    if (this.closed) {
      viewer.end();
      return () => undefined;
    }
    this.viewers.add(viewer);
    if (this.latest) viewer.frame(this.latest);
    this.running ??= this.watchWhileViewed().finally(() => (this.running = undefined));
    return () => this.viewers.delete(viewer);
  }

  /** The run ended: every viewer is told, and no frame is grabbed any more. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const viewer of this.viewers) viewer.end();
    this.viewers.clear();
  }

  private async watchWhileViewed(): Promise<void> {
    while (this.viewers.size > 0 && !this.closed) {
      const started = performance.now();
      const grabbed = await this.capture.liveFrame(this.latestHash, { quality: this.options.quality ?? 70, ...(this.options.display !== undefined ? { display: this.options.display } : {}) });
      if (grabbed.ok && grabbed.changed && !this.closed) {
        this.latestHash = grabbed.hash;
        this.latest = { jpeg: Buffer.from(grabbed.jpeg), width: grabbed.width, height: grabbed.height, at: Date.now() };
        for (const viewer of this.viewers) viewer.frame(this.latest);
      }
      // A failed grab (the display going away) is tried again at the same pace; the run's end closes the view.
      // At least an interval from one grab's start to the next (a timer may fire a little early: waited out).
      let wait = this.intervalMs - (performance.now() - started);
      while (wait > 0) {
        await sleep(wait);
        wait = this.intervalMs - (performance.now() - started);
      }
    }
  }
}
