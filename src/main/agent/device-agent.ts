/**
 * The DeviceAgent loop: observe → predict → act → settle, then the step's value goes to the
 * history and the memory, as a stream of typed events (the run lifecycle in src/main/run/ emits,
 * records, asks and executes; the replayer is its peer on the same lifecycle).
 *
 * Safe to leave running: bounded steps, cost and errors in a row; an unparseable reply goes back
 * to the model at most `maxParseRetries` times; a model that repeats itself on an unchanged
 * screen gets a note, then the run ends as stuck; sensitive actions wait for the user's yes;
 * secrets typed into password fields never reach the record; a display that is gone or a record
 * that cannot be written ends the run before the next action. Pause and resume happen at step
 * boundaries; stopping (the AbortSignal) cancels a model call in flight.
 *
 * The critical path of a step is observe → predict → act → settle: recording runs in the
 * background, the screen fingerprint the repetition guard needs comes from the previous settle
 * (or is taken while the model thinks), and only the few screenshots the model still sees are
 * read back from the record.
 */
import { actionPoints, isElementAction, type Action, type ActionOf } from '../../shared/actions';
import type { AgentEvent, AgentEventOf, StepErrorKind, StepTimings } from '../../shared/events';
import { formatUsdLimit } from '../../shared/format';
import type { CaptureOptions, Observation } from '../operator/capture';
import { imageRectToScreen, imageToScreen, screenToImage } from '../operator/geometry';
import type { ScreenFingerprint } from '../operator/screen-diff';
import type { ModelImage, PredictInput, PredictionSuccess, VisionModel, ZoomedRegion } from '../model/types';
import type { Rect } from '../../shared/frame';
import type { CaptureRequest, SafetyCheck } from '../model/families';
import type { ProviderProbe } from '../model/provider-check';
import { coordinateFrameOf, describeCoordinates, pointSpeaker } from '../model/speak';
import type { AskRequest } from '../run/ask';
import { aimsAtPoint, BatchLooks, describeCut, judgeNextAction, type BatchVerdict } from '../run/batch-guard';
import { isAffirmative } from '../run/confirmation';
import { internalError, STOPPED, type Ending } from '../run/ending';
import type { RunLifecycle } from '../run/lifecycle';
import { isSecretTyping } from '../run/masking';
import type { RunWorkflows } from '../run/run-workflows';
import { describeHandback, serveTakeover } from '../run/user-steps';
import { kindOf, StepAccount, type ActingAgent, type StepActs } from './action-kinds';
import type { CompletedStep, StepCapture } from './completed-step';
import { RepetitionGuard } from './repetition';
import { DEFAULT_AGENT_OPTIONS, withinImageLimits, type AgentOptions } from './settings';
import { RunMemory, type RunMemoryDeps } from './run-memory';
import { StepHistory } from './step-history';

export type { AskRequest, AskUser, PendingQuestion } from '../run/ask';

/**
 * What the agent needs besides its run's context (the lifecycle the launcher built: recorder,
 * operator, questions, pause gate, redaction, confirmation rules, takeover).
 */
export interface DeviceAgentDeps {
  model: VisionModel;
  /** Extra system text for the model, read at every step (after the run's own memory). */
  systemContext?: () => string | undefined;
  /** The memory model, the shared blackboard and the conversation; without them the run still keeps its trace, layers and pruning. */
  memory?: RunMemoryDeps;
  /** Checks the provider before step 1: a failure retrying cannot fix ends the run at once. */
  preflight?: (signal: AbortSignal) => Promise<ProviderProbe>;
  /** Saved workflows: offered in the instructions where they match the task, run by `run_workflow`. */
  workflows?: RunWorkflows;
}

function modelImageOf(observation: Observation): ModelImage {
  const { image, frame } = observation;
  return { image, mime: frame.image.format === 'png' ? 'image/png' : 'image/jpeg', width: frame.image.width, height: frame.image.height };
}

export class DeviceAgent {
  private readonly options: AgentOptions;

  constructor(
    private readonly deps: DeviceAgentDeps,
    options: Partial<AgentOptions> = {},
  ) {
    this.options = { ...DEFAULT_AGENT_OPTIONS, ...options, limits: { ...DEFAULT_AGENT_OPTIONS.limits, ...options.limits } };
  }

