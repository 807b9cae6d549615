/**
 * The run service: the one place a run is put together, for every front end (the CLI, the
 * Electron main process, `mnemo serve`). A thin facade over parts that each do one job:
 *
 * | part | file | job |
 * | --- | --- | --- |
 * | `ServiceConfig` | service-config.ts | the settings, read once and owned here (`useConfig`); the redaction policy; the data directory made private |
 * | `RunLauncher` | run-launcher.ts | one launch for runs, replays and workflow runs: desktop, lock, operator, recorder, live handle |
 * | `RunDesktops` | run-desktops.ts | where a run works: the user's display, or a private desktop started for it |
 * | `RunRegistry` | run-registry.ts | the runs going on in this process, several at once (one per desktop) |
 * | `SessionQueries` | session-queries.ts | the recorded sessions: list, one, events, memory snapshot, delete, housekeeping |
 * | `MemoryHost` | memory-host.ts | the long-lived memory: backends opened once per settings, a run's memory, compaction |
| `WorkflowService` | workflow-service.ts | the saved workflows: save a session as one, list, show, delete, export, import |
 *
 * Here: what a run, a replay, a workflow run and a demonstration are made of (the DeviceAgent with
 * its model and memory, the Replayer on a recorded session, the WorkflowRunner on a saved workflow
 * with new values, the Demonstration on the user's recorded input), the provider checks, and the failures said to front ends
 * with the redaction policy applied. Failures are values (`ServiceResult`), each with a kind the
 * adapters map to their own terms (an exit code, an HTTP status, a message in the window).
 */
import { Demonstrations, type TeachHost } from './teach';
import type { DesktopRequest } from '../../shared/desktop';
import type { MemorySnapshot } from '../../shared/memory';
import type { AgentEvent } from '../../shared/events';
import { untrustedReason } from '../../shared/workflow';
import { DEFAULT_PRICES, ImageSettingsSchema, type ModelSettings, type ModelSettingsInput, type PriceTable } from '../../shared/settings';
import { DeviceAgent } from '../agent/device-agent';
import type { AgentOptions } from '../agent/settings';
import { StoreWriter } from '../disk/store-writer';
import { createVisionModel, type VisionModel } from '../model';
import type { CaptureOptions } from '../operator/capture';
import { checkModel, probeProvider, type ModelCheck, type ProviderProbe } from '../model/provider-check';
import type { GroundingOutcome } from '../model/grounding-check';
import { checkGroundingOf, type GroundingRequest } from './grounding';
import { Replayer } from '../replay/replayer';
import type { ReplayPolicy, WorkflowPolicy } from '../replay/policy';
import type { DivergenceThresholds } from '../replay/divergence';
import type { CompactionOptions, CompactionReport } from '../memory/blackboard-compaction';
import { redactionOf } from '../settings/redaction';
import type { LoadedConfig, RunFlags, RunSettings } from '../settings/settings';
import type { LibraryListing } from '../store/session-library';
import type { RunHandle } from './live-run';
import { MemoryHost } from './memory-host';
import type { MemoryService } from './memory-service';
import type { OpenedMemory } from './memory-setup';
import { RunDesktops } from './run-desktops';
import { RunLauncher, type OperatorOpen, type Prepared } from './run-launcher';
import { RunRegistry, type LiveRunSummary } from './run-registry';
import { ServiceConfig } from './service-config';
import type { ServiceResult } from './service-result';
import { SessionQueries, type FoundSession } from './session-queries';
import { WorkflowService } from './workflow-service';
import { TesseractReader } from '../workflow/ocr';
import { completeParamValues, fillText, secretParamNames, shownParamValues, workflowRunRedaction } from '../workflow/params';
import { WorkflowRunner } from '../workflow/runner';
import { InRunWorkflows } from '../workflow/in-run';
import { offerFor } from './workflow-offer';
import { startInputRecording, type InputRecording } from '../operator/x11/input-recorder';
import { Demonstration, DEMONSTRATION_MODEL } from '../teach/demonstration';
import type { RecentScreensOptions } from '../teach/recent-screens';

