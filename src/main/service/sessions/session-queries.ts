/**
 * The recorded sessions as the front ends ask for them: the list (with the sample for a data
 * directory that has none yet), one session by id, unique prefix or `last`, its events after a
 * `seq` (followed live while it runs in this process), its memory snapshot, its deletion, and the
 * housekeeping before a run (sessions whose process died marked so, retention applied).
 *
 * With a shared session store set, the sessions are those of the data directory and of the store,
 * read alike (store/session-library.ts), and each run's session is uploaded when the run ends
 * (store/session-uploads.ts; what an earlier process left pending at the first start or run).
 *
 * Every query waits until the data directory has been made private (service-config.ts).
 */
import { buildMemorySnapshot, type MemorySnapshot } from '../../../shared/memory';
import { knownToFit } from '../../../shared/checked-once';
import { AgentEventListSchema, type AgentEvent } from '../../../shared/events';
import { offerSampleSession } from '../../store/sample-session';
import { SESSION_ID_PATTERN } from '../../store/paths';
import type { SessionRecord } from '../../store/session-reader';
import { SessionLibrary, type FileRead, type LibraryListing, type LibraryLookup, type SessionPlace } from '../../store/session-library';
import { SessionStore, type StoreWarning } from '../../store/session-store';
import { SessionUploads, type UploadOptions, type UploadOutcome } from '../../store/session-uploads';
import { StoreCache } from '../../store/store-cache';
import { retentionOf } from '../../store/store-settings';
import type { RunRegistry } from '../runs/run-registry';
import type { ServiceConfig } from '../service-config';
import type { ServiceResult } from '../service-result';

export interface SessionQueriesDeps {
  config: ServiceConfig;
  runs: RunRegistry;
  now?: () => number;
  log: (message: string) => void;
}

/** The service's error kind for a session reference that found nothing. */
function lookupErrorKind(kind: (LibraryLookup & { ok: false })['kind']): 'settings' | 'unavailable' | 'not_found' {
  return kind === 'invalid' ? 'settings' : kind === 'store' ? 'unavailable' : 'not_found';
}

export type FoundSession = SessionRecord & { storeWarnings: StoreWarning[] };

export class SessionQueries {
  private readonly store: SessionStore;
  private readonly warned = new Set<string>();
  /** The uploads to the shared store, made at the first that is needed (per store). */
  private uploads: { store: unknown; uploads: SessionUploads } | null = null;
  private retried = false;

  constructor(private readonly deps: SessionQueriesDeps) {
    this.store = new SessionStore(deps.config.dataDir, deps.now ? { now: deps.now } : {});
  }

  private get dataDir(): string {
    return this.deps.config.dataDir;
  }

  /** The sessions here and in the shared store, if one is set (a store setting that does not read: said, and the local ones only). */
  private library(): { library: SessionLibrary; problem: string | null } {
    const shared = this.deps.config.sharedStore();
    if (!shared.ok) return { library: new SessionLibrary(this.store, null), problem: shared.error.message };
    const store = shared.value?.store;
    return { library: new SessionLibrary(this.store, store ? { store, cache: StoreCache.of(this.dataDir, store.name) } : null), problem: null };
  }

  /** The listing; its warnings (a damaged session folder, a store that cannot be read) are also logged, each once per process (the window lists often). */
  async list(options: { search?: string } = {}): Promise<LibraryListing> {
    await this.deps.config.dataDirReady();
    // A data directory without sessions yet gets the sample to explore.
    await offerSampleSession(this.dataDir);
    const { library, problem } = this.library();
    const listing = await library.list(options);
    const storeProblem = problem ?? listing.storeProblem;
    for (const message of [...listing.warnings.map((warning) => warning.message), ...(storeProblem ? [storeProblem] : [])]) {
      if (this.warned.has(message)) continue;
      this.warned.add(message);
      this.deps.log(`warning: ${message}`);
    }
    return { ...listing, storeProblem };
  }

  /** One session by id, unique prefix or `last`; a stored one with its screenshots fetched when asked for (`whole`: all at once). */
  async session(ref: string, options: { whole?: boolean } = {}): Promise<ServiceResult<FoundSession>> {
    await this.deps.config.dataDirReady();
    const { library, problem } = this.library();
    if (problem) return { ok: false, error: { kind: 'settings', message: problem } };
    const lookup = await library.resolve(ref);
    if (!lookup.ok) return { ok: false, error: { kind: lookupErrorKind(lookup.kind), message: lookup.message } };
    if (lookup.warning) this.deps.log(`warning: ${lookup.warning}`);
    const read = await library.read(lookup.id, options);
    if (!read.ok) return { ok: false, error: { kind: 'not_found', message: read.message } };
    return { ok: true, value: { ...read.session, storeWarnings: read.warnings ?? [] } };
  }

