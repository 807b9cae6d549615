/**
 * The run's context: what the launcher builds once for every kind of run (src/main/service/
 * run-launcher.ts) and every engine (the agent, the replayer, the workflow runner, the
 * demonstration, the single action) works through. Engines do their own job only: none builds
 * one, sums usage or masks text.
 *
 * Events: each gets the run id, the time and the next `seq`, goes to the recorder (an ordered
 * writer in the background) and to the live stream (`events`). Thought deltas are coalesced
 * (a model streaming token by token would otherwise flood every subscriber) and reach the record
 * only when the next other event is emitted: by then the step's typed secrets are known, and a
 * password the model spelled out in its thought before its action revealed it is masked.
 *
 * Masking, once, on the way out: every event is masked where it is stamped, with the redaction
 * policy (the settings' secrets: the API key, ...) and the secrets typed so far; the recorder
 * writes it as stamped. A raw reply is masked once in `saveReply`. A streamed thought holds back a
 * tail that may be the start of a secret, so a key cut between two deltas is still masked whole.
 *
 * Usage: the engines say what each model call spent (`spend`); the step's end carries the sum.
 * Totals: every emitted event goes through the shared fold (src/shared/run-totals.ts), so a
 * step's `costUsd`, the cost limit and the run-finished usage are what every reader of the record
 * computes from it.
 *
 * Questions, confirmations (the run's rules), the pause gate and the takeover are the context's
 * too. The record before acting: `checkpoint()` waits until everything recorded so far is
 * written, and ends the run when something could not be: no action without a record.
 */
import type { Action } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import type { ConfirmationRule } from '../../shared/config';
import { sumUsage, ZERO_USAGE, type Actor, type AgentEvent, type AgentEventInput, type AgentEventOf, type StepTimings, type UsageSummary } from '../../shared/events';
import { addToTotals, NO_TOTALS, type RunTotals } from '../../shared/run-totals';
import type { Frame } from '../../shared/frame';
import { SecretMask, type Redactor } from '../../shared/secret-mask';
import type { Operator } from '../operator/desktop-operator';
import type { RunRecorder } from '../store/run-recorder';
import type { AskRequest, AskUser } from './ask';
import { AsyncQueue } from './async-queue';
import { confirmationNeeded, isAffirmative, rulesUseWindowTitle } from './confirmation';
import type { Ending } from './ending';
import { MASK, maskSecrets, SecretSet } from './masking';
import { PauseGate } from './pause-gate';
import { waitForSettle, type SettleOptions, type SettleOutcome } from './settle';
import type { Takeover } from './takeover';
import type { RunElements } from './elements';

export interface RunLifecycleDeps {
  recorder: RunRecorder;
  operator: Operator;
  askUser: AskUser;
  now?: () => number;
  /** Shared with whoever pauses the run (the agent, the run service). */
  gate?: PauseGate;
  /** Said as notes right after run-started, before the first step (a disk nearly full). */
  notices?: readonly string[];
  /** The redaction policy, applied to every event (the settings' secrets, whole or by pieces of 8 characters or more). */
  redaction?: Redactor;
  /** When to ask before an action (the settings' agent.confirmationRules); an action the model marked `confirm` is always asked about. */
  confirmationRules?: readonly ConfirmationRule[];
  /** The user taking the run over and handing it back (runs the agent serves); absent: it cannot be taken over. */
  takeover?: Takeover;
  /**
   * The accessibility tree of the run's display (run/elements.ts): element actions, the element
   * each click hit, the read-back of typing and toggles. Absent (no bus, or a run that does not
   * ask for it): pixels only.
   */
  elements?: RunElements;
}

/** Deltas that arrive within this long go out as one event. */
const THOUGHT_COALESCE_MS = 40;

interface PendingThought {
  step: number;
  attempt: number;
  text: string;
  /** Null while only a held-back tail waits (it goes out with the next delta or event). */
  timer: ReturnType<typeof setTimeout> | null;
}

export class RunLifecycle {
  readonly events = new AsyncQueue<AgentEvent>();
  readonly secrets: SecretSet;
  readonly runId: string;
  /** Pause and resume, shared with whoever pauses the run (its live handle). */
  readonly gate: PauseGate;
  private readonly now: () => number;
  private seq = 0;
  /** What the step in progress spent so far (`spend`), said and reset by `finishStep`. */
  private stepUsage: UsageSummary = { ...ZERO_USAGE };
  /** Emitted thought deltas not yet recorded, with how many typed secrets were known when each was masked (see the module comment). */
  private unrecordedThoughts: Array<{ event: AgentEventOf<'thought-delta'>; typedKnown: number }> = [];
  private pendingThought: PendingThought | null = null;
  private runTotals: RunTotals = NO_TOTALS;
  /** Set once run-finished was emitted (by the engine's `finish` or a `quit`): what comes after is dropped. */
  private ending: Promise<void> | null = null;