export type { RunHandle, RunOutcome } from './live-run';
export type { OperatorOpen } from './run-launcher';
export type { LiveRunSummary } from './run-registry';
export type { ServiceError, ServiceErrorKind, ServiceResult } from './service-result';

export interface RunServiceDeps {
  config: LoadedConfig;
  env?: NodeJS.ProcessEnv;
  /** Flags given on the command line (they win over the environment and the file). */
  flags?: RunFlags;
  /** Opens the operator for a display (checking the display first): the user's, or with `env` a private desktop's. */
  openOperator: (capture: CaptureOptions, env?: NodeJS.ProcessEnv) => Promise<OperatorOpen>;
  createModel?: (settings: ModelSettings, prices: PriceTable) => VisionModel;
  /** The provider check before a run (default: one GET of the model list). */
  probe?: (settings: ModelSettings, signal: AbortSignal) => Promise<ProviderProbe>;
  /** Warnings and notices (retention, interrupted sessions, memory problems); the redaction policy is applied. */
  log?: (message: string) => void;
  /** The API key kept outside config.json (the app's keychain), when neither flags nor environment give one. */
  storedApiKey?: () => string | undefined;
  now?: () => number;
  /** Free bytes on the disk holding a folder (default: statfs), for the warning before a run. */
  freeBytes?: (path: string) => Promise<number | null>;
  /** The memory key from the OS keychain (the app: safeStorage), when none is set otherwise. */
  memoryKey?: () => Promise<string | null>;
  /** Records demonstrations for the window (`teach:start`, `teach:stop`); default: `teach()` below. */
  demonstrations?: TeachHost;
}

export interface StartRequest {
  task: string;
  /** Flags for this run only (model, limits, display). */
  overrides?: RunFlags;
  /** Continue this conversation (its memory carries over); default: a new one. */
  conversationId?: string;
  display?: number;
  /** False: questions are not asked, they go unanswered (a non-interactive run). Default true. */
  interactive?: boolean;
  /** Settle and other loop options for this run (tests, benchmarks). */
  agent?: Partial<AgentOptions>;
  /** Skip the provider check (benchmarks against a local scripted server). */
  skipProviderCheck?: boolean;
  /** A private desktop for the run (size and apps default to the settings'); absent: the user's display. */
  desktop?: DesktopRequest;
  /** Leave the private desktop running after the run (its DISPLAY is said in the log). */
  keepDesktop?: boolean;
}

export interface ReplayRequest {
  /** A session id, a unique prefix of one, or `last`. */
  session: string;
  policy: ReplayPolicy;
  /** Recorded pauses divided by this; 0: no pauses. */
  speed: number;
  thresholds?: Partial<DivergenceThresholds>;
  display?: number;
  interactive?: boolean;
  /** A model to find diverged targets again (reground); flags as for a run. */
  model?: RunFlags;
  /** Where to replay; absent: the desktop the session recorded (a private one is started the same again). */
  desktop?: DesktopRequest;
  keepDesktop?: boolean;
}

export interface WorkflowRunRequest {
  /** The workflow's name. */
  name: string;
  /** Every parameter's value (secrets included: typed, never recorded). */
  values: ReadonlyMap<string, string>;
  policy: WorkflowPolicy;
  /** Recorded waits divided by this; 0: none. Default 1. */
  speed?: number;
  display?: number;
  interactive?: boolean;
  /** A model to ground the steps that differ (reground); flags as for a run. */
  model?: RunFlags;
  /** A private desktop for the run (size and apps default to the settings'); absent: the user's display. */
  desktop?: DesktopRequest;
  keepDesktop?: boolean;
}

/** On a private desktop with apps, how long a workflow run's first step waits for its target to show. */
const APP_START_PATIENCE_MS = 30_000;

