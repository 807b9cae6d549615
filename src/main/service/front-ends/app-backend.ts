/**
 * What the app's window asks of the core, in one place for both shells: the Electron main process
 * (IPC, src/main/app/handlers.ts) and `mnemo serve` (HTTP, src/main/server/api.ts) serve the
 * window's commands with the same handlers over these methods (window-commands.ts), so a button
 * behaves the same in both. Everything is a ServiceResult value.
 *
 * The API key never reaches the window: the settings view says only whether one is stored, and
 * where. Where it is stored is the shell's choice (`KeyStore`, src/main/settings/key-store.ts):
 * Electron's safeStorage in the app; in browser mode the OS keychain of the data directory, or
 * config.json (owner-only) where no keychain can keep it, as the CLI reads them.
 */
import type { FactQuery, FactSearch, LiveRunItem, RunState, FactToSave, SaveSettings, SaveWorkflow, SavedSettings, SessionListItem, StartRun, StartTeach, StartWorkflowRun } from '../../../shared/app-api';
import type { Action } from '../../../shared/actions';
import type { ActionResult } from '../../../shared/action-result';
import type { FactJson } from '../../memory/facts';
import type { ConfigFile } from '../../../shared/config';
import type { AgentEvent } from '../../../shared/events';
import type { DisplayInfo } from '../../../shared/frame';
import type { ElementSnapshot } from '../../../shared/elements';
import { runDesktopSnapshot } from '../runs/run-elements';
import type { ModelSettingsInput } from '../../../shared/settings';
import { summarizeWorkflow, type ProposedParam, type WorkflowSummary } from '../../../shared/workflow';
import type { ModelCheck } from '../../model/provider-check';
import type { GroundingCheckOutcome } from '../../model/grounding-check';
import type { ReplayPolicy } from '../../replay/policy';
import { displayNotNamed } from '../../operator/display-check';
import { screenshotReader } from '../../replay/inspect';
import { renderHtmlReport } from '../../replay/report';
import type { KeyChange, KeyStore } from '../../settings/key-store';
import type { SharedStore } from '../../store/shared-store/types';
import { saveConfig } from '../../settings/settings';
import type { RunHandle, RunService, ServiceResult } from '../run-service';
import { runDoctor, type DoctorCheck } from '../checks/doctor';
import type { MemoryService, WorkingMemoryView } from '../memory/memory-service';
import { PACKAGE_ROOT } from '../../package-root';
import { listItemOf } from '../sessions/session-views';

/** Keys kept in config.json's `model.apiKey` only (no keychain asked), written with the rest of the file. */
export function configFileKeyStore(service: RunService): KeyStore {
  return {
    get: () => undefined,
    save: async (change, inFile) => ({ ok: true, inFile: change.kind === 'set' ? change.key : change.kind === 'remove' ? undefined : inFile, note: null }),
    status: () => ({ status: 'ok', detail: `config.json (${service.config.loaded.path}, owner-only, 0600) keeps the keys saved in Settings`, fix: '' }),
    refresh: async () => undefined,
  };
}

export function runState(run: RunHandle): RunState {
  const question = run.pendingQuestion;
  return {
    id: run.id,
    kind: run.kind,
    task: run.task,
    paused: run.paused,
    conversationId: run.conversationId,
    pendingQuestion: question ? { id: question.id, kind: question.kind, question: question.question } : null,
    status: run.status,
    desktop: run.desktop,
  };
}

const notRunning = (id: string): ServiceResult<never> => ({ ok: false, error: { kind: 'not_found', message: `no run ${id} is going on` } });

/** A filter field left empty (in a form, a query string) means "any". */
function factQueryOf(query: FactQuery): { subject?: string; scope?: string } {
  const subject = query.subject?.trim();
  const scope = query.scope?.trim();
  return { ...(subject ? { subject } : {}), ...(scope ? { scope } : {}) };
}

export class AppBackend {
  constructor(
    readonly service: RunService,
    private readonly keys: KeyStore,
    /** Where the package is installed, for the doctor's Electron check. */
    private readonly packageRoot: string = PACKAGE_ROOT,
  ) {}

