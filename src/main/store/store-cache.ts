/**
 * What this machine fetched of the shared store's sessions: `<data-dir>/store-cache/<store>/<id>/`,
 * laid out as a session folder, so a stored session is read by the same reader as a local one.
 * A session in the store is whole and does not change (its session.json comes last), so a file
 * here of the size the store lists is that file. Owner-only and written whole, like the rest of
 * the data directory. Only a cache: deleting the folder loses nothing.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makePrivateDir, writeFileAtomically } from '../disk/files';
import type { StoredFile } from './shared-store/types';

/** The store's list of a whole session's files, kept beside them (a hidden name: never a session file). */
const LISTING_FILE = '.listing.json';

export const STORE_CACHE_DIR = 'store-cache';

export class StoreCache {
  constructor(readonly root: string) {}

  /** The cache of one store in a data directory (stores never share one). */
  static of(dataDir: string, storeName: string): StoreCache {
    const key = createHash('sha256').update(storeName).digest('hex').slice(0, 16);
    return new StoreCache(join(dataDir, STORE_CACHE_DIR, key));
  }

  directory(id: string): string {
    return join(this.root, id);
  }

  /** Whether the file is here with this size. */
  async has(id: string, path: string, bytes: number): Promise<boolean> {
    return stat(join(this.directory(id), path)).then(
      (info) => info.isFile() && info.size === bytes,
      () => false,
    );
  }

  async read(id: string, path: string): Promise<Buffer | null> {
    return readFile(join(this.directory(id), path)).catch(() => null);
  }

  /** The files the store listed for a whole session, when they were kept; null otherwise. */
  async listing(id: string): Promise<StoredFile[] | null> {
    const text = await readFile(join(this.directory(id), LISTING_FILE), 'utf8').catch(() => null);
    if (text === null) return null;
    try {
      const value = JSON.parse(text) as unknown;
      const valid = Array.isArray(value) && value.every((file) => typeof file?.path === 'string' && Number.isInteger(file?.bytes));
      return valid ? (value as StoredFile[]) : null;
    } catch {
      return null;
    }
  }

  /** Keeps the list of a whole session's files: it does not change, so the next read asks the store nothing. */
  async keepListing(id: string, files: readonly StoredFile[]): Promise<void> {
    await this.put(id, LISTING_FILE, Buffer.from(JSON.stringify(files)));
  }

  async put(id: string, path: string, data: Buffer): Promise<void> {
    const target = join(this.directory(id), path);
    await makePrivateDir(dirname(target));
    await writeFileAtomically(target, data);
  }
}