export interface TeachRequest {
  /** What the user will do, in words: the session's task, and the description of a workflow saved from it. */
  task: string;
  /** The display index to record on (its screenshots; the input is the whole X screen's). */
  display?: number;
  /** How often the screen is captured (tests, benchmarks). */
  screens?: Partial<RecentScreensOptions>;
}

/** What a demonstration prepares once its desktop is held: the input recording, the reader of field labels. */
interface TeachPrepared extends Prepared {
  recording: InputRecording;
  reader: TesseractReader;
}

/** What a workflow run prepares once its desktop is held: the reader of the text near targets (closed when it ends). */
interface WorkflowPrepared extends Prepared {
  reader: TesseractReader;
}

/** What a session of a replay or a workflow run says it ran with: the model that may reground, or none. */
const modelOfSession = (model: VisionModel | undefined) => ({ model: model?.model ?? 'none', family: model?.family ?? 'none' });

/** What a run prepares once its desktop is held: its memory. */
interface RunPrepared extends Prepared {
  memory: OpenedMemory;
  /** The saved workflows the run's model is offered and may run. */
  workflows: InRunWorkflows;
}

export class RunService {
  /** The settings, the redaction policy, the data directory's privacy. */
  readonly config: ServiceConfig;
  /** The runs going on in this process. */
  readonly registry = new RunRegistry();
  /** The recorded sessions. */
  readonly records: SessionQueries;
  /** The long-lived memory. */
  readonly memoryHost: MemoryHost;
  /** Where runs work: the user's display or private desktops. */
  readonly desktops: RunDesktops;
  readonly launcher: RunLauncher;
  /** The saved workflows. */
  readonly workflows: WorkflowService;
  /** Demonstrations: the input recorder, when one is plugged in. */
  readonly demonstrations: TeachHost;

  constructor(private readonly deps: RunServiceDeps) {
    const log = (message: string) => this.log(message);
    this.config = new ServiceConfig({ config: deps.config, ...(deps.env ? { env: deps.env } : {}), ...(deps.flags ? { flags: deps.flags } : {}), ...(deps.storedApiKey ? { storedApiKey: deps.storedApiKey } : {}), log });
    this.records = new SessionQueries({ config: this.config, runs: this.registry, ...(deps.now ? { now: deps.now } : {}), log });
    this.memoryHost = new MemoryHost({ config: this.config, ...(deps.memoryKey ? { memoryKey: deps.memoryKey } : {}), ...(deps.now ? { now: deps.now } : {}), log });
    this.desktops = new RunDesktops({ config: this.config, log });
    this.launcher = new RunLauncher({
      config: this.config,
      runs: this.registry,
      desktops: this.desktops,
      openOperator: deps.openOperator,
      ...(deps.freeBytes ? { freeBytes: deps.freeBytes } : {}),
      ...(deps.now ? { now: deps.now } : {}),
      log,
      // Shared session store: each session is uploaded once its run has ended (and what an earlier
      // process left pending, when no run's start has tried it yet: a replay, a workflow run).
      recorded: (sessionId) => {
        this.records.uploadAfterRun(sessionId);
        void this.records.retryUploads();
      },
    });
    this.demonstrations = deps.demonstrations ?? new Demonstrations((request) => this.teach(request));
    this.workflows = new WorkflowService({ config: this.config, session: (ref) => this.records.recorded(ref), ...(deps.now ? { now: deps.now } : {}) });
  }

  /**
   * Makes the data directory private before a front end serves anything from it (`mnemo serve`,
   * the app, at start): one open to other accounts is tightened and said in one line. Every part
   * also waits for this before it reads or writes there. Then the private desktops a Mnemo killed
   * hard left running are stopped (each launch looks too, once per service).
   */
  async open(): Promise<void> {
    await this.config.dataDirReady();
    await this.desktops.reapLeftovers();
    // Shared session store: what an earlier process could not upload, tried again (in the background).
    await this.records.retryUploads();
  }

  get dataDir(): string {
    return this.config.dataDir;
  }

  /** The config as read (the settings file's content, where it lives, the data directory). */
  get loadedConfig(): LoadedConfig {
    return this.config.loaded;
  }