  /** Runs the task on the run's context; the events are the context's (`life.events`). */
  run(task: string, life: RunLifecycle, extra: { conversationId?: string } = {}): AsyncIterable<AgentEvent> {
    void new AgentRun(task, life, this.deps, this.options, extra.conversationId).execute();
    return life.events;
  }
}

/** What a step ended with: its value for history and memory, how the run ends (if it does), its timings. */
interface StepEnd {
  completed?: CompletedStep;
  ending?: Ending;
}

/** One run of the agent: its state lives here, so the DeviceAgent stays reusable. */
class AgentRun {
  private step = 0;
  private readonly history = new StepHistory();
  private feedback: string[] = [];
  /** The model's `run_workflow`, run once its step is over (its steps follow as steps of the run). */
  private pendingWorkflow: ActionOf<'run_workflow'> | null = null;
  private parseFailures = 0;
  private consecutiveErrors = 0;
  private readonly repetition = new RepetitionGuard();
  private acknowledged: SafetyCheck[] = [];
  private readonly memory: RunMemory;
  /** The screen after the last settle: what the next step's repetition check compares against. */
  private settledScreen: ScreenFingerprint | undefined;
  private timings: StepTimings = {};
  /** The capture options, kept within the image size the model takes. */
  private readonly capture: CaptureOptions;
  /** The model's `zoom`: the next step's screenshot is this region of the screen, told as such. */
  private zoomNext: { region: Rect; said: ZoomedRegion } | null = null;
  /** The display the fingerprints cover (a zoomed screenshot's frame covers only its region). */
  private displayBounds: Rect | undefined;
  /** The elements aid could not be had on this display: said once. */
  private elementsUnavailableSaid = false;
  /** What the kinds of action (action-kinds.ts) may ask of this run. */
  private readonly acting: ActingAgent = this.actingAgent();

  constructor(
    private readonly task: string,
    private readonly life: RunLifecycle,
    private readonly deps: DeviceAgentDeps,
    private readonly options: AgentOptions,
    private readonly conversationId: string | undefined,
  ) {
    this.capture = withinImageLimits(options.capture, deps.model.imageLimits);
    this.memory = new RunMemory(
      { ...deps.memory, sessionId: this.life.runId, onProblem: (message) => this.life.emit({ type: 'note', step: this.step, message: `memory: ${message}` }) },
      { ...options.memory, pruning: { screenshotKeepCount: options.keepScreenshots, ...options.memory?.pruning } },
      (change) => this.life.emit({ type: 'memory', step: this.step, change }),
      // Said when it happens, not after the run: the memory the next run relies on is not kept.
      (message) => this.life.emit({ type: 'note', step: this.step, message: `${message}; the run goes on, but this memory is not kept` }),
    );
  }

  private get signal(): AbortSignal {
    return this.life.signal;
  }

  private actingAgent(): ActingAgent {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below read the run's state when asked, not now
    const run = this;
    return {
      get life() {
        return run.life;
      },
      get step() {
        return run.step;
      },
      get hasWorkflows() {
        return run.deps.workflows !== undefined;
      },
      tellModel: (text) => void this.feedback.push(text),
      note: (message) => void this.life.emit({ type: 'note', step: this.step, message }),
      runWorkflowNext: (action) => {
        this.pendingWorkflow = action;
      },
      saveFact: (action) => this.memory.saveFact(action),
      recall: (hint) => this.memory.recall(hint, this.signal),
      ask: (request) => this.ask(request),
      confirm: (action, prediction) => this.confirmIfNeeded(action, prediction),
      checkRepetition: (action, screen) => this.repetition.check(action, screen),
      zoomInto: (action, observation) => this.zoomInto(action, observation),
      captureAfter: (request, observation, batch) => this.captureAfter(request, observation, batch),
      countError: (kind, message, emitEvent) => this.countError(kind, message, emitEvent),
    };
  }

  async execute(): Promise<void> {
    let ending: Ending;
    try {
      ending = await this.runToEnd();
    } catch (error) {
      ending = internalError(error);
    } finally {
      // The blackboard and the conversation outlive the run: stop listening to them on every ending.
      this.memory.close();
    }
    await this.life.finish(ending, this.step);
  }

