/**
 * The uploads of one process to the shared store: a session after its run ends (`afterRun`), and
 * the sessions an earlier process could not upload (`retryPending`, at the next start). Each is
 * listed as pending (pending-uploads.ts) before it starts and unlisted only once the store has all
 * of it, so a failure, a crash or a kill leaves it local and listed. One upload at a time; each
 * says how it went in one line.
 */
import { stat } from 'node:fs/promises';
import { displayPath } from '../disk/write-failure';
import { clearPending, markPending, pendingUpload, pendingUploadIds } from './pending-uploads';
import { sessionDirectory } from './paths';
import type { SessionStore } from './session-store';
import { uploadSession } from './session-upload';
import type { SharedStore } from './shared-store/types';
import { formatBytes } from '../../shared/format';

export interface SessionUploadsDeps {
  local: SessionStore;
  store: SharedStore;
  keepLocal: boolean;
  log: (line: string) => void;
  now?: () => number;
}

export class SessionUploads {
  private queue: Promise<void> = Promise.resolve();
  /** Sessions queued or being uploaded by this process. */
  private readonly queued = new Set<string>();

  constructor(private readonly deps: SessionUploadsDeps) {}

  /** Uploads a session whose run has ended (its record closed). */
  afterRun(id: string): void {
    this.enqueue(id);
  }

  /** Uploads what an earlier process left pending (a store that could not be reached, a crash). */
  retryPending(): void {
    this.queue = this.queue.then(async () => {
      // Sessions left `running` by a process that died are marked interrupted first: they are final then.
      await this.deps.local.recoverInterrupted().catch(() => undefined);
      for (const id of await pendingUploadIds(this.deps.local.dataDir)) this.enqueue(id);
    });
  }

  /** Resolves when every upload asked for so far has ended (a process waits for this before it exits). */
  async settled(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.queue;
      await seen;
    } while (seen !== this.queue);
  }

  private enqueue(id: string): void {
    if (this.queued.has(id)) return;
    this.queued.add(id);
    this.queue = this.queue.then(() => this.upload(id).finally(() => this.queued.delete(id)));
  }

  private async upload(id: string): Promise<void> {
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
      return;
    }
    const entry = earlier ?? { id, store: store.name, since: (this.deps.now ?? Date.now)(), attempts: 0, lastError: null };
    try {
      await markPending(dataDir, { ...entry, store: store.name });
    } catch (error) {
      log(`session ${id} stays in ${displayPath(directory)}: it could not be listed for upload (${(error as Error).message}), so it is not uploaded to ${store.name}`);
      return;
    }
    const result = await uploadSession({ local, id, store, keepLocal: this.deps.keepLocal });
    if (!result.ok) {
      await markPending(dataDir, { ...entry, store: store.name, attempts: entry.attempts + 1, lastError: result.message }).catch(() => undefined);
      log(`session ${id} stays in ${displayPath(directory)}, not uploaded: ${result.message}; the upload is tried again at the next start`);
      return;
    }
    await clearPending(dataDir, id).catch(() => undefined);
    const { files, bytes, removed, notRemoved } = result.value;
    const localCopy = removed ? 'its local copy removed' : notRemoved ? `its local copy could not be removed (${notRemoved})` : `its local copy kept in ${displayPath(directory)}`;
    log(`session ${id} uploaded to ${store.name} (${files} files, ${formatBytes(bytes)}), ${localCopy}`);
  }
}