  /** Uses the config from now on (after the settings were saved); runs in progress keep their settings. */
  useConfig(config: LoadedConfig): void {
    this.config.use(config);
  }

  /** The settings a run would use now (the model resolved from flags, environment, file and keychain). */
  settings(overrides: RunFlags = {}): ServiceResult<RunSettings> {
    return this.redacted(this.config.runSettings(overrides));
  }

  /** Starts a task. The handle's events begin with run-started. */
  async start(request: StartRequest): Promise<ServiceResult<RunHandle>> {
    if (request.task.trim() === '') return { ok: false, error: { kind: 'settings', message: 'the task is empty' } };
    const settings = this.settings(request.overrides);
    if (!settings.ok) return settings;
    const run = settings.value;
    const redaction = this.config.redaction(request.overrides);
    const probe = this.deps.probe ?? ((model, signal) => probeProvider(model, {}, signal));
    const model = this.createModel(run.model, run.prices);
    const launched = await this.launcher.launch<RunPrepared>({
      kind: 'run',
      task: request.task,
      redaction,
      session: { model: run.model.model, family: run.model.family },
      display: request.display ?? request.overrides?.display,
      desktop: this.desktops.specFor(request.desktop),
      keepDesktop: request.keepDesktop,
      takeover: true,
      interactive: request.interactive,
      what: 'the session',
      prepare: async () => {
        await this.records.housekeeping();
        const memory = await this.memoryHost.openForRun(run, request.conversationId, new StoreWriter(redaction));
        if (!memory.ok) return memory;
        const workflows = new InRunWorkflows({ catalog: this.workflows, model, reader: () => new TesseractReader() }, await offerFor(this.workflows, request.task));
        return {
          ok: true,
          value: {
            memory: memory.value,
            workflows,
            conversationId: memory.value.conversationId,
            finish: async () => {
              await workflows.close();
              await this.memoryHost.saveAfterRun(memory.value);
            },
            afterRelease: () => this.memoryHost.compactAfterRun(memory.value),
          },
        };
      },
      confirmationRules: run.confirmationRules,
      engine: (life, prepared) => {
        const display = request.display ?? request.overrides?.display;
        const agent = new DeviceAgent(
          {
            model,
            memory: prepared.memory.deps,
            workflows: prepared.workflows,
            ...(request.skipProviderCheck ? {} : { preflight: (signal: AbortSignal) => probe(run.model, signal) }),
          },
          {
            ...request.agent,
            memory: { layers: run.memory.layers, pruning: run.memory.pruning, budgets: run.memory.budgets },
            limits: { maxSteps: run.maxSteps, maxCostUsd: run.maxCostUsd, maxConsecutiveErrors: run.maxConsecutiveErrors, maxParseRetries: 3, ...request.agent?.limits },
            keepScreenshots: run.keepScreenshots,
            capture: {
              maxWidth: run.image.maxWidth,
              format: run.image.format,
              quality: run.image.quality,
              keepFullResolution: run.store.keepFullResolution,
              ...(display !== undefined ? { display } : {}),
            },
          },
        );
        // The model gets the task as the user wrote it; the record and the handle show it redacted.
        return agent.run(request.task, life, { conversationId: prepared.conversationId ?? undefined });
      },
    });
    return this.redacted(launched);
  }

  /** Replays a recorded session on the desktop; the replay is recorded as a new session. */
  async replay(request: ReplayRequest): Promise<ServiceResult<RunHandle>> {
    const chosen = this.modelFor(request.model, request.policy);
    if (!chosen.ok) return chosen;
    const model = chosen.value;
    const found = await this.records.recorded(request.session);
    if (!found.ok) return this.redacted(found);
    const session = found.value;
    const launched = await this.launcher.launch<Prepared>({
      kind: 'replay',
      task: session.meta.task,
      redaction: this.config.redaction(request.model),
      session: { ...modelOfSession(model), replayOf: session.meta.id },
      display: request.display,
      desktop: this.desktops.specFor(request.desktop, session.meta.desktop),
      keepDesktop: request.keepDesktop,
      interactive: request.interactive,
      what: 'the replay',
      prepare: async () => ({ ok: true, value: { conversationId: null } }),
      engine: (life) =>
        new Replayer(model ? { model } : {}).replay(
          session,
          {
            policy: request.policy,
            speed: request.speed,
            ...(request.thresholds ? { thresholds: request.thresholds } : {}),
            capture: { ...(request.display !== undefined ? { display: request.display } : {}) },
          },
          life,
        ),
    });
    return this.redacted(launched);
  }