  private async runToEnd(): Promise<Ending> {
    const { limits } = this.options;
    this.life.emit({
      type: 'run-started',
      task: this.task,
      model: this.deps.model.model,
      family: this.deps.model.family,
      limits: { maxSteps: limits.maxSteps, maxCostUsd: limits.maxCostUsd },
      ...(this.conversationId ? { conversationId: this.conversationId } : {}),
    });
    const unusable = await this.checkProvider();
    if (unusable) return unusable;
    await this.memory.startRun(this.task, this.signal);
    const ending = await this.loop();
    await this.memory.finishRun(ending, this.signal);
    return ending;
  }

  /** The provider check: the ending when the provider cannot be used, else undefined. */
  private async checkProvider(): Promise<Ending | undefined> {
    const probe = await this.deps.preflight?.(this.signal);
    if (!probe) return undefined;
    if (probe.ok) {
      if (probe.note) this.life.emit({ type: 'note', step: 0, message: `provider check: ${probe.note}` });
      return undefined;
    }
    if (this.signal.aborted) return STOPPED;
    if (probe.fatal) return { status: 'failed', reason: `the model provider cannot be used: ${probe.message}` };
    this.life.emit({ type: 'note', step: 0, message: `provider check: ${probe.message}; going on` });
    return undefined;
  }

  private async loop(): Promise<Ending> {
    const { limits } = this.options;
    for (;;) {
      if (this.signal.aborted) return STOPPED;
      await this.life.waitIfPaused(this.step);
      await this.letUserWork();
      if (this.signal.aborted) return STOPPED;
      if (this.step >= limits.maxSteps) return { status: 'limit', reason: `reached the limit of ${limits.maxSteps} steps` };
      this.step++;
      const started = this.life.clock();
      this.timings = {};
      this.life.emit({ type: 'step-started', step: this.step });
      const end = await this.runStep();
      if (end.completed) {
        this.history.add(end.completed);
        await this.memory.endStep(end.completed, this.signal);
      }
      this.life.finishStep(this.step, this.life.clock() - started, this.timings);
      // Durable on disk in the background; the next step does not wait for the fsync.
      void this.life.recorder.flush();
      if (end.ending) return end.ending;
      const workflow = this.pendingWorkflow;
      this.pendingWorkflow = null;
      if (workflow) {
        const stopped = await this.runWorkflow(workflow);
        if (stopped) return stopped;
      }
      const spent = this.life.totals.usage.costUsd;
      if (limits.maxCostUsd !== null && spent >= limits.maxCostUsd) {
        return { status: 'limit', reason: `reached the cost limit of ${formatUsdLimit(limits.maxCostUsd)} (spent $${spent.toFixed(4)})` };
      }
    }
  }

  /**
   * The model's `run_workflow`: the workflow's steps as the run's next steps, their decisions in
   * the record; its report goes to the model with the next screenshot. Only the user stopping it
   * ends the run.
   */
  private async runWorkflow(action: ActionOf<'run_workflow'>): Promise<Ending | undefined> {
    const workflows = this.deps.workflows;
    if (!workflows) return undefined;
    const result = await workflows.run(action, this.life, this.step + 1, this.capture);
    this.step += result.steps;
    // The screen is the workflow's doing: no repetition is judged against what came before.
    this.settledScreen = undefined;
    this.life.emit({ type: 'note', step: this.step, message: result.report });
    this.feedback.push(result.report);
    return result.ending;
  }

  /** While the run is taken over: the user's steps, then the agent is told what they did. */
  private async letUserWork(): Promise<void> {
    const takeover = this.life.takeover;
    if (!takeover?.takenOver || this.signal.aborted) return;
    const served = await serveTakeover(this.life, takeover, { step: this.step, capture: this.capture });
    this.step = served.step;
    // The screen is the user's doing now: no repetition is judged against what came before.
    this.settledScreen = undefined;
    if (served.report) {
      // The model reads the user's points as it writes its own (a 0-1000 grid, its resize, pixels).
      const image = served.report.image ?? { width: 1, height: 1 };
      const named = describeCoordinates(coordinateFrameOf(this.deps.model, image));
      this.feedback.push(describeHandback(served.report, { speak: pointSpeaker(this.deps.model, image), named }));
    }
  }

