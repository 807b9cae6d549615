/**
 * The one API the views use, whichever shell the window runs in: Electron (over the preload's
 * IPC, ipc-client.ts) or a browser against `mnemo serve` (HTTP and server-sent events,
 * http-client.ts). Every command answers a `Result`, as the contract does; events arrive in
 * `seq` order per session, each once.
 */
import type { DoctorCheck, Fact, FactQuery, FactSearch, ProviderCheckResult, RunState, SaveFact, SaveSettings, SessionListItem, SettingsView, StartRun, WorkingMemory } from '../../../shared/app-api';
import type { Result } from '../../../shared/contract';
import type { AgentEvent } from '../../../shared/events';

export type ReplayPolicy = 'stop' | 'ask' | 'reground';

export interface SessionFilter {
  search?: string;
  status?: string;
}

export interface MnemoClient {
  /** Which transport answers: shown nowhere important, useful in tests and logs. */
  readonly transport: 'ipc' | 'http';
  startRun(request: StartRun): Promise<Result<{ id: string; conversationId?: string | null | undefined }>>;
  currentRun(): Promise<Result<RunState | null>>;
  pause(runId: string): Promise<Result<RunState>>;
  resume(runId: string): Promise<Result<RunState>>;
  /** Stops the run; the model call in flight is cancelled. */
  stop(runId: string): Promise<Result<RunState>>;
  /** A question's text, or "yes"/"no" for a confirmation or a safety check. */
  answer(runId: string, text: string, questionId?: number): Promise<Result<RunState>>;
  startReplay(request: { session: string; policy: ReplayPolicy; speed: number }): Promise<Result<{ id: string }>>;
  sessions(filter?: SessionFilter): Promise<Result<SessionListItem[]>>;
  /** A session's recorded events after `since` (a live run's too). */
  sessionEvents(sessionId: string, since?: number): Promise<Result<AgentEvent[]>>;
  deleteSession(sessionId: string): Promise<Result<{ id: string }>>;
  /** Saves the HTML report: a save dialog in the app, a download in the browser. */
  exportReport(sessionId: string): Promise<Result<{ savedAs: string | null }>>;
  settings(): Promise<Result<SettingsView>>;
  saveSettings(request: SaveSettings): Promise<Result<SettingsView>>;
  checkProvider(request: { model?: SaveSettings['config']['model']; apiKey?: string }): Promise<Result<ProviderCheckResult>>;
  /** The checks of `mnemo doctor`, run by the core (the display, input, data directory, provider). */
  doctor(): Promise<Result<DoctorCheck[]>>;
  /** The facts remembered across tasks, each with the versions it superseded. */
  facts(query?: FactQuery): Promise<Result<Fact[]>>;
  searchFacts(request: FactSearch): Promise<Result<Fact[]>>;
  /** Saves or edits a fact (same subject, scope and keyword: a new value supersedes the old). */
  saveFact(request: SaveFact): Promise<Result<Fact>>;
  forgetFact(id: string): Promise<Result<{ id: string }>>;
  /** The conversations that have a working memory. */
  conversations(): Promise<Result<string[]>>;
  workingMemory(conversationId: string): Promise<Result<WorkingMemory | null>>;
  /** Where a session file (a screenshot, a raw reply) loads from; `thumbWidth` asks for a small JPEG. */
  fileUrl(sessionId: string, path: string, thumbWidth?: number): string;
  /**
   * Follows the run going on from `since` (0: its first event) and every run started after it
   * from its first event. Events come in `seq` order per run, without gaps or repeats.
   * Returns the function that stops following.
   */
  subscribe(since: number, onEvent: (event: AgentEvent) => void): () => void;
}