  /**
   * Runs a saved workflow with new values on the desktop, recorded as a new session; the model is
   * asked only for the steps that differ, under the reground policy (src/main/workflow/). A
   * workflow the user has not trusted (imported, or changed since) is `untrusted`, saying how to trust it.
   */
  async runWorkflow(request: WorkflowRunRequest): Promise<ServiceResult<RunHandle>> {
    const read = await this.workflows.show(request.name);
    if (!read.ok) return this.redacted(read);
    // A workflow is code that drives the desktop: only what the user trusts, as it is now, runs.
    if (!read.value.trusted) return { ok: false, error: { kind: 'untrusted', message: untrustedReason(request.name) } };
    const workflow = read.value.workflow;
    const complete = completeParamValues(workflow.params, request.values, (name) => `a value for "${name}"`);
    if (!complete.ok) return { ok: false, error: { kind: 'invalid', message: complete.message } };
    const chosen = this.modelFor(request.model, request.policy);
    if (!chosen.ok) return chosen;
    const model = chosen.value;
    const desktop = this.desktops.specFor(request.desktop);
    const launched = await this.launcher.launch<WorkflowPrepared>({
      kind: 'workflow',
      // The task as recorded: the values in, a secret's masked.
      task: fillText(workflow.description, shownParamValues(request.values, secretParamNames(workflow.params))),
      // The secret values are masked in every event and everything written, as the settings' secrets are.
      redaction: workflowRunRedaction(workflow.params, request.values, this.config.redaction(request.model)),
      session: modelOfSession(model),
      display: request.display,
      desktop,
      keepDesktop: request.keepDesktop,
      interactive: request.interactive,
      what: 'the workflow run',
      prepare: async () => {
        const reader = new TesseractReader();
        return { ok: true, value: { conversationId: null, reader, finish: () => reader.close().catch(() => undefined) } };
      },
      engine: (life, prepared) =>
        new WorkflowRunner({ ...(model ? { model } : {}), reader: prepared.reader, files: this.workflows.files(workflow.name) }).run(
          workflow,
          {
            policy: request.policy,
            values: request.values,
            speed: request.speed ?? 1,
            capture: { ...(request.display !== undefined ? { display: request.display } : {}) },
            // Apps started for the run may show their window before their page: the first step waits for its target a while.
            ...(desktop && desktop.apps.length > 0 ? { firstLookPatienceMs: APP_START_PATIENCE_MS } : {}),
          },
          life,
        ),
    });
    return this.redacted(launched);
  }

