/**
 * Pause and resume for a run, taking effect at step boundaries: the loop asks the gate before each
 * step, and waits there while it is closed. Stopping (the run's AbortSignal) opens it.
 */
export class PauseGate {
  private closed = false;
  private waiting: Array<() => void> = [];

  pause(): void {
    this.closed = true;
  }

  resume(): void {
    this.closed = false;
    for (const wake of this.waiting.splice(0)) wake();
  }

  get paused(): boolean {
    return this.closed;
  }

  /** Resolves at once when open; else when resumed or stopped. */
  async pass(signal: AbortSignal): Promise<void> {
    if (!this.closed || signal.aborted) return;
    await new Promise<void>((resolve) => {
      const wake = () => {
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.waiting.push(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }
}
