/** Small file helpers for the session store: atomic JSON writes, folder sizes, safe removal. */
import { lstat, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';

/**
 * Writes JSON through a temporary file and a rename, so a reader sees the old or the new content,
 * never half of it. The temporary name is unique: two processes may write the same file at once.
 */
export async function writeTextAtomically(path: string, text: string): Promise<void> {
  const partial = `${path}.${process.pid}-${randomBytes(3).toString('hex')}.partial`;
  try {
    await writeFile(partial, text);
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

export function writeJsonAtomically(path: string, value: unknown): Promise<void> {
  return writeTextAtomically(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Bytes of the regular files under a folder (0 when it does not exist); links are not followed. */
export async function folderBytes(path: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const entry of entries) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) total += await folderBytes(full);
    else if (entry.isFile()) {
      try {
        total += (await lstat(full)).size;
      } catch {
        // Removed while we counted.
      }
    }
  }
  return total;
}

export const TRASH_PREFIX = '.deleting-';

/**
 * Removes a session folder: first renamed out of the way (one atomic step, so no reader ever
 * sees half a session), then deleted. A crash in between leaves a `.deleting-*` folder that the
 * next prune removes.
 */
export async function removeFolder(path: string): Promise<void> {
  const trash = join(dirname(path), `${TRASH_PREFIX}${randomBytes(4).toString('hex')}`);
  await rename(path, trash);
  await rm(trash, { recursive: true, force: true });
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
