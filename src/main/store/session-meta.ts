/** What `session.json` holds about a session, and how session ids are made. */
import { randomBytes } from 'node:crypto';
import type { RunDesktop } from '../../shared/desktop';
import type { RunStatus, UsageSummary } from '../../shared/events';
import type { WriterIdentity } from './writer-identity';

/**
 * `running` while a process records it; `interrupted` when that process ended without finishing
 * the run (crash, kill -9, power cut), found by whoever looked next.
 */
export type SessionStatus = RunStatus | 'running' | 'interrupted';

export interface SessionMeta {
  id: string;
  task: string;
  status: SessionStatus;
  startedAt: number;
  endedAt: number | null;
  model: string;
  family: string;
  /** Finished steps. */
  steps: number;
  /** Cost of the run so far (USD). */
  costUsd: number;
  reason: string | null;
  /** The session this one replays, if any. */
  replayOf?: string;
  /** The sample session Mnemo ships (sample-session.ts). */
  sample?: boolean;
  /** Tokens and cost so far. */
  usage?: UsageSummary;
  /** The process recording it, to tell a live run from an interrupted one. */
  writer?: WriterIdentity;
  /** Bytes the session holds on disk, written when it ends (for retention by size). */
  bytes?: number;
  /** The desktop it ran on (a private one's size and apps, so a replay can start the same again). */
  desktop?: RunDesktop;
  /** The batch this run is a row of (`mnemo batch`): its id and the row's number, from 1. */
  batch?: SessionBatchTag;
}

/** A session's place in a batch. */
export interface SessionBatchTag {
  id: string;
  row: number;
}

/** Sortable, unique, readable: `20261129-124501-3fa9c2`. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