  /**
   * Records a demonstration: what the user does by hand on their display, as a session whose steps
   * are the user's (src/main/teach/). It goes on until the handle is stopped (`stop()`: Ctrl+C, the
   * app's button) or the user presses ctrl+alt+shift+s; the handle's `id` is the session's, and
   * `done` resolves once it is recorded. A display without the RECORD extension is `no_display`,
   * the message naming the fix.
   */
  async teach(request: TeachRequest): Promise<ServiceResult<RunHandle>> {
    if (request.task.trim() === '') return { ok: false, error: { kind: 'invalid', message: 'say what you will do: the task is empty' } };
    const display = this.config.env.DISPLAY?.trim() ?? '';
    if (display === '') return { ok: false, error: { kind: 'no_display', message: 'DISPLAY is not set: a demonstration is recorded on an X display (set DISPLAY, e.g. DISPLAY=:0)' } };
    const image = this.config.imageSettings();
    const launched = await this.launcher.launch<TeachPrepared>({
      kind: 'teach',
      task: request.task,
      redaction: this.config.redaction(),
      session: { ...DEMONSTRATION_MODEL },
      display: request.display,
      interactive: false,
      what: 'the demonstration',
      prepare: async () => {
        const recording = await startInputRecording(display, this.config.env);
        if (!recording.ok) return { ok: false, error: { kind: 'no_display', message: recording.message } };
        const reader = new TesseractReader();
        const finish = async () => {
          await recording.value.stop();
          await reader.close().catch(() => undefined);
        };
        return { ok: true, value: { conversationId: null, recording: recording.value, reader, finish } };
      },
      engine: (life, prepared) =>
        new Demonstration({ recording: prepared.recording, reader: prepared.reader, ...(request.screens ? { screens: request.screens } : {}) }).record(
          {
            task: request.task,
            capture: {
              maxWidth: image.maxWidth,
              format: image.format,
              quality: image.quality,
              keepFullResolution: this.config.storeSettings().keepFullResolution,
              ...(request.display !== undefined ? { display: request.display } : {}),
            },
          },
          life,
        ),
    });
    return this.redacted(launched);
  }


  /** The model a replay or a workflow run may ask (to reground), when flags were given for one. */
  private modelFor(flags: RunFlags | undefined, policy: string): ServiceResult<VisionModel | undefined> {
    if (!flags) return { ok: true, value: undefined };
    const settings = this.settings(flags);
    if (!settings.ok) return { ok: false, error: { kind: 'settings', message: `--policy ${policy} needs a model: ${settings.error.message}` } };
    return { ok: true, value: this.createModel(settings.value.model, settings.value.prices) };
  }

  /** Told of every run, replay or workflow run this service starts (a window following "the current run"). */
  onRunStarted(listener: (run: RunHandle) => void): () => void {
    return this.registry.onRunStarted(listener);
  }

  /** The run going on in this process, the newest if there are several (one per desktop). */
  current(): RunHandle | undefined {
    return this.registry.current();
  }

  /** Runs in progress in this process. */
  active(): RunHandle[] {
    return this.registry.active();
  }

  /** The runs in progress, one line each: id, kind, task, status, desktop. */
  runs(): LiveRunSummary[] {
    return this.registry.list();
  }

  run(id: string): RunHandle | undefined {
    return this.registry.get(id);
  }

  /** A session's events after `since`: followed live while it runs here, else read from its record. */
  events(sessionId: string, since = 0): AsyncIterable<AgentEvent> {
    return this.records.events(sessionId, since);
  }

  sessions(options: { search?: string } = {}): Promise<LibraryListing> {
    return this.records.list(options);
  }

  /** One session by id, unique prefix or `last`. */
  session(ref: string): Promise<ServiceResult<FoundSession>> {
    return this.records.session(ref);
  }

  /** The memory at the end of a session (or now, for a live one): layers, pruning, blackboard, conversation. */
  memory(ref: string): Promise<ServiceResult<MemorySnapshot>> {
    return this.records.memory(ref);
  }

  deleteSession(ref: string): Promise<ServiceResult<{ id: string }>> {
    return this.records.delete(ref);
  }

  /**
   * The long-lived memory (facts, working memory) as runs with these settings use it: for the
   * app's Memory view and other front ends. Not closed by the caller; `close()` closes it.
   */
  async memoryService(overrides: Pick<RunFlags, 'redisUrl' | 'memoryKeyFile'> = {}): Promise<ServiceResult<MemoryService>> {
    return this.redacted(await this.memoryHost.memoryService(overrides));
  }

  /**
   * `mnemo memory compact`: every finished task of the shared blackboard that has no summary yet
   * gets one (newest first, at most `limit`), with progress; stops at `signal`.
   */
  async compactMemory(options: CompactionOptions = {}): Promise<ServiceResult<CompactionReport>> {
    const settings = this.settings();
    if (!settings.ok) return settings;
    return this.redacted(await this.memoryHost.compact(settings.value, settings.value.prices, options));
  }