  /** The checks of `mnemo doctor`, for the Settings view and the first start. */
  async doctor(): Promise<DoctorCheck[]> {
    // A keyring unlocked or started since the last look is seen now.
    await this.keys.refresh();
    const settings = this.service.config.runSettings();
    const { createIsolatedOperator } = await import('../../operator/isolated-operator');
    return runDoctor({
      env: process.env,
      platform: process.platform,
      dataDir: this.service.config.dataDir,
      model: settings.ok ? { ok: true, settings: settings.value.model } : { ok: false, message: settings.error.message },
      openOperator: () => createIsolatedOperator(),
      packageRoot: this.packageRoot,
      keyStore: this.keys.status(this.keyInFile()),
      sessionStore: this.sessionStoreSetting(),
    });
  }

  /** The shared session store for the doctor's line: the one the service uses, or why the settings do not name one that reads. */
  private sessionStoreSetting(): { ok: true; store: SharedStore } | { ok: false; message: string } | null {
    const shared = this.service.config.sharedStore();
    if (!shared.ok) return { ok: false, message: shared.error.message };
    return shared.value ? { ok: true, store: shared.value.store } : null;
  }

  /** The key config.json holds (browser mode's fallback, or one written by hand). */
  private keyInFile(): string | undefined {
    return this.service.config.loaded.file.model?.apiKey || undefined;
  }

  /** The displays as the operator sees them (through its isolated host, as a run would open it). */
  async displays(): Promise<ServiceResult<DisplayInfo[]>> {
    // As the doctor does: no host is started for a DISPLAY that names nothing.
    const unnamed = displayNotNamed(process.env, process.platform);
    if (unnamed) return { ok: false, error: { kind: 'no_display', message: unnamed } };
    const { createIsolatedOperator } = await import('../../operator/isolated-operator');
    const opened = await createIsolatedOperator();
    if (!opened.ok) return { ok: false, error: { kind: 'no_display', message: opened.message } };
    try {
      const listed = await opened.operator.displays();
      return listed.ok ? { ok: true, value: listed.displays } : { ok: false, error: { kind: 'no_display', message: listed.message } };
    } finally {
      await opened.operator.close();
    }
  }

  async startRun(request: StartRun): Promise<ServiceResult<{ id: string; conversationId: string | null }>> {
    const started = await this.service.agentRuns.start({
      task: request.task,
      ...(request.conversationId ? { conversationId: request.conversationId } : {}),
      ...(request.desktop ? { desktop: request.desktop } : {}),
    });
    return started.ok ? { ok: true, value: { id: started.value.id, conversationId: started.value.conversationId } } : started;
  }

  /** The runs going on, oldest first. */
  liveRuns(): LiveRunItem[] {
    return this.service.runs.list();
  }

  /** The user takes a run over; `conflict` with the reason when it cannot be. */
  takeOver(id: string): ServiceResult<RunState> {
    const run = this.service.runs.get(id);
    if (!run) return notRunning(id);
    const taken = run.takeOver();
    return taken.ok ? { ok: true, value: runState(run) } : { ok: false, error: { kind: 'conflict', message: taken.reason } };
  }

  /** One action of the user's on a run taken over: the user's step and what it did. */
  async input(id: string, action: Action): Promise<ServiceResult<{ step: number; result: ActionResult }>> {
    const run = this.service.runs.get(id);
    if (!run) return notRunning(id);
    const done = await run.input(action);
    return done.ok ? { ok: true, value: { step: done.step, result: done.result } } : { ok: false, error: { kind: 'conflict', message: done.reason } };
  }

  handBack(id: string, note?: string): ServiceResult<RunState> {
    const run = this.service.runs.get(id);
    if (!run) return notRunning(id);
    const handed = run.handBack(note);
    return handed.ok ? { ok: true, value: runState(run) } : { ok: false, error: { kind: 'conflict', message: handed.reason } };
  }

  /** The elements of a run's display now, for the live view's outlines (run-elements.ts). */
  async elements(id: string): Promise<ServiceResult<ElementSnapshot>> {
    const run = this.service.runs.get(id);
    if (!run) return notRunning(id);
    const { openElementReader } = await import('../../operator/a11y/open-reader');
    return runDesktopSnapshot(run.desktop, { dataDir: this.service.config.dataDir, env: process.env, openReader: openElementReader });
  }

  currentRun(): RunState | null {
    const run = this.service.runs.current();
    return run ? runState(run) : null;
  }