  /** The user took the run over during this step: what the agent had planned is dropped. */
  private interrupted(planned: number): boolean {
    if (!this.life.takeover?.takenOver || this.signal.aborted) return false;
    const what = planned > 0 ? `${planned} planned action${planned === 1 ? ' was' : 's were'} not carried out` : "the model's reply was dropped";
    this.life.emit({ type: 'note', step: this.step, message: `the user took over: ${what}` });
    return true;
  }

  /** One step; its value and, when the run ends here, how. */
  private async runStep(): Promise<StepEnd> {
    const { operator, recorder } = this.life;
    const observeStarted = this.life.clock();
    const zoom = this.zoomNext;
    this.zoomNext = null;
    const capturing = operator.observe(zoom ? { ...this.capture, region: zoom.region, keepFullResolution: false } : this.capture);
    // What the request carries besides this screen, made while the screen is captured: the capture
    // mostly waits on the operator host, and this thread would be idle meanwhile.
    const feedback = this.feedback.length > 0 ? this.feedback.join('\n') : undefined;
    const system = [this.memory.systemText(), this.deps.systemContext?.() ?? '', this.deps.workflows?.offer ?? ''].filter((part) => part.trim() !== '').join('\n\n') || undefined;
    const pruned = this.memory.historyForModel(this.history.records(), [system ?? '', this.task, feedback ?? '']);
    const historyRead = this.history.withImages(pruned, (ref) => recorder.readScreenshot(ref));
    // Awaited below, after the capture; a failed capture ends the step without it.
    historyRead.catch(() => undefined);
    const captured = await capturing;
    this.timings.observe = this.life.clock() - observeStarted;
    if (!captured.ok) {
      if ((captured as { kind?: string }).kind === 'no_display') {
        this.life.emit({ type: 'model-error', step: this.step, kind: 'capture', message: captured.message, consecutive: 1, limit: 1 });
        return { ending: { status: 'failed', reason: `the display is gone: ${captured.message}` } };
      }
      return { ending: this.countError('capture', `could not capture the screen: ${captured.message}`) };
    }
    const observation = captured.observation;
    if (!zoom) this.displayBounds = observation.frame.bounds;
    const elements = await this.elementsFor(observation);
    this.timings.observe = this.life.clock() - observeStarted;
    const image = modelImageOf(observation);
    const screenshot = recorder.saveScreenshot(this.step, observation.image, image.mime, image, { fullResolution: observation.fullResolution });
    this.life.emit({ type: 'observation', step: this.step, screenshot, frame: observation.frame });
    // The steps before are on disk by now (written while the screen was captured): a kill loses
    // at most this step. A record that could not be written ends the run here.
    const unrecorded = await this.life.checkpoint();
    if (unrecorded) return { ending: unrecorded };
    // The repetition guard compares screens: the capture's own thumbnail, else the last settle's,
    // else one taken while the model thinks.
    const known = observation.fingerprint ?? this.settledScreen;
    const screenBefore = known !== undefined ? Promise.resolve(known) : operator.fingerprint(this.capture.display);
    this.settledScreen = undefined;

    this.feedback = [];
    const history = await historyRead;
    const modelStarted = this.life.clock();
    // A takeover cancels the model call: its actions would be for a screen the user is about to change.
    const takeover = this.life.takeover;
    const prediction = await this.deps.model.predict(
      {
        task: this.task,
        system,
        history,
        observation: image,
        feedback,
        acknowledgedSafetyChecks: this.acknowledged.length > 0 ? this.acknowledged : undefined,
        ...(this.deps.workflows?.offer ? { workflows: true } : {}),
        ...(zoom ? { zoom: zoom.said } : {}),
        ...(this.displayBounds ? { screen: { width: this.displayBounds.width, height: this.displayBounds.height } } : {}),
        ...(elements ? { elements } : {}),
      },
      takeover ? AbortSignal.any([this.signal, takeover.interrupt]) : this.signal,
      (delta, attempt) => this.life.thought(this.step, delta, attempt),
    );
    this.timings.model = this.life.clock() - modelStarted;
    // Accepted safety checks go with every request that answers their call, until a reply comes:
    // after a timeout or an HTTP error the next step answers the same call again.
    if (prediction.ok || prediction.error.kind === 'parse') this.acknowledged = [];

    if (!prediction.ok) {
      if (prediction.usage) this.life.spend(prediction.usage);
      if (this.interrupted(0)) return {};
      const { error } = prediction;
      if (error.kind === 'aborted' || this.signal.aborted) return { ending: { status: 'aborted', reason: 'stopped by the user during a model call' } };
      if (error.kind === 'parse') {
        const reply = error.raw !== undefined ? this.life.saveReply(this.step, error.raw) : undefined;
        this.parseFailures++;
        const limit = this.options.limits.maxParseRetries;
        this.life.emit({ type: 'model-error', step: this.step, kind: 'parse', message: error.message, consecutive: this.parseFailures, limit });
        const completed: CompletedStep = {
          step: this.step,
          task: this.task,
          thought: null,
          actions: [],
          results: [],
          outcome: `reply not understood: ${error.message}`,
          screenshot,
          ...(reply !== undefined ? { reply } : {}),
          costUsd: prediction.usage?.costUsd ?? 0,
          success: false,
          error: error.message,
        };
        if (this.parseFailures > limit) {
          return { completed, ending: { status: 'failed', reason: `the model's reply could not be parsed ${this.parseFailures} times in a row; last error: ${error.message}` } };
        }
        this.feedback.push(`Your last reply could not be used: ${error.message}. Answer again in the required format, with exactly one valid action.`);
        return { completed };
      }
      if (error.kind === 'auth' || error.kind === 'not_found' || error.fatal === true) {
        this.life.emit({ type: 'model-error', step: this.step, kind: error.kind, message: error.message, consecutive: 1, limit: 1 });
        return { ending: { status: 'failed', reason: `the model endpoint refused the request: ${error.message}` } };
      }
      return { ending: this.countError(error.kind, error.message) };
    }

    this.parseFailures = 0;
    this.life.spend(prediction.usage);
    const end = await this.act(prediction, observation, screenshot, screenBefore);
    if (zoom && end.completed) end.completed.zoom = zoom.said;
    return end;
  }

