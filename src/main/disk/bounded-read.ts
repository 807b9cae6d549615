/**
 * Reading what someone else hands Mnemo (a file to import, a request body, stdin) within a cap,
 * so a device, a pipe that never ends or a huge file costs nothing: a path that is not a regular
 * file, or one larger than the cap, is refused before a byte is read; a stream is cut off where
 * it passes the cap.
 */
import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { errorMessage } from './files';

const READ_CHUNK = 1024 * 1024;

export type BoundedRead = { ok: true; bytes: Buffer } | { ok: false; message: string };

/** `1 MB`, `64 MB`, `0.5 MB` where a MB is 2^20 bytes: the size limits are set in those. */
export function formatBinaryMegabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${mb >= 10 ? Math.round(mb) : Math.round(mb * 10) / 10} MB`;
}

/** Why a file with these stats is not read, or null. */
function refusal(info: Stats, maxBytes: number): string | null {
  if (!info.isFile()) return `it is not a regular file (${info.isDirectory() ? 'a folder' : info.isFIFO() ? 'a pipe' : info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : 'not a file'})`;
  if (info.size > maxBytes) return `it is ${formatBinaryMegabytes(info.size)}, more than the ${formatBinaryMegabytes(maxBytes)} allowed`;
  return null;
}

/**
 * The bytes of the regular file at `path`, at most `maxBytes`. Checked before reading (what the
 * path is, and its size), and again on the open file (the name may have been swapped in
 * between: opened without blocking, so a pipe put there cannot hold it); a file that grows
 * while it is read is cut off at the cap and refused.
 */
export async function readFileWithin(path: string, maxBytes: number): Promise<BoundedRead> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
  const before = refusal(info, maxBytes);
  if (before) return { ok: false, message: before };
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  }
  try {
    const opened = refusal(await handle.stat(), maxBytes);
    if (opened) return { ok: false, message: opened };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(READ_CHUNK);
      const { bytesRead } = await handle.read(chunk, 0, READ_CHUNK, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return { ok: false, message: `it grew past the ${formatBinaryMegabytes(maxBytes)} allowed while it was read` };
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return { ok: true, bytes: Buffer.concat(chunks, total) };
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * A stream's bytes, at most `maxBytes`: refused the moment it passes them. It is then left
 * flowing with nobody listening (what follows is discarded): an HTTP request that way still gets
 * its answer; a caller that wants no more (stdin) destroys it.
 */
export function readStreamWithin(stream: Readable, maxBytes: number): Promise<BoundedRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BoundedRead) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) {
        finish({ ok: false, message: `it is larger than the ${formatBinaryMegabytes(maxBytes)} allowed` });
        stream.resume();
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => finish({ ok: true, bytes: Buffer.concat(chunks) });
    const onError = (error: Error) => finish({ ok: false, message: errorMessage(error) });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}
