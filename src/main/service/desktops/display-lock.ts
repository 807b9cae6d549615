/**
 * One run at a time per display, across processes: the CLI, `mnemo serve` and the app share the
 * data directory, and two agents moving one mouse would wreck each other's work. A lock is a small
 * file created exclusively (`<data-dir>/locks/display-<name>.json`) naming the process and the
 * session; a lock whose process is gone (a crash, kill -9) is taken over.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDir, openPrivate, writeJsonAtomically } from '../../disk/files';
import { currentWriter, isWriterIdentity, writerLiveness, type WriterIdentity } from '../../store/writer-identity';

interface LockContent {
  display: string;
  writer: WriterIdentity;
  /** The session running on the display, once it has an id. */
  sessionId: string | null;
  since: number;
}

export type LockResult = { ok: true; lock: DisplayLock } | { ok: false; message: string; sessionId: string | null };

/** The display a run works on, as a user names it: `:99`, `:99 display 1`, or `primary`. */
export function displayName(env: NodeJS.ProcessEnv, index: number | undefined): string {
  const base = env.DISPLAY?.trim() || 'the desktop';
  return index === undefined ? base : `${base} display ${index}`;
}

function lockPath(dataDir: string, name: string): string {
  return join(dataDir, 'locks', `display-${name.replace(/[^\w.-]+/g, '_')}.json`);
}

async function readLock(path: string): Promise<LockContent | null> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as Partial<LockContent>;
    return isWriterIdentity(value.writer) && typeof value.display === 'string' ? (value as LockContent) : null;
  } catch {
    return null;
  }
}

export class DisplayLock {
  private released = false;

  private constructor(
    private readonly path: string,
    private content: LockContent,
  ) {}

  static async acquire(dataDir: string, display: string, liveness: (writer: WriterIdentity) => string = (writer) => writerLiveness(writer)): Promise<LockResult> {
    const path = lockPath(dataDir, display);
    await makePrivateDir(join(dataDir, 'locks'));
    const content: LockContent = { display, writer: currentWriter(), sessionId: null, since: Date.now() };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const file = await openPrivate(path, 'wx');
        await file.writeFile(`${JSON.stringify(content)}\n`);
        await file.close();
        return { ok: true, lock: new DisplayLock(path, content) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = await readLock(path);
      // Unreadable (being written this instant) or held by a process that is gone: take it over.
      if (holder && liveness(holder.writer) !== 'dead') {
        const who = holder.writer.pid === process.pid ? 'this process' : `process ${holder.writer.pid} on ${holder.writer.hostname}`;
        const what = holder.sessionId ? `session ${holder.sessionId} is running on it` : 'a run is starting on it';
        return { ok: false, message: `busy: ${display} is in use: ${what} (${who}); stop it first, or wait until it ends`, sessionId: holder.sessionId };
      }
      if (holder || attempt > 0) await rm(path, { force: true });
    }
    return { ok: false, message: `busy: cannot take the lock for ${display} (${path})`, sessionId: null };
  }

  /** Names the session in the lock, so a second start can say which run holds the display. */
  async name(sessionId: string): Promise<void> {
    this.content = { ...this.content, sessionId };
    if (!this.released) await writeJsonAtomically(this.path, this.content).catch(() => undefined);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await rm(this.path, { force: true });
  }
}
