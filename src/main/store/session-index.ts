/**
 * The session index, `sessions/index.jsonl`: one line per change (a session started, finished,
 * was marked interrupted, was deleted), the last line about an id wins. Appending is cheap and
 * safe from several processes; listing reads one file instead of a thousand.
 *
 * The index is a cache: each session's own `session.json` is the truth. A missing or corrupt index
 * is rebuilt from those files, a folder the index does not know is added, and an entry still
 * `running` is checked against its session.json (see SessionStore).
 */
import { readFile } from 'node:fs/promises';
import { appendPrivate } from '../disk/files';
import { join } from 'node:path';
import { RunDesktopSchema, type RunDesktop } from '../../shared/desktop';
import { writeTextAtomically } from './files';
import { sessionsRoot } from './paths';
import type { SessionBatchTag, SessionMeta, SessionStatus } from './session-meta';

export const INDEX_FILE = 'index.jsonl';
const INDEX_VERSION = 1;

/** What listing and search need of a session. */
export interface SessionSummary {
  id: string;
  task: string;
  status: SessionStatus;
  startedAt: number;
  endedAt: number | null;
  /** Finished steps. */
  steps: number;
  costUsd: number;
  model: string;
  family: string;
  /** Bytes on disk, when known (written at the end of a run or when it was marked interrupted). */
  bytes: number | null;
  replayOf?: string;
  sample?: boolean;
  /** The desktop it ran on, as session.json records it (absent in sessions recorded before it was). */
  desktop?: RunDesktop;
  /** The batch it is a row of (`mnemo batch`). */
  batch?: SessionBatchTag;
  /** The shared store it is read from; absent: the data directory's own (never written to the index). */
  store?: string;
  /** Here, waiting for its upload to the shared store (pending-uploads/; never written to the index). */
  waitingForUpload?: boolean;
}

type IndexLine = ({ v: number } & Omit<SessionSummary, 'desktop'> & { desktop: RunDesktop | null }) | { v: number; id: string; deleted: true };

export function indexPath(dataDir: string): string {
  return join(sessionsRoot(dataDir), INDEX_FILE);
}

export function summaryOf(meta: SessionMeta): SessionSummary {
  return {
    id: meta.id,
    task: meta.task,
    status: meta.status,
    startedAt: meta.startedAt,
    endedAt: meta.endedAt,
    steps: meta.steps,
    costUsd: meta.costUsd,
    model: meta.model,
    family: meta.family,
    bytes: meta.bytes ?? null,
    ...(meta.replayOf ? { replayOf: meta.replayOf } : {}),
    ...(meta.sample ? { sample: true } : {}),
    ...(meta.desktop ? { desktop: meta.desktop } : {}),
    ...(meta.batch ? { batch: meta.batch } : {}),
  };
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function parseSummary(value: Record<string, unknown>): SessionSummary | null {
  const { id, task, status, startedAt, endedAt, steps, costUsd, model, family, bytes, replayOf, sample, desktop, batch } = value;
  if (typeof id !== 'string' || typeof task !== 'string' || typeof status !== 'string' || !isNumber(startedAt)) return null;
  if (!isNumber(steps) || !isNumber(costUsd) || (endedAt !== null && !isNumber(endedAt))) return null;
  return {
    id,
    task,
    status: status as SessionStatus,
    startedAt,
    endedAt: endedAt as number | null,
    steps,
    costUsd,
    model: typeof model === 'string' ? model : '',
    family: typeof family === 'string' ? family : '',
    bytes: isNumber(bytes) ? bytes : null,
    ...(typeof replayOf === 'string' ? { replayOf } : {}),
    ...(sample === true ? { sample: true } : {}),
    ...(desktop !== undefined && RunDesktopSchema.safeParse(desktop).success ? { desktop: desktop as RunDesktop } : {}),
    ...(isBatchTag(batch) ? { batch: { id: batch.id, row: batch.row } } : {}),
  };
}

function isBatchTag(value: unknown): value is SessionBatchTag {
  return typeof value === 'object' && value !== null && typeof (value as SessionBatchTag).id === 'string' && Number.isInteger((value as SessionBatchTag).row);
}

export type IndexRead =
  | { state: 'missing' }
  | { state: 'unreadable'; message: string }
  | {
      state: 'read';
      entries: Map<string, SessionSummary>;
      /** Lines in the file, good or bad: how much a rewrite would save. */
      lines: number;
      /** Lines that did not parse (a crash mid-append, damage). */
      badLines: number;
      /** Lines written before the index kept the desktop: their sessions are left out, to be read again from their folders. */
      outdatedLines: number;
    };

export async function readIndex(dataDir: string): Promise<IndexRead> {
  let text: string;
  try {
    text = await readFile(indexPath(dataDir), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { state: 'missing' } : { state: 'unreadable', message: (error as Error).message };
  }
  const entries = new Map<string, SessionSummary>();
  let lines = 0;
  let badLines = 0;
  let outdatedLines = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    lines++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      badLines++;
      continue;
    }
    if (typeof value !== 'object' || value === null || typeof (value as { id?: unknown }).id !== 'string') {
      badLines++;
      continue;
    }
    const record = value as Record<string, unknown>;
    if (record.deleted === true) {
      entries.delete(record.id as string);
      continue;
    }
    if (!('desktop' in record)) {
      // Written before the index kept the desktop (every line names it now, null for none): the session's own session.json says it.
      entries.delete(record.id as string);
      outdatedLines++;
      continue;
    }
    const summary = parseSummary(record);
    if (!summary) {
      badLines++;
      continue;
    }
    entries.set(summary.id, summary);
  }
  return { state: 'read', entries, lines, badLines, outdatedLines };
}

function lineOf(entry: SessionSummary | { id: string; deleted: true }): string {
  // `desktop: null` says the session recorded none, where a line without the field is an older writer's.
  const line: IndexLine = 'deleted' in entry ? { v: INDEX_VERSION, ...entry } : { v: INDEX_VERSION, ...entry, desktop: entry.desktop ?? null };
  return `${JSON.stringify(line)}\n`;
}

/** Appends entries (one write, so concurrent appenders do not interleave within a line). */
export async function appendToIndex(dataDir: string, entries: ReadonlyArray<SessionSummary | { id: string; deleted: true }>): Promise<void> {
  if (entries.length === 0) return;
  await appendPrivate(indexPath(dataDir), entries.map(lineOf).join(''));
}

/** Replaces the index with exactly these entries (a rebuild or a rewrite). */
export async function rewriteIndex(dataDir: string, entries: Iterable<SessionSummary>): Promise<void> {
  await writeTextAtomically(indexPath(dataDir), [...entries].map(lineOf).join(''));
}