  control(id: string, what: 'pause' | 'resume' | 'stop'): ServiceResult<RunState> {
    const run = this.service.runs.get(id);
    if (!run) return notRunning(id);
    run[what]();
    return { ok: true, value: runState(run) };
  }

  answer(id: string, text: string, questionId?: number): ServiceResult<RunState> {
    const run = this.service.runs.get(id);
    if (!run) return notRunning(id);
    if (!run.answer(questionId, text)) {
      return { ok: false, error: { kind: 'conflict', message: questionId ? `question ${questionId} is not waiting for an answer` : 'no question is waiting for an answer' } };
    }
    return { ok: true, value: runState(run) };
  }

  async startReplay(request: { session: string; policy: ReplayPolicy; speed: number; desktop?: StartRun['desktop'] }): Promise<ServiceResult<{ id: string }>> {
    const started = await this.service.replays.start({ ...request, ...(request.policy === 'reground' ? { model: {} } : {}) });
    return started.ok ? { ok: true, value: { id: started.value.id } } : started;
  }

  /** Runs a saved workflow with new values; under `reground` with the model of the settings. */
  async startWorkflow(request: StartWorkflowRun): Promise<ServiceResult<{ id: string }>> {
    const { name, values, policy, speed } = request;
    const started = await this.service.workflowRuns.start({ name, values: new Map(Object.entries(values)), policy, speed, ...(policy === 'reground' ? { model: {} } : {}) });
    return started.ok ? { ok: true, value: { id: started.value.id } } : started;
  }

  /** "Save as workflow": the session saved with the parameters confirmed; the workflow as `save --json` prints it. */
  async saveWorkflow(request: SaveWorkflow): Promise<ServiceResult<{ workflow: WorkflowSummary; replaced: boolean; proposed: ProposedParam[] }>> {
    const params = request.params.map(({ name, value, secret }) => ({ name, secret, ...(value !== undefined ? { value } : {}) }));
    const saved = await this.service.workflows.save({ session: request.session, name: request.name, params, ...(request.autoParams ? { autoParams: true } : {}) });
    if (!saved.ok) return { ok: false, error: saved.error };
    // Saved from a session on this machine: trusted.
    return { ok: true, value: { workflow: summarizeWorkflow(saved.value.workflow, true), replaced: saved.value.replaced, proposed: saved.value.proposed } };
  }

  /** A file made by export (as JSON, never stringified again: a deep one would overflow the stack), checked whole before anything is written; untrusted until the user trusts it. */
  async importWorkflow(request: { file: Record<string, unknown>; name?: string | undefined; replace: boolean }): Promise<ServiceResult<{ workflow: WorkflowSummary; replaced: boolean }>> {
    const imported = await this.service.workflows.import({ parsed: request.file }, { replace: request.replace, ...(request.name !== undefined ? { rename: request.name } : {}) });
    return imported.ok ? { ok: true, value: { workflow: summarizeWorkflow(imported.value.workflow, false), replaced: imported.value.replaced } } : imported;
  }

  /** Starts a demonstration (`Teach` in the window); `unavailable` while no recorder is plugged in. */
  startTeach(request: StartTeach): Promise<ServiceResult<{ id: string }>> {
    return this.service.demonstrations.startTeach(request);
  }

  /** Stops a demonstration and saves it as a session. */
  stopTeach(id: string): Promise<ServiceResult<{ sessionId: string }>> {
    return this.service.demonstrations.stopTeach(id);
  }

  async sessions(filter: { search?: string | undefined; status?: string | undefined } = {}): Promise<SessionListItem[]> {
    const listing = await this.service.records.list(filter.search ? { search: filter.search } : {});
    return listing.sessions.filter((session) => !filter.status || session.status === filter.status).map(listItemOf);
  }

  /** A session's events after `since`: a live run adds the ones not yet written. */
  events(id: string, since = 0): Promise<ServiceResult<AgentEvent[]>> {
    return this.service.records.eventsSoFar(id, since);
  }

  /** The self-contained HTML report of a session. */
  async report(id: string): Promise<ServiceResult<{ html: string; sessionId: string }>> {
    // Whole: a stored session's screenshots fetched before the report embeds them.
    const read = await this.service.records.session(id, { whole: true });
    if (!read.ok) return read;
    return { ok: true, value: { html: await renderHtmlReport(read.value, screenshotReader(read.value.directory)), sessionId: read.value.meta.id } };
  }

