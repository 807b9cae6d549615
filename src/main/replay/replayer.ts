/**
 * Re-execution: a recorded session's actions run again on the desktop, without the model, as a
 * stream of the same events the agent loop emits (and recorded as a new session by the recorder
 * it is given, created with `replayOf`).
 *
 * Before each recorded step the live screen is captured at the recorded image size and compared
 * with the step's recorded screenshot, as a whole and around each action's target (divergence.ts).
 * On divergence the policy decides:
 *   stop      the replay fails, before the step acts, naming the step, the target and the difference;
 *   ask       the user answers yes (replay the recorded actions anyway), skip (go on with the next
 *             step), reground (when a model is given) or anything else: the replay ends `refused`;
 *   reground  the model finds the same targets on the live screen (reground.ts); its actions run.
 *
 * Typed secrets are masked in the record (`********`) and cannot be replayed: under `ask` the user
 * is asked to type the text (the answer is recorded masked); under `stop` and `reground` the replay
 * fails at that step, before it acts. Actions the recording marked `confirm` ask the user again.
 *
 * Timing: the pause between two recorded step starts, divided by `speed`, separates the replayed
 * steps (never less than the replayed step itself took); `wait` actions are divided by it too;
 * speed 0 replays without waiting. After each step the screen is left to settle, as in the loop.
 * The AbortSignal stops it at any point: before a step, during a wait, an action, a model call or a
 * question; the run then ends `aborted`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Action } from '../../shared/actions';
import { ZERO_USAGE, type AgentEvent } from '../../shared/events';
import type { Frame } from '../../shared/frame';
import type { ModelImage, VisionModel } from '../model/types';
import type { CaptureOptions } from '../operator/capture';
import type { AskRequest } from '../run/ask';
import { isAffirmative } from '../run/confirmation';
import { abortableDelay, internalError, STOPPED, type Ending } from '../run/ending';
import type { RunLifecycle } from '../run/lifecycle';
import { MASK } from '../run/masking';
import { DEFAULT_SETTLE, type SettleOptions } from '../run/settle';
import type { SessionRecord } from '../store/session-reader';
import {
  assessDivergence,
  decodeGrey,
  DEFAULT_DIVERGENCE_THRESHOLDS,
  describeDivergence,
  summarizeMeasurements,
  type DivergenceThresholds,
} from './divergence';
import { planReplay, targetsOf, type PlannedStep } from './plan';
import { describeAction } from '../../shared/describe-action';
import type { ReplayPolicy } from './policy';
import { reground } from './reground';
import { actRecorded, modelImageOf } from './act';

export { REPLAY_POLICIES, type ReplayPolicy } from './policy';

export interface ReplayOptions {
  policy: ReplayPolicy;
  /** Recorded pauses are divided by this; 0 replays without waiting. Default 1. */
  speed?: number;
  thresholds?: Partial<DivergenceThresholds>;
  settle?: SettleOptions;
  /** The display, JPEG quality, capture source. The image size and format follow the recording. */
  capture?: CaptureOptions;
}

/** What a replay needs besides its run's context (the lifecycle the launcher built, recording it as a new session with `replayOf`). */
export interface ReplayerDeps {
  /** Needed only for the `reground` policy (and offered under `ask`). */
  model?: VisionModel;
}

type Decision = 'recorded' | 'skip' | 'reground' | Ending;

export class Replayer {
  constructor(private readonly deps: ReplayerDeps = {}) {}

  /** Replays the session on the run's context; the events are the context's (`life.events`). */
  replay(session: SessionRecord, options: ReplayOptions, life: RunLifecycle): AsyncIterable<AgentEvent> {
    void new ReplayRun(session, options, life, this.deps).execute();
    return life.events;
  }
}

/** One replay's state, so the Replayer stays reusable. */
class ReplayRun {
  private readonly now: () => number;
  private readonly thresholds: DivergenceThresholds;
  private readonly speed: number;
  private readonly signal: AbortSignal;
  private replayed = 0;
  private regrounded = 0;
  /** The step being replayed (0 before the first), for events about questions. */
  private current = 0;

