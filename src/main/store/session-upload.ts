/**
 * One finished session from the data directory to the shared store, without ever losing it:
 *
 * 1. every file of its folder is written to the store, session.json last: a reader takes a
 *    session as whole only once its session.json is there (session-library.ts), so it never
 *    sees half of one as complete;
 * 2. every object is compared with the local file (size and SHA-256);
 * 3. only then is the local copy removed (unless it is kept: `store.keepLocal`).
 *
 * A failure at any point leaves the local session as it was and comes back as a message.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
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
}

export interface Uploaded {
  files: number;
  bytes: number;
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
}

export async function uploadSession(request: UploadRequest): Promise<UploadResult> {
  const { local, id, store } = request;
  const directory = sessionDirectory(local.dataDir, id);
  const meta = await readSessionMeta(directory);
  if (!meta.ok) return { ok: false, message: `session ${id} cannot be uploaded: ${meta.message}` };
  if (meta.meta.status === 'running') return { ok: false, message: `session ${id} is still being recorded` };

  let paths: string[];
  try {
    paths = await localPaths(directory);
  } catch (error) {
    return { ok: false, message: `session ${id} cannot be read for its upload: ${errorMessage(error)}` };
  }
  if (!paths.includes(SESSION_FILE)) return { ok: false, message: `session ${id} has no ${SESSION_FILE}` };

  // Read, digested and written one by one (a few at a time): a long session is never held whole.
  const send = async (path: string): Promise<SentFile | string> => {
    let data: Buffer;
    try {
      data = await readFile(join(directory, path));
    } catch (error) {
      return `session ${id} cannot be read for its upload: ${errorMessage(error)}`;
    }
    const sha256 = createHash('sha256').update(data).digest('hex');
    const written = await store.write(id, path, data, sha256);
    return written.ok ? { path, bytes: data.length, sha256 } : written.message;
  };
  // The files, then session.json: what makes the session whole in the store.
  const sent = await mapLimit(
    paths.filter((path) => path !== SESSION_FILE),
    WRITES_AT_ONCE,
    send,
  );
  sent.push(await send(SESSION_FILE));
  const failed = sent.find((file): file is string => typeof file === 'string');
  if (failed !== undefined) return { ok: false, message: failed };
  const files = sent as SentFile[];

  // Nothing local goes before every object is known to be the file it copies.
  const checks = await mapLimit(files, WRITES_AT_ONCE, async (file) => {
    const copy = await store.copy(id, file.path);
    if (!copy.ok) return copy.message;
    if (copy.value === null) return `${file.path} is not in ${store.name} after its upload`;
    if (copy.value.bytes !== file.bytes || copy.value.sha256 !== file.sha256) return `${store.name} holds a different ${file.path} than the one uploaded`;
    return null;
  });
  const mismatch = checks.find((check) => check !== null);
  if (mismatch) return { ok: false, message: `session ${id} was not verified in the store: ${mismatch}` };

  const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
  if (request.keepLocal) return { ok: true, value: { files: files.length, bytes, removed: false } };
  const removed = await local.delete(id);
  return { ok: true, value: { files: files.length, bytes, removed: removed.ok, ...(removed.ok ? {} : { notRemoved: removed.message }) } };
}

/** The paths (inside the session folder) of the files that go to a store. */
async function localPaths(directory: string): Promise<string[]> {
  const paths: string[] = [];
  for await (const item of walkFolder(directory)) {
    if (item.kind === 'unreadable') throw new Error(`${item.path} cannot be read`);
    if (item.kind !== 'file') continue;
    const path = relative(directory, item.path).split(sep).join('/');
    if (isStorablePath(path)) paths.push(path);
  }
  return paths;
}
