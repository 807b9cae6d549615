/**
 * Every session a reader can see: the data directory's own (SessionStore) and, when a shared
 * session store is set, the store's, read the same way. Nothing above store/ knows where a session
 * lives: `mnemo sessions`, `show`, `export`, `replay`, `mnemo serve` and the app ask this.
 *
 * - Listing merges both; a session in both (uploaded, its local copy kept or not yet removed) is
 *   listed once, as the local one.
 * - Reading a stored session fetches what is needed into the store cache (store-cache.ts) and reads
 *   that folder with the session reader: session.json and events.jsonl first, the screenshots and
 *   raw replies when asked for (`file`), or all of it (`whole`: a report, a replay, `show`).
 * - A store that cannot be reached leaves the local sessions readable; the listing says why the
 *   stored ones are missing (`storeProblem`), and a session only the store could have is that
 *   message (`kind: 'store'`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mapLimit } from './map-limit';
import { pendingUploadIds } from './pending-uploads';
import { SESSION_FILE, SESSION_ID_PATTERN, sessionDirectory, sessionsRoot } from './paths';
import { summaryOf, type SessionSummary } from './session-index';
import { readSession, readSessionFolder, readSessionMeta, type EventsRead, type SessionRead } from './session-reader';
import { matchesSearch, newestFirst, type SessionListing, type SessionStore, type StoreWarning } from './session-store';
import { isReadFirst, isStorablePath } from './shared-store/stored-paths';
import type { SharedStore, StoredFile } from './shared-store/types';
import type { StoreCache } from './store-cache';

export interface LibraryListing extends SessionListing {
  /** Why the stored sessions are not in the listing (the store cannot be used now); null when they are. */
  storeProblem: string | null;
}

export type LibraryLookup =
  | { ok: true; id: string; /** Only in the shared store. */ stored: boolean; /** The store could not be asked: `last` is the newest of the others. */ warning?: string }
  | { ok: false; kind: 'invalid' | 'unknown' | 'ambiguous' | 'store'; message: string };

export type LibraryRead = SessionRead & { interrupted?: boolean; warnings?: StoreWarning[] };

export type FileRead = { ok: true; data: Buffer } | { ok: false; message: string };

/** Where a session's files are: its folder (here, or its copy in the store cache) and the store it came from. */
export interface SessionPlace {
  /** Its id (a session record, read whole, is a place too). */
  meta: { id: string };
  directory: string;
  /** The shared store it is read from; absent: the data directory's own. */
  store?: string;
}

/** How many files of a stored session are fetched at once. */
const FETCHES_AT_ONCE = 8;

export class SessionLibrary {
  constructor(
    readonly local: SessionStore,
    private readonly shared: { store: SharedStore; cache: StoreCache } | null,
  ) {}

  /** The shared store's name, or null when none is set. */
  get storeName(): string | null {
    return this.shared?.store.name ?? null;
  }

  /** All sessions, newest first, optionally filtered; sessions whose process died are marked on the way (local ones). */
  async list(options: { search?: string } = {}): Promise<LibraryListing> {
    const local = await this.local.list();
    let sessions = local.sessions;
    let storeProblem: string | null = null;
    const warnings = [...local.warnings];
    if (this.shared) {
      const stored = await this.storedSummaries(warnings);
      storeProblem = stored.problem;
      const here = new Set(sessions.map((session) => session.id));
      sessions = [...sessions, ...stored.summaries.filter((summary) => !here.has(summary.id))];
    }
    // Where each lives: a local session whose upload has not gone through yet says so.
    const waiting = new Set(await pendingUploadIds(this.local.dataDir));
    if (waiting.size > 0) sessions = sessions.map((summary) => (summary.store === undefined && waiting.has(summary.id) ? { ...summary, waitingForUpload: true } : summary));
    const search = options.search;
    const shown = sessions.filter((summary) => search === undefined || matchesSearch(summary, search)).sort(newestFirst);
    return { sessions: shown, interrupted: local.interrupted, warnings, storeProblem };
  }

