/**
 * The data directory as a command that reads or writes it finds it: made owner-only when it is
 * open to other accounts, with everything in it, and said in one line on stderr, as a run does
 * (src/main/disk/private-dir.ts). A data directory that does not exist yet is left to whoever
 * writes there first; a read finds nothing in it either way.
 */
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { keepDataDirPrivate } from '../disk/private-dir';
import { defaultDataDir } from '../settings/settings';

export async function keptPrivate(dataDir: string): Promise<string> {
  const exists = await access(dataDir).then(
    () => true,
    () => false,
  );
  const line = exists ? await keepDataDirPrivate(dataDir).catch(() => null) : null;
  if (line) process.stderr.write(`mnemo: ${line}\n`);
  return dataDir;
}

/** The data directory `--data-dir` names (or the default), kept private. */
export function openDataDir(flag: string | undefined): Promise<string> {
  return keptPrivate(resolve(flag ?? defaultDataDir()));
}
