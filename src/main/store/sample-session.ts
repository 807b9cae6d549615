/**
 * The sample session Mnemo ships (samples/first-session/, recorded by the project's own tests):
 * put into a data directory that has no sessions yet, so a newcomer can open the inspector, scrub
 * and export a report before configuring any provider. Marked `sample` in its session.json; it
 * is deleted like any session, and not offered again once the data directory has sessions.
 */
import { cp, readFile, stat } from 'node:fs/promises';
import { makePrivateDir } from '../disk/files';
import { tightenBelow } from '../disk/private-dir';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root';
import { writeJsonAtomically } from './files';
import { SESSION_FILE, sessionsRoot } from './paths';
import type { SessionMeta } from './session-meta';

export const SAMPLE_DIR = join(PACKAGE_ROOT, 'samples', 'first-session');

/** The sample's session id (the folder it is installed under), or null when the package has none. */
export async function sampleSessionId(sampleDir = SAMPLE_DIR): Promise<string | null> {
  try {
    const meta = JSON.parse(await readFile(join(sampleDir, SESSION_FILE), 'utf8')) as { id?: unknown };
    return typeof meta.id === 'string' ? meta.id : null;
  } catch {
    return null;
  }
}

/**
 * Installs the sample into a data directory that has no sessions folder yet; true when it did.
 * Never throws: without a sample or a writable directory there is simply none.
 */
export async function offerSampleSession(dataDir: string, sampleDir = SAMPLE_DIR): Promise<boolean> {
  const root = sessionsRoot(dataDir);
  if (await stat(root).then(() => true, () => false)) return false;
  const id = await sampleSessionId(sampleDir);
  if (id === null) return false;
  try {
    await makePrivateDir(root, { recursive: true });
    const target = join(root, id);
    await cp(sampleDir, target, { recursive: true });
    // The copies come with the package's modes: owner-only, as everything in the data directory.
    await tightenBelow(root);
    const meta = JSON.parse(await readFile(join(target, SESSION_FILE), 'utf8')) as SessionMeta;
    // Not a process of this machine: never taken for a live or interrupted run.
    const { writer: _writer, ...rest } = meta;
    await writeJsonAtomically(join(target, SESSION_FILE), { ...rest, sample: true });
    return true;
  } catch {
    return false;
  }
}
