/**
 * A file a command writes where the user asked (`mnemo export --html FILE`, `workflow export -o`,
 * `screenshot -o`, the app's Save): it holds screenshots and what was typed, so it is owner-only
 * (0600, whatever the umask) like everything Mnemo keeps, written whole (a temporary file beside
 * it, renamed into place), and a failure is one line naming the path and the cause. The folder is
 * the user's: a missing one is said, not made.
 */
import { dirname } from 'node:path';
import { errorMessage, writeFileAtomically } from './files';

export type UserFileWrite = { ok: true; bytes: number } | { ok: false; message: string };

/** Why writing `path` failed, in words (the system's code kept at the end). */
export function userFileFailure(path: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const cause = (() => {
    switch (code) {
      case 'ENOENT':
        return `the folder ${dirname(path)} does not exist`;
      case 'ENOTDIR':
        return `a part of ${dirname(path)} is not a folder`;
      case 'EISDIR':
        return 'it is a folder';
      case 'EACCES':
      case 'EPERM':
        return `permission denied`;
      case 'ENOSPC':
        return 'the disk is full';
      case 'EDQUOT':
        return 'the disk quota is used up';
      case 'EROFS':
        return 'the disk is read-only';
      default:
        return errorMessage(error).split('\n')[0] ?? 'the write failed';
    }
  })();
  return `cannot write ${path}: ${cause}${code ? ` (${code})` : ''}`;
}

/** Writes `data` to `path` owner-only and whole; the failure as one line. */
export async function writeUserFile(path: string, data: string | Buffer): Promise<UserFileWrite> {
  try {
    await writeFileAtomically(path, data);
  } catch (error) {
    return { ok: false, message: userFileFailure(path, error) };
  }
  return { ok: true, bytes: typeof data === 'string' ? Buffer.byteLength(data) : data.length };
}