  /** A session to replay (or to save as a workflow): every event and file read, the lines that did not read said in the log. */
  async recorded(ref: string): Promise<ServiceResult<SessionRecord>> {
    if (ref !== 'last' && ref !== 'latest' && !SESSION_ID_PATTERN.test(ref)) return { ok: false, error: { kind: 'not_found', message: `"${ref}" is not a session id` } };
    const read = await this.session(ref, { whole: true });
    if (!read.ok) return read;
    for (const warning of read.value.warnings) this.deps.log(`session ${read.value.meta.id}, line ${warning.line}: ${warning.message}`);
    const { storeWarnings: _warnings, ...session } = read.value;
    return { ok: true, value: session };
  }

  /** Where a session's files are (by id, unique prefix or `last`), without reading its record: each screenshot the window shows asks this. */
  async place(ref: string): Promise<ServiceResult<SessionPlace>> {
    await this.deps.config.dataDirReady();
    const { library, problem } = this.library();
    if (problem) return { ok: false, error: { kind: 'settings', message: problem } };
    const lookup = await library.resolve(ref);
    if (!lookup.ok) return { ok: false, error: { kind: lookupErrorKind(lookup.kind), message: lookup.message } };
    return { ok: true, value: library.placeOf(lookup) };
  }

  /** A file of a session (a screenshot, a raw reply): from its folder, or fetched from the store it came from. */
  file(session: SessionPlace, path: string): Promise<FileRead> {
    return this.library().library.file(session, path);
  }

  /** The session `sessionId` names exactly (no prefix, no `last`): a run going on here, or a recorded one; else `not_found`, with why. */
  async known(sessionId: string): Promise<ServiceResult<{ id: string }>> {
    if (this.deps.runs.get(sessionId)) return { ok: true, value: { id: sessionId } };
    if (!SESSION_ID_PATTERN.test(sessionId)) return { ok: false, error: { kind: 'not_found', message: `"${sessionId}" is not a session id` } };
    await this.deps.config.dataDirReady();
    const found = await this.library().library.has(sessionId);
    return found ? { ok: true, value: { id: sessionId } } : { ok: false, error: { kind: 'not_found', message: `no session "${sessionId}"` } };
  }

  /** A session's events after `since`: followed live while it runs here, else read from its record. */
  async *events(sessionId: string, since = 0): AsyncIterable<AgentEvent> {
    const live = this.deps.runs.get(sessionId);
    if (live) {
      yield* live.events(since);
      return;
    }
    await this.deps.config.dataDirReady();
    const { library } = this.library();
    const lookup = await library.resolve(sessionId);
    if (!lookup.ok) return;
    const read = await library.readEvents(lookup);
    if (!read.ok) return;
    for (const event of read.events) if (event.seq > since) yield event;
  }

  /** The events after `since` that exist now, without following: a live run adds the ones not yet written. */
  async eventsSoFar(sessionId: string, since = 0): Promise<ServiceResult<AgentEvent[]>> {
    const live = this.deps.runs.get(sessionId);
    if (live) return { ok: true, value: await live.eventsSoFar(since) };
    await this.deps.config.dataDirReady();
    // Only the events: the window opening a long session waits for this answer.
    const { library, problem } = this.library();
    if (problem) return { ok: false, error: { kind: 'settings', message: problem } };
    const lookup = await library.resolve(sessionId);
    if (!lookup.ok) return { ok: false, error: { kind: lookupErrorKind(lookup.kind), message: lookup.message } };
    const read = await library.readEvents(lookup);
    if (!read.ok) return { ok: false, error: { kind: 'not_found', message: read.message } };
    // Some of a list the reader checked is checked too.
    return { ok: true, value: since > 0 ? knownToFit(AgentEventListSchema, read.events.filter((event) => event.seq > since)) : read.events };
  }