  /** A full id, a unique prefix of one, or `last`: in the data directory first, then in the store. */
  async resolve(ref: string): Promise<LibraryLookup> {
    if (!this.shared) {
      const lookup = await this.local.resolve(ref);
      return lookup.ok ? { ...lookup, stored: false } : lookup;
    }
    if (ref === 'last' || ref === 'latest') {
      const { sessions, storeProblem } = await this.list();
      const newest = sessions[0];
      if (newest) return { ok: true, id: newest.id, stored: newest.store !== undefined, ...(storeProblem ? { warning: `${storeProblem}; "${ref}" is the newest session of ${sessionsRoot(this.local.dataDir)}` } : {}) };
      if (storeProblem) return { ok: false, kind: 'store', message: storeProblem };
      return { ok: false, kind: 'unknown', message: `there are no sessions in ${sessionsRoot(this.local.dataDir)} nor in ${this.shared.store.name}` };
    }
    if (!SESSION_ID_PATTERN.test(ref)) return { ok: false, kind: 'invalid', message: `"${ref}" is not a session id` };
    const localIds = await this.local.folderIds();
    // A session here is read from here, and one read from the store before from what was kept of it, without asking the store.
    if (localIds.includes(ref)) return { ok: true, id: ref, stored: false };
    if (await this.shared.cache.listing(ref)) return { ok: true, id: ref, stored: true };
    const storedIds = await this.shared.store.sessionIds();
    const ids = new Set([...localIds, ...(storedIds.ok ? storedIds.value : [])]);
    const matches = [...ids].filter((id) => id.startsWith(ref)).sort();
    if (matches.length === 1) {
      const id = matches[0] as string;
      return { ok: true, id, stored: !localIds.includes(id) };
    }
    if (matches.length > 1) {
      const shown = matches.slice(0, 5).join(', ');
      return { ok: false, kind: 'ambiguous', message: `"${ref}" matches ${matches.length} sessions (${shown}${matches.length > 5 ? ', ...' : ''}); give more of the id` };
    }
    if (!storedIds.ok) return { ok: false, kind: 'store', message: storedIds.message };
    return { ok: false, kind: 'unknown', message: `no session "${ref}" in ${sessionsRoot(this.local.dataDir)} nor in ${this.shared.store.name} (mnemo sessions lists them)` };
  }

  /**
   * Reads one session (by id, prefix or `last`). A local one is marked interrupted first if its
   * writer died; a stored one is fetched: its screenshots and replies too with `whole`, else when
   * `file` asks for them.
   */
  async read(ref: string, options: { whole?: boolean } = {}): Promise<LibraryRead> {
    const lookup = await this.resolve(ref);
    if (!lookup.ok) return { ok: false, message: lookup.message };
    if (!lookup.stored || !this.shared) return this.local.read(lookup.id);
    return this.readStored(lookup.id, options.whole === true);
  }

  /** Only the events of a session `resolve` found: a stored one is fetched as `read` fetches it. */
  async readEvents(lookup: LibraryLookup & { ok: true }): Promise<EventsRead> {
    if (!lookup.stored || !this.shared) return this.local.readEvents(lookup.id);
    const read = await this.readStored(lookup.id, false);
    return read.ok ? { ok: true, events: read.session.events } : read;
  }

  /**
   * Reads the session `id` names exactly (no prefix, no `last`, nothing marked): here, else in the
   * store, fetched (`whole`: with its screenshots and replies).
   */
  async readExact(id: string, options: { whole?: boolean } = {}): Promise<LibraryRead> {
    const local = await readSession(this.local.dataDir, id);
    if (local.ok || !this.shared || !SESSION_ID_PATTERN.test(id) || (await this.local.folderIds()).includes(id)) return local;
    return this.readStored(id, options.whole === true);
  }

  /** Whether `id` names a session exactly (here, or whole in the store). */
  async has(id: string): Promise<boolean> {
    if (!SESSION_ID_PATTERN.test(id)) return false;
    if ((await this.local.folderIds()).includes(id)) return true;
    if (!this.shared) return false;
    if (await this.shared.cache.listing(id)) return true;
    const read = await this.shared.store.read(id, SESSION_FILE);
    if (!read.ok || read.value === null) return false;
    await this.shared.cache.put(id, SESSION_FILE, read.value).catch(() => undefined);
    return true;
  }

  /** Where the files of a session `resolve` found are, without reading it (a screenshot asks only this). */
  placeOf(lookup: LibraryLookup & { ok: true }): SessionPlace {
    if (!lookup.stored || !this.shared) return { meta: { id: lookup.id }, directory: sessionDirectory(this.local.dataDir, lookup.id) };
    return { meta: { id: lookup.id }, directory: this.shared.cache.directory(lookup.id), store: this.shared.store.name };
  }

  /** A file of a session (`path` inside its folder): from its folder, else fetched from the store it came from. */
  async file(session: SessionPlace, path: string): Promise<FileRead> {
    const missing: FileRead = { ok: false, message: `no file ${path} in session ${session.meta.id}` };
    if (!isStorablePath(path)) return missing;
    const here = await readFile(join(session.directory, path)).catch(() => null);
    if (here) return { ok: true, data: here };
    if (session.store === undefined || !this.shared || session.store !== this.shared.store.name) return missing;
    const fetched = await this.shared.store.read(session.meta.id, path);
    if (!fetched.ok) return { ok: false, message: fetched.message };
    if (fetched.value === null) return missing;
    // Kept for the next time; a cache that cannot be written only costs a fetch.
    await this.shared.cache.put(session.meta.id, path, fetched.value).catch(() => undefined);
    return { ok: true, data: fetched.value };
  }

