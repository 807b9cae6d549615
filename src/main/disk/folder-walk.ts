/**
 * Walking a folder tree the careful way: links are never followed (a link out of the data
 * directory must not make Mnemo count or change what it points at), and a folder that cannot be
 * read is reported rather than thrown, so that one bad folder does not stop the walk.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export type FolderWalkItem = { kind: 'folder' | 'file' | 'unreadable'; path: string };

/**
 * The folders and regular files below `folder`, each folder before what it holds (so a caller may
 * change a folder's mode before it is read), and every folder that could not be read, `folder`
 * itself included. Links, sockets and devices are skipped.
 */
export async function* walkFolder(folder: string): AsyncGenerator<FolderWalkItem> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch {
    yield { kind: 'unreadable', path: folder };
    return;
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isFile()) {
      yield { kind: 'file', path };
    } else if (entry.isDirectory()) {
      yield { kind: 'folder', path };
      yield* walkFolder(path);
    }
  }
}
