/**
 * The DeviceAgent loop: observe → predict → act → remember, as a stream of typed events.
 *
 * Safe to leave running: bounded steps, cost and errors in a row; an unparseable reply goes back
 * to the model at most `maxParseRetries` times; a model that repeats itself on an unchanged
 * screen gets a note, then the run ends as stuck; sensitive actions wait for the user's yes;
 * secrets typed into password fields never reach the record. Pause and resume happen at step
 * boundaries; stopping (the AbortSignal) cancels a model call in flight.
 */
import { isControlAction, isMemoryAction, type Action } from '../../shared/actions';
import type { ActionResult } from '../../shared/action-result';
import { sumUsage, type AgentEvent, type AgentEventInput, type AskKind, type RunStatus, type UsageSummary } from '../../shared/events';
import type { Operator } from '../operator/desktop-operator';
import type { Observation } from '../operator/capture';
import type { ScreenFingerprint } from '../operator/screen-diff';
import type { ModelImage, PredictionSuccess, StepRecord, VisionModel } from '../model/types';
import type { SafetyCheck } from '../model/families';
import type { RunRecorder } from '../store/run-recorder';
import { AsyncQueue } from './async-queue';
import { confirmationNeeded, isAffirmative, rulesUseWindowTitle } from './confirmation';
import { isSecretTyping, maskAction, maskSecrets } from './masking';
import { RepetitionGuard } from './repetition';
import { DEFAULT_AGENT_OPTIONS, type AgentOptions } from './settings';
import { waitForSettle } from './settle';
import { RunMemory, type RunMemoryDeps, type StepOutcome } from './run-memory';

export interface AskRequest {
  kind: AskKind;
  question: string;
  action?: Action;
}

/** Asks the user; resolves to the answer, or null when nobody can or will answer. */
export type AskUser = (request: AskRequest, signal: AbortSignal) => Promise<string | null>;

export interface DeviceAgentDeps {
  model: VisionModel;
  operator: Operator;
  recorder: RunRecorder;
  askUser: AskUser;
  now?: () => number;
  /** Extra system text for the model, read at every step (after the run's own memory). */
  systemContext?: () => string | undefined;
  /** The memory model, the shared blackboard and the conversation; without them the run still keeps its trace, layers and pruning. */
  memory?: RunMemoryDeps;
}

interface Ending {
  status: RunStatus;
  reason: string;
  summary?: string | null;
}

function describeResult(action: Action, result: ActionResult): string {
  if (!result.ok) return `${action.type} failed (${result.error.kind}): ${result.error.message}`;
  const at = result.points?.[0] ? ` at (${result.points[0].x}, ${result.points[0].y})` : '';
  return `${action.type}${at} done${result.detail ? `: ${result.detail}` : ''}`;
}

/** Dollars with cents, or every digit the user gave when cents would round it ($0.015, not $0.01). */
function formatUsd(amount: number): string {
  const cents = amount.toFixed(2);
  return Number(cents) === amount ? cents : String(amount);
}

/**
 * A raw reply for the record: the secret may sit in it JSON-escaped twice (tool-call arguments are
 * a JSON string inside the reply's JSON), and with non-ASCII characters as \u escapes.
 */
