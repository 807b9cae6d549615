/**
 * Records a run as it happens: `session.json` (metadata, rewritten atomically), `events.jsonl`
 * (append-only, fsynced at the end of every step) and `screenshots/` (the model-ready images).
 * A crash loses at most the step in progress.
 */
import { mkdir, open, rename, writeFile, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { AgentEvent, RunStatus, ScreenshotRef } from '../../shared/events';

export interface RunRecorder {
  readonly sessionId: string;
  readonly directory: string;
  saveScreenshot(step: number, image: Buffer, mime: ScreenshotRef['mime'], size: { width: number; height: number }): Promise<ScreenshotRef>;
  /** Appends one event; the write is queued in order. */
  record(event: AgentEvent): Promise<void>;
  /** Makes everything recorded so far durable (end of step). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface SessionMeta {
  id: string;
  task: string;
  status: RunStatus | 'running';
  startedAt: number;
  endedAt: number | null;
  model: string;
  family: string;
  steps: number;
  costUsd: number;
  reason: string | null;
  /** The session this one replays, if any. */
  replayOf?: string;
}

/** Sortable, unique, readable: `20261129-124501-3fa9c2`. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export function sessionsRoot(dataDir: string): string {
  return join(dataDir, 'sessions');
}

async function writeJsonAtomically(path: string, value: unknown): Promise<void> {
  const partial = `${path}.partial`;
  await writeFile(partial, `${JSON.stringify(value, null, 2)}\n`);
  await rename(partial, path);
}

export class FileRunRecorder implements RunRecorder {
  private writes: Promise<void> = Promise.resolve();
  private meta: SessionMeta;

  private constructor(
    readonly sessionId: string,
    readonly directory: string,
    private readonly events: FileHandle,
    meta: SessionMeta,
  ) {
    this.meta = meta;
  }

  static async create(dataDir: string, start: { task: string; model: string; family: string; replayOf?: string }, now = Date.now()): Promise<FileRunRecorder> {
    const sessionId = newSessionId(new Date(now));
    const directory = join(sessionsRoot(dataDir), sessionId);
    await mkdir(join(directory, 'screenshots'), { recursive: true });
    const meta: SessionMeta = {
      id: sessionId,
      task: start.task,
      status: 'running',
      startedAt: now,
      endedAt: null,
      model: start.model,
      family: start.family,
      steps: 0,
      costUsd: 0,
      reason: null,
      ...(start.replayOf ? { replayOf: start.replayOf } : {}),
    };
    await writeJsonAtomically(join(directory, 'session.json'), meta);
    const events = await open(join(directory, 'events.jsonl'), 'a');
    return new FileRunRecorder(sessionId, directory, events, meta);
  }

  async saveScreenshot(step: number, image: Buffer, mime: ScreenshotRef['mime'], size: { width: number; height: number }): Promise<ScreenshotRef> {
    const id = `step-${String(step).padStart(4, '0')}`;
    const path = `screenshots/${id}.${mime === 'image/png' ? 'png' : 'jpg'}`;
    await writeFile(join(this.directory, path), image);
    return { id, path, width: size.width, height: size.height, mime };
  }

  record(event: AgentEvent): Promise<void> {
    const line = `${JSON.stringify(event)}\n`;
    this.writes = this.writes.then(async () => {
      await this.events.write(line);
      await this.updateMeta(event);
    });
    return this.writes;
  }

  async flush(): Promise<void> {
    await this.writes;
    await this.events.datasync();
  }

  async close(): Promise<void> {
    await this.flush();
    await this.events.close();
  }

  private async updateMeta(event: AgentEvent): Promise<void> {
    if (event.type === 'step-finished') {
      this.meta = { ...this.meta, steps: event.step, costUsd: event.costUsd };
      await writeJsonAtomically(join(this.directory, 'session.json'), this.meta);
    } else if (event.type === 'run-finished') {
      this.meta = {
        ...this.meta,
        status: event.status,
        endedAt: event.at,
        steps: event.steps,
        costUsd: event.usage.costUsd,
        reason: event.reason,
      };
      await writeJsonAtomically(join(this.directory, 'session.json'), this.meta);
    }
  }
}
