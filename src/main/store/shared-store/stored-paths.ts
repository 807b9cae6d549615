/**
 * Which paths inside a session folder go to a store and come back from one. A store is read from
 * other machines and its listing is not trusted: a path that could leave the session folder, a
 * hidden file or a temporary file being written (`*.partial`, disk/files.ts) is neither uploaded
 * nor fetched.
 */

/** A name as the recorder makes them: `step-0003.jpg`, `events.jsonl`, `step-0003-after-2.jpg`. */
const NAME = /^[\w][\w.-]*$/;
const MAX_DEPTH = 4;

export function isStorablePath(path: string): boolean {
  const parts = path.split('/');
  return parts.length <= MAX_DEPTH && parts.every((part) => NAME.test(part)) && !path.endsWith('.partial');
}

/** Fetched when the session is read at all; the rest (screenshots, raw replies) when asked for. */
export function isReadFirst(path: string): boolean {
  return !path.includes('/');
}
