/**
 * A run (or replay) in progress, as every front end sees it: its events (live, or caught up from
 * any `seq`), pause, resume, stop, and the answers to its questions.
 *
 * Catching up: the events up to what the recorder has written are read back from the session
 * record; the ones after it are still held here (`unwritten`); everything newer arrives live.
 * A subscriber takes the held events and starts receiving live ones in the same synchronous
 * moment, then reads the record, and the three are merged by `seq`: no gap, no duplicate, however
 * far behind it starts. Only the not-yet-written tail is kept in memory, so a long run costs
 * nothing here.
 */
import type { Action } from '../../../shared/actions';
import type { LiveStatus, RunKind } from '../../../shared/app-api';
import type { RunDesktop } from '../../../shared/desktop';
import type { AgentEvent, RunStatus, UsageSummary } from '../../../shared/events';
import type { LiveFrames } from '../../operator/live-frames';
import { AsyncQueue } from '../../run/async-queue';
import type { AskUser, PendingQuestion } from '../../run/ask';
import type { PauseGate } from '../../run/pause-gate';
import type { InputOutcome, Takeover, TakeoverAnswer } from '../../run/takeover';
import { readSession } from '../../store/session-reader';
import type { RunRecorder } from '../../store/run-recorder';

export interface RunOutcome {
  status: RunStatus;
  reason: string;
  steps: number;
  usage: UsageSummary;
  /** The first write to the session record that failed, if any. */
  recordFailure: string | null;
}

export interface RunHandle {
  /** The session id. */
  readonly id: string;
  readonly kind: RunKind;
  readonly task: string;
  /** The session folder. */
  readonly directory: string;
  /** The conversation a task belongs to (runs only). */
  readonly conversationId: string | null;
  /** The desktop it works on: the user's display or a private one; `display` names it (`:0`, `:201`). */
  readonly desktop: RunDesktop;
  /** Events with `seq` greater than `since` (default 0: all), then the live ones until the run ends. */
  events(since?: number): AsyncIterable<AgentEvent>;
  /** The events after `since` that exist now, without following the run. */
  eventsSoFar(since?: number): Promise<AgentEvent[]>;
  pause(): void;
  resume(): void;
  readonly paused: boolean;
  /** Stops the run (a model call in flight is cancelled); it ends `aborted`. */
  stop(): void;
  /**
   * Ends the run at once, without waiting for the engine to wind down (a second, deliberate
   * Ctrl+C): recorded `aborted` with every event so far. Resolves when the record is closed.
   */
  quit(): Promise<void>;
  /**
   * Answers a question (its id is the `seq` of its ask-user event; undefined: the one waiting).
   * False when no such question waits.
   */
  answer(questionId: number | undefined, reply: string | null): boolean;
  /** The question waiting for an answer, if any. */
  readonly pendingQuestion: PendingQuestion | null;
  /** Resolves when the run has ended and its record is closed. */
  readonly done: Promise<RunOutcome>;
  /** What it is doing now: running, paused, taken over (the user has it), asking. */
  readonly status: LiveStatus;
  /** The user takes the run over: the agent stops after the action in progress. */
  takeOver(): TakeoverAnswer;
  /** One action of the user's, in pixels of the run's display; refused outside a takeover. */
  input(action: Action): Promise<InputOutcome>;
  /** Gives the run back to the agent, which is told what the user did and the note. */
  handBack(note?: string | null): TakeoverAnswer;
  /** The run's display, live; null when its operator cannot watch it. */
  readonly live: LiveFrames | null;
}

interface Waiting {
  question: PendingQuestion;
  resolve: (answer: string | null) => void;
}

export interface LiveRunInit {
  kind: RunKind;
  task: string;
  recorder: RunRecorder;
  dataDir: string;
  conversationId: string | null;
  desktop: RunDesktop;
  gate: PauseGate;
  stop: AbortController;
  /** Ends the record at once (RunLifecycle.quit). */
  quit: () => Promise<void>;
  /** Answers every question at once with null (a run nobody watches interactively). */
  nobodyAnswers?: boolean;
  /** Absent: the run cannot be taken over (a replay). */
  takeover?: Takeover;
  live?: LiveFrames | null;
}

export class LiveRun implements RunHandle {
  readonly id: string;
  readonly kind: RunKind;
  readonly task: string;
  readonly directory: string;
  readonly conversationId: string | null;
  readonly desktop: RunDesktop;
  readonly done: Promise<RunOutcome>;
  readonly live: LiveFrames | null;
  private readonly unwritten: AgentEvent[] = [];
  private readonly subscribers = new Set<AsyncQueue<AgentEvent>>();
  private readonly waiting = new Map<number, Waiting>();
  private lastSeq = 0;
  private ended = false;
  private finish!: (outcome: RunOutcome) => void;
  private finished: AgentEvent | null = null;

