/**
 * Taking over a run and handing it back. The user asks; the agent stops at the next moment it
 * would act (a model call in flight is cancelled: its actions were planned for a screen the user
 * is about to change) and waits at the step boundary. Meanwhile the user's actions come in one by
 * one, each carried out by the run itself as a step of the user's, through the same execute path
 * and into the same record as the agent's. The hand-back resumes the agent, which is told what the
 * user did, in the coordinates of its own image, and the user's note.
 *
 * Input outside a takeover is refused with a reason, never queued for later.
 */
import type { Action } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';

export type InputOutcome = { ok: true; step: number; result: ActionResult } | { ok: false; reason: string };

export type TakeoverAnswer = { ok: true } | { ok: false; reason: string };

/** What the loop is given while the run is taken over. */
export type TakeoverTurn =
  | { kind: 'input'; action: Action; settle: (outcome: InputOutcome) => void }
  | { kind: 'handback'; note: string | null }
  /** The run was stopped. */
  | { kind: 'stopped' };

export class Takeover {
  private active = false;
  private readonly inputs: Array<{ action: Action; settle: (outcome: InputOutcome) => void }> = [];
  private handedBack: { note: string | null } | null = null;
  private wake: (() => void) | undefined;
  private interrupter = new AbortController();
  private endedBecause: string | null = null;

  /** Whether the user holds the run (from the request until the hand-back). */
  get takenOver(): boolean {
    return this.active;
  }

  /**
   * Aborted the moment a takeover is asked for: the loop passes it to what it may cancel (the
   * model call). A new one after each hand-back.
   */
  get interrupt(): AbortSignal {
    return this.interrupter.signal;
  }

  take(): TakeoverAnswer {
    if (this.endedBecause !== null) return { ok: false, reason: this.endedBecause };
    if (this.active) return { ok: true };
    this.active = true;
    this.handedBack = null;
    this.interrupter.abort();
    return { ok: true };
  }

  /** One action of the user's, in screen pixels of the run's display; resolves once it was carried out. */
  input(action: Action): Promise<InputOutcome> {
    if (this.endedBecause !== null) return Promise.resolve({ ok: false, reason: this.endedBecause });
    if (!this.active) return Promise.resolve({ ok: false, reason: 'the run is not taken over: take it over first (POST /api/runs/<id>/takeover)' });
    return new Promise((settle) => {
      this.inputs.push({ action, settle });
      this.poke();
    });
  }

  handBack(note?: string | null): TakeoverAnswer {
    if (this.endedBecause !== null) return { ok: false, reason: this.endedBecause };
    if (!this.active) return { ok: false, reason: 'the run is not taken over, so there is nothing to hand back' };
    this.active = false;
    const trimmed = note?.trim() ?? '';
    this.handedBack = { note: trimmed === '' ? null : trimmed };
    this.interrupter = new AbortController();
    this.poke();
    return { ok: true };
  }

  /**
   * For the loop, while taken over: the next input, else the hand-back, else it waits. The inputs
   * sent before the hand-back are all carried out first.
   */
  async next(signal: AbortSignal): Promise<TakeoverTurn> {
    for (;;) {
      const input = this.inputs.shift();
      if (input) return { kind: 'input', ...input };
      if (signal.aborted) return { kind: 'stopped' };
      if (this.handedBack) {
        const { note } = this.handedBack;
        this.handedBack = null;
        return { kind: 'handback', note };
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** The run ended (or cannot be taken over): waiting inputs are refused, later calls too. */
  end(reason: string): void {
    this.endedBecause = reason;
    this.active = false;
    for (const input of this.inputs.splice(0)) input.settle({ ok: false, reason });
    this.poke();
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