  /** Deletes a session of the data directory; one only in the store is left there, and said. */
  async delete(ref: string): Promise<{ ok: true; id: string } | { ok: false; message: string }> {
    const lookup = await this.resolve(ref);
    if (!lookup.ok) return lookup;
    if (lookup.stored) return { ok: false, message: `session ${lookup.id} is in the shared store ${this.storeName}, not in this data directory: Mnemo does not delete sessions from the store` };
    return this.local.delete(lookup.id);
  }

  private async readStored(id: string, whole: boolean): Promise<LibraryRead> {
    const shared = this.shared;
    if (!shared) return { ok: false, message: `no session "${id}"` };
    const listed = await this.storedFiles(id);
    if (!listed.ok) return { ok: false, message: listed.message };
    const wanted = listed.value.filter((file) => whole || isReadFirst(file.path));
    const fetched = await mapLimit(wanted, FETCHES_AT_ONCE, (file) => this.fetch(id, file));
    const failed = fetched.find((result) => result !== null);
    if (failed) return { ok: false, message: failed };
    const read = await readSessionFolder(shared.cache.directory(id), id, shared.store.name, { present: new Set(listed.value.map((file) => file.path)) });
    return read.ok ? { ok: true, session: { ...read.session, store: shared.store.name }, warnings: [] } : read;
  }

  /** The files of a whole stored session: as kept in the cache, else as the store lists them (then kept). */
  private async storedFiles(id: string): Promise<{ ok: true; value: StoredFile[] } | { ok: false; message: string }> {
    const shared = this.shared;
    if (!shared) return { ok: false, message: `no session "${id}"` };
    const kept = await shared.cache.listing(id);
    if (kept) return { ok: true, value: kept };
    const listed = await shared.store.files(id);
    if (!listed.ok) return listed;
    if (listed.value.length === 0) return { ok: false, message: `no session "${id}" in ${sessionsRoot(this.local.dataDir)} nor in ${shared.store.name}` };
    if (!listed.value.some((file) => file.path === SESSION_FILE)) {
      return { ok: false, message: `session ${id} is not whole in ${shared.store.name} yet (its upload has not finished)` };
    }
    await shared.cache.keepListing(id, listed.value).catch(() => undefined);
    return listed;
  }

  /** One stored file into the cache, unless it is there already; a message when it cannot be. */
  private async fetch(id: string, file: StoredFile): Promise<string | null> {
    const shared = this.shared;
    if (!shared || (await shared.cache.has(id, file.path, file.bytes))) return null;
    const read = await shared.store.read(id, file.path);
    if (!read.ok) return read.message;
    if (read.value === null) return `${file.path} of session ${id} is gone from ${shared.store.name}`;
    try {
      await shared.cache.put(id, file.path, read.value);
      return null;
    } catch (error) {
      return `cannot keep ${file.path} of session ${id} in ${shared.cache.root}: ${(error as Error).message}`;
    }
  }

  /** The store's whole sessions, from their session.json (fetched once: a stored session does not change). */
  private async storedSummaries(warnings: StoreWarning[]): Promise<{ summaries: SessionSummary[]; problem: string | null }> {
    const shared = this.shared;
    if (!shared) return { summaries: [], problem: null };
    const ids = await shared.store.sessionIds();
    if (!ids.ok) return { summaries: [], problem: ids.message };
    let problem: string | null = null;
    const found = await mapLimit(ids.value, 16, async (id): Promise<SessionSummary | null> => {
      const directory = shared.cache.directory(id);
      let meta = await readSessionMeta(directory);
      if (!meta.ok) {
        const read = await shared.store.read(id, SESSION_FILE);
        if (!read.ok) {
          problem ??= read.message;
          return null;
        }
        // Not whole yet (being uploaded, or an upload that stopped half way): not listed.
        if (read.value === null) return null;
        await shared.cache.put(id, SESSION_FILE, read.value).catch(() => undefined);
        meta = await readSessionMeta(directory);
        if (!meta.ok) {
          warnings.push({ id, message: `session ${id} in ${shared.store.name}: ${meta.message}; not listed` });
          return null;
        }
      }
      return { ...summaryOf({ ...meta.meta, id }), store: shared.store.name };
    });
    return { summaries: found.filter((summary): summary is SessionSummary => summary !== null), problem };
  }
}