  constructor(private readonly init: LiveRunInit) {
    this.id = init.recorder.sessionId;
    this.kind = init.kind;
    this.task = init.task;
    this.directory = init.recorder.directory;
    this.conversationId = init.conversationId;
    this.desktop = init.desktop;
    this.live = init.live ?? null;
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  /** The AskUser the run is built with: questions wait here for `answer`. */
  readonly askUser: AskUser = (question, signal) => {
    if (this.init.nobodyAnswers || signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const onAbort = () => settle(null);
      const settle = (answer: string | null) => {
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(question.id);
        resolve(answer);
      };
      this.waiting.set(question.id, { question, resolve: settle });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  };

  /** Feeds the run's event stream through; call once with the agent's or the replayer's stream. */
  async pump(events: AsyncIterable<AgentEvent>, afterEnd: () => Promise<void>): Promise<void> {
    try {
      for await (const event of events) {
        this.lastSeq = event.seq;
        this.unwritten.push(event);
        this.dropWritten();
        if (event.type === 'run-finished') this.finished = event;
        for (const subscriber of this.subscribers) subscriber.push(event);
      }
    } finally {
      // The user cannot hold a run that has ended, nor watch it.
      this.init.takeover?.end('the run has ended');
      this.live?.close();
      await afterEnd().catch(() => undefined);
      this.ended = true;
      for (const subscriber of this.subscribers) subscriber.close();
      this.subscribers.clear();
      const end = this.finished?.type === 'run-finished' ? this.finished : null;
      this.finish({
        status: end?.status ?? 'failed',
        reason: end?.reason ?? 'the run ended without a run-finished event',
        steps: end?.steps ?? 0,
        usage: end?.usage ?? { inputTokens: 0, outputTokens: 0, costUsd: 0 },
        recordFailure: this.init.recorder.failure,
      });
    }
  }

  private dropWritten(): void {
    const written = this.init.recorder.writtenSeq;
    let drop = 0;
    while (drop < this.unwritten.length && (this.unwritten[drop] as AgentEvent).seq <= written) drop++;
    if (drop > 0) this.unwritten.splice(0, drop);
  }

  events(since = 0): AsyncIterable<AgentEvent> {
    // Synchronously: the held tail and the live subscription, so nothing falls between them.
    this.dropWritten();
    const held = this.unwritten.filter((event) => event.seq > since);
    const live = new AsyncQueue<AgentEvent>();
    if (this.ended) live.close();
    else this.subscribers.add(live);
    const firstHeld = held[0]?.seq ?? this.lastSeq + 1;
    const needsRecord = since + 1 < firstHeld;
    const { dataDir, recorder } = this.init;
    const id = this.id;
    const subscribers = this.subscribers;
    return {
      async *[Symbol.asyncIterator]() {
        let delivered = since;
        try {
          if (needsRecord) {
            const read = await readSession(dataDir, id);
            const recorded = read.ok ? read.session.events : [];
            for (const event of recorded) {
              if (event.seq <= delivered || event.seq >= firstHeld) continue;
              delivered = event.seq;
              yield event;
            }
            if (delivered + 1 < firstHeld && recorder.failure === null) {
              // Should not happen: the record and the held tail always meet. Say so rather than hide it.
              throw new Error(`catching up session ${id}: events ${delivered + 1}–${firstHeld - 1} are neither recorded nor held`);
            }
          }
          for (const event of held) {
            if (event.seq <= delivered) continue;
            delivered = event.seq;
            yield event;
          }
          for await (const event of live) {
            if (event.seq <= delivered) continue;
            delivered = event.seq;
            yield event;
          }
        } finally {
          subscribers.delete(live);
        }
      },
    };
  }

  /** The events after `since` that exist now (recorded, then not yet written), without following. */
  async eventsSoFar(since = 0): Promise<AgentEvent[]> {
    this.dropWritten();
    const held = this.unwritten.filter((event) => event.seq > since);
    const firstHeld = held[0]?.seq ?? this.lastSeq + 1;
    const events: AgentEvent[] = [];
    if (since + 1 < firstHeld) {
      const read = await readSession(this.init.dataDir, this.id);
      if (read.ok) events.push(...read.session.events.filter((event) => event.seq > since && event.seq < firstHeld));
    }
    return [...events, ...held];
  }

  pause(): void {
    this.init.gate.pause();
  }

  resume(): void {
    this.init.gate.resume();
  }

  get paused(): boolean {
    return this.init.gate.paused;
  }

  stop(): void {
    this.init.stop.abort();
    // A paused run must wake up to end.
    this.init.gate.resume();
  }

  quit(): Promise<void> {
    this.stop();
    return this.init.quit();
  }

  answer(questionId: number | undefined, reply: string | null): boolean {
    const waiting = questionId === undefined ? [...this.waiting.values()][0] : this.waiting.get(questionId);
    if (!waiting) return false;
    waiting.resolve(reply);
    return true;
  }

  get pendingQuestion(): PendingQuestion | null {
    return [...this.waiting.values()][0]?.question ?? null;
  }

  get status(): LiveStatus {
    if (this.init.takeover?.takenOver) return 'taken over';
    if (this.pendingQuestion) return 'asking';
    return this.paused ? 'paused' : 'running';
  }

  takeOver(): TakeoverAnswer {
    const takeover = this.init.takeover;
    if (!takeover) return { ok: false, reason: `a ${this.kind} cannot be taken over: pause it or stop it` };
    const taken = takeover.take();
    // A paused run wakes up to wait for the user instead.
    if (taken.ok) this.init.gate.resume();
    return taken;
  }

  input(action: Action): Promise<InputOutcome> {
    const takeover = this.init.takeover;
    if (!takeover) return Promise.resolve({ ok: false, reason: `a ${this.kind} cannot be taken over, so it takes no input` });
    return takeover.input(action);
  }

  handBack(note?: string | null): TakeoverAnswer {
    const takeover = this.init.takeover;
    if (!takeover) return { ok: false, reason: `a ${this.kind} cannot be taken over, so there is nothing to hand back` };
    return takeover.handBack(note);
  }
}