  /**
   * The elements aid: the active window's snapshot taken with the observation, its boxes on the
   * observation's image. Without a tree to read (no accessibility bus, no window) the step goes
   * with pixels only, said once per run, not at every step.
   */
  private async elementsFor(observation: Observation): Promise<PredictInput['elements']> {
    const mode = this.options.elements ?? 'off';
    const reader = this.life.elements;
    if (mode === 'off') {
      reader?.forget();
      return undefined;
    }
    if (!reader) {
      if (!this.elementsUnavailableSaid) this.life.emit({ type: 'note', step: this.step, message: `the elements aid (${mode}) is on, but this display has no accessibility tree to read: pixels only` });
      this.elementsUnavailableSaid = true;
      return undefined;
    }
    const looked = await reader.look(observation.frame);
    if (looked.ok) return { mode, snapshot: looked.snapshot };
    if (looked.first) this.life.emit({ type: 'note', step: this.step, message: `the elements aid (${mode}): no elements for this step, pixels only: ${looked.message}` });
    return undefined;
  }

  private async act(
    prediction: PredictionSuccess,
    observation: Observation,
    screenshot: CompletedStep['screenshot'],
    screenBefore: Promise<ScreenFingerprint | undefined>,
  ): Promise<StepEnd> {
    const { secrets } = this.life;
    for (const action of prediction.actions) {
      if (isSecretTyping(action, prediction.thought) && (action.type === 'type' || action.type === 'type_into')) secrets.add(action.text);
      // Typed into a field the tree calls a password: a secret, whatever the model said.
      if (action.type === 'type_into' && action.text !== '' && this.life.elements?.snapshot?.elements.find((element) => element.n === action.n)?.role === 'password text') secrets.add(action.text);
    }
    const reply = this.life.saveReply(this.step, prediction.raw);
    const { inputTokens, outputTokens, costUsd } = prediction.usage;
    // As stamped, masked: what the record, the history and the memory keep.
    const { thought, actions: shownActions } = this.life.emit({
      type: 'prediction',
      step: this.step,
      thought: prediction.thought,
      actions: prediction.actions,
      usage: { inputTokens, outputTokens, costUsd },
      attempts: prediction.attempts,
    }) as AgentEventOf<'prediction'>;
    this.memory.beginStep(this.step, thought, shownActions);

    const account = new StepAccount();
    const completed = (): CompletedStep => ({
      step: this.step,
      task: this.task,
      thought,
      actions: shownActions,
      results: [...account.actionResults],
      outcome: account.results.join('; ') || 'no action',
      screenshot,
      reply,
      costUsd: prediction.usage.costUsd,
      success: account.actionResults.every((result) => result.ok),
      reports: [...account.reports],
      ...(account.captures.length > 0 ? { captures: [...account.captures] } : {}),
      ...(account.notRun ? { notRun: account.notRun } : {}),
    });
    const endWith = (ending: Ending | undefined): StepEnd => ({ completed: completed(), ...(ending ? { ending } : {}) });
    // The batch guard (run/batch-guard.ts): the screen the model saw, the latest look during the
    // batch, and whether an action that can change the screen ran since that look.
    const batch = new BatchLooks(await screenBefore);
    const actStarted = this.life.clock();
    const acts: StepActs = {
      prediction,
      observation,
      batch,
      // What the model is told of a point is in its own coordinates for the image it saw.
      speak: pointSpeaker(this.deps.model, observation.frame.image),
      screenBefore,
      account,
      skipFrom: (from, reason) => {
        const count = prediction.actions.length - from;
        if (count <= 0) return;
        account.notRun = { from, reason };
        this.life.emit({ type: 'actions-not-run', step: this.step, from, count, reason });
      },
      doneActing: () => {
        this.timings.act = this.life.clock() - actStarted;
      },
    };
    for (const [index, action] of prediction.actions.entries()) {
      if (this.interrupted(prediction.actions.length - index)) {
        acts.skipFrom(index, 'the user took the run over');
        return endWith(undefined);
      }
      if (index > 0 && aimsAtPoint(action) && acts.batch.changed) {
        const verdict = await this.lookBeforeAiming(acts.batch, action, observation);
        if (!verdict.go) {
          const said = describeCut(index, prediction.actions.length, verdict.why);
          this.life.emit({ type: 'note', step: this.step, message: said });
          account.results.push(said);
          this.feedback.push(`Not all of your actions ran: ${said}.`);
          acts.skipFrom(index, said);
          break;
        }
      }
      // An element action after one that changed the screen: once the screen settles, the tree has
      // caught up too, so an element taken away is stale rather than clicked where it was.
      if (isElementAction(action) && acts.batch.changedSinceLook) acts.batch.looked((await this.life.settle(this.capture.display, this.options.settle)).last);
      // Each kind of action (a workflow, a fact, a recall, a control action, the desktop) is one entry of the table.
      const outcome = await kindOf(action).act({ action, shown: shownActions[index] as Action, index }, acts, this.acting);
      if (!outcome.next) return endWith(outcome.ending);
    }
    acts.doneActing();
    this.consecutiveErrors = 0;
    const settleStarted = this.life.clock();
    const settled = await this.life.settle(this.capture.display, this.options.settle);
    this.timings.settle = this.life.clock() - settleStarted;
    this.settledScreen = settled.last;
    return endWith(undefined);
  }

