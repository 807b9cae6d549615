/**
 * The sessions of a data directory as a whole: listing and search through the index, finding a
 * session by id or prefix, marking sessions whose recording process died as `interrupted`, and
 * retention (by age, by total size). Whoever starts next does the marking: `mnemo run`,
 * `mnemo sessions`, `mnemo show`, the app. A running session is never deleted.
 *
 * Nothing here throws for a damaged store: problems come back as warnings next to the result.
 */
import { type Dirent } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, folderBytes, removeFolder, TRASH_PREFIX, writeJsonAtomically } from './files';
import { SESSION_FILE, SESSION_ID_PATTERN, sessionDirectory, sessionsRoot } from './paths';
import type { SessionMeta } from './session-meta';
import { appendToIndex, INDEX_FILE, readIndex, rewriteIndex, summaryOf, type SessionSummary } from './session-index';
import { totalsOf } from '../../shared/run-totals';
import { readSession, readSessionEvents, readSessionMeta, type EventsRead, type SessionRead } from './session-reader';
import type { RetentionPolicy } from './store-settings';
import { mapLimit } from './map-limit';
import { pendingUploadIds } from './pending-uploads';
import { RecentEvents } from './recent-events';
import { currentHost, writerLiveness, type HostIdentity, type Liveness, type WriterIdentity } from './writer-identity';

export interface StoreWarning {
  /** The session concerned, when there is one. */
  id?: string;
  message: string;
}

export interface SessionStoreOptions {
  now?: () => number;
  host?: HostIdentity;
  /** Whether a session's recording process still runs; default: pid, start time and boot id. */
  liveness?: (writer: WriterIdentity | undefined) => Liveness;
}

export interface SessionListing {
  /** Newest first. */
  sessions: SessionSummary[];
  /** Sessions this call marked `interrupted`. */
  interrupted: string[];
  warnings: StoreWarning[];
}

export interface PruneOutcome {
  deleted: Array<{ id: string; why: 'age' | 'size'; bytes: number }>;
  freedBytes: number;
  /** Bytes of the sessions left; null when no size limit asked for them to be counted. */
  keptBytes: number | null;
  interrupted: string[];
  warnings: StoreWarning[];
}

export type SessionLookup = { ok: true; id: string } | { ok: false; kind: 'invalid' | 'unknown' | 'ambiguous'; message: string };

/** A folder without session.json younger than this may be a session being created right now. */
const CREATION_GRACE_MS = 60_000;
const DAY_MS = 86_400_000;

interface Loaded {
  entries: Map<string, SessionSummary>;
  interrupted: string[];
  warnings: StoreWarning[];
  trash: string[];
}