function maskRawReply(raw: string, secrets: readonly string[]): string {
  const escaped = (text: string) => JSON.stringify(text).slice(1, -1);
  const asciiEscaped = (text: string) => escaped(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return maskSecrets(raw, [...new Set(secrets.flatMap((s) => [s, escaped(s), asciiEscaped(s), escaped(asciiEscaped(s))]))]);
}

function modelImageOf(observation: Observation): ModelImage {
  const { image, frame } = observation;
  return { image, mime: frame.image.format === 'png' ? 'image/png' : 'image/jpeg', width: frame.image.width, height: frame.image.height };
}

export class DeviceAgent {
  private readonly options: AgentOptions;
  private readonly now: () => number;
  private paused = false;
  private resumeWaiters: Array<() => void> = [];

  constructor(
    private readonly deps: DeviceAgentDeps,
    options: Partial<AgentOptions> = {},
  ) {
    this.options = { ...DEFAULT_AGENT_OPTIONS, ...options, limits: { ...DEFAULT_AGENT_OPTIONS.limits, ...options.limits } };
    this.now = deps.now ?? Date.now;
  }

  /** Takes effect at the next step boundary. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    for (const wake of this.resumeWaiters.splice(0)) wake();
  }

  get isPaused(): boolean {
    return this.paused;
  }

  run(task: string, signal: AbortSignal): AsyncIterable<AgentEvent> {
    const queue = new AsyncQueue<AgentEvent>();
    const runner = new Run(task, signal, this.deps, this.options, this.now, queue, {
      waitIfPaused: (step, emit) => this.waitIfPaused(step, signal, emit),
    });
    void runner.execute().finally(() => queue.close());
    return queue;
  }

  private async waitIfPaused(step: number, signal: AbortSignal, emit: (event: AgentEventInput) => void): Promise<void> {
    if (!this.paused || signal.aborted) return;
    emit({ type: 'paused', step });
    await new Promise<void>((resolve) => {
      const wake = () => {
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.resumeWaiters.push(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
    if (!signal.aborted) emit({ type: 'resumed', step });
  }
}

/** One run's state, so the agent object itself stays reusable. */
class Run {
  private readonly runId: string;
  private step = 0;
  private usage: UsageSummary = { inputTokens: 0, outputTokens: 0, costUsd: 0 };
  private readonly history: StepRecord[] = [];
  private feedback: string[] = [];
  private parseFailures = 0;
  private consecutiveErrors = 0;
  private readonly secrets: string[] = [];
  private readonly repetition = new RepetitionGuard();
  private acknowledged: SafetyCheck[] = [];
  private readonly memory: RunMemory;
  /** What the step did, for memory, set where the step's history is written. */
  private stepOutcome: StepOutcome | undefined;

  constructor(
    private readonly task: string,
    private readonly signal: AbortSignal,
    private readonly deps: DeviceAgentDeps,
    private readonly options: AgentOptions,
    private readonly now: () => number,
    private readonly queue: AsyncQueue<AgentEvent>,
    private readonly controls: { waitIfPaused: (step: number, emit: (event: AgentEventInput) => void) => Promise<void> },
  ) {
    this.runId = deps.recorder.sessionId;
    this.memory = new RunMemory(
      deps.memory ?? {},
      { ...options.memory, pruning: { screenshotKeepCount: options.keepScreenshots, ...options.memory?.pruning } },
      (change) => this.emit({ type: 'memory', step: this.step, change }),
    );
  }

  private emit = (event: AgentEventInput): void => {
    const full = { ...event, runId: this.runId, at: this.now() } as AgentEvent;
    if (full.type === 'thought-delta') {
      // Live only: the whole thought is recorded (masked) with the prediction. A delta may carry a
      // password the model spells out before its action reveals it to be one.
      this.queue.push({ ...full, delta: maskSecrets(full.delta, this.secrets) });
      return;
    }
    void this.deps.recorder.record(full);
    this.queue.push(full);
  };

  async execute(): Promise<void> {
    const { limits } = this.options;
    this.emit({
      type: 'run-started',
      task: this.task,
      model: this.deps.model.model,
      family: this.deps.model.family,
      limits: { maxSteps: limits.maxSteps, maxCostUsd: limits.maxCostUsd },
    });
    let ending: Ending;
    try {
      await this.memory.startRun(this.task, this.signal);
      ending = await this.loop();
      await this.memory.finishRun(ending.summary ?? `${ending.status}: ${ending.reason}`);
    } catch (error) {
      // A bug, not an expected failure: still end the run in the record, with the reason.
      ending = { status: 'failed', reason: `internal error: ${error instanceof Error ? error.message : String(error)}` };
    }
    this.emit({
      type: 'run-finished',
      status: ending.status,
      reason: ending.reason,
      summary: ending.summary ?? null,
      steps: this.step,
      usage: this.usage,
    });
    await this.deps.recorder.close();
  }

  private async loop(): Promise<Ending> {
    const { limits } = this.options;
    for (;;) {
      if (this.signal.aborted) return { status: 'aborted', reason: 'stopped by the user' };
      await this.controls.waitIfPaused(this.step, this.emit);
      if (this.signal.aborted) return { status: 'aborted', reason: 'stopped by the user' };
      if (this.step >= limits.maxSteps) return { status: 'limit', reason: `reached the limit of ${limits.maxSteps} steps` };
      this.step++;
      const started = this.now();
      this.emit({ type: 'step-started', step: this.step });
      const ending = await this.runStep();
      this.emit({ type: 'step-finished', step: this.step, durationMs: this.now() - started, costUsd: this.usage.costUsd });
      await this.deps.recorder.flush();
      if (ending) return ending;
      if (limits.maxCostUsd !== null && this.usage.costUsd >= limits.maxCostUsd) {
        return { status: 'limit', reason: `reached the cost limit of $${formatUsd(limits.maxCostUsd)} (spent $${this.usage.costUsd.toFixed(4)})` };
      }
    }
  }

  /** One step; returns how the run ends, or undefined to go on. */
  private async runStep(): Promise<Ending | undefined> {
    const { operator, model, recorder } = this.deps;
    const captured = await operator.observe(this.options.capture);
    if (!captured.ok) return this.countError('capture', `could not capture the screen: ${captured.message}`);
    const observation = captured.observation;
    const image = modelImageOf(observation);
    const screenshot = await recorder.saveScreenshot(this.step, observation.image, image.mime, image, { fullResolution: observation.fullResolution });
    this.emit({ type: 'observation', step: this.step, screenshot, frame: observation.frame });
    const screenBefore = await operator.fingerprint(this.options.capture.display);

    const feedback = this.feedback.length > 0 ? this.feedback.join('\n') : undefined;
    this.feedback = [];
    const system = [this.memory.systemText(), this.deps.systemContext?.() ?? ''].filter((part) => part.trim() !== '').join('\n\n') || undefined;
    const prediction = await model.predict(
      {
        task: this.task,
        system,
        history: this.memory.historyForModel(this.history, [system ?? '', this.task, feedback ?? '']),
        observation: image,
        feedback,
        acknowledgedSafetyChecks: this.acknowledged.length > 0 ? this.acknowledged : undefined,
      },
      this.signal,
      (delta, attempt) => this.emit({ type: 'thought-delta', step: this.step, delta, attempt }),
    );
    // Accepted safety checks go with every request that answers their call, until a reply comes:
    // after a timeout or an HTTP error the next step answers the same call again.
    if (prediction.ok || prediction.error.kind === 'parse') this.acknowledged = [];

    if (!prediction.ok) {
      if (prediction.usage) this.addUsage(prediction.usage);
      const { error } = prediction;
      if (error.kind === 'aborted' || this.signal.aborted) return { status: 'aborted', reason: 'stopped by the user during a model call' };
      if (error.kind === 'parse') {
        if (error.raw !== undefined) void recorder.saveReply?.(this.step, maskRawReply(error.raw, this.secrets));
        this.parseFailures++;
        const limit = this.options.limits.maxParseRetries;
        this.emit({ type: 'model-error', step: this.step, kind: 'parse', message: error.message, consecutive: this.parseFailures, limit });
        if (this.parseFailures > limit) {
          return { status: 'failed', reason: `the model's reply could not be parsed ${this.parseFailures} times in a row; last error: ${error.message}` };
        }
        this.feedback.push(`Your last reply could not be used: ${error.message}. Answer again in the required format, with exactly one valid action.`);
        this.history.push({ step: this.step, thought: null, actions: [], results: `reply not understood: ${error.message}`, screenshot: image, reply: error.raw });
        await this.memory.endStep(
          { step: this.step, task: this.task, thought: null, actions: [], results: [], screenshot: screenshot.path, costUsd: prediction.usage?.costUsd ?? 0, success: false, outcome: `reply not understood: ${error.message}`, error: error.message },
          this.signal,
        );
        return undefined;
      }
      if (error.kind === 'auth' || error.kind === 'not_found') {
        this.emit({ type: 'model-error', step: this.step, kind: error.kind, message: error.message, consecutive: 1, limit: 1 });
        return { status: 'failed', reason: `the model endpoint refused the request: ${error.message}` };
      }
      return this.countError(error.kind, error.message);
    }

    this.parseFailures = 0;
    this.addUsage(prediction.usage);
    this.stepOutcome = undefined;
    const ending = await this.act(prediction, observation, image, screenBefore, screenshot.path);
    if (this.stepOutcome) await this.memory.endStep(this.stepOutcome, this.signal);
    return ending;
  }

  private async act(
    prediction: PredictionSuccess,
    observation: Observation,
    image: ModelImage,
    screenBefore: ScreenFingerprint | undefined,
    screenshotPath: string,
  ): Promise<Ending | undefined> {
    const { operator } = this.deps;
    for (const action of prediction.actions) {
      if (isSecretTyping(action, prediction.thought) && action.type === 'type') this.secrets.push(action.text);
    }
    const recordedActions = prediction.actions.map((action) => this.mask(action));
    const thought = prediction.thought === null ? null : maskSecrets(prediction.thought, this.secrets);
    void this.deps.recorder.saveReply?.(this.step, maskRawReply(prediction.raw, this.secrets));
    this.emit({ type: 'prediction', step: this.step, thought, actions: recordedActions, usage: this.usageOf(prediction), attempts: prediction.attempts });
    this.memory.beginStep(this.step, thought, recordedActions);

    const results: string[] = [];
    const actionResults: ActionResult[] = [];
    const remember = () => {
      const outcome = results.join('; ') || 'no action';
      this.history.push({ step: this.step, thought, actions: recordedActions, results: outcome, screenshot: image, reply: maskSecrets(prediction.raw, this.secrets) });
      this.stepOutcome = {
        step: this.step,
        task: this.task,
        thought,
        actions: recordedActions,
        results: [...actionResults],
        screenshot: screenshotPath,
        costUsd: prediction.usage.costUsd,
        success: actionResults.every((result) => result.ok),
        outcome,
      };
    };

    for (const [index, action] of prediction.actions.entries()) {
      const shown = this.mask(action);
      if (isMemoryAction(action)) {
        const answer = await this.memory.recall(action.hint, this.signal);
        this.emit({ type: 'note', step: this.step, message: `long-term memory on "${action.hint}": ${answer}` });
        results.push(`asked the long-term memory about "${action.hint}"`);
        this.feedback.push(`Long-term memory on "${action.hint}": ${answer}`);
        continue;
      }
      if (isControlAction(action)) {
        if (action.type === 'finished') {
          remember();
          return { status: 'finished', reason: 'the model reported the task done', summary: action.summary || null };
        }
        if (action.type === 'fail') {
          remember();
          return prediction.refusal !== null
            ? { status: 'failed', reason: `the model refused: ${prediction.refusal}` }
            : { status: 'failed', reason: `the model gave up: ${action.reason}` };
        }
        const answer = await this.ask({ kind: 'question', question: action.question });
        if (answer === null) {
          remember();
          return { status: 'failed', reason: `the model asked "${action.question}" and no answer came` };
        }
        results.push(`asked the user "${action.question}"`);
        this.feedback.push(`The user answered your question "${action.question}": ${answer}`);
        continue;
      }

      const refusal = await this.confirmIfNeeded(action, prediction);
      if (refusal) {
        remember();
        return refusal;
      }

      const verdict = this.repetition.check(action, screenBefore);
      if (verdict.kind === 'stuck') {
        this.emit({ type: 'note', step: this.step, message: verdict.message });
        remember();
        return { status: 'stuck', reason: verdict.message };
      }
      if (verdict.kind === 'note') {
        this.emit({ type: 'note', step: this.step, message: verdict.message });
        this.feedback.push(verdict.message);
      }

      this.emit({ type: 'action', step: this.step, index, action: shown });
      const result = await operator.execute(action, observation.frame, this.signal);
      const recordedResult = result.ok || !this.secrets.length ? result : { ...result, error: { ...result.error, message: maskSecrets(result.error.message, this.secrets) } };
      this.emit({ type: 'action-result', step: this.step, index, action: shown, result: recordedResult });
      actionResults.push(recordedResult);
      results.push(describeResult(shown, recordedResult));
      if (!result.ok) {
        if (result.error.kind === 'user_abort') {
          remember();
          return { status: 'aborted', reason: `fail-safe: ${result.error.message}` };
        }
        if (result.error.kind === 'aborted' || this.signal.aborted) {
          remember();
          return { status: 'aborted', reason: 'stopped by the user during an action' };
        }
        remember();
        this.feedback.push(`Your action ${action.type} failed: ${recordedResult.ok ? '' : recordedResult.error.message}`);
        // The rest of this step's actions were planned for a screen that did not come about.
        return this.countError('action', describeResult(shown, recordedResult), false);
      }
    }
    this.consecutiveErrors = 0;
    remember();
    await waitForSettle(() => operator.fingerprint(this.options.capture.display), this.options.settle, this.signal);
    return undefined;
  }

  /** Asks before a sensitive action; returns the ending when the user says no. */
  private async confirmIfNeeded(action: Action, prediction: PredictionSuccess): Promise<Ending | undefined> {
    const checks = prediction.pendingSafetyChecks;
    if (checks.length > 0 && action.confirm) {
      const question = `The model's provider flagged this action: ${checks.map((check) => check.message ?? check.code ?? check.id).join('; ')}. Allow ${action.type}?`;
      const answer = await this.ask({ kind: 'safety_check', question, action: this.mask(action) });
      if (!isAffirmative(answer)) return { status: 'refused', reason: `the user did not acknowledge the safety check (${question})` };
      this.acknowledged = checks;
      return undefined;
    }
    const rules = this.options.confirmationRules;
    const title = rulesUseWindowTitle(rules) ? await this.deps.operator.activeWindowTitle() : undefined;
    const need = confirmationNeeded(action, rules, title);
    if (!need) return undefined;
    const question = `${need.reason}. Allow ${action.type} ${JSON.stringify(this.mask(action))}?`;
    const answer = await this.ask({ kind: 'confirmation', question, action: this.mask(action) });
    if (!isAffirmative(answer)) return { status: 'refused', reason: `the user refused the action (${need.reason})` };
    return undefined;
  }

  private async ask(request: AskRequest): Promise<string | null> {
    this.emit({ type: 'ask-user', step: this.step, kind: request.kind, question: request.question, ...(request.action ? { action: request.action } : {}) });
    const answer = this.signal.aborted ? null : await this.deps.askUser(request, this.signal);
    this.emit({ type: 'user-answer', step: this.step, kind: request.kind, answer });
    if (request.kind === 'question') await this.memory.question(request.question, answer, this.signal);
    return answer;
  }

  /** Counts an error in a row; ends the run when there have been too many. */
  private countError(kind: string, message: string, emitEvent = true): Ending | undefined {
    this.consecutiveErrors++;
    const limit = this.options.limits.maxConsecutiveErrors;
    if (emitEvent) this.emit({ type: 'model-error', step: this.step, kind, message, consecutive: this.consecutiveErrors, limit });
    if (this.consecutiveErrors >= limit) return { status: 'failed', reason: `${this.consecutiveErrors} errors in a row; last: ${message}` };
    return undefined;
  }

  private mask(action: Action): Action {
    return action.type === 'type' && this.secrets.includes(action.text) ? maskAction(action) : action;
  }

  private usageOf(prediction: PredictionSuccess): UsageSummary {
    const { inputTokens, outputTokens, costUsd } = prediction.usage;
    return { inputTokens, outputTokens, costUsd };
  }

  private addUsage(usage: UsageSummary): void {
    this.usage = sumUsage(this.usage, usage);
  }

}

