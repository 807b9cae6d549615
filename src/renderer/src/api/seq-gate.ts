/**
 * Puts events in `seq` order per run and drops repeats: live events may overtake the catch-up
 * read of the record, and a reconnected stream starts over. A gap (an event whose predecessors
 * were not seen) is held back while `fill` reads the missing ones from the record, so a window
 * never shows step 12 without steps 1 to 11.
 */
import type { AgentEvent } from '../../../shared/events';

export type GapFiller = (runId: string, after: number) => Promise<AgentEvent[]>;

export class SeqGate {
  private readonly delivered = new Map<string, number>();
  private readonly held = new Map<string, Map<number, AgentEvent>>();
  private readonly filling = new Set<string>();

  constructor(
    private readonly deliver: (event: AgentEvent) => void,
    private readonly fill?: GapFiller,
  ) {}

  /** Events of `runId` up to `seq` are not wanted (already shown, or the caller's `since`). */
  skipThrough(runId: string, seq: number): void {
    if ((this.delivered.get(runId) ?? 0) < seq) this.delivered.set(runId, seq);
  }

  /** The last `seq` delivered for a run (0: none). */
  lastSeq(runId: string): number {
    return this.delivered.get(runId) ?? 0;
  }

  push(event: AgentEvent): void {
    const last = this.lastSeq(event.runId);
    if (event.seq <= last) return;
    if (event.seq > last + 1) {
      this.hold(event);
      return;
    }
    this.deliverInOrder(event);
  }

  private deliverInOrder(event: AgentEvent): void {
    let next: AgentEvent | undefined = event;
    const held = this.held.get(event.runId);
    while (next) {
      this.delivered.set(next.runId, next.seq);
      this.deliver(next);
      const seq: number = next.seq + 1;
      next = held?.get(seq);
      held?.delete(seq);
    }
    if (held && held.size === 0) this.held.delete(event.runId);
  }

  private hold(event: AgentEvent): void {
    let held = this.held.get(event.runId);
    if (!held) this.held.set(event.runId, (held = new Map()));
    held.set(event.seq, event);
    if (!this.fill || this.filling.has(event.runId)) return;
    const runId = event.runId;
    this.filling.add(runId);
    void this.fill(runId, this.lastSeq(runId))
      .then((events) => {
        for (const missing of events) this.push(missing);
      })
      .catch(() => undefined)
      .finally(() => this.filling.delete(runId));
  }
}
