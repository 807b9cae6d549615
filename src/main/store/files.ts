/** Small file helpers for the session store: folder sizes, safe removal (and the atomic writes of disk/). */
import { lstat, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { walkFolder } from '../disk/folder-walk';

// Whole-file writes live with the other careful writers in src/main/disk/.
export { errorMessage, writeJsonAtomically, writeTextAtomically } from '../disk/files';

/** Bytes of the regular files under a folder (0 when it does not exist); links are not followed. */
export async function folderBytes(path: string): Promise<number> {
  let total = 0;
  for await (const item of walkFolder(path)) {
    if (item.kind !== 'file') continue;
    try {
      total += (await lstat(item.path)).size;
    } catch {
      // Removed while we counted.
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
