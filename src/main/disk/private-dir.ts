/**
 * The data directory is owner-only, like ~/.ssh or a browser profile: it holds screenshots of the
 * user's screen, what the agent typed and what it remembers. Made 0700 when Mnemo creates it; one
 * found open to other accounts (made by an older version, or by hand) is tightened at start, with
 * everything in it, and the caller says so in one line. Where that is impossible (another account
 * owns it), the line says so and Mnemo goes on.
 */
import type { Stats } from 'node:fs';
import { chmod, lstat } from 'node:fs/promises';
import { errorMessage, makePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './files';
import { walkFolder } from './folder-walk';
import { displayPath } from './write-failure';

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(3, '0');

/** Sets owner-only modes below `folder` (links are not followed); the count that could not be set. */
export async function tightenBelow(folder: string): Promise<number> {
  let failed = 0;
  for await (const item of walkFolder(folder)) {
    if (item.kind === 'unreadable') {
      failed++;
      continue;
    }
    const mode = item.kind === 'folder' ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
    try {
      const info = await lstat(item.path);
      if ((info.mode & 0o777) !== mode) await chmod(item.path, mode);
    } catch {
      failed++;
    }
  }
  return failed;
}

/**
 * Makes sure the data directory is owner-only. Returns the line to say, or null when there is
 * nothing to say (it was private already, or has just been made).
 */
export async function keepDataDirPrivate(dataDir: string): Promise<string | null> {
  if (process.platform === 'win32') return null;
  let info: Stats;
  try {
    info = await lstat(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return null;
    await makePrivateDir(dataDir).catch(() => undefined);
    return null;
  }
  if (!info.isDirectory() || (info.mode & 0o077) === 0) return null;
  const shown = displayPath(dataDir);
  const was = octal(info.mode);
  try {
    await chmod(dataDir, PRIVATE_DIR_MODE);
  } catch (error) {
    const owner = process.geteuid && info.uid !== process.geteuid() ? `it belongs to another account (uid ${info.uid})` : errorMessage(error);
    return `warning: the data directory ${shown} can be read by other accounts (mode ${was}) and cannot be made owner-only: ${owner}; going on`;
  }
  const failed = await tightenBelow(dataDir);
  return `the data directory ${shown} could be read by other accounts (mode ${was}); it is now owner-only (folders 700, files 600)${failed > 0 ? `, except ${failed} item(s) that could not be changed` : ''}`;
}
