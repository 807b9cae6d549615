/**
 * Cross-process exclusion for memory files in one data directory, and atomic file replacement.
 *
 * The lock is a file created with O_EXCL holding the owner's pid and a token. A lock whose owner
 * is gone (a crash, kill -9) is taken over: it is first renamed away (an atomic step only one
 * waiter can win), so two waiters never both break it. Waiting polls with a short random pause.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { openPrivate } from '../disk/files';
import { processExists } from '../disk/process-exists';

export interface LockOptions {
  /** Give up after this long (a live owner that never lets go). Default 30 s. */
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `work` holding the lock file at `path`; the lock is released however `work` ends. */
export async function withFileLock<T>(path: string, work: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const token = randomBytes(6).toString('hex');
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let wait = 1;
  for (;;) {
    try {
      const handle = await openPrivate(path, 'wx');
      try {
        await handle.writeFile(`${process.pid} ${token}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    await breakIfStale(path);
    if (Date.now() > deadline) throw new Error(`the memory lock ${path} is held by another process and was not released in time`);
    await sleep(wait + Math.random() * wait);
    wait = Math.min(wait * 2, 20);
  }
  try {
    return await work();
  } finally {
    await unlink(path).catch(() => undefined);
  }
}

async function breakIfStale(path: string): Promise<void> {
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch {
    return;
  }
  const pid = Number(content.split(' ')[0]);
  if (Number.isInteger(pid) && pid > 0) {
    if (processExists(pid)) return;
  } else {
    // No pid yet: its owner is between creating and writing it, or died there; give it 10 s.
    const age = await stat(path).then((info) => Date.now() - info.mtimeMs, () => 0);
    if (age < 10_000) return;
  }
  const aside = join(dirname(path), `.${basename(path)}.stale-${randomBytes(4).toString('hex')}`);
  try {
    await rename(path, aside);
  } catch {
    return;
  }
  await rm(aside, { force: true });
}