  constructor(
    private readonly session: SessionRecord,
    private readonly options: ReplayOptions,
    private readonly life: RunLifecycle,
    private readonly deps: ReplayerDeps,
  ) {
    this.now = life.clock;
    this.signal = life.signal;
    this.thresholds = { ...DEFAULT_DIVERGENCE_THRESHOLDS, ...options.thresholds };
    this.speed = options.speed ?? 1;
  }

  private emit = (...args: Parameters<RunLifecycle['emit']>): void => {
    this.life.emit(...args);
  };

  async execute(): Promise<void> {
    let ending: Ending;
    let lastStep = 0;
    try {
      const plan = planReplay(this.session);
      this.emit({
        type: 'run-started',
        task: this.session.meta.task,
        model: this.deps.model?.model ?? 'none',
        family: this.deps.model?.family ?? 'none',
        limits: { maxSteps: plan.length, maxCostUsd: null },
        replayOf: this.session.meta.id,
      });
      const outcome = await this.loop(plan);
      ending = outcome.ending;
      lastStep = outcome.lastStep;
    } catch (error) {
      ending = internalError(error);
    }
    await this.life.finish(ending, lastStep);
  }

  private async loop(plan: PlannedStep[]): Promise<{ ending: Ending; lastStep: number }> {
    const id = this.session.meta.id;
    if (this.options.policy === 'reground' && !this.deps.model) {
      return { ending: { status: 'failed', reason: 'the reground policy needs a model (--base-url, --model, --family)' }, lastStep: 0 };
    }
    if (plan.length === 0) return { ending: { status: 'finished', reason: `session ${id} has no recorded actions to replay` }, lastStep: 0 };
    let previous: { recordedAt: number | null; replayedAt: number } | null = null;
    let lastStep = 0;
    let summary: string | null = null;
    for (const step of plan) {
      if (this.signal.aborted) return { ending: STOPPED, lastStep };
      await this.life.waitIfPaused(lastStep);
      if (this.signal.aborted) return { ending: STOPPED, lastStep };
      if (previous && previous.recordedAt !== null && step.startedAt !== null && this.speed > 0) {
        const due = previous.replayedAt + (step.startedAt - previous.recordedAt) / this.speed;
        await abortableDelay(due - this.now(), this.signal);
        if (this.signal.aborted) return { ending: STOPPED, lastStep };
      }
      const started = this.now();
      previous = { recordedAt: step.startedAt, replayedAt: started };
      lastStep = step.step;
      this.current = step.step;
      this.emit({ type: 'step-started', step: step.step });
      const ending = await this.replayStep(step);
      this.life.finishStep(step.step, this.now() - started);
      void this.life.recorder.flush();
      if (ending) return { ending, lastStep };
      if (step.finished) summary = step.finished.summary;
    }
    const found = this.regrounded > 0 ? `, ${this.regrounded} of them found again with the model` : '';
    const recordedEnd = this.session.meta.status === 'finished' ? '' : ` (the recorded run ended ${this.session.meta.status})`;
    return { ending: { status: 'finished', reason: `replayed ${this.replayed} recorded step${this.replayed === 1 ? '' : 's'} of session ${id}${found}${recordedEnd}`, summary }, lastStep };
  }

