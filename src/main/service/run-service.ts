/**
 * The run service: the one place a run is put together, for every front end (the CLI, the
 * Electron main process, `mnemo serve`). It composes a run from the settings (read once, in
 * `LoadedConfig`): the operator for the display, the vision model, the session recorder, the
 * shared memory; starts the DeviceAgent or the Replayer on them; and hands back a `RunHandle`
 * (events with catching up, pause, resume, stop, answers). It also lists and reads sessions and
 * the memory snapshot of a session.
 *
 * The settings' secrets (the API key, ...) are masked in everything a run records or shows: its
 * events (the run lifecycle masks each one), the session's task, the memory files, and what the
 * service logs or answers (`redact`). The data directory is kept owner-only (private-dir.ts): one
 * found open to other accounts is tightened before the first run, with one line saying so.
 *
 * One run at a time per display, across processes (display-lock.ts): a second start is a `busy`
 * error naming the running session. Failures are values (`ServiceResult`), each with a kind the
 * adapters map to their own terms (an exit code, an HTTP status, a message in the window).
 */
import { buildMemorySnapshot, type MemorySnapshot } from '../../shared/memory';
import type { AgentEvent } from '../../shared/events';
import { ModelSettingsSchema, type ModelSettings, type ModelSettingsInput, type PriceTable } from '../../shared/settings';
import { describeConfigIssues } from '../../shared/config';
import { DeviceAgent } from '../agent/device-agent';
import type { AgentOptions } from '../agent/settings';
import { createVisionModel, type VisionModel } from '../model';
import { checkModel, probeProvider, type ModelCheck, type ProviderProbe } from '../model/provider-check';
import type { CaptureOptions } from '../operator/capture';
import type { Operator } from '../operator/desktop-operator';
import { Replayer } from '../replay/replayer';
import type { ReplayPolicy } from '../replay/policy';
import type { DivergenceThresholds } from '../replay/divergence';
import { PauseGate } from '../run/pause-gate';
import { SecretMask } from '../../shared/secret-mask';
import { configuredSecrets } from '../settings/secrets';
import { memoryStoreSettingsOf, runSettingsOf, storeSettingsOf, type LoadedConfig, type RunFlags, type RunSettings } from '../settings/settings';
import { FileRunRecorder, sessionsRoot } from '../store/run-recorder';
import { offerSampleSession } from '../store/sample-session';
import { readSession, type SessionRecord } from '../store/session-reader';
import { SessionStore, type SessionListing, type StoreWarning } from '../store/session-store';
import { retentionOf } from '../store/store-settings';
import { freeBytes, formatMegabytes } from '../disk/free-space';
import { keepDataDirPrivate } from '../disk/private-dir';
import { describeWriteFailure, displayPath } from '../disk/write-failure';
import { DisplayLock, displayName } from './display-lock';
import { LiveRun, type RunHandle } from './live-run';
import { compactSharedBlackboard, openRunMemory, type OpenedMemory } from './memory-setup';
import type { CompactionOptions, CompactionReport } from '../memory/blackboard-compaction';
import { openMemoryBackends, type BackendsOpen, type MemoryBackends } from './memory-backends';
import { MemoryService } from './memory-service';
import type { ServiceResult } from './service-result';
import type { MemoryStoreSettings } from '../settings/settings';

export type { RunHandle, RunOutcome } from './live-run';

export type { ServiceError, ServiceErrorKind, ServiceResult } from './service-result';

/** An operator for a run, and how to let it go afterwards. */
export type OperatorOpen = { ok: true; operator: Operator; close?: () => Promise<void> | void } | { ok: false; message: string };

