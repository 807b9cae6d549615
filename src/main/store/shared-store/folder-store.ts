/**
 * A shared session store in a folder (a mount several machines see): `<folder>/<id>/<path>`, the
 * session folder as recorded. Written the way the data directory is (disk/files.ts): owner-only,
 * each file through a temporary file and a rename, so a reader on another machine sees a file
 * whole or not at all. Owner-only means the machines reach the mount as the same user.
 *
 * The folder must exist: one that is missing is most often a mount that is not there, and
 * creating it would put the sessions on the local disk under the mount point.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { errorMessage, makePrivateDir, writeFileAtomically } from '../../disk/files';
import { walkFolder } from '../../disk/folder-walk';
import { SESSION_ID_PATTERN } from '../paths';
import { isStorablePath } from './stored-paths';
import type { SharedStore, StoredCopy, StoredFile, StoreProblem, StoreResult } from './types';

export class FolderStore implements SharedStore {
  constructor(readonly name: string) {}

  async check(): Promise<StoreResult<void>> {
    try {
      const info = await stat(this.name);
      if (!info.isDirectory()) return this.problem('missing', `${this.name} is not a folder`);
      return { ok: true, value: undefined };
    } catch (error) {
      return this.failure(error);
    }
  }

  async sessionIds(): Promise<StoreResult<string[]>> {
    try {
      const entries = await readdir(this.name, { withFileTypes: true });
      return { ok: true, value: entries.filter((entry) => entry.isDirectory() && SESSION_ID_PATTERN.test(entry.name)).map((entry) => entry.name) };
    } catch (error) {
      return this.failure(error);
    }
  }

  async files(id: string): Promise<StoreResult<StoredFile[]>> {
    const checked = await this.check();
    if (!checked.ok) return checked;
    const folder = join(this.name, id);
    const files: StoredFile[] = [];
    for await (const item of walkFolder(folder)) {
      if (item.kind !== 'file') continue;
      const path = relative(folder, item.path).split(sep).join('/');
      if (!isStorablePath(path)) continue;
      const bytes = await stat(item.path).then(
        (info) => info.size,
        () => null,
      );
      if (bytes !== null) files.push({ path, bytes });
    }
    return { ok: true, value: files };
  }

  async read(id: string, path: string): Promise<StoreResult<Buffer | null>> {
    try {
      return { ok: true, value: await readFile(join(this.name, id, path)) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        const checked = await this.check();
        return checked.ok ? { ok: true, value: null } : checked;
      }
      return this.failure(error);
    }
  }

  async write(id: string, path: string, data: Buffer, _sha256: string, signal?: AbortSignal): Promise<StoreResult<void>> {
    // A file is written in one go: a signal is heeded before it starts, never half way.
    if (signal?.aborted) return this.problem('failed', 'the write was stopped');
    // The store's own folder is never made here (see above); the session's folders are.
    const checked = await this.check();
    if (!checked.ok) return checked;
    const target = join(this.name, id, path);
    try {
      await makePrivateDir(dirname(target));
      await writeFileAtomically(target, data, { sync: true });
      return { ok: true, value: undefined };
    } catch (error) {
      return this.failure(error);
    }
  }

  async copy(id: string, path: string): Promise<StoreResult<StoredCopy | null>> {
    const read = await this.read(id, path);
    if (!read.ok || read.value === null) return read.ok ? { ok: true, value: null } : read;
    return { ok: true, value: { bytes: read.value.length, sha256: createHash('sha256').update(read.value).digest('hex') } };
  }

  close(): void {}

  private failure(error: unknown): StoreProblem {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return this.problem('missing', `the folder does not exist: mount it, or create it, or name another with --store`);
    if (code === 'EACCES' || code === 'EPERM') return this.problem('credentials', `not allowed (${errorMessage(error)}): the folder and its sessions must belong to the user Mnemo runs as`);
    if (code === 'ESTALE' || code === 'EIO' || code === 'ETIMEDOUT' || code === 'EHOSTDOWN') return this.problem('unreachable', `${errorMessage(error)}: check the mount`);
    return this.problem('failed', errorMessage(error));
  }

  private problem(kind: StoreProblem['kind'], what: string): StoreProblem {
    return { ok: false, kind, message: `the session store ${this.name}: ${what}` };
  }
}