  constructor(
    private readonly deps: RunLifecycleDeps,
    readonly signal: AbortSignal,
  ) {
    this.runId = deps.recorder.sessionId;
    this.secrets = new SecretSet(deps.redaction ?? SecretMask.none);
    this.now = deps.now ?? Date.now;
    this.gate = deps.gate ?? new PauseGate();
  }

  get recorder(): RunRecorder {
    return this.deps.recorder;
  }

  get operator(): Operator {
    return this.deps.operator;
  }

  get clock(): () => number {
    return this.now;
  }

  get takeover(): Takeover | undefined {
    return this.deps.takeover;
  }

  get elements(): RunElements | undefined {
    return this.deps.elements;
  }

  /** The steps finished so far and what they spent, folded from the events emitted. */
  get totals(): RunTotals {
    return this.runTotals;
  }

  /**
   * The model's raw reply for the step into the record (where the recorder keeps replies), masked
   * here, once, as the reply may hold the typed secrets JSON-escaped. Returns it as kept.
   */
  saveReply(step: number, raw: string): string {
    const kept = this.secrets.rawReply(raw);
    void this.deps.recorder.saveReply?.(step, kept);
    return kept;
  }

  /** Stamps (masking it, once: the settings' and the typed secrets), records and streams one event; returns it as stamped. */
  emit = (input: AgentEventInput): AgentEvent => {
    // After the end (a quit while the engine was still at work), the engine's events go nowhere.
    if (this.ending) return this.stamp(input);
    this.flushThought();
    this.recordThoughts();
    const event = this.stamp(input);
    void this.deps.recorder.record(event);
    this.events.push(event);
    if (input.type === 'run-started') for (const message of this.deps.notices ?? []) this.emit({ type: 'note', step: 0, message });
    return event;
  };

  /** Part of the thought as it streams; coalesced, masked with the secrets known so far. */
  thought(step: number, delta: string, attempt: number): void {
    if (this.ending) return;
    const pending = this.pendingThought;
    if (pending && (pending.step !== step || pending.attempt !== attempt)) this.flushThought();
    const timer = () => setTimeout(() => this.flushThought(false), THOUGHT_COALESCE_MS);
    if (this.pendingThought) {
      this.pendingThought.text += delta;
      this.pendingThought.timer ??= timer();
      return;
    }
    this.pendingThought = { step, attempt, text: delta, timer: timer() };
  }

  /** `final`: everything goes out; otherwise a tail that may be the start of a secret waits. */
  private flushThought(final = true): void {
    const pending = this.pendingThought;
    if (!pending) return;
    if (pending.timer) clearTimeout(pending.timer);
    const held = final ? 0 : this.secrets.heldTail(pending.text);
    this.pendingThought = held > 0 ? { ...pending, text: pending.text.slice(pending.text.length - held), timer: null } : null;
    const text = pending.text.slice(0, pending.text.length - held);
    if (text === '') return;
    const event = this.stamp({ type: 'thought-delta', step: pending.step, delta: text, attempt: pending.attempt }) as AgentEventOf<'thought-delta'>;
    this.unrecordedThoughts.push({ event, typedKnown: this.secrets.list.length });
    this.events.push(event);
  }

  /** The streamed deltas into the record; a secret typed since one streamed is masked in it now. */
  private recordThoughts(): void {
    for (const { event, typedKnown } of this.unrecordedThoughts.splice(0)) {
      const learned = this.secrets.list.slice(typedKnown);
      void this.deps.recorder.record(learned.length === 0 ? event : { ...event, delta: maskSecrets(event.delta, learned) });
    }
  }

  private stamp(input: AgentEventInput): AgentEvent {
    const event = this.secrets.event({ ...input, runId: this.runId, at: this.now(), seq: ++this.seq } as AgentEvent);
    this.runTotals = addToTotals(this.runTotals, event);
    return event;
  }

