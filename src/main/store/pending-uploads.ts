/**
 * The sessions of a data directory still to upload to the shared store:
 * `<data-dir>/pending-uploads/<id>.json`, one small file per session, written before its upload
 * starts and removed only once the store holds all of it. A crash, a kill or a store that cannot
 * be reached leaves the file, and the next start tries again (session-uploads.ts). One file per
 * session, so processes ending runs at the same time never write the same file.
 *
 * Retention never deletes a session listed here (SessionStore.prune).
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDir, writeJsonAtomically } from '../disk/files';
import { SESSION_ID_PATTERN } from './paths';

export const PENDING_UPLOADS_DIR = 'pending-uploads';

export interface PendingUpload {
  id: string;
  /** The store it is meant for, as named when it was listed. */
  store: string;
  /** When it was listed (ms since the epoch). */
  since: number;
  /** Uploads tried and failed so far. */
  attempts: number;
  /** Why the last attempt failed. */
  lastError: string | null;
}

function folderOf(dataDir: string): string {
  return join(dataDir, PENDING_UPLOADS_DIR);
}

function fileOf(dataDir: string, id: string): string {
  return join(folderOf(dataDir), `${id}.json`);
}

export async function markPending(dataDir: string, entry: PendingUpload): Promise<void> {
  await makePrivateDir(folderOf(dataDir));
  await writeJsonAtomically(fileOf(dataDir, entry.id), entry);
}

export async function clearPending(dataDir: string, id: string): Promise<void> {
  await rm(fileOf(dataDir, id), { force: true });
}

/** One entry; null when the session is not pending (or its file is damaged: then it is taken as new). */
export async function pendingUpload(dataDir: string, id: string): Promise<PendingUpload | null> {
  try {
    const value = JSON.parse(await readFile(fileOf(dataDir, id), 'utf8')) as Partial<PendingUpload>;
    return {
      id,
      store: typeof value.store === 'string' ? value.store : '',
      since: typeof value.since === 'number' ? value.since : 0,
      attempts: typeof value.attempts === 'number' ? value.attempts : 0,
      lastError: typeof value.lastError === 'string' ? value.lastError : null,
    };
  } catch {
    return null;
  }
}

/** The ids waiting, oldest first (an id starts with its session's start time). */
export async function pendingUploadIds(dataDir: string): Promise<string[]> {
  const names = await readdir(folderOf(dataDir)).catch(() => [] as string[]);
  return names
    .filter((name) => name.endsWith('.json'))
    .map((name) => name.slice(0, -'.json'.length))
    .filter((id) => SESSION_ID_PATTERN.test(id))
    .sort();
}
