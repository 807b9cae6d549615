/** Free space on the disk that holds a folder, for the warning before a run. */
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Bytes an unprivileged writer may still use on the disk holding `path` (the nearest folder that
 * exists, when `path` does not yet); null when the system cannot tell.
 */
export async function freeBytes(path: string): Promise<number | null> {
  let current = path;
  for (;;) {
    try {
      const info = await statfs(current);
      return info.bavail * info.bsize;
    } catch (error) {
      const parent = dirname(current);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === current) return null;
      current = parent;
    }
  }
}

/** `0.6 MB`, `152 MB`: the way the warning shows free space (a MB is 10^6 bytes). */
export function formatMegabytes(bytes: number): string {
  const mb = bytes / 1e6;
  return `${mb < 10 ? mb.toFixed(1) : Math.round(mb)} MB`;
}