  settings(): SavedSettings {
    const loaded = this.service.config.loaded;
    const { apiKey: _key, ...model } = loaded.file.model ?? {};
    const config: ConfigFile = { ...loaded.file, ...(loaded.file.model ? { model } : {}) };
    const inFile = this.keyInFile();
    return { config, hasApiKey: inFile !== undefined || this.keys.get() !== undefined, dataDir: loaded.dataDir, configPath: loaded.path, keyStore: this.keys.status(inFile) };
  }

  /**
   * Saves to config.json (the file the CLI reads). The key store acts first (a new key kept, a key
   * config.json holds moved out of it where it can): a key it refuses is a `settings` failure
   * with its reason, and nothing is written.
   */
  async saveSettings(request: SaveSettings): Promise<ServiceResult<SavedSettings>> {
    const loaded = this.service.config.loaded;
    const change: KeyChange = request.apiKey === undefined ? { kind: 'keep' } : request.apiKey === '' ? { kind: 'remove' } : { kind: 'set', key: request.apiKey };
    const kept = await this.keys.save(change, this.keyInFile());
    if (!kept.ok) return { ok: false, error: { kind: 'settings', message: kept.message } };
    const { apiKey: _given, ...model } = request.config.model ?? {};
    const withKey = kept.inFile !== undefined ? { ...model, apiKey: kept.inFile } : model;
    const file: ConfigFile = { ...request.config, ...(Object.keys(withKey).length > 0 ? { model: withKey } : {}) };
    const saved = await saveConfig(loaded, file);
    if (!saved.ok) return { ok: false, error: { kind: 'settings', message: saved.message } };
    this.service.config.use(saved.config);
    return { ok: true, value: { ...this.settings(), ...(kept.note ? { notice: kept.note } : {}) } };
  }

  /** The key "Test connection" uses when the form has none: config.json's first, as a run resolves it, then the key store's. */
  private savedKey(): string | undefined {
    return this.keyInFile() ?? this.keys.get();
  }

  /** The long-lived memory the runs use (the data directory or Redis, as the settings say). */
  private async withMemory<T>(work: (memory: MemoryService) => Promise<ServiceResult<T>>): Promise<ServiceResult<T>> {
    const opened = this.service.config.redacted(await this.service.memoryHost.memoryService());
    return opened.ok ? work(opened.value) : opened;
  }

  /** The Memory view's Facts: each fact with the versions it superseded, to show what an edit replaced. */
  facts(query: FactQuery = {}): Promise<ServiceResult<FactJson[]>> {
    return this.withMemory((memory) => memory.listFacts(factQueryOf(query), { history: true }));
  }

  searchFacts(request: FactSearch): Promise<ServiceResult<FactJson[]>> {
    const { text, limit, ...query } = request;
    return this.withMemory((memory) => memory.searchFacts(text, { ...factQueryOf(query), ...(limit !== undefined ? { limit } : {}) }, { history: true }));
  }

  /** A fact saved or edited by a person (so no run taught this version). */
  saveFact(request: FactToSave): Promise<ServiceResult<FactJson>> {
    const { description = '', multiple, ...fact } = request;
    return this.withMemory((memory) => memory.addFact({ ...fact, description, ...(multiple !== undefined ? { multiple } : {}) }, { history: true }));
  }

  forgetFact(id: string): Promise<ServiceResult<{ id: string }>> {
    return this.withMemory((memory) => memory.forgetFact(id));
  }

  conversations(): Promise<ServiceResult<string[]>> {
    return this.withMemory((memory) => memory.conversations());
  }

  workingMemory(conversationId: string): Promise<ServiceResult<WorkingMemoryView | null>> {
    return this.withMemory((memory) => memory.workingMemory(conversationId));
  }

  /** "Test connection" with the model settings as the form holds them. */
  checkProvider(model: Partial<ModelSettingsInput> = {}, apiKey?: string): Promise<ServiceResult<ModelCheck>> {
    return this.service.checks.provider(model, apiKey ?? this.savedKey());
  }

  /** "Check grounding" with the model settings as the form holds them. */
  checkGrounding(model: Partial<ModelSettingsInput> = {}, apiKey?: string, targets?: number): Promise<ServiceResult<GroundingCheckOutcome>> {
    return this.service.checks.groundingCandidate(model, apiKey ?? this.savedKey(), targets !== undefined ? { targets } : {});
  }
}