export interface RunServiceDeps {
  config: LoadedConfig;
  env?: NodeJS.ProcessEnv;
  /** Flags given on the command line (they win over the environment and the file). */
  flags?: RunFlags;
  /** Opens the operator for a display (checking the display first). */
  openOperator: (capture: CaptureOptions) => Promise<OperatorOpen>;
  createModel?: (settings: ModelSettings, prices: PriceTable) => VisionModel;
  /** The provider check before a run (default: one GET of the model list). */
  probe?: (settings: ModelSettings, signal: AbortSignal) => Promise<ProviderProbe>;
  /** Warnings and notices (retention, interrupted sessions, memory problems). */
  log?: (message: string) => void;
  /** The API key kept outside config.json (the app's keychain), when neither flags nor environment give one. */
  storedApiKey?: () => string | undefined;
  now?: () => number;
  /** Free bytes on the disk holding a folder (default: statfs), for the warning before a run. */
  freeBytes?: (path: string) => Promise<number | null>;
  /** The memory key from the OS keychain (the app: safeStorage), when none is set otherwise. */
  memoryKey?: () => Promise<string | null>;
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
}

/** Finished tasks summarised after each run at most (the newest; `mnemo memory compact` does the rest). */
const COMPACT_AFTER_RUN = 5;

export class RunService {
  private readonly env: NodeJS.ProcessEnv;
  private readonly runs = new Map<string, LiveRun>();
  private readonly store: SessionStore;
  private readonly startListeners = new Set<(run: RunHandle) => void>();
  private config: LoadedConfig;
  /** The data directory checked to be owner-only (once per service). */
  private privateDataDir: Promise<void> | null = null;
  /** The memory's storage, opened once per settings and shared by every run (one Redis connection). */
  private readonly backends = new Map<string, Promise<BackendsOpen>>();
  /** The blackboard compaction after the last run, going on in the background (see compactAfterRun). */
  private compaction: { stop: AbortController; done: Promise<void> } | null = null;

  constructor(private readonly deps: RunServiceDeps) {
    this.env = deps.env ?? process.env;
    this.config = deps.config;
    this.store = new SessionStore(deps.config.dataDir, deps.now ? { now: deps.now } : {});
  }

  get dataDir(): string {
    return this.config.dataDir;
  }

  /** The config as read (the settings file's content, where it lives, the data directory). */
  get loadedConfig(): LoadedConfig {
    return this.config;
  }

  /** Uses the config from now on (after the settings were saved); runs in progress keep theirs. */
  useConfig(config: LoadedConfig): void {
    this.config = config;
  }

  /** Told of every run or replay this service starts (a window following "the current run"). */
  onRunStarted(listener: (run: RunHandle) => void): () => void {
    this.startListeners.add(listener);
    return () => this.startListeners.delete(listener);
  }

  /** The run going on in this process, the newest if there are several (one per display). */
  current(): RunHandle | undefined {
    return [...this.runs.values()].at(-1);
  }

  async deleteSession(ref: string): Promise<ServiceResult<{ id: string }>> {
    const deleted = await this.store.delete(ref);
    return deleted.ok ? { ok: true, value: { id: deleted.id } } : { ok: false, error: { kind: 'not_found', message: deleted.message } };
  }

  /** The settings a run would use now (the model resolved from flags, environment and file). */
  settings(overrides: RunFlags = {}): ServiceResult<RunSettings> {
    const resolved = runSettingsOf(this.config, { ...this.deps.flags, ...overrides }, this.env, this.deps.storedApiKey?.());
    return resolved.ok ? { ok: true, value: resolved.settings } : { ok: false, error: { kind: 'settings', message: resolved.message } };
  }

