/**
 * Writing files so that a failure (a full disk, a removed folder) never leaves half of one behind:
 * whole files go through a temporary file and a rename; appends that fail are cut back to where
 * they started. Every part of Mnemo that writes under the data directory uses these.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';

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
    handle = await open(partial, 'w');
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

/** Appends `text` to the file at `path` (created when missing) as a whole or not at all. */
export async function appendWholeToFile(path: string, text: string | Buffer): Promise<void> {
  const handle = await open(path, 'a');
  try {
    await appendWhole(handle, (await handle.stat()).size, text);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