  /**
   * The model asked to look closer: its next screenshot is the region (at the screen's own
   * resolution, within the image limits), its frame the region's, so the points it gives while
   * looking at it map back through the region.
   */
  private zoomInto(action: ActionOf<'zoom'>, observation: Observation): void {
    const { frame } = observation;
    const region = imageRectToScreen({ x: action.x, y: action.y, width: action.toX - action.x, height: action.toY - action.y }, frame);
    const speak = pointSpeaker(this.deps.model, frame.image);
    const from = speak({ x: action.x, y: action.y });
    const to = speak({ x: action.toX, y: action.toY });
    this.zoomNext = { region, said: { x: from.x, y: from.y, toX: to.x, toY: to.y } };
  }

  /**
   * Looks at the screen again (once it settles) before an action aimed at a point, after an action
   * that could change it ran: may it run on what the model saw?
   */
  private async lookBeforeAiming(batch: BatchLooks, action: Action, observation: Observation): Promise<BatchVerdict> {
    if (batch.changedSinceLook) batch.looked((await this.life.settle(this.capture.display, this.options.settle)).last);
    return judgeNextAction(batch.before, batch.latest, this.targetOnDisplay(action, observation));
  }

  /** Where an action aims, as fractions of the display the fingerprints cover (null when it cannot be said). */
  private targetOnDisplay(action: Action, observation: Observation): { x: number; y: number } | null {
    const [aimed] = actionPoints(action);
    if (aimed === undefined) return null;
    const mapped = imageToScreen(aimed, observation.frame);
    const bounds = this.displayBounds;
    if (!mapped.ok || bounds === undefined) return null;
    return { x: (mapped.point.x - bounds.x) / bounds.width, y: (mapped.point.y - bounds.y) / bounds.height };
  }