  /**
   * Waits at a step boundary while the run is paused. First lets the consumers of the stream see
   * what was emitted (they run on promise callbacks), so a pause asked for in reaction to a step's
   * end takes effect before the next step.
   */
  async waitIfPaused(step: number): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    if (!this.gate.paused || this.signal.aborted) return;
    this.emit({ type: 'paused', step });
    await this.gate.pass(this.signal);
    if (!this.signal.aborted) this.emit({ type: 'resumed', step });
  }

  /**
   * Asks the user. The ask-user event's `seq` is the question's id; a `secret` answer is
   * recorded masked.
   */
  async ask(step: number, request: AskRequest, options: { secret?: boolean } = {}): Promise<string | null> {
    const asked = this.emit({ type: 'ask-user', step, kind: request.kind, question: request.question, ...(request.action ? { action: request.action } : {}) });
    const answer = this.signal.aborted ? null : await this.deps.askUser({ ...request, id: asked.seq }, this.signal);
    this.emit({ type: 'user-answer', step, kind: request.kind, answer: options.secret && answer ? MASK : answer, questionId: asked.seq });
    return answer;
  }

  /** A model call of the step in progress (failed ones included): its tokens and cost go on the step's end. */
  spend(usage: UsageSummary): void {
    this.stepUsage = sumUsage(this.stepUsage, { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costUsd: usage.costUsd });
  }

  /**
   * The step's end: what it spent (every `spend` since the last step's end) and, as `costUsd`,
   * the run's cost with it, which is what the fold of the record gives after this event.
   */
  finishStep(step: number, durationMs: number, timings?: StepTimings, actor?: Actor): void {
    const usage = this.stepUsage;
    this.stepUsage = { ...ZERO_USAGE };
    const costUsd = this.runTotals.usage.costUsd + usage.costUsd;
    this.emit({ type: 'step-finished', step, durationMs, costUsd, usage, ...(timings ? { timings } : {}), ...(actor ? { actor } : {}) });
  }

  /**
   * Before an action on the desktop: asks the user when the action itself or a confirmation rule
   * wants a yes. Returns the refusal (a no, or nobody to answer), or undefined to go ahead.
   */
  async confirm(step: number, action: Action): Promise<Ending | undefined> {
    const rules = this.deps.confirmationRules ?? [];
    const title = rulesUseWindowTitle(rules) ? await this.deps.operator.activeWindowTitle() : undefined;
    const need = confirmationNeeded(action, rules, title);
    if (!need) return undefined;
    const shown = this.secrets.action(action);
    const question = `${need.reason}. Allow ${action.type} ${JSON.stringify(shown)}?`;
    const answer = await this.ask(step, { kind: 'confirmation', question, action: shown });
    return isAffirmative(answer) ? undefined : { status: 'refused', reason: `the user refused the action (${need.reason})` };
  }

  /**
   * Executes one action, emitting it and its result as `shown` (the recorded, masked form).
   * Returns the result as recorded: an error message never carries a typed secret. The user's
   * own actions (a takeover) come the same way, marked with their actor.
   */
  async execute(step: number, index: number, action: Action, frame: Frame, shown: Action = this.secrets.action(action), actor?: Actor): Promise<ActionResult> {
    const by = actor ? { actor } : {};
    this.emit({ type: 'action', step, index, action: shown, ...by });
    const operator = this.deps.operator;
    const elements = this.deps.elements;
    const outcome = elements
      ? await elements.execute(action, frame, (plain, on) => operator.execute(plain, on, this.signal))
      : await operator.execute(action, frame, this.signal);
    const typedSecret = action !== shown && (action.type === 'type' || action.type === 'type_into') ? [action.text] : [];
    const result: ActionResult =
      outcome.ok || (this.secrets.list.length === 0 && typedSecret.length === 0)
        ? outcome
        : { ...outcome, error: { ...outcome.error, message: this.withExtra(typedSecret).text(outcome.error.message) } };
    this.emit({ type: 'action-result', step, index, action: shown, result, ...by });
    return result;
  }

  /** The run's secrets and a few more (a secret the user typed in for a replay). */
  private withExtra(extra: readonly string[]): SecretSet {
    const set = new SecretSet();
    for (const secret of [...this.secrets.list, ...extra]) set.add(secret);
    return set;
  }

  /**
   * Before each action on the desktop: the record of everything before it must be written (for
   * the step's later actions that is one short append). Returns the ending when it could not be:
   * a full disk, a removed folder. The reason names the cause and the folder.
   */
  async checkpoint(): Promise<Ending | undefined> {
    await this.deps.recorder.written();
    const failure = this.deps.recorder.failure;
    return failure === null ? undefined : { status: 'failed', reason: `the session could not be recorded, so the run stopped before acting: ${failure}` };
  }

  /** Waits until the screen stops changing (bounded); the last fingerprint comes back. */
  settle(display: number | 'all' | undefined, options: SettleOptions): Promise<SettleOutcome> {
    return waitForSettle(() => this.deps.operator.fingerprint(display), options, this.signal);
  }

  /**
   * The run's end in the record: run-finished (with the totals of its steps), then the recorder
   * closed and the stream ended. Once only: a run that was quit keeps the ending it was given.
   */
  finish(ending: Ending, steps: number): Promise<void> {
    if (this.ending) return this.ending;
    this.emit({ type: 'run-finished', status: ending.status, reason: ending.reason, summary: ending.summary ?? null, steps, usage: { ...this.runTotals.usage } });
    this.ending = this.deps.recorder.close().then(() => this.events.close());
    return this.ending;
  }

  /**
   * Ends the run now, without waiting for the engine to reach its next boundary (the user asked
   * to quit at once): `aborted`, with the steps finished so far and everything emitted before it
   * written. What the engine does afterwards is not recorded.
   */
  quit(reason: string): Promise<void> {
    return this.finish({ status: 'aborted', reason }, this.runTotals.steps);
  }
}
