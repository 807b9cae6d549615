/**
 * The events of the last few sessions read, kept while their events.jsonl stays as it was (the
 * same size and modification time): the window opens a session, goes back to History and opens
 * it again, and a 2,000-step session's 22,000 events are read and checked once, not each time.
 * A session still being recorded grows, so its file is read again whenever it changed.
 *
 * The list kept is frozen: every reader gets the same one, so none may change it, and the HTTP
 * front end knows from that it may keep its encoding too (http-io.ts).
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentEvent } from '../../shared/events';
import { EVENTS_FILE } from './paths';
import type { EventsRead } from './session-reader';

interface Kept {
  size: number;
  modified: number;
  events: readonly AgentEvent[];
}

/** How many sessions' events are kept: the one open and the one before. */
const KEPT_SESSIONS = 2;

export class RecentEvents {
  /** By session folder, the most recently used last. */
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly capacity = KEPT_SESSIONS) {}

  /** The events of the session folder `directory`: kept ones while its file is unchanged, else `read`. */
  async read(directory: string, read: () => Promise<EventsRead>): Promise<EventsRead> {
    // Taken before reading: a file that grows meanwhile is newer than its key and read again next time.
    const before = await stat(join(directory, EVENTS_FILE)).catch(() => null);
    const kept = this.kept.get(directory);
    if (kept && before && kept.size === before.size && kept.modified === before.mtimeMs) {
      this.kept.delete(directory);
      this.kept.set(directory, kept);
      return { ok: true, events: kept.events as AgentEvent[] };
    }
    const fresh = await read();
    if (!fresh.ok || !before) {
      this.kept.delete(directory);
      return fresh;
    }
    const events = Object.freeze(fresh.events);
    this.kept.delete(directory);
    this.kept.set(directory, { size: before.size, modified: before.mtimeMs, events });
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= this.capacity) break;
      this.kept.delete(oldest);
    }
    return { ok: true, events: events as AgentEvent[] };
  }
}