  /**
   * What the prediction asked to see after one of its actions, for the model's next request: the
   * screen once it settled, a region of it at up to full resolution (within the model's image
   * limits), or the pointer in pixels of the step's image. A failure is kept as its message.
   */
  private async captureAfter(request: CaptureRequest, observation: Observation, batch: BatchLooks): Promise<StepCapture> {
    const { frame } = observation;
    const base = { afterAction: request.afterAction, kind: request.kind };
    let options: CaptureOptions;
    if (request.kind === 'screen') {
      const settled = await this.life.settle(this.capture.display, this.options.settle);
      // The screen was looked at: the batch guard need not look again before the next action.
      batch.looked(settled.last);
      options = { ...this.capture, keepFullResolution: false };
    } else if (request.kind === 'region') {
      const { maxWidth: _w, maxHeight: _h, maxPixels: _p, ...rest } = this.capture;
      options = { ...rest, ...this.deps.model.imageLimits, keepFullResolution: false, region: imageRectToScreen(request.region, frame) };
    } else {
      // Only the pointer is wanted: the smallest image that comes with it.
      options = { ...this.capture, maxWidth: 16, keepFullResolution: false, pointer: true };
    }
    const captured = await this.life.operator.observe(options);
    if (!captured.ok) return { ...base, error: captured.message };
    const shot = captured.observation;
    if (request.kind === 'pointer') {
      if (!shot.pointer) return { ...base, error: 'the operator did not say where the pointer is' };
      const point = screenToImage(shot.pointer, frame);
      return { ...base, pointer: { x: Math.round(point.x), y: Math.round(point.y) } };
    }
    const mime = shot.frame.image.format === 'png' ? 'image/png' : 'image/jpeg';
    const size = { width: shot.frame.image.width, height: shot.frame.image.height };
    return { ...base, screenshot: this.life.recorder.saveScreenshot(this.step, shot.image, mime, size, { part: `after-${request.afterAction + 1}` }) };
  }

  /** Asks before a sensitive action; returns the ending when the user says no. */
  private async confirmIfNeeded(action: Action, prediction: PredictionSuccess): Promise<Ending | undefined> {
    const checks = prediction.pendingSafetyChecks;
    if (checks.length > 0 && action.confirm) {
      const question = `The model's provider flagged this action: ${checks.map((check) => check.message ?? check.code ?? check.id).join('; ')}. Allow ${action.type}?`;
      const answer = await this.ask({ kind: 'safety_check', question, action });
      if (!isAffirmative(answer)) return { status: 'refused', reason: `the user did not acknowledge the safety check (${question})` };
      this.acknowledged = checks;
      return undefined;
    }
    return this.life.confirm(this.step, action);
  }

  private async ask(request: AskRequest): Promise<string | null> {
    const answer = await this.life.ask(this.step, request);
    if (request.kind === 'question') await this.memory.question(request.question, answer, this.signal);
    return answer;
  }

  /** Counts an error in a row; ends the run when there have been too many. */
  private countError(kind: StepErrorKind, message: string, emitEvent = true): Ending | undefined {
    this.consecutiveErrors++;
    const limit = this.options.limits.maxConsecutiveErrors;
    if (emitEvent) this.life.emit({ type: 'model-error', step: this.step, kind, message, consecutive: this.consecutiveErrors, limit });
    if (this.consecutiveErrors >= limit) return { status: 'failed', reason: `${this.consecutiveErrors} errors in a row; last: ${message}` };
    return undefined;
  }
}
