/**
 * The uploads of one process to the shared store: a session after its run ends (`afterRun`), and
 * the sessions an earlier process could not upload (`retryPending`, at the next start). Each is
 * listed as pending (pending-uploads.ts) before it starts and unlisted only once the store has all
 * of it, so a failure, a crash or a kill leaves it local and listed. One upload at a time; each
 * says how it went in one line, and a big one how far it is at each quarter.
 *
 * `upload(id)` is the one a caller waits on (a worker reporting where a job's session went,
 * `mnemo sessions upload`): it answers how it went as a value, and a signal stops it between
 * files (the session then stays local and pending).
 */
import { stat } from 'node:fs/promises';
import { displayPath } from '../disk/write-failure';
import { clearPending, markPending, pendingUpload, pendingUploadIds } from './pending-uploads';
import { sessionDirectory } from './paths';
import type { SessionStore } from './session-store';
import { uploadSession, type UploadProgress } from './session-upload';
import type { SharedStore } from './shared-store/types';
import { formatBytes } from '../../shared/format';

export interface SessionUploadsDeps {
  local: SessionStore;
  store: SharedStore;
  keepLocal: boolean;
  log: (line: string) => void;
  now?: () => number;
  /** A session of at least this many bytes has its progress said (default 50 MB; 0: every session). */
  progressFromBytes?: number;
}

/** How one session's upload went. */
export type UploadOutcome =
  /** The store has all of it, verified. */
  | { status: 'uploaded'; id: string; store: string; files: number; bytes: number; /** Already there from an earlier attempt. */ skipped: number; localCopy: 'removed' | 'kept' | 'not removed' }
  /** It stays in the data directory, listed as pending: `message` says why. */
  | { status: 'local'; id: string; store: string; directory: string; message: string }
  /** Nothing of it in the data directory (uploaded by another process, or deleted). */
  | { status: 'absent'; id: string; store: string };

export interface UploadOptions {
  /** Stops the upload between files: the session stays local and pending. */
  signal?: AbortSignal;
  /** After each file the store has. */
  onProgress?: (progress: UploadProgress) => void;
}

const PROGRESS_FROM_BYTES = 50_000_000;

export class SessionUploads {
  private queue: Promise<void> = Promise.resolve();
  /** Sessions queued or being uploaded by this process, with how their upload will end. */
  private readonly queued = new Map<string, Promise<UploadOutcome>>();
  /** The sessions this process has uploaded, as they went (a caller may ask after the upload after a run ended). */
  private readonly uploaded = new Map<string, UploadOutcome>();

  constructor(private readonly deps: SessionUploadsDeps) {}

  get storeName(): string {
    return this.deps.store.name;
  }

  /** Uploads a session whose run has ended (its record closed). */
  afterRun(id: string): void {
    void this.upload(id);
  }

  /**
   * Uploads one session, after those queued before it; a session already queued is not queued
   * twice (its upload's outcome is answered, and `options` are those of the first asking).
   */
  upload(id: string, options: UploadOptions = {}): Promise<UploadOutcome> {
    const already = this.queued.get(id);
    if (already) return already;
    // Uploaded by this process already (its local copy kept, or gone): not sent again.
    const uploaded = this.uploaded.get(id);
    if (uploaded) return Promise.resolve(uploaded);
    const outcome = this.queue
      .then(() => this.uploadNow(id, options))
      // A bug must not stop the uploads after it: the session stays local and pending.
      .catch((error: unknown): UploadOutcome => ({ status: 'local', id, store: this.deps.store.name, directory: sessionDirectory(this.deps.local.dataDir, id), message: String(error) }))
      .finally(() => this.queued.delete(id));
    this.queued.set(id, outcome);
    this.queue = outcome.then(() => undefined);
    return outcome;
  }

  /** Uploads what an earlier process left pending (a store that could not be reached, a crash). */
  retryPending(): void {
    void this.uploadPending();
  }

