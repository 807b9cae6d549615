/**
 * One finished session from the data directory to the shared store, without ever losing it:
 *
 * 1. every file of its folder is written to the store, session.json last: a reader takes a
 *    session as whole only once its session.json is there (session-library.ts), so it never
 *    sees half of one as complete;
 * 2. every object is compared with the local file (size and SHA-256);
 * 3. only then is the local copy removed (unless it is kept: `store.keepLocal`).
 *
 * A failure at any point leaves the local session as it was and comes back as a message; so does
 * the caller's signal, checked before each file (a file being written is finished or refused
 * whole by the store). Progress is reported file by file (`onProgress`), so a big session's
 * upload is seen moving. An upload tried again (`resume`) first asks the store what it already
 * holds: a file whose stored copy matches (size and SHA-256) is not sent again.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { errorMessage } from '../disk/files';
import { walkFolder } from '../disk/folder-walk';
import { mapLimit } from './map-limit';
import { SESSION_FILE, sessionDirectory } from './paths';
import { readSessionMeta } from './session-reader';
import type { SessionStore } from './session-store';
import { isStorablePath } from './shared-store/stored-paths';
import type { SharedStore } from './shared-store/types';

export interface UploadRequest {
  /** The data directory the session is in (`local.dataDir`). */
  local: SessionStore;
  id: string;
  store: SharedStore;
  /** Keep the local copy once the store has all of it. */
  keepLocal: boolean;
  /** Stops the upload between files; the session stays local. */
  signal?: AbortSignal;
  /** After each file the store has (sent, or found there already with `resume`). */
  onProgress?: (progress: UploadProgress) => void;
  /** Skip the files the store already holds as they are here (an earlier attempt's). */
  resume?: boolean;
}

/** How far an upload is: files and bytes the store has of the session, out of all of it. */
export interface UploadProgress {
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

export interface Uploaded {
  files: number;
  bytes: number;
  /** Of `files`, those the store already held from an earlier attempt (not sent again). */
  skipped: number;
  /** The local copy was removed (the store has all of it). */
  removed: boolean;
  /** Why a local copy meant to go is still there (the store has all of it all the same). */
  notRemoved?: string;
}

export type UploadResult = { ok: true; value: Uploaded } | { ok: false; message: string };

/** Files written at once (a session is mostly screenshots of a few hundred KB). */
const WRITES_AT_ONCE = 4;

/** A file as it was uploaded: what its stored copy must match. */
interface SentFile {
  path: string;
  bytes: number;
  sha256: string;
  /** The store held it already (`resume`). */
  skipped: boolean;
}

/** A file of the session folder that goes to the store. */
interface LocalFile {
  path: string;
  bytes: number;
}

export async function uploadSession(request: UploadRequest): Promise<UploadResult> {
  const { local, id, store } = request;
  const directory = sessionDirectory(local.dataDir, id);
  const meta = await readSessionMeta(directory);
  if (!meta.ok) return { ok: false, message: `session ${id} cannot be uploaded: ${meta.message}` };
  if (meta.meta.status === 'running') return { ok: false, message: `session ${id} is still being recorded` };

  let localCopies: LocalFile[];
  try {
    localCopies = await localFiles(directory);
  } catch (error) {
    return { ok: false, message: `session ${id} cannot be read for its upload: ${errorMessage(error)}` };
  }
  if (!localCopies.some((file) => file.path === SESSION_FILE)) return { ok: false, message: `session ${id} has no ${SESSION_FILE}` };

  const { signal, onProgress } = request;
  const stopped = () => `the upload of session ${id} to ${store.name} was stopped`;
  const progress: UploadProgress = { files: 0, totalFiles: localCopies.length, bytes: 0, totalBytes: localCopies.reduce((sum, file) => sum + file.bytes, 0) };
  const arrived = (file: SentFile) => {
    progress.files += 1;
    progress.bytes += file.bytes;
    onProgress?.({ ...progress });
  };
  // After the first failure the rest is not tried: the whole upload is tried again later.
  let firstFailure: string | null = null;
  const fail = (message: string): string => (firstFailure ??= message);
  // Read, digested and written one by one (a few at a time): a long session is never held whole.
  const send = async (file: LocalFile): Promise<SentFile | string> => {
    if (firstFailure !== null) return firstFailure;
    if (signal?.aborted) return fail(stopped());
    let data: Buffer;
    try {
      data = await readFile(join(directory, file.path));
    } catch (error) {
      return fail(`session ${id} cannot be read for its upload: ${errorMessage(error)}`);
    }
    const sha256 = createHash('sha256').update(data).digest('hex');
    let sent: SentFile = { path: file.path, bytes: data.length, sha256, skipped: false };
    if (request.resume) {
      const copy = await store.copy(id, file.path);
      if (copy.ok && copy.value !== null && copy.value.bytes === data.length && copy.value.sha256 === sha256) sent = { ...sent, skipped: true };
    }
    if (!sent.skipped) {
      if (signal?.aborted) return fail(stopped());
      const written = await store.write(id, file.path, data, sha256, signal);
      if (!written.ok) return fail(signal?.aborted ? stopped() : written.message);
    }
    arrived(sent);
    return sent;
  };
  // The files, then session.json: what makes the session whole in the store.
  const sent = await mapLimit(
    localCopies.filter((file) => file.path !== SESSION_FILE),
    WRITES_AT_ONCE,
    send,
  );
  // session.json only once every other file is there: a session whose upload failed is never whole in the store.
  if (firstFailure !== null) return { ok: false, message: firstFailure };
  sent.push(await send(localCopies.find((file) => file.path === SESSION_FILE) as LocalFile));
  const failed = sent.find((file): file is string => typeof file === 'string');
  if (failed !== undefined) return { ok: false, message: failed };
  const files = sent as SentFile[];

  // Nothing local goes before every object is known to be the file it copies.
  const checks = await mapLimit(files, WRITES_AT_ONCE, async (file) => {
    // A file found in the store as it is here (`resume`) was checked just now, the same way.
    if (file.skipped) return null;
    if (signal?.aborted) return stopped();
    const copy = await store.copy(id, file.path);
    if (!copy.ok) return copy.message;
    if (copy.value === null) return `${file.path} is not in ${store.name} after its upload`;
    if (copy.value.bytes !== file.bytes || copy.value.sha256 !== file.sha256) return `${store.name} holds a different ${file.path} than the one uploaded`;
    return null;
  });
  const mismatch = checks.find((check) => check !== null);
  if (mismatch) return { ok: false, message: `session ${id} was not verified in the store: ${mismatch}` };

  const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
  const counted = { files: files.length, bytes, skipped: files.filter((file) => file.skipped).length };
  if (request.keepLocal) return { ok: true, value: { ...counted, removed: false } };
  const removed = await local.delete(id);
  return { ok: true, value: { ...counted, removed: removed.ok, ...(removed.ok ? {} : { notRemoved: removed.message }) } };
}

/** The files (their paths inside the session folder, and sizes) that go to a store. */
async function localFiles(directory: string): Promise<LocalFile[]> {
  const files: LocalFile[] = [];
  for await (const item of walkFolder(directory)) {
    if (item.kind === 'unreadable') throw new Error(`${item.path} cannot be read`);
    if (item.kind !== 'file') continue;
    const path = relative(directory, item.path).split(sep).join('/');
    if (isStorablePath(path)) files.push({ path, bytes: (await stat(item.path)).size });
  }
  return files;
}