  /** Starts a task. The handle's events begin with run-started. */
  async start(request: StartRequest): Promise<ServiceResult<RunHandle>> {
    if (request.task.trim() === '') return { ok: false, error: { kind: 'settings', message: 'the task is empty' } };
    const settings = this.settings(request.overrides);
    if (!settings.ok) return settings;
    const run = settings.value;
    const display = request.display ?? request.overrides?.display;
    await this.keepPrivate();
    const opened = await this.openForRun(display);
    if (!opened.ok) return opened;
    const { lock, operator, closeOperator } = opened.value;
    const release = async () => {
      await closeOperator();
      await lock.release();
    };

    await this.housekeeping();
    // The last run's compaction stops where it is (each summary it wrote is whole) before this run reads the board.
    await this.stopCompaction();
    const secrets = this.secretsFor(request.overrides);
    const mask = new SecretMask(secrets);
    const backends = await this.memoryBackends(run.memoryStore);
    if (!backends.ok) {
      await release();
      return backends;
    }
    const memory = await openRunMemory(run, run.prices, backends.value, request.conversationId, mask);
    if (!memory.ok) {
      await release();
      return { ok: false, error: { kind: 'settings', message: memory.message } };
    }
    for (const warning of memory.memory.warnings) this.log(`warning: ${warning}`);
    const model = (this.deps.createModel ?? ((settings, prices) => createVisionModel(settings, { prices })))(run.model, run.prices);
    // The task as it is recorded and shown; the model gets it as the user wrote it.
    const task = mask.text(request.task);
    const recorder = await FileRunRecorder.create(run.dataDir, { task, model: run.model.model, family: run.model.family }).catch((error: unknown) => error as Error);
    if (recorder instanceof Error) {
      await release();
      return { ok: false, error: { kind: 'record', message: `cannot record the session: ${describeWriteFailure(recorder, sessionsRoot(run.dataDir), 'a new session')}` } };
    }
    await lock.name(recorder.sessionId);
    const notices = await this.lowDiskNotices();

    const gate = new PauseGate();
    const stop = new AbortController();
    const live = new LiveRun({ kind: 'run', task, recorder, dataDir: run.dataDir, conversationId: memory.memory.conversationId, gate, stop, nobodyAnswers: request.interactive === false });
    const probe = this.deps.probe ?? ((settings, signal) => probeProvider(settings, {}, signal));
    const agent = new DeviceAgent(
      {
        model,
        operator,
        recorder,
        askUser: live.askUser,
        memory: memory.memory.deps,
        gate,
        notices,
        secrets,
        ...(this.deps.now ? { now: this.deps.now } : {}),
        ...(request.skipProviderCheck ? {} : { preflight: (signal: AbortSignal) => probe(run.model, signal) }),
      },
      {
        ...request.agent,
        memory: { layers: run.memory.layers, pruning: run.memory.pruning, budgets: run.memory.budgets },
        limits: { maxSteps: run.maxSteps, maxCostUsd: run.maxCostUsd, maxConsecutiveErrors: run.maxConsecutiveErrors, maxParseRetries: 3, ...request.agent?.limits },
        keepScreenshots: run.keepScreenshots,
        confirmationRules: run.confirmationRules,
        capture: {
          maxWidth: run.image.maxWidth,
          format: run.image.format,
          quality: run.image.quality,
          keepFullResolution: run.store.keepFullResolution,
          ...(display !== undefined ? { display } : {}),
        },
      },
    );
    this.track(live, agent.run(request.task, stop.signal, { conversationId: memory.memory.conversationId }), async () => {
      // Failures during the run were said then, as notes; these came after it.
      for (const failure of await memory.memory.save()) this.log(`warning: ${failure}`);
      await release();
      this.compactAfterRun(memory.memory);
    });
    return { ok: true, value: live };
  }

