/**
 * What a private desktop started, kept on disk while it runs (`<data-dir>/desktops/display-N.json`)
 * so that a Mnemo killed hard (SIGKILL, a crash) leaves nothing behind for long: the next Mnemo to
 * start reads the records, and stops the desktops whose owner process is gone (its X server, window
 * manager, apps and their stragglers) unless the desktop was kept on purpose (`--keep-desktop`).
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDir, writeJsonAtomically } from '../../disk/files';
import { currentWriter, isWriterIdentity, writerLiveness, type WriterIdentity } from '../../disk/process-identity';
import { killStragglers, stillRunning, stopGroup, type StartedProcess } from './processes';

export interface DesktopRecord {
  display: string;
  number: number;
  /** The Mnemo process that started it; the desktop goes when this one is gone (unless kept). */
  owner: WriterIdentity;
  /** Left running on purpose (`--keep-desktop`): only cleaned up once its X server is gone. */
  kept: boolean;
  size: string;
  apps: string[];
  /** The Xauthority file the desktop's X server checks; every process of the desktop has it in its environment. */
  xauthority: string;
  processes: StartedProcess[];
  startedAt: number;
  /** The desktop's XDG_RUNTIME_DIR (its buses' sockets), made outside the data directory so socket paths stay short. */
  runtimeDir?: string;
}

export function desktopsDir(dataDir: string): string {
  return join(dataDir, 'desktops');
}

export function recordPath(dir: string, number: number): string {
  return join(dir, `display-${number}.json`);
}

/** The output of one program of a desktop (`server` for Xvfb and the window manager, `app-N` for the apps). */
export function logPath(dir: string, number: number, name: string): string {
  return join(dir, `display-${number}.${name}.log`);
}

/**
 * Claims a display number for this process among those sharing the data directory: a file made
 * only if it is not there (`display-N.claim`, naming its owner), removed with the desktop's other
 * files. A claim whose owner is gone (a crash between the claim and the record) is taken over.
 */
export async function claimDisplay(dir: string, number: number, owner: WriterIdentity = currentWriter()): Promise<boolean> {
  const path = join(dir, `display-${number}.claim`);
  await makePrivateDir(dir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, JSON.stringify(owner), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder: unknown = await readFile(path, 'utf8').then((text) => JSON.parse(text) as unknown).catch(() => undefined);
    // Unreadable: being written this instant by its owner, who is alive.
    if (holder === undefined || (isWriterIdentity(holder) && writerLiveness(holder) !== 'dead')) return false;
    await rm(path, { force: true });
  }
  return false;
}

/** Every file of a display's desktop: its record, its cookie, its logs. */
export async function removeDesktopFiles(dir: string, number: number): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const prefix = `display-${number}.`;
  await Promise.all(names.filter((name) => name.startsWith(prefix)).map((name) => rm(join(dir, name), { force: true })));
}

export async function writeRecord(dir: string, record: DesktopRecord): Promise<void> {
  await makePrivateDir(dir);
  await writeJsonAtomically(recordPath(dir, record.number), record);
}

function isRecord(value: unknown): value is DesktopRecord {
  const record = value as Partial<DesktopRecord> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    typeof record.number === 'number' &&
    typeof record.display === 'string' &&
    typeof record.xauthority === 'string' &&
    Array.isArray(record.processes) &&
    isWriterIdentity(record.owner)
  );
}

async function readRecords(dir: string): Promise<Array<{ path: string; record: DesktopRecord | null }>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const found: Array<{ path: string; record: DesktopRecord | null }> = [];
  for (const name of names.filter((entry) => /^display-\d+\.json$/.test(entry))) {
    const path = join(dir, name);
    try {
      const value: unknown = JSON.parse(await readFile(path, 'utf8'));
      found.push({ path, record: isRecord(value) ? value : null });
    } catch {
      // Half written (the owner was killed mid-write: the atomic write leaves the old or no file) or damaged.
      found.push({ path, record: null });
    }
  }
  return found;
}

const STOP_GRACE_MS = 2000;

/** Stops everything a record names (apps first, the X server last), then the stragglers, and removes its files. */
export async function stopRecorded(dir: string, record: DesktopRecord): Promise<void> {
  const order: Array<StartedProcess['role']> = ['app', 'window-manager', 'bus', 'xvfb'];
  for (const role of order) {
    await Promise.all(record.processes.filter((started) => started.role === role).map((started) => stopGroup(started, STOP_GRACE_MS)));
  }
  await killStragglers(`XAUTHORITY=${record.xauthority}`);
  await removeServerFiles(record);
  await rm(record.xauthority, { force: true });
  if (record.runtimeDir) await rm(record.runtimeDir, { recursive: true, force: true });
  await removeDesktopFiles(dir, record.number);
}

/** The lock and socket of a server that was killed before it could remove them (ours alone: the lock names its pid). */
async function removeServerFiles(record: DesktopRecord): Promise<void> {
  const xvfb = record.processes.find((started) => started.role === 'xvfb');
  const lock = `/tmp/.X${record.number}-lock`;
  const holder = Number((await readFile(lock, 'latin1').catch(() => '')).trim());
  if (!xvfb || holder !== xvfb.pid || stillRunning(xvfb)) return;
  await rm(`/tmp/.X11-unix/X${record.number}`, { force: true });
  await rm(lock, { force: true });
}

/**
 * Stops the desktops left by processes that are gone; says what it did, one line each. A kept
 * desktop stays while its X server runs.
 */
export async function reapLeftovers(dir: string): Promise<string[]> {
  const said: string[] = [];
  for (const { path, record } of await readRecords(dir)) {
    if (!record) {
      await rm(path, { force: true });
      continue;
    }
    const xvfb = record.processes.find((started) => started.role === 'xvfb');
    const serverRuns = xvfb !== undefined && stillRunning(xvfb);
    if (record.kept && serverRuns) continue;
    if (!record.kept && writerLiveness(record.owner) !== 'dead') continue;
    await stopRecorded(dir, record);
    if (serverRuns) said.push(`stopped the private desktop ${record.display} left running by process ${record.owner.pid}, which is gone`);
  }
  return said;
}
