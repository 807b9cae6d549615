/**
 * How a session ended, kept where a full disk cannot stop it from being written.
 *
 * session.json is rewritten through a temporary file and a rename, which needs free space, and
 * the run-finished event is appended to events.jsonl, which needs space too. On a disk that filled
 * up during the run neither fits, and the session would read back as `interrupted`, as if the
 * process had been killed. So the recorder reserves `ending.json` when the session starts:
 * ENDING_BYTES of spaces, written and synced then, so its blocks are allocated. The ending goes
 * into that file in place: the same offset, the same length, padded with spaces (JSON ignores
 * them), so the write needs no new block on ext4, xfs or tmpfs. It is written at the first failed
 * write (the run is about to stop) and again when the run ends, before its run-finished event.
 *
 * Where even that fails (a copy-on-write disk that needs new blocks for an overwrite, an I/O
 * error), the recorder creates `write-failed`, an empty file: a name, no data. The reader then
 * says the run ended on a write failure instead of guessing a crash.
 */
import { readFile, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { RunStatusSchema, UsageSummarySchema, type RunStatus, type UsageSummary } from '../../shared/events';
import { openPrivate, writeEmptyPrivate } from '../disk/files';
import type { SessionMeta } from './session-meta';

export const ENDING_FILE = 'ending.json';
export const WRITE_FAILED_FILE = 'write-failed';
/** One block on most disks; a reason longer than fits is shortened. */
export const ENDING_BYTES = 4096;

export interface SessionEnding {
  status: RunStatus;
  reason: string;
  endedAt: number;
  /** Finished steps, as the run-finished event counts them. */
  steps: number;
  usage: UsageSummary;
}

/** What the reserved space and the marker say about a session's end. */
export type RecordedEnding = { kind: 'ending'; ending: SessionEnding } | { kind: 'write-failed' };

/** Creates the reserved file and allocates its blocks; the handle stays open for the in-place writes. */
export async function reserveEnding(directory: string): Promise<FileHandle> {
  const handle = await openPrivate(join(directory, ENDING_FILE), 'w');
  try {
    await handle.writeFile(Buffer.alloc(ENDING_BYTES, ' '));
    await handle.datasync();
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** The ending as exactly ENDING_BYTES bytes: JSON, then spaces; the reason shortened to fit. */
export function encodeEnding(ending: SessionEnding): Buffer {
  let reason = ending.reason;
  for (;;) {
    const text = `${JSON.stringify({ version: 1, ...ending, reason })}\n`;
    const bytes = Buffer.byteLength(text);
    if (bytes <= ENDING_BYTES) return Buffer.concat([Buffer.from(text), Buffer.alloc(ENDING_BYTES - bytes, ' ')]);
    // Characters may take several bytes (and JSON escapes): cut by the excess, then check again.
    reason = `${reason.slice(0, Math.max(0, reason.length - (bytes - ENDING_BYTES) - 2))}…`;
  }
}

/** Overwrites the reserved space in place (never grows the file), then syncs it. */
export async function writeEnding(handle: FileHandle, ending: SessionEnding): Promise<void> {
  const data = encodeEnding(ending);
  await handle.write(data, 0, data.length, 0);
  await handle.datasync();
}

/** The marker of a write failure: an empty file, which needs no free block. */
export async function markWriteFailed(directory: string): Promise<void> {
  await writeEmptyPrivate(join(directory, WRITE_FAILED_FILE));
}

function parseEnding(text: string): SessionEnding | null {
  if (text.trim() === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const fields = value as Partial<Record<keyof SessionEnding, unknown>> | null;
  if (typeof fields !== 'object' || fields === null) return null;
  const status = RunStatusSchema.safeParse(fields.status);
  const usage = UsageSummarySchema.safeParse(fields.usage);
  const { reason, endedAt, steps } = fields;
  if (!status.success || !usage.success || typeof reason !== 'string' || typeof endedAt !== 'number' || !Number.isInteger(steps) || (steps as number) < 0) return null;
  return { status: status.data, reason, endedAt, steps: steps as number, usage: usage.data };
}

/** The ending in the reserved space, else the write-failure marker, else null. Never throws. */
export async function readRecordedEnding(directory: string): Promise<RecordedEnding | null> {
  const text = await readFile(join(directory, ENDING_FILE), 'utf8').catch(() => '');
  const ending = parseEnding(text);
  if (ending) return { kind: 'ending', ending };
  const marked = await stat(join(directory, WRITE_FAILED_FILE)).then(
    () => true,
    () => false,
  );
  return marked ? { kind: 'write-failed' } : null;
}

/**
 * The metadata with what the reserved space says, for a session.json still at `running` (its
 * last rewrite before the disk filled up) or rebuilt as `interrupted` (no run-finished event).
 * A session.json that already holds the ending wins.
 */
export function withRecordedEnding(meta: SessionMeta, recorded: RecordedEnding | null, lastEventAt: number | null = null): SessionMeta {
  if (recorded === null || (meta.status !== 'running' && meta.status !== 'interrupted')) return meta;
  if (recorded.kind === 'ending') {
    const { status, reason, endedAt, steps, usage } = recorded.ending;
    return { ...meta, status, reason, endedAt, steps, costUsd: usage.costUsd, usage };
  }
  return {
    ...meta,
    status: 'failed',
    endedAt: meta.endedAt ?? lastEventAt,
    reason: `the run ended on a write failure: the session could not be recorded any further, so it stopped (${meta.steps} step${meta.steps === 1 ? '' : 's'} recorded); the reason itself could not be written`,
  };
}