  /** Replays a recorded session on the desktop; the replay is recorded as a new session. */
  async replay(request: ReplayRequest): Promise<ServiceResult<RunHandle>> {
    let model: VisionModel | undefined;
    if (request.model) {
      const settings = this.settings(request.model);
      if (!settings.ok) return { ok: false, error: { kind: 'settings', message: `--policy ${request.policy} needs a model: ${settings.error.message}` } };
      model = (this.deps.createModel ?? ((s, prices) => createVisionModel(s, { prices })))(settings.value.model, settings.value.prices);
    }
    const lookup = await this.store.resolve(request.session);
    if (!lookup.ok) return { ok: false, error: { kind: 'not_found', message: lookup.message } };
    const read = await readSession(this.dataDir, lookup.id);
    if (!read.ok) return { ok: false, error: { kind: 'not_found', message: read.message } };
    const session = read.session;
    for (const warning of session.warnings) this.log(`session ${session.meta.id}, line ${warning.line}: ${warning.message}`);

    await this.keepPrivate();
    const opened = await this.openForRun(request.display);
    if (!opened.ok) return opened;
    const { lock, operator, closeOperator } = opened.value;
    const secrets = this.secretsFor(request.model);
    const task = new SecretMask(secrets).text(session.meta.task);
    const recorder = await FileRunRecorder.create(this.dataDir, { task, model: model?.model ?? 'none', family: model?.family ?? 'none', replayOf: session.meta.id }).catch(
      (error: unknown) => error as Error,
    );
    if (recorder instanceof Error) {
      await closeOperator();
      await lock.release();
      return { ok: false, error: { kind: 'record', message: `cannot record the replay: ${describeWriteFailure(recorder, sessionsRoot(this.dataDir), 'a new session')}` } };
    }
    await lock.name(recorder.sessionId);
    const notices = await this.lowDiskNotices();
    const gate = new PauseGate();
    const stop = new AbortController();
    const live = new LiveRun({ kind: 'replay', task, recorder, dataDir: this.dataDir, conversationId: null, gate, stop, nobodyAnswers: request.interactive === false });
    const replayer = new Replayer({ operator, recorder, askUser: live.askUser, gate, notices, secrets, ...(model ? { model } : {}), ...(this.deps.now ? { now: this.deps.now } : {}) });
    const events = replayer.replay(
      session,
      {
        policy: request.policy,
        speed: request.speed,
        ...(request.thresholds ? { thresholds: request.thresholds } : {}),
        capture: { ...(request.display !== undefined ? { display: request.display } : {}) },
      },
      stop.signal,
    );
    this.track(live, events, async () => {
      await closeOperator();
      await lock.release();
    });
    return { ok: true, value: live };
  }

  /** Runs in progress in this process. */
  active(): RunHandle[] {
    return [...this.runs.values()];
  }

  run(id: string): RunHandle | undefined {
    return this.runs.get(id);
  }

  /** A session's events after `since`: followed live while it runs here, else read from its record. */
  async *events(sessionId: string, since = 0): AsyncIterable<AgentEvent> {
    const live = this.runs.get(sessionId);
    if (live) {
      yield* live.events(since);
      return;
    }
    const read = await readSession(this.dataDir, sessionId);
    if (!read.ok) return;
    for (const event of read.session.events) if (event.seq > since) yield event;
  }

  async sessions(options: { search?: string } = {}): Promise<SessionListing> {
    // A data directory without sessions yet gets the sample to explore.
    await offerSampleSession(this.dataDir);
    return this.store.list(options);
  }

  /** One session by id, unique prefix or `last`. */
  async session(ref: string): Promise<ServiceResult<SessionRecord & { storeWarnings: StoreWarning[] }>> {
    const lookup = await this.store.resolve(ref);
    if (!lookup.ok) return { ok: false, error: { kind: lookup.kind === 'invalid' ? 'settings' : 'not_found', message: lookup.message } };
    const read = await this.store.read(lookup.id);
    if (!read.ok) return { ok: false, error: { kind: 'not_found', message: read.message } };
    return { ok: true, value: { ...read.session, storeWarnings: read.warnings ?? [] } };
  }

  /** The memory at the end of a session (or now, for a live one): layers, pruning, blackboard, conversation. */
  async memory(ref: string): Promise<ServiceResult<MemorySnapshot>> {
    const session = await this.session(ref);
    if (!session.ok) return session;
    return { ok: true, value: buildMemorySnapshot(session.value.events.flatMap((event) => (event.type === 'memory' ? [event.change] : []))) };
  }

  /**
   * The long-lived memory (facts, working memory) as runs with these settings use it: for the
   * app's Memory view and other front ends. Not closed by the caller; `close()` closes it.
   */
  async memoryService(overrides: Pick<RunFlags, 'redisUrl' | 'memoryKeyFile'> = {}): Promise<ServiceResult<MemoryService>> {
    const settings = memoryStoreSettingsOf(this.config, { ...this.deps.flags, ...overrides }, this.env);
    if (!settings.ok) return { ok: false, error: { kind: 'settings', message: settings.message } };
    const backends = await this.memoryBackends(settings.settings);
    return backends.ok ? { ok: true, value: new MemoryService(backends.value, this.deps.now) } : backends;
  }