/** Newest first; the id (which starts with the time) breaks ties. */
export function newestFirst(a: SessionSummary, b: SessionSummary): number {
  return b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Every word of the search appears, case-insensitively, in the task, status, id or start date. */
export function matchesSearch(summary: SessionSummary, search: string): boolean {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = [summary.task, summary.status, summary.id, new Date(summary.startedAt).toISOString()].join('\n').toLowerCase();
  return words.every((word) => haystack.includes(word));
}

export class SessionStore {
  private readonly now: () => number;
  /** The events of the sessions opened last, while their record is unchanged. */
  private readonly recentEvents = new RecentEvents();
  private readonly liveness: (writer: WriterIdentity | undefined) => Liveness;

  constructor(
    readonly dataDir: string,
    options: SessionStoreOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    const host = options.host ?? currentHost();
    this.liveness = options.liveness ?? ((writer) => writerLiveness(writer, host));
  }

  /** All sessions, newest first, optionally filtered; sessions found dead are marked on the way. */
  async list(options: { search?: string } = {}): Promise<SessionListing> {
    const loaded = await this.load();
    const sessions = [...loaded.entries.values()].filter((s) => options.search === undefined || matchesSearch(s, options.search)).sort(newestFirst);
    return { sessions, interrupted: loaded.interrupted, warnings: loaded.warnings };
  }

  /** Marks every session whose recording process is gone as `interrupted`. */
  async recoverInterrupted(): Promise<{ interrupted: string[]; warnings: StoreWarning[] }> {
    const { interrupted, warnings } = await this.load();
    return { interrupted, warnings };
  }

  /** Rebuilds the index from the session folders, whatever state it is in. */
  async rebuildIndex(): Promise<{ sessions: number; warnings: StoreWarning[] }> {
    const loaded = await this.load({ rebuild: true });
    return { sessions: loaded.entries.size, warnings: loaded.warnings };
  }

  /** The names of the session folders (whatever state each is in). */
  async folderIds(): Promise<string[]> {
    return (await this.folders()).sessions;
  }

  /** A full id, a unique prefix of one, or `last` for the newest session. */
  async resolve(ref: string): Promise<SessionLookup> {
    if (ref === 'last' || ref === 'latest') {
      const { sessions } = await this.list();
      const newest = sessions[0];
      return newest ? { ok: true, id: newest.id } : { ok: false, kind: 'unknown', message: `there are no sessions in ${sessionsRoot(this.dataDir)}` };
    }
    if (!SESSION_ID_PATTERN.test(ref)) return { ok: false, kind: 'invalid', message: `"${ref}" is not a session id` };
    try {
      if ((await stat(sessionDirectory(this.dataDir, ref))).isDirectory()) return { ok: true, id: ref };
    } catch {
      // Not a full id: try it as a prefix.
    }
    const matches = (await this.folders()).sessions.filter((name) => name.startsWith(ref));
    if (matches.length === 1) return { ok: true, id: matches[0] as string };
    if (matches.length > 1) {
      const shown = matches.sort().slice(0, 5).join(', ');
      return { ok: false, kind: 'ambiguous', message: `"${ref}" matches ${matches.length} sessions (${shown}${matches.length > 5 ? ', ...' : ''}); give more of the id` };
    }
    return { ok: false, kind: 'unknown', message: `no session "${ref}" in ${sessionsRoot(this.dataDir)} (mnemo sessions lists them)` };
  }

  /** Deletes one session (by id, prefix or `last`); a session still being recorded is refused. */
  async delete(ref: string): Promise<{ ok: true; id: string } | { ok: false; message: string }> {
    const lookup = await this.resolve(ref);
    if (!lookup.ok) return lookup;
    const warnings: StoreWarning[] = [];
    const checked = await this.checkRunning(lookup.id, warnings);
    if (checked.meta?.status === 'running') return { ok: false, message: `session ${lookup.id} is still running: stop it first` };
    try {
      await removeFolder(sessionDirectory(this.dataDir, lookup.id));
    } catch (error) {
      return { ok: false, message: `could not delete session ${lookup.id}: ${errorMessage(error)}` };
    }
    await this.appendIndex([{ id: lookup.id, deleted: true }], warnings);
    return { ok: true, id: lookup.id };
  }

  /** Reads one session (by id, prefix or `last`), marking it interrupted first if its writer died. */
  async read(ref: string): Promise<SessionRead & { interrupted?: boolean; warnings?: StoreWarning[] }> {
    const lookup = await this.resolve(ref);
    if (!lookup.ok) return { ok: false, message: lookup.message };
    const warnings: StoreWarning[] = [];
    const checked = await this.checkRunning(lookup.id, warnings);
    if (checked.marked && checked.meta) await this.appendIndex([summaryOf(checked.meta)], warnings);
    const read = await readSession(this.dataDir, lookup.id);
    return { ...read, interrupted: checked.marked, warnings };
  }

  /** Only the events of one session (by id, prefix or `last`), for a window opening it. */
  async readEvents(ref: string): Promise<EventsRead> {
    const lookup = await this.resolve(ref);
    if (!lookup.ok) return { ok: false, message: lookup.message };
    const directory = sessionDirectory(this.dataDir, lookup.id);
    return this.recentEvents.read(directory, () => readSessionEvents(directory, lookup.id, sessionsRoot(this.dataDir)));
  }

  /**
   * Deletes sessions older than `maxAgeDays`, then the oldest while all sessions together take
   * more than `maxBytes`. Running sessions, and sessions not yet uploaded to the shared store
   * (pending-uploads.ts), count towards the size but are never deleted.
   */
  async prune(policy: RetentionPolicy): Promise<PruneOutcome> {
    const loaded = await this.load();
    const { entries, warnings } = loaded;
    const deleted: PruneOutcome['deleted'] = [];
    const remove = async (summary: SessionSummary, why: 'age' | 'size', bytes: number) => {
      try {
        await removeFolder(sessionDirectory(this.dataDir, summary.id));
        deleted.push({ id: summary.id, why, bytes });
        entries.delete(summary.id);
      } catch (error) {
        warnings.push({ id: summary.id, message: `could not delete session ${summary.id}: ${errorMessage(error)}` });
      }
    };
    const sizes = new Map<string, number>();
    const sizeOf = async (summary: SessionSummary) => {
      let bytes = sizes.get(summary.id) ?? summary.bytes;
      if (bytes === null || summary.status === 'running') bytes = await folderBytes(sessionDirectory(this.dataDir, summary.id));
      sizes.set(summary.id, bytes);
      return bytes;
    };
    // A session waiting for its upload to the shared store is the only copy there is.
    const pending = new Set(await pendingUploadIds(this.dataDir));
    const deletable = (summary: SessionSummary) => summary.status !== 'running' && !pending.has(summary.id);

    if (policy.maxAgeDays !== null) {
      const cutoff = this.now() - policy.maxAgeDays * DAY_MS;
      for (const summary of [...entries.values()]) {
        if (deletable(summary) && summary.startedAt < cutoff) await remove(summary, 'age', await sizeOf(summary));
      }
    }
    let total: number | null = null;
    if (policy.maxBytes !== null) {
      const remaining = [...entries.values()].sort((a, b) => -newestFirst(a, b));
      total = 0;
      for (const bytes of await mapLimit(remaining, 16, sizeOf)) total += bytes;
      for (const summary of remaining) {
        if (total <= policy.maxBytes) break;
        if (!deletable(summary)) continue;
        const bytes = sizes.get(summary.id) ?? 0;
        await remove(summary, 'size', bytes);
        if (!entries.has(summary.id)) total -= bytes;
      }
    }
    // Remember sizes that had to be measured, so the next prune need not walk the folders again.
    const measured = [...entries.values()].filter((s) => s.bytes === null && s.status !== 'running' && sizes.has(s.id)).map((s) => ({ ...s, bytes: sizes.get(s.id) as number }));
    await this.appendIndex([...deleted.map(({ id }) => ({ id, deleted: true as const })), ...measured], warnings);
    for (const trash of loaded.trash) await rm(join(sessionsRoot(this.dataDir), trash), { recursive: true, force: true }).catch(() => undefined);
    const freedBytes = deleted.reduce((sum, d) => sum + d.bytes, 0);
    return { deleted, freedBytes, keptBytes: total, interrupted: loaded.interrupted, warnings };
  }

  private async folders(): Promise<{ sessions: string[]; trash: string[]; exists: boolean; warning?: string; damaged?: string[] }> {
    let entries: Dirent[];
    try {
      entries = await readdir(sessionsRoot(this.dataDir), { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return { sessions: [], trash: [], exists: false, ...(code === 'ENOENT' ? {} : { warning: `cannot list ${sessionsRoot(this.dataDir)}: ${errorMessage(error)}` }) };
    }
    const sessions: string[] = [];
    const trash: string[] = [];
    const damaged: string[] = [];
    for (const entry of entries) {
      if (!entry.isDirectory()) {
        // The index and its temporary files, and hidden files, belong there; anything else named like a session is one gone wrong.
        if (SESSION_ID_PATTERN.test(entry.name) && entry.name !== INDEX_FILE && !entry.name.endsWith('.partial')) damaged.push(entry.name);
        continue;
      }
      if (entry.name.startsWith(TRASH_PREFIX)) trash.push(entry.name);
      else if (SESSION_ID_PATTERN.test(entry.name)) sessions.push(entry.name);
    }
    return { sessions, trash, exists: true, damaged };
  }

  /**
   * The index, checked against the folders: entries without a folder dropped, folders without an
   * entry read from their session.json, `running` entries refreshed (and marked interrupted when
   * their writer is gone). Rewritten when missing, damaged or full of superseded lines.
   */
  private async load(options: { rebuild?: boolean } = {}): Promise<Loaded> {
    const warnings: StoreWarning[] = [];
    const folders = await this.folders();
    if (folders.warning) warnings.push({ message: folders.warning });
    if (!folders.exists) return { entries: new Map(), interrupted: [], warnings, trash: [] };
    for (const name of folders.damaged ?? []) {
      warnings.push({ id: name, message: `session ${name}: ${join(sessionsRoot(this.dataDir), name)} is not a folder (a file or a link where a session folder should be); not listed` });
    }

    const index = options.rebuild ? ({ state: 'missing' } as const) : await readIndex(this.dataDir);
    let entries = new Map<string, SessionSummary>();
    let rewrite = false;
    if (index.state === 'read') {
      entries = index.entries;
      if (index.badLines > 0) {
        warnings.push({ message: `the session index had ${index.badLines} damaged line(s); repaired from the session folders` });
        rewrite = true;
      }
      // Written by an older version: those sessions are read again from their folders below.
      if (index.outdatedLines > 0) rewrite = true;
    } else {
      if (index.state === 'unreadable') warnings.push({ message: `the session index cannot be read (${index.message}); rebuilt from the session folders` });
      rewrite = true;
    }

    const present = new Set(folders.sessions);
    for (const id of [...entries.keys()]) if (!present.has(id)) entries.delete(id);
    const changed: SessionSummary[] = [];
    const unknown = folders.sessions.filter((id) => !entries.has(id));
    const found = await mapLimit(unknown, 32, (id) => this.summaryFromFolder(id, warnings));
    for (const summary of found) {
      if (!summary) continue;
      entries.set(summary.id, summary);
      changed.push(summary);
    }

    const interrupted: string[] = [];
    const running = [...entries.values()].filter((s) => s.status === 'running');
    await mapLimit(running, 16, async (summary) => {
      const checked = await this.checkRunning(summary.id, warnings);
      if (!checked.meta) return;
      const updated = summaryOf(checked.meta);
      entries.set(summary.id, updated);
      if (checked.marked) interrupted.push(summary.id);
      if (updated.status !== 'running') changed.push(updated);
    });

    if (index.state === 'read' && !rewrite && index.lines > 2 * entries.size + 200) rewrite = true;
    if (rewrite) {
      try {
        await rewriteIndex(this.dataDir, [...entries.values()].sort((a, b) => -newestFirst(a, b)));
      } catch (error) {
        warnings.push({ message: `could not write the session index: ${errorMessage(error)}` });
      }
    } else {
      await this.appendIndex(changed, warnings);
    }
    return { entries, interrupted: interrupted.sort(), warnings, trash: folders.trash };
  }

  private async appendIndex(entries: ReadonlyArray<SessionSummary | { id: string; deleted: true }>, warnings: StoreWarning[]): Promise<void> {
    try {
      await appendToIndex(this.dataDir, entries);
    } catch (error) {
      warnings.push({ message: `could not update the session index: ${errorMessage(error)}` });
    }
  }

  /** A folder the index does not know: its session.json, or what the reader rebuilds from events. */
  private async summaryFromFolder(id: string, warnings: StoreWarning[]): Promise<SessionSummary | null> {
    const directory = sessionDirectory(this.dataDir, id);
    const meta = await readSessionMeta(directory);
    if (meta.ok) return summaryOf(meta.meta);
    if (meta.missing) {
      const created = await stat(directory).then((info) => info.mtimeMs, () => 0);
      // Being created right now (the folder comes a moment before its session.json).
      if (this.now() - created < CREATION_GRACE_MS) return null;
    }
    const read = await readSession(this.dataDir, id);
    if (!read.ok) {
      // Damaged past reading (session.json and events unreadable): said, so the listing is not silently short.
      warnings.push({ id, message: `session ${id}: ${meta.message}, and its events cannot be read either (${read.message}); not listed` });
      return null;
    }
    warnings.push({ id, message: `session ${id}: ${meta.message}; listed from its events` });
    return summaryOf(read.session.meta);
  }

  /**
   * A session's current metadata; when session.json says `running` and its writer is gone, first
   * rewritten as `interrupted` with the progress its events show (`marked`).
   */
  private async checkRunning(id: string, warnings: StoreWarning[]): Promise<{ meta: SessionMeta | null; marked: boolean }> {
    const directory = sessionDirectory(this.dataDir, id);
    const first = await readSessionMeta(directory);
    if (!first.ok) return { meta: null, marked: false };
    if (first.meta.status !== 'running' || this.liveness(first.meta.writer) !== 'dead') return { meta: first.meta, marked: false };
    // The writer is gone and can write no more: what is on disk now is final. It may have finished
    // the run between the first read and the liveness check.
    const now = await readSessionMeta(directory);
    if (!now.ok) return { meta: null, marked: false };
    if (now.meta.status !== 'running') return { meta: now.meta, marked: false };
    const meta = now.meta;
    const read = await readSession(this.dataDir, id);
    const events = read.ok ? read.session.events : [];
    const progress = totalsOf(events);
    const hasEvents = events.length > 0;
    const steps = hasEvents ? progress.steps : meta.steps;
    const writer = meta.writer ? `pid ${meta.writer.pid} on ${meta.writer.hostname}` : 'an earlier version';
    const marked: SessionMeta = {
      ...meta,
      status: 'interrupted',
      endedAt: progress.lastEventAt ?? meta.startedAt,
      steps,
      costUsd: hasEvents ? progress.usage.costUsd : meta.costUsd,
      usage: hasEvents ? progress.usage : (meta.usage ?? { inputTokens: 0, outputTokens: 0, costUsd: meta.costUsd }),
      reason: `the process recording the run (${writer}) ended before the run finished (a crash or a kill); ${steps} step${steps === 1 ? '' : 's'} completed`,
      bytes: await folderBytes(directory),
    };
    try {
      await writeJsonAtomically(join(directory, SESSION_FILE), marked);
    } catch (error) {
      warnings.push({ id, message: `session ${id} is interrupted but could not be marked: ${errorMessage(error)}` });
    }
    return { meta: marked, marked: true };
  }
}
