/**
 * Who is writing a session (or holds a lock, or started a private desktop), and whether that
 * process still lives. A session left `running` by a process that is gone (a crash, kill -9, a
 * power cut) is marked `interrupted` by whoever looks next; a private desktop whose owner is gone
 * is stopped. The pid alone is not enough (pids are reused), so on Linux the process start time and the
 * boot id go with it; another host's sessions are never judged (their pids mean nothing here).
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { processExists } from './process-exists';

export interface WriterIdentity {
  pid: number;
  hostname: string;
  /** Linux: /proc/sys/kernel/random/boot_id; a different one means the machine rebooted since. */
  bootId?: string;
  /** Linux: the process start time in clock ticks since boot (/proc/<pid>/stat, field 22). */
  startTicks?: number;
}

export interface HostIdentity {
  hostname: string;
  bootId: string | null;
}

/** `alive`: still writing; `dead`: gone, the session is interrupted; `unknown`: another host. */
export type Liveness = 'alive' | 'dead' | 'unknown';

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses. */
export function processStartTicks(pid: number): number | null {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === null) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the name start at field 3 (state), so field 22 is index 19.
  const ticks = Number(fields[19]);
  return Number.isFinite(ticks) ? ticks : null;
}

export function currentHost(): HostIdentity {
  return { hostname: hostname(), bootId: readText('/proc/sys/kernel/random/boot_id')?.trim() || null };
}

export function currentWriter(pid: number = process.pid): WriterIdentity {
  const host = currentHost();
  const ticks = processStartTicks(pid);
  return { pid, hostname: host.hostname, ...(host.bootId ? { bootId: host.bootId } : {}), ...(ticks !== null ? { startTicks: ticks } : {}) };
}

export function isWriterIdentity(value: unknown): value is WriterIdentity {
  if (typeof value !== 'object' || value === null) return false;
  const w = value as Record<string, unknown>;
  return Number.isInteger(w.pid) && (w.pid as number) > 0 && typeof w.hostname === 'string';
}

/** Whether the process that wrote a session still runs. No writer on record: dead (an old session). */
export function writerLiveness(writer: WriterIdentity | undefined, host: HostIdentity = currentHost()): Liveness {
  if (!writer) return 'dead';
  if (writer.hostname !== host.hostname) return 'unknown';
  if (writer.bootId && host.bootId && writer.bootId !== host.bootId) return 'dead';
  if (!processExists(writer.pid)) return 'dead';
  if (writer.startTicks !== undefined) {
    const ticks = processStartTicks(writer.pid);
    // Same pid, another start time: the pid was reused by a new process.
    if (ticks !== null && ticks !== writer.startTicks) return 'dead';
  }
  return 'alive';
}