  private async memoryBackends(settings: MemoryStoreSettings): Promise<ServiceResult<MemoryBackends>> {
    const key = JSON.stringify(settings);
    let opening = this.backends.get(key);
    if (!opening) {
      opening = openMemoryBackends(settings, this.deps.memoryKey ? { keychainKey: this.deps.memoryKey } : {});
      this.backends.set(key, opening);
      void opening.then((opened) => {
        if (opened.ok) for (const warning of opened.backends.warnings) this.log(`warning: ${warning}`);
        // A failure is not kept: the next run tries again (Redis may be back).
        else this.backends.delete(key);
      });
    }
    const opened = await opening;
    return opened.ok ? { ok: true, value: opened.backends } : { ok: false, error: { kind: 'memory', message: opened.message } };
  }

  /** The provider check alone, with a real chat call: latency, and whether an image is accepted. */
  async checkModel(overrides: RunFlags = {}, signal?: AbortSignal): Promise<ServiceResult<ModelCheck>> {
    const settings = this.settings(overrides);
    if (!settings.ok) return settings;
    // A provider may echo the key in its error message.
    return { ok: true, value: new SecretMask(this.secretsFor(overrides)).deep(await checkModel(settings.value.model, {}, signal)) };
  }

  /**
   * "Test connection" in the settings: the model settings as the form holds them (over the saved
   * ones), one small chat request with an image.
   */
  async checkProvider(model: Partial<ModelSettingsInput>, apiKey?: string): Promise<ServiceResult<ModelCheck>> {
    const file = this.config.file.model ?? {};
    const candidate = { ...file, ...model, ...(apiKey !== undefined ? { apiKey } : {}) };
    const settings = ModelSettingsSchema.safeParse({ apiKey: this.env.OPENAI_API_KEY, ...candidate });
    if (!settings.success) return { ok: false, error: { kind: 'settings', message: `model settings: ${describeConfigIssues(settings.error.issues)}` } };
    return { ok: true, value: await checkModel(settings.data) };
  }

  /** Stops every run of this process and waits until they are recorded as ended. */
  async close(): Promise<void> {
    const runs = [...this.runs.values()];
    for (const run of runs) run.stop();
    await Promise.all(runs.map((run) => run.done));
    // The summaries of the last run are written before the memory closes (a few model calls at most).
    await this.compaction?.done;
    const backends = [...this.backends.values()];
    this.backends.clear();
    for (const opening of backends) {
      const opened = await opening;
      if (opened.ok) await opened.backends.close();
    }
  }

  /** A text with the settings' secrets masked, for a front end to print (an error message, a path). */
  redact(text: string): string {
    return new SecretMask(this.secretsFor()).text(text);
  }

  /** The secrets of the settings, with a run's own flags (another key variable, another URL). */
  private secretsFor(overrides: RunFlags = {}): string[] {
    return configuredSecrets(this.deps.config.file, { ...this.deps.flags, ...overrides }, this.env);
  }

  private log(message: string): void {
    this.deps.log?.(this.redact(message));
  }

  /**
   * Folds the tasks that just ended into the blackboard's one-line summaries, off the critical
   * path: after the run has ended and released the display, while nobody waits for a step. The
   * next run stops it first; what it wrote by then is whole, and the rest is done next time.
   */
  private compactAfterRun(memory: OpenedMemory): void {
    const stop = new AbortController();
    const done = memory
      .compact({ limit: COMPACT_AFTER_RUN, signal: stop.signal })
      .then((report) => {
        if (report.writeError) this.log(`warning: ${report.writeError}`);
        else if (report.failed.length > 0 && !stop.signal.aborted) this.log(`warning: the blackboard was not compacted: ${report.failed[0]?.error}`);
      })
      .catch((error: unknown) => this.log(`warning: the blackboard was not compacted: ${(error as Error).message}`))
      .finally(() => {
        if (this.compaction?.done === done) this.compaction = null;
      });
    this.compaction = { stop, done };
  }

