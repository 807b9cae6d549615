/**
 * Follows the batches of a data directory for the window: while anyone listens, the journals are
 * read again every POLL_MS, and each batch whose rows or progress changed is told as one change
 * (its summary and the rows that changed). A new listener is first told every batch whole, so one
 * that (re)connects misses nothing that happened while it read the list or was away. Reading the disk, not the runner, is the point: a batch
 * run by another process (`mnemo batch run` in a terminal) updates the window as one run here does.
 */
import type { BatchChange, BatchDetail } from '../../../shared/batch';
import { batchChange } from './batch-views';

const POLL_MS = 400;

export interface BatchWatchDeps {
  read: () => Promise<{ batches: BatchDetail[] }>;
  pollMs?: number;
}

export class BatchWatch {
  /** Each listener, and whether it has been told every batch whole yet. */
  private readonly listeners = new Map<(change: BatchChange) => void, { primed: boolean }>();
  private known: Map<string, BatchDetail> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(private readonly deps: BatchWatchDeps) {}

  /** Starts following: every batch whole at the next read, then each change; returns the unsubscribe. */
  subscribe(listener: (change: BatchChange) => void): () => void {
    this.listeners.set(listener, { primed: false });
    if (this.listeners.size === 1 && !this.closed) this.schedule(0);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.pause();
    };
  }

  close(): void {
    this.closed = true;
    this.pause();
  }

  private pause(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.known = null;
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => void this.poll(), delay);
    this.timer.unref?.();
  }

  private async poll(): Promise<void> {
    try {
      const { batches } = await this.deps.read();
      const before = this.known;
      const next = new Map(batches.map((batch) => [batch.id, batch]));
      if (this.listeners.size === 0) return;
      this.known = next;
      for (const [listener, state] of [...this.listeners]) {
        for (const batch of batches) {
          const change = batchChange(state.primed ? (before?.get(batch.id) ?? null) : null, batch);
          if (change) listener(change);
        }
        state.primed = true;
      }
    } finally {
      if (this.listeners.size > 0 && !this.closed) this.schedule(this.deps.pollMs ?? POLL_MS);
    }
  }
}