  /** Whether the blackboard compaction after the last run is still going on (close() waits for it). */
  get compacting(): boolean {
    return this.memoryHost.compacting;
  }

  /** The provider check alone, with a real chat call: latency, and whether an image is accepted. */
  async checkModel(overrides: RunFlags = {}, signal?: AbortSignal): Promise<ServiceResult<ModelCheck>> {
    const settings = this.settings(overrides);
    if (!settings.ok) return settings;
    // A provider may echo the key in its error message.
    return { ok: true, value: this.config.redaction(overrides).deep(await checkModel(settings.value.model, {}, signal)) };
  }

  /**
   * "Test connection" in the settings: the model settings as the form holds them (over the saved
   * ones), one small chat request with an image. The key typed into the form is masked in the
   * answer too, saved or not.
   */
  async checkProvider(model: Partial<ModelSettingsInput>, apiKey?: string): Promise<ServiceResult<ModelCheck>> {
    const settings = this.config.candidateModel(model, apiKey);
    if (!settings.ok) return this.redacted(settings);
    const checked = this.config.redaction().deep(await checkModel(settings.value));
    return { ok: true, value: redactionOf({ file: {}, env: {}, extra: [settings.value.apiKey ?? ''] }).deep(checked) };
  }

  /**
   * `mnemo check-model --grounding`: the model shown synthetic targets at the run's image size,
   * the coordinate space of its answers found and compared with the configured one.
   */
  async checkGrounding(overrides: RunFlags = {}, request: GroundingRequest = {}): Promise<ServiceResult<GroundingOutcome>> {
    const settings = this.settings(overrides);
    if (!settings.ok) return settings;
    const run = settings.value;
    const outcome = await checkGroundingOf(this.createModel(run.model, run.prices), run, this.deps.openOperator, { ...(overrides.display !== undefined ? { display: overrides.display } : {}), ...request });
    return { ok: true, value: this.config.redaction(overrides).deep(outcome) };
  }

  /** "Check grounding" in the settings: the model settings as the form holds them (over the saved ones). */
  async checkGroundingCandidate(model: Partial<ModelSettingsInput>, apiKey?: string, request: GroundingRequest = {}): Promise<ServiceResult<GroundingOutcome>> {
    const candidate = this.config.candidateModel(model, apiKey);
    if (!candidate.ok) return this.redacted(candidate);
    const { file } = this.config.loaded;
    const prices = { ...DEFAULT_PRICES, ...file.prices };
    const image = ImageSettingsSchema.parse(file.image ?? {});
    const outcome = await checkGroundingOf(this.createModel(candidate.value, prices), { model: candidate.value, image }, this.deps.openOperator, request);
    const checked = this.config.redaction().deep(outcome);
    return { ok: true, value: redactionOf({ file: {}, env: {}, extra: [candidate.value.apiKey ?? ''] }).deep(checked) };
  }

  /** Stops every run of this process and waits until they are recorded as ended; then closes the memory. */
  async close(): Promise<void> {
    await this.registry.stopAll();
    await this.memoryHost.close();
    // Shared session store: the uploads of the runs that ended finish (or stay pending) before the process goes.
    await this.records.uploadsSettled();
    this.config.closeSharedStore();
  }

  /** A text with the redaction policy applied, for a front end to print (an error message, a path). */
  redact(text: string): string {
    return this.config.redaction().text(text);
  }

  private redacted<T>(result: ServiceResult<T>): ServiceResult<T> {
    return result.ok ? result : { ok: false, error: { ...result.error, message: this.redact(result.error.message) } };
  }

  private createModel(settings: ModelSettings, prices: PriceTable): VisionModel {
    return (this.deps.createModel ?? ((model, table) => createVisionModel(model, { prices: table })))(settings, prices);
  }

  private log(message: string): void {
    this.deps.log?.(this.redact(message));
  }
}