  /** Whether the blackboard compaction after the last run is still going on (close() waits for it). */
  get compacting(): boolean {
    return this.compaction !== null;
  }

  private async stopCompaction(): Promise<void> {
    const compaction = this.compaction;
    if (!compaction) return;
    compaction.stop.abort();
    await compaction.done;
  }

  /**
   * `mnemo memory compact`: every finished task of the shared blackboard that has no summary yet
   * gets one (newest first, at most `limit`), with progress; stops at `signal`.
   */
  async compactMemory(options: CompactionOptions = {}): Promise<ServiceResult<CompactionReport>> {
    const settings = this.settings();
    if (!settings.ok) return settings;
    await this.stopCompaction();
    const backends = await this.memoryBackends(settings.value.memoryStore);
    if (!backends.ok) return backends;
    const compacted = await compactSharedBlackboard(settings.value, settings.value.prices, backends.value, new SecretMask(this.secretsFor()), options);
    if (!compacted.ok) return { ok: false, error: { kind: 'memory', message: compacted.message } };
    for (const warning of compacted.warnings) this.log(`warning: ${warning}`);
    return { ok: true, value: compacted.report };
  }

  private track(live: LiveRun, events: AsyncIterable<AgentEvent>, afterEnd: () => Promise<void>): void {
    this.runs.set(live.id, live);
    for (const listener of this.startListeners) listener(live);
    void live.pump(events, async () => {
      try {
        await afterEnd();
      } finally {
        this.runs.delete(live.id);
      }
    });
  }

  /** The display lock and the operator, in that order (a busy display opens nothing). */
  private async openForRun(display: number | undefined): Promise<ServiceResult<{ lock: DisplayLock; operator: Operator; closeOperator: () => Promise<void> }>> {
    const name = displayName(this.env, display);
    const locked = await DisplayLock.acquire(this.dataDir, name).catch((error: unknown) => ({ ok: false as const, message: `cannot lock ${name}: ${(error as Error).message}`, sessionId: null }));
    if (!locked.ok) return { ok: false, error: { kind: 'busy', message: locked.message, sessionId: locked.sessionId } };
    const opened = await this.deps.openOperator({ ...(display !== undefined ? { display } : {}) });
    if (!opened.ok) {
      await locked.lock.release();
      return { ok: false, error: { kind: 'no_display', message: opened.message } };
    }
    const close = opened.close;
    return { ok: true, value: { lock: locked.lock, operator: opened.operator, closeOperator: async () => void (await close?.()) } };
  }

  /**
   * A disk nearly full, said as a note before the first step (in the terminal, the app, --json and
   * the record): the run will stop at the first step it cannot record.
   */
  private async lowDiskNotices(): Promise<string[]> {
    const minFreeMb = storeSettingsOf(this.deps.config).minFreeMb;
    if (minFreeMb <= 0) return [];
    const free = await (this.deps.freeBytes ?? freeBytes)(this.dataDir).catch(() => null);
    if (free === null || free >= minFreeMb * 1e6) return [];
    return [
      `warning: only ${formatMegabytes(free)} free on the disk holding ${displayPath(this.dataDir)} (less than store.minFreeMb, ${minFreeMb} MB); the run stops at the first step it cannot record`,
    ];
  }

  /** The data directory owner-only before the first run writes to it; a wide one is tightened, and said. */
  private keepPrivate(): Promise<void> {
    this.privateDataDir ??= keepDataDirPrivate(this.dataDir).then(
      (line) => {
        if (line) this.log(line);
      },
      () => undefined,
    );
    return this.privateDataDir;
  }

  /** Before a run's session exists: mark sessions whose process died, apply retention. */
  private async housekeeping(): Promise<void> {
    const pruned = await this.store.prune(retentionOf(storeSettingsOf(this.config)));
    for (const warning of pruned.warnings) this.log(`warning: ${warning.message}`);
    for (const id of pruned.interrupted) this.log(`session ${id} was interrupted (its process is gone): marked so`);
    if (pruned.deleted.length > 0) this.log(`retention: deleted ${pruned.deleted.length} old session(s)`);
  }
}