  /** The memory at the end of a session (or now, for a live one): layers, pruning, blackboard, conversation. */
  async memory(ref: string): Promise<ServiceResult<MemorySnapshot>> {
    const session = await this.session(ref);
    if (!session.ok) return session;
    return { ok: true, value: buildMemorySnapshot(session.value.events.flatMap((event) => (event.type === 'memory' ? [event.change] : []))) };
  }

  async delete(ref: string): Promise<ServiceResult<{ id: string }>> {
    await this.deps.config.dataDirReady();
    const deleted = await this.library().library.delete(ref);
    return deleted.ok ? { ok: true, value: { id: deleted.id } } : { ok: false, error: { kind: 'not_found', message: deleted.message } };
  }

  /** Before a run's session exists: mark sessions whose process died, apply retention, retry the uploads left pending. */
  async housekeeping(): Promise<void> {
    const pruned = await this.store.prune(retentionOf(this.deps.config.storeSettings()));
    for (const warning of pruned.warnings) this.deps.log(`warning: ${warning.message}`);
    for (const id of pruned.interrupted) this.deps.log(`session ${id} was interrupted (its process is gone): marked so`);
    if (pruned.deleted.length > 0) this.deps.log(`retention: deleted ${pruned.deleted.length} old session(s)`);
    await this.retryUploads();
  }

  /** A run's session to the shared store, now that the run has ended (nothing when no store is set). */
  uploadAfterRun(sessionId: string): void {
    this.sessionUploads()?.afterRun(sessionId);
  }

  /** The uploads an earlier process left pending, tried again once per process (in the background). */
  async retryUploads(): Promise<void> {
    if (this.retried) return;
    this.retried = true;
    await this.deps.config.dataDirReady();
    this.sessionUploads()?.retryPending();
  }

  /**
   * One session to the shared store now, waited on: what a caller that reports where a run's
   * session went asks after the run (a batch's row, a queue's job). A session whose upload is
   * already queued (every run's is, as it ends) is not sent twice: this answers how that one went.
   * Null when no store is set (the session stays in the data directory); a store setting that does
   * not read is `settings`.
   */
  async archive(sessionId: string, options: UploadOptions = {}): Promise<ServiceResult<UploadOutcome | null>> {
    await this.deps.config.dataDirReady();
    const shared = this.deps.config.sharedStore();
    if (!shared.ok) return shared;
    return { ok: true, value: (await this.sessionUploads()?.upload(sessionId, options)) ?? null };
  }

  /**
   * The sessions waiting for their upload (those named, or every one pending), uploaded now:
   * `mnemo sessions upload`. Null when no store is set.
   */
  async uploadPending(options: UploadOptions & { refs?: readonly string[] } = {}): Promise<ServiceResult<{ store: string; outcomes: UploadOutcome[] } | null>> {
    await this.deps.config.dataDirReady();
    const shared = this.deps.config.sharedStore();
    if (!shared.ok) return shared;
    const uploads = this.sessionUploads();
    if (!uploads) return { ok: true, value: null };
    // Sessions named: this data directory's (an id, a unique prefix, `last`), every one found before any is sent.
    const ids: string[] = [];
    for (const ref of options.refs ?? []) {
      const lookup = await this.store.resolve(ref);
      if (!lookup.ok) return { ok: false, error: { kind: lookup.kind === 'invalid' ? 'invalid' : 'not_found', message: lookup.message } };
      ids.push(lookup.id);
    }
    // This is the retry of the pending uploads: the one at the first start is not needed after it.
    this.retried = true;
    const { refs: _refs, ...upload } = options;
    return { ok: true, value: { store: uploads.storeName, outcomes: await uploads.uploadPending({ ...upload, ...(options.refs && options.refs.length > 0 ? { ids } : {}) }) } };
  }

  /** Resolves when every upload asked for so far has ended. */
  async uploadsSettled(): Promise<void> {
    await this.uploads?.uploads.settled();
  }

  private sessionUploads(): SessionUploads | null {
    const shared = this.deps.config.sharedStore();
    if (!shared.ok) {
      this.deps.log(`warning: sessions stay in this data directory: ${shared.error.message}`);
      return null;
    }
    if (!shared.value) return null;
    if (this.uploads?.store !== shared.value.store) {
      const { store, keepLocal } = shared.value;
      this.uploads = { store, uploads: new SessionUploads({ local: this.store, store, keepLocal, log: this.deps.log, ...(this.deps.now ? { now: this.deps.now } : {}) }) };
    }
    return this.uploads.uploads;
  }
}