  /** One recorded step; returns how the replay ends, or undefined to go on. */
  private async replayStep(step: PlannedStep): Promise<Ending | undefined> {
    const { operator, recorder } = this.life;
    const n = step.step;
    for (const message of step.skipped) this.emit({ type: 'note', step: n, message });

    // Secrets first: a step that cannot be completed must not start.
    const secrets = await this.secretTexts(step);
    if (!Array.isArray(secrets)) return secrets;

    const recordedImage = step.frame?.image;
    const captured = await operator.observe({
      ...this.options.capture,
      ...(recordedImage ? { maxWidth: recordedImage.width, maxHeight: recordedImage.height, format: recordedImage.format } : {}),
    });
    if (!captured.ok) return { status: 'failed', reason: `step ${n}: could not capture the screen: ${captured.message}` };
    const live = captured.observation;
    const liveImage = modelImageOf(live);
    const screenshot = recorder.saveScreenshot(n, live.image, liveImage.mime, liveImage);
    this.emit({ type: 'observation', step: n, screenshot, frame: live.frame });

    const recorded = await this.recordedScreenshot(step);
    let difference: string | null;
    if (recorded === null) {
      difference = 'the recording has no screenshot of this step to compare with';
    } else {
      try {
        const report = assessDivergence(await decodeGrey(recorded.image), await decodeGrey(live.image), targetsOf(step.actions), this.thresholds);
        difference = report.diverged ? describeDivergence(report, this.thresholds) : null;
        if (difference !== null) this.emit({ type: 'note', step: n, message: `step ${n} diverges: ${difference} [${summarizeMeasurements(report)}]` });
      } catch (error) {
        difference = `the recorded screenshot cannot be decoded (${error instanceof Error ? error.message : String(error)})`;
      }
    }

    let decision: Decision = 'recorded';
    if (difference !== null) decision = await this.onDivergence(step, difference);
    if (typeof decision === 'object') return decision;
    if (decision === 'skip') {
      this.emit({ type: 'note', step: n, message: `step ${n} skipped` });
      return undefined;
    }
    if (step.actions.length === 0) {
      // The recorded run ended here as done: nothing to do on the desktop.
      this.emit({ type: 'prediction', step: n, thought: step.thought, actions: [{ type: 'finished', summary: step.finished?.summary ?? '' }], usage: ZERO_USAGE, attempts: 0 });
      return undefined;
    }

    let actions: Array<{ run: Action; shown: Action }>;
    let frame: Frame;
    if (decision === 'reground') {
      const found = await this.reground(step, recorded, liveImage, difference ?? '');
      if (!found.ok) return found.ending;
      actions = found.actions.map((action) => ({ run: action, shown: action }));
      frame = live.frame;
    } else {
      actions = step.actions.map((planned, i) => ({
        run: planned.secret && planned.action.type === 'type' ? { ...planned.action, text: secrets[i] ?? '' } : planned.action,
        shown: planned.action,
      }));
      this.emit({ type: 'prediction', step: n, thought: step.thought, actions: actions.map((a) => a.shown), usage: ZERO_USAGE, attempts: 0 });
      // Recorded coordinates are pixels of the recorded image: map them onto the live display.
      frame = recordedImage ? { ...live.frame, image: { ...recordedImage } } : live.frame;
    }

    const ending = await actRecorded(this.life, n, actions, frame, { speed: this.speed, ask: (request) => this.ask(request) });
    if (ending) return ending;
    this.replayed++;
    await this.life.settle(this.options.capture?.display, this.options.settle ?? DEFAULT_SETTLE);
    return this.signal.aborted ? STOPPED : undefined;
  }

  /** The typed texts of the step's masked secrets (by action position), or how the replay ends. */
  private async secretTexts(step: PlannedStep): Promise<Array<string | undefined> | Ending> {
    const texts: Array<string | undefined> = [];
    for (const [i, planned] of step.actions.entries()) {
      if (!planned.secret) {
        texts.push(undefined);
        continue;
      }
      if (this.options.policy !== 'ask') {
        return {
          status: 'failed',
          reason: `step ${step.step} types a secret that the recording masks (${MASK}): it cannot be replayed; replay with the ask policy to type it yourself`,
        };
      }
      const answer = await this.ask(
        { kind: 'question', question: `Step ${step.step} types a secret (action ${i + 1}) that the recording masks. Type it to go on; an empty answer stops the replay.` },
        true,
      );
      if (this.signal.aborted) return STOPPED;
      if (answer === null || answer === '') return { status: 'refused', reason: `step ${step.step} types a masked secret and no text was given for it` };
      texts.push(answer);
    }
    return texts;
  }

