/**
 * A real small disk for the tests of writes that do not fit: a tmpfs of a few KB, mounted in a
 * temporary folder (root only, as the tests run in CI) and unmounted by `release`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const canMount = process.getuid?.() === 0;

export interface SmallDisk {
  path: string;
  /** Writes `name` until the disk is full (what fitted stays). */
  fill(name?: string): void;
  release(): void;
}

export function mountSmallDisk(size: string): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), 'mnemo-small-disk-'));
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path], { encoding: 'utf8' });
  if (mount.status !== 0) throw new Error(`mount -t tmpfs failed (needs root): ${mount.stderr}`);
  return {
    path,
    fill(name = 'filler') {
      try {
        writeFileSync(join(path, name), Buffer.alloc(4 * 1024 * 1024, 1));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    },
    release() {
      spawnSync('umount', [path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}
