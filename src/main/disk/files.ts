/**
 * Writing files under the data directory, the way Mnemo keeps them:
 *
 * - owner-only: folders 0700 and files 0600 whatever the umask (they hold screenshots of the
 *   user's screen and what the agent remembers), set explicitly since mkdir's and open's modes
 *   pass through the umask and an existing file keeps its own;
 * - never half a file: whole files go through a temporary file and a rename, an append that fails
 *   is cut back to where it started (a full disk, a removed folder).
 *
 * Every part of Mnemo that writes under the data directory uses these, and so do the files a
 * command writes where the user asks (`mnemo export --html FILE`: user-file.ts): they hold
 * screenshots too.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Opens a file (creating it 0600) and makes sure it is 0600: a file made by an older version, or
 * under a umask that took the owner's bits, is set right. Only regular files are changed (a
 * name may lead to a device).
 */
export async function openPrivate(path: string, flags: string): Promise<FileHandle> {
  const handle = await open(path, flags, PRIVATE_FILE_MODE);
  try {
    await makeModePrivate(handle);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return handle;
}

async function makeModePrivate(handle: FileHandle): Promise<void> {
  const info = await handle.stat();
  if (info.isFile() && (info.mode & 0o777) !== PRIVATE_FILE_MODE && process.platform !== 'win32') await handle.chmod(PRIVATE_FILE_MODE);
}

/**
 * `openPrivate(path, 'w')` and `data` written, the mode set while the data is written rather than
 * before: one trip to the disk's thread pool fewer for a file the loop waits for (a step's
 * screenshot, its reply). Only for a file in a folder only the owner can enter (a session
 * folder), where nobody can read it before its mode is right. Returns the open file; when the
 * write fails, the file is closed and removed (never half a file, and its space given back) and
 * the error thrown.
 */
export async function writePrivateInPrivateFolder(path: string, data: Buffer | string): Promise<FileHandle> {
  const handle = await open(path, 'w', PRIVATE_FILE_MODE);
  try {
    await Promise.all([handle.writeFile(data), makeModePrivate(handle)]);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(path, { force: true }).catch(() => undefined);
    throw error;
  }
  return handle;
}

/**
 * Makes a folder 0700, with the missing folders above it (`recursive`, the default), each set to
 * 0700 explicitly: mkdir's own mode passes through the umask. Folders that existed are left as
 * they are (the data directory itself is checked at start: private-dir.ts).
 */
export async function makePrivateDir(path: string, options: { recursive?: boolean } = {}): Promise<void> {
  if (options.recursive === false) {
    await mkdir(path, { mode: PRIVATE_DIR_MODE });
    if (process.platform !== 'win32') await chmod(path, PRIVATE_DIR_MODE);
    return;
  }
  const first = await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined || process.platform === 'win32') return;
  for (let folder = path; ; folder = dirname(folder)) {
    await chmod(folder, PRIVATE_DIR_MODE);
    if (folder === first || dirname(folder) === folder) break;
  }
}

/** An empty owner-only file (created, or emptied). */
export async function writeEmptyPrivate(path: string): Promise<void> {
  const handle = await openPrivate(path, 'w');
  await handle.close();
}

/**
 * Appends to an owner-only file that several processes may append to at once (one write, so
 * their lines do not interleave); its reader skips a line cut short. For a file only this
 * process writes, `appendWhole` also cuts a failed append back.
 */
export async function appendPrivate(path: string, text: string): Promise<void> {
  const handle = await openPrivate(path, 'a');
  try {
    await handle.appendFile(text);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Writes through a temporary file beside the target and a rename, so a reader sees the old or the
 * new content, never half of it; on failure the temporary file is removed (on a full disk it
 * would hold the space the next write needs). The temporary name is unique: two processes may
 * write the same file at once. `sync` flushes the data to the disk before the rename.
 */
export async function writeFileAtomically(path: string, data: string | Buffer, options: { sync?: boolean } = {}): Promise<void> {
  const partial = `${path}.${process.pid}-${randomBytes(3).toString('hex')}.partial`;
  let handle: FileHandle | null = null;
  try {
    handle = await openPrivate(partial, 'w');
    await handle.writeFile(data);
    if (options.sync) await handle.sync();
    await handle.close();
    handle = null;
    await rename(partial, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(partial, { force: true }).catch(() => undefined);
    throw error;
  }
}

export function writeTextAtomically(path: string, text: string, options: { sync?: boolean } = {}): Promise<void> {
  return writeFileAtomically(path, text, options);
}

export function writeJsonAtomically(path: string, value: unknown, options: { sync?: boolean } = {}): Promise<void> {
  return writeFileAtomically(path, `${JSON.stringify(value, null, 2)}\n`, options);
}

/**
 * Appends `text` to an open file whose length is `size`, and returns the new length. A write that
 * fails part-way (the disk filled up in the middle of it) is cut back to `size`, so the file
 * never ends in half a line.
 */
export async function appendWhole(handle: FileHandle, size: number, text: string | Buffer): Promise<number> {
  try {
    await handle.appendFile(text);
  } catch (error) {
    await handle.truncate(size).catch(() => undefined);
    throw error;
  }
  return size + (typeof text === 'string' ? Buffer.byteLength(text) : text.length);
}

/** Appends `text` to the owner-only file at `path` (created when missing) as a whole or not at all. */
export async function appendWholeToFile(path: string, text: string | Buffer): Promise<void> {
  const handle = await openPrivate(path, 'a');
  try {
    await appendWhole(handle, (await handle.stat()).size, text);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