  /** The pending sessions (those named, or all), uploaded now, one by one; their outcomes in order. */
  async uploadPending(options: UploadOptions & { ids?: readonly string[] } = {}): Promise<UploadOutcome[]> {
    const listed = this.queue.then(async () => {
      // Sessions left `running` by a process that died are marked interrupted first: they are final then.
      await this.deps.local.recoverInterrupted().catch(() => undefined);
      return options.ids ?? (await pendingUploadIds(this.deps.local.dataDir));
    });
    this.queue = listed.then(
      () => undefined,
      () => undefined,
    );
    const ids = await listed.catch(() => [] as readonly string[]);
    const outcomes: UploadOutcome[] = [];
    for (const id of ids) {
      if (options.signal?.aborted) break;
      outcomes.push(await this.upload(id, options));
    }
    return outcomes;
  }

  /** Resolves when every upload asked for so far has ended (a process waits for this before it exits). */
  async settled(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.queue;
      await seen;
    } while (seen !== this.queue);
  }

  private async uploadNow(id: string, options: UploadOptions): Promise<UploadOutcome> {
    const { local, store, log } = this.deps;
    const dataDir = local.dataDir;
    const directory = sessionDirectory(dataDir, id);
    const here = await stat(directory).then(
      (info) => info.isDirectory(),
      () => false,
    );
    const earlier = await pendingUpload(dataDir, id);
    if (!here) {
      // Uploaded and removed by another process meanwhile, or deleted by the user: nothing left to send.
      if (earlier) await clearPending(dataDir, id).catch(() => undefined);
      return { status: 'absent', id, store: store.name };
    }
    const stays = (message: string): UploadOutcome => ({ status: 'local', id, store: store.name, directory, message });
    const entry = earlier ?? { id, store: store.name, since: (this.deps.now ?? Date.now)(), attempts: 0, lastError: null };
    try {
      await markPending(dataDir, { ...entry, store: store.name });
    } catch (error) {
      const message = `it could not be listed for upload (${(error as Error).message}), so it is not uploaded to ${store.name}`;
      log(`session ${id} stays in ${displayPath(directory)}: ${message}`);
      return stays(message);
    }
    const result = await uploadSession({
      local,
      id,
      store,
      keepLocal: this.deps.keepLocal,
      // An earlier attempt may have sent most of it: what the store holds as it is here is not sent again.
      resume: earlier !== null,
      onProgress: this.progressOf(id, options.onProgress),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (!result.ok) {
      await markPending(dataDir, { ...entry, store: store.name, attempts: entry.attempts + 1, lastError: result.message }).catch(() => undefined);
      log(`session ${id} stays in ${displayPath(directory)}, not uploaded: ${result.message}; the upload is tried again at the next start`);
      return stays(result.message);
    }
    await clearPending(dataDir, id).catch(() => undefined);
    const { files, bytes, skipped, removed, notRemoved } = result.value;
    const localCopy = removed ? 'its local copy removed' : notRemoved ? `its local copy could not be removed (${notRemoved})` : `its local copy kept in ${displayPath(directory)}`;
    const resumed = skipped > 0 ? `, ${skipped} of them there from an earlier attempt` : '';
    log(`session ${id} uploaded to ${store.name} (${files} files, ${formatBytes(bytes)}${resumed}), ${localCopy}`);
    const outcome: UploadOutcome = { status: 'uploaded', id, store: store.name, files, bytes, skipped, localCopy: removed ? 'removed' : notRemoved ? 'not removed' : 'kept' };
    this.uploaded.set(id, outcome);
    return outcome;
  }

  /** The caller's progress, and a line at each quarter for a big session. */
  private progressOf(id: string, onProgress: UploadOptions['onProgress']): (progress: UploadProgress) => void {
    let saidQuarter = 0;
    return (progress) => {
      onProgress?.(progress);
      if (progress.totalBytes < (this.deps.progressFromBytes ?? PROGRESS_FROM_BYTES) || progress.files === progress.totalFiles) return;
      const quarter = Math.floor((progress.bytes / Math.max(1, progress.totalBytes)) * 4);
      if (quarter <= saidQuarter) return;
      saidQuarter = quarter;
      this.deps.log(`session ${id}: uploading to ${this.deps.store.name}, ${uploadProgressText(progress)}`);
    };
  }
}

/** `50% (120 of 240 files, 30 MB of 60 MB)`. */
export function uploadProgressText(progress: UploadProgress): string {
  const percent = Math.floor((progress.bytes / Math.max(1, progress.totalBytes)) * 100);
  return `${percent}% (${progress.files} of ${progress.totalFiles} files, ${formatBytes(progress.bytes)} of ${formatBytes(progress.totalBytes)})`;
}
