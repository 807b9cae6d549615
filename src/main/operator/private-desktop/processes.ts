/**
 * The processes of a private desktop: each started in a process group of its own (so an app's
 * helpers go with it), stopped group by group, TERM first and KILL after a grace period, and found
 * again through their environment (every one carries the desktop's own XAUTHORITY path) when one
 * left its group.
 */
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { processStartTicks } from '../../disk/process-identity';

/** One process a desktop started, as its record keeps it. */
export interface StartedProcess {
  /** `bus`: the desktop's D-Bus session bus and its accessibility bus launcher. */
  role: 'xvfb' | 'window-manager' | 'bus' | 'app';
  pid: number;
  /** Linux start time: a pid reused by another process is never signalled. */
  startTicks?: number;
  /** What was run (an app's command line), for messages. */
  command: string;
}

export function describeProcess(pid: number, role: StartedProcess['role'], command: string): StartedProcess {
  const ticks = processStartTicks(pid);
  return { role, pid, command, ...(ticks !== null ? { startTicks: ticks } : {}) };
}

/** Whether this is still the process that was started (not a reused pid). */
export function stillRunning(process_: StartedProcess): boolean {
  const ticks = processStartTicks(process_.pid);
  if (ticks === null) return false;
  return process_.startTicks === undefined || ticks === process_.startTicks;
}

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Whether any process of the group is left (signal 0 to the group). */
function groupAlive(pid: number): boolean {
  return signalGroup(pid, 0);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await sleep(25);
  }
  return true;
}

/**
 * Stops a process started as the leader of its own group, with everything in the group: TERM,
 * then KILL after `graceMs`. A leader whose pid now belongs to another process is left alone.
 */
export async function stopGroup(started: StartedProcess, graceMs: number): Promise<void> {
  // The pid now names another process: so may the group. (A leader that is simply gone may have
  // left its group running, a shell that put an app in the background: the group is still ours,
  // since a group id is not reused while the group exists.)
  if (processStartTicks(started.pid) !== null && !stillRunning(started)) return;
  if (!groupAlive(started.pid)) return;
  signalGroup(started.pid, 'SIGTERM');
  if (await waitUntil(() => !groupAlive(started.pid), graceMs)) return;
  signalGroup(started.pid, 'SIGKILL');
  await waitUntil(() => !groupAlive(started.pid), 2000);
}

/** Processes of this user whose environment holds `entry` exactly (e.g. `XAUTHORITY=/…/display-201.xauth`). */
export function processesWithEnvironment(entry: string): number[] {
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) found.push(Number(name));
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return found;
}

/** KILLs every process left with that environment entry (the desktop's stragglers), and waits until they are gone. */
export async function killStragglers(entry: string): Promise<number> {
  const pids = processesWithEnvironment(entry);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await waitUntil(() => processesWithEnvironment(entry).length === 0, 2000);
  return pids.length;
}

/** The full path of a program found on PATH, or undefined. */
export function findOnPath(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (program.includes('/')) return program;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
