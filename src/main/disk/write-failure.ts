/**
 * A failed write in words a user can act on: "the disk holding ~/.mnemo/sessions is full" rather
 * than "ENOSPC: no space left on device, write". The system's own message follows in brackets,
 * for whoever needs the detail.
 */
import { homedir } from 'node:os';
import { sep } from 'node:path';
import { errorMessage } from './files';

/** A path as a user would write it: the home folder as `~`. */
export function displayPath(path: string, home: string = homedir()): string {
  if (home === '' || home === sep) return path;
  if (path === home) return '~';
  return path.startsWith(home + sep) ? `~${path.slice(home.length)}` : path;
}

/** What went wrong, by the error's code; `place` is the folder the write was meant for. */
export function writeFailureCause(error: unknown, place: string): string {
  const shown = displayPath(place);
  switch ((error as NodeJS.ErrnoException | null)?.code) {
    case 'ENOSPC':
      return `the disk holding ${shown} is full`;
    case 'EDQUOT':
      return `the disk quota for ${shown} is used up`;
    case 'EROFS':
      return `the disk holding ${shown} is read-only`;
    case 'EACCES':
    case 'EPERM':
      return `${shown} may not be written (permission denied)`;
    case 'ENOENT':
      return `${shown} (or a folder in it) was removed while Mnemo was writing to it`;
    case 'EIO':
      return `the disk holding ${shown} failed to write (input/output error)`;
    case 'EFBIG':
      return `a file in ${shown} grew past the largest size its disk allows`;
    case 'EMFILE':
    case 'ENFILE':
      return `too many files are open to write in ${shown}`;
    default:
      return `writing in ${shown} failed`;
  }
}

/** `the disk holding ~/.mnemo/sessions is full (writing screenshots/step-0014.jpg: ENOSPC: no space left on device, write)`. */
export function describeWriteFailure(error: unknown, place: string, what: string): string {
  return `${writeFailureCause(error, place)} (writing ${what}: ${errorMessage(error)})`;
}