  private async recordedScreenshot(step: PlannedStep): Promise<ModelImage | null> {
    const ref = step.screenshot;
    if (!ref) return null;
    try {
      const image = await readFile(join(this.session.directory, ref.path));
      return { image, mime: ref.mime, width: ref.width, height: ref.height };
    } catch {
      return null;
    }
  }

  private async onDivergence(step: PlannedStep, difference: string): Promise<Decision> {
    const n = step.step;
    const what = step.actions.length > 0 ? step.actions.map((a) => describeAction(a.action)).join(', then ') : 'the end of the run';
    switch (this.options.policy) {
      case 'stop':
        return { status: 'failed', reason: `step ${n} (${what}) diverged from the recording: ${difference}; the replay stopped before acting` };
      case 'reground':
        // An end-of-run step has no target to find again: the difference is noted and accepted.
        return step.actions.length > 0 ? 'reground' : 'recorded';
      case 'ask': {
        // A masked secret would reach the model as the mask: such a step is not offered to it.
        const canReground = this.deps.model !== undefined && step.actions.length > 0 && !step.actions.some((a) => a.secret);
        const question =
          `Step ${n} (${what}) differs from the recording: ${difference}. ` +
          `Replay it as recorded anyway (yes), skip it (skip)${canReground ? ', find the target again with the model (reground)' : ''}, or stop (no)?`;
        const answer = await this.ask({ kind: 'confirmation', question });
        if (this.signal.aborted) return STOPPED;
        if (isAffirmative(answer)) return 'recorded';
        const word = answer?.trim().toLowerCase();
        if (word === 'skip') return 'skip';
        if (word === 'reground' && canReground) return 'reground';
        return {
          status: 'refused',
          reason: answer === null ? `step ${n} diverged from the recording and no answer came: ${difference}` : `the user stopped the replay at step ${n}, which diverged from the recording: ${difference}`,
        };
      }
    }
  }

  private async reground(
    step: PlannedStep,
    recorded: ModelImage | null,
    live: ModelImage,
    difference: string,
  ): Promise<{ ok: true; actions: Action[] } | { ok: false; ending: Ending }> {
    const model = this.deps.model;
    const n = step.step;
    if (!model) return { ok: false, ending: { status: 'failed', reason: `step ${n} diverged and no model is set to find the target again: ${difference}` } };
    const result = await reground(
      model,
      { task: this.session.meta.task, step: n, thought: step.thought, actions: step.actions.map((a) => a.action), recorded, live, difference },
      this.signal,
      (delta, attempt) => this.life.thought(n, delta, attempt),
    );
    if (!result.ok) {
      if (result.usage) this.life.spend(result.usage);
      if (result.aborted) return { ok: false, ending: { status: 'aborted', reason: 'stopped by the user during a model call' } };
      this.emit({ type: 'model-error', step: n, kind: 'reground', message: result.reason, consecutive: 1, limit: 1 });
      return { ok: false, ending: { status: 'failed', reason: `step ${n} diverged (${difference}) and the model could not find the target again: ${result.reason}` } };
    }
    const { prediction } = result;
    this.life.spend(prediction.usage);
    this.emit({
      type: 'prediction',
      step: n,
      thought: prediction.thought,
      actions: result.actions,
      usage: { inputTokens: prediction.usage.inputTokens, outputTokens: prediction.usage.outputTokens, costUsd: prediction.usage.costUsd },
      attempts: prediction.attempts,
    });
    this.emit({ type: 'note', step: n, message: `step ${n} found again by the model: ${result.actions.map((action) => describeAction(action)).join(', then ')}` });
    this.regrounded++;
    return { ok: true, actions: result.actions };
  }

  /** Asks the user; a secret answer is recorded masked. */
  private ask(request: AskRequest, secret = false): Promise<string | null> {
    return this.life.ask(this.current, request, { secret });
  }

}

