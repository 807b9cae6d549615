/**
 * The recorded sessions as the front ends ask for them: the list (with the sample for a data
 * directory that has none yet), one session by id, unique prefix or `last`, its events after a
 * `seq` (followed live while it runs in this process), its memory snapshot, its deletion, and the
 * housekeeping before a run (sessions whose process died marked so, retention applied).
 *
 * Every query waits until the data directory has been made private (service-config.ts).
 */
import { buildMemorySnapshot, type MemorySnapshot } from '../../shared/memory';
import type { AgentEvent } from '../../shared/events';
import { offerSampleSession } from '../store/sample-session';
import { stat } from 'node:fs/promises';
import { SESSION_ID_PATTERN, sessionDirectory } from '../store/paths';
import { readSession, type SessionRecord } from '../store/session-reader';
import { SessionStore, type SessionListing, type StoreWarning } from '../store/session-store';
import { retentionOf } from '../store/store-settings';
import type { RunRegistry } from './run-registry';
import type { ServiceConfig } from './service-config';
import type { ServiceResult } from './service-result';

export interface SessionQueriesDeps {
  config: ServiceConfig;
  runs: RunRegistry;
  now?: () => number;
  log: (message: string) => void;
}

export type FoundSession = SessionRecord & { storeWarnings: StoreWarning[] };

export class SessionQueries {
  private readonly store: SessionStore;
  private readonly warned = new Set<string>();

  constructor(private readonly deps: SessionQueriesDeps) {
    this.store = new SessionStore(deps.config.dataDir, deps.now ? { now: deps.now } : {});
  }

  private get dataDir(): string {
    return this.deps.config.dataDir;
  }

  /** The listing; its warnings (a damaged session folder) are also logged, each once per process (the window lists often). */
  async list(options: { search?: string } = {}): Promise<SessionListing> {
    await this.deps.config.dataDirReady();
    // A data directory without sessions yet gets the sample to explore.
    await offerSampleSession(this.dataDir);
    const listing = await this.store.list(options);
    for (const warning of listing.warnings) {
      if (this.warned.has(warning.message)) continue;
      this.warned.add(warning.message);
      this.deps.log(`warning: ${warning.message}`);
    }
    return listing;
  }

  /** One session by id, unique prefix or `last`. */
  async session(ref: string): Promise<ServiceResult<FoundSession>> {
    await this.deps.config.dataDirReady();
    const lookup = await this.store.resolve(ref);
    if (!lookup.ok) return { ok: false, error: { kind: lookup.kind === 'invalid' ? 'settings' : 'not_found', message: lookup.message } };
    const read = await this.store.read(lookup.id);
    if (!read.ok) return { ok: false, error: { kind: 'not_found', message: read.message } };
    return { ok: true, value: { ...read.session, storeWarnings: read.warnings ?? [] } };
  }

  /** A session to replay: every event read, the lines that did not read said in the log. */
  async recorded(ref: string): Promise<ServiceResult<SessionRecord>> {
    await this.deps.config.dataDirReady();
    const lookup = await this.store.resolve(ref);
    if (!lookup.ok) return { ok: false, error: { kind: 'not_found', message: lookup.message } };
    const read = await readSession(this.dataDir, lookup.id);
    if (!read.ok) return { ok: false, error: { kind: 'not_found', message: read.message } };
    for (const warning of read.session.warnings) this.deps.log(`session ${read.session.meta.id}, line ${warning.line}: ${warning.message}`);
    return { ok: true, value: read.session };
  }

  /** The session `sessionId` names exactly (no prefix, no `last`): a run going on here, or a recorded one; else `not_found`, with why. */
  async known(sessionId: string): Promise<ServiceResult<{ id: string }>> {
    if (this.deps.runs.get(sessionId)) return { ok: true, value: { id: sessionId } };
    if (!SESSION_ID_PATTERN.test(sessionId)) return { ok: false, error: { kind: 'not_found', message: `"${sessionId}" is not a session id` } };
    await this.deps.config.dataDirReady();
    const folder = await stat(sessionDirectory(this.dataDir, sessionId)).then((info) => info.isDirectory(), () => false);
    return folder ? { ok: true, value: { id: sessionId } } : { ok: false, error: { kind: 'not_found', message: `no session "${sessionId}"` } };
  }

  /** A session's events after `since`: followed live while it runs here, else read from its record. */
  async *events(sessionId: string, since = 0): AsyncIterable<AgentEvent> {
    const live = this.deps.runs.get(sessionId);
    if (live) {
      yield* live.events(since);
      return;
    }
    await this.deps.config.dataDirReady();
    const read = await readSession(this.dataDir, sessionId);
    if (!read.ok) return;
    for (const event of read.session.events) if (event.seq > since) yield event;
  }

  /** The events after `since` that exist now, without following: a live run adds the ones not yet written. */
  async eventsSoFar(sessionId: string, since = 0): Promise<ServiceResult<AgentEvent[]>> {
    const live = this.deps.runs.get(sessionId);
    if (live) return { ok: true, value: await live.eventsSoFar(since) };
    const read = await this.session(sessionId);
    return read.ok ? { ok: true, value: read.value.events.filter((event) => event.seq > since) } : read;
  }

  /** The memory at the end of a session (or now, for a live one): layers, pruning, blackboard, conversation. */
  async memory(ref: string): Promise<ServiceResult<MemorySnapshot>> {
    const session = await this.session(ref);
    if (!session.ok) return session;
    return { ok: true, value: buildMemorySnapshot(session.value.events.flatMap((event) => (event.type === 'memory' ? [event.change] : []))) };
  }

  async delete(ref: string): Promise<ServiceResult<{ id: string }>> {
    await this.deps.config.dataDirReady();
    const deleted = await this.store.delete(ref);
    return deleted.ok ? { ok: true, value: { id: deleted.id } } : { ok: false, error: { kind: 'not_found', message: deleted.message } };
  }

  /** Before a run's session exists: mark sessions whose process died, apply retention. */
  async housekeeping(): Promise<void> {
    const pruned = await this.store.prune(retentionOf(this.deps.config.storeSettings()));
    for (const warning of pruned.warnings) this.deps.log(`warning: ${warning.message}`);
    for (const id of pruned.interrupted) this.deps.log(`session ${id} was interrupted (its process is gone): marked so`);
    if (pruned.deleted.length > 0) this.deps.log(`retention: deleted ${pruned.deleted.length} old session(s)`);
  }
}
