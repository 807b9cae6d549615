/**
 * Records a run as it happens, owner-only (folders 0700, files 0600: disk/files.ts):
 * `session.json` (metadata, written atomically when the run starts and once more when it ends),
 * `events.jsonl` (append-only), `screenshots/` (the model-ready images, optionally the
 * full-resolution capture) and `replies/` (the model's raw replies, masked by the loop).
 * Everything written during a step is fsynced at its end (`flush`), so a crash loses at most the
 * step in progress. The session index gets a line when the run starts and when it ends.
 *
 * What a session has done so far (its steps, its cost) is in its events alone: the totals are the
 * shared fold of them (src/shared/run-totals.ts), which is what the readers compute for a session
 * still running or cut off by a crash, and what session.json holds at the end. Nothing is
 * rewritten per step: a step costs one append.
 *
 * Writes go through two ordered queues in the background: the appends to events.jsonl (and the
 * ending) in one, the screenshots and replies (files of their own) in the other, so a step's
 * screenshot and its observation are written at the same time rather than one after the other.
 * The loop never waits for the disk to observe; before it asks the model and before it acts, it
 * waits for everything recorded so far to be written (`written`), so a crash loses at most the
 * step in progress.
 *
 * Recording never throws into the loop and never rejects: a failed write (a full disk) is kept as
 * `failure`, in words that name the cause and the folder, and the loop checks it before it acts.
 * A failed write leaves no half file behind: a screenshot or reply that did not fit is removed, an
 * append that did not fit is cut back. The session's ending is written into space reserved at the
 * start (session-ending.ts), so a session on a disk that filled up still reads back as `failed`
 * with its reason, not as `interrupted`.
 *
 * Masked once: the events come stamped by the run's lifecycle and the raw replies from its
 * `saveReply`, both masked there (src/main/run/lifecycle.ts), and are written as they come. The
 * task passes the store writer (`storeWriter`: the redaction policy, disk/store-writer.ts);
 * everything else written derives from those.
 */
import type { RunDesktop } from '../../shared/desktop';
import { readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentEvent, AgentEventOf, ScreenshotRef } from '../../shared/events';
import { addToTotals, NO_TOTALS, type RunTotals } from '../../shared/run-totals';
import { appendWhole, makePrivateDir, openPrivate, writeJsonAtomically, writePrivateInPrivateFolder } from '../disk/files';
import { StoreWriter } from '../disk/store-writer';
import { describeWriteFailure } from '../disk/write-failure';
import { EVENTS_FILE, REPLIES_DIR, SCREENSHOTS_DIR, SESSION_FILE, sessionsRoot, stepStem } from './paths';
import { ENDING_FILE, markWriteFailed, reserveEnding, writeEnding, type SessionEnding } from './session-ending';
import { appendToIndex, summaryOf } from './session-index';
import { newSessionId, type SessionBatchTag, type SessionMeta } from './session-meta';
import { currentWriter, type WriterIdentity } from './writer-identity';

export { newSessionId, type SessionMeta, type SessionStatus } from './session-meta';

export { sessionsRoot } from './paths';

export interface RunRecorder {
  readonly sessionId: string;
  readonly directory: string;
  /**
   * Saves the step's model-ready image (and, when given, the full-resolution capture as PNG) in
   * the background; the reference is known at once. `part` names another image of the same step
   * (what the loop captured after one of its actions), saved beside the step's own.
   */
  saveScreenshot(
    step: number,
    image: Buffer,
    mime: ScreenshotRef['mime'],
    size: { width: number; height: number },
    extras?: { fullResolution?: Buffer | undefined; part?: string | undefined },
  ): ScreenshotRef;
  /** A screenshot saved earlier in this run, read back (from memory while its write is queued). */
  readScreenshot(ref: ScreenshotRef): Promise<Buffer>;
  /** Saves the model's raw reply for a step, masked by the lifecycle; optional. Must never reject. */
  saveReply?(step: number, raw: string): Promise<void>;
  /** Appends one event as stamped (masked) by the lifecycle; the write is queued in order. Must never reject (the loop does not wait). */
  record(event: AgentEvent): Promise<void>;
  /** Resolves once everything queued so far is written (not yet synced): the record of the steps before. */
  written(): Promise<void>;
  /** Makes everything recorded so far durable (fsync); the loop starts it at the end of a step and goes on. */
  flush(): Promise<void>;
  /** The first write that failed, in words (the cause and the folder); null while everything was recorded. */
  readonly failure: string | null;
  /** The highest `seq` appended to the events file so far (0 before the first). */
  readonly writtenSeq: number;
  close(): Promise<void>;
}

export interface RecorderStart {
  task: string;
  model: string;
  family: string;
  replayOf?: string;
  /** The desktop it runs on. */
  desktop?: RunDesktop;
  /** The batch it is a row of. */
  batch?: SessionBatchTag;
  /** Who records it; default: this process. */
  writer?: WriterIdentity;
  /** What everything recorded passes (the redaction policy); default: as it is. */
  storeWriter?: StoreWriter;
}

/** How many of the latest screenshots are kept in memory (the model sees the last 3 again: memory/pruning.ts). */
const RECENT_SCREENSHOTS = 4;

interface EventBatch {
  text: string;
  events: AgentEvent[];
  written: Promise<void>;
}

export class FileRunRecorder implements RunRecorder {
  /** The appends to events.jsonl and the ending, in order. */
  private appends: Promise<void> = Promise.resolve();
  /** The screenshots and replies, in order (beside the appends: each is a file of its own). */
  private files: Promise<void> = Promise.resolve();
  /** Events waiting for the queued write that will append them. */
  private batch: EventBatch | null = null;
  private meta: SessionMeta;
  /** Files written since the last flush, open until they are synced. */
  private unsynced: FileHandle[] = [];
  /** The sync under way, and the one that follows it for the flushes asked for meanwhile. */
  private syncing: Promise<void> | null = null;
  private syncNext: Promise<void> | null = null;
  private repliesReady = false;
  private bytes = 0;
  private closed = false;
  private firstFailure: string | null = null;
  private lastWrittenSeq = 0;
  /** Length of events.jsonl: where a failed append is cut back to. */
  private eventsSize = 0;
  /** The run-finished event, once recorded (even when its append failed). */
  private finished: AgentEventOf<'run-finished'> | null = null;
  /** The fold of the events written so far. */
  private totals: RunTotals = NO_TOTALS;
  /** Screenshots queued but not yet on disk, by path. */
  private readonly unwritten = new Map<string, Buffer>();
  /**
   * The last few screenshots saved, by path, oldest first: the model is shown the last ones again
   * every step, and reading them back from disk cost each step a dozen trips to the disk's
   * thread pool, behind the step's fsyncs. A few, so a long run holds no more than a short one.
   */
  private readonly recent = new Map<string, Buffer>();

  private constructor(
    private readonly dataDir: string,
    readonly sessionId: string,
    readonly directory: string,
    private readonly events: FileHandle,
    /** The reserved ending (session-ending.ts), open for in-place writes. */
    private readonly ending: FileHandle,
    meta: SessionMeta,
    private readonly kept: StoreWriter,
  ) {
    this.meta = meta;
  }

  /** Creates the session folder; throws when the data directory cannot be written at all. */
  static async create(dataDir: string, start: RecorderStart, now = Date.now()): Promise<FileRunRecorder> {
    const sessionId = newSessionId(new Date(now));
    const directory = join(sessionsRoot(dataDir), sessionId);
    await makePrivateDir(join(directory, SCREENSHOTS_DIR));
    try {
      return await FileRunRecorder.open(dataDir, sessionId, directory, start, now);
    } catch (error) {
      // No half-made session left behind (on a full disk it would only take more space).
      await rm(directory, { recursive: true, force: true }).catch(() => undefined);
      throw error;
    }
  }

  private static async open(dataDir: string, sessionId: string, directory: string, start: RecorderStart, now: number): Promise<FileRunRecorder> {
    const meta: SessionMeta = {
      id: sessionId,
      task: (start.storeWriter ?? StoreWriter.asIs).text(start.task),
      status: 'running',
      startedAt: now,
      endedAt: null,
      model: start.model,
      family: start.family,
      steps: 0,
      costUsd: 0,
      reason: null,
      ...(start.replayOf ? { replayOf: start.replayOf } : {}),
      ...(start.desktop ? { desktop: start.desktop } : {}),
      ...(start.batch ? { batch: start.batch } : {}),
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      writer: start.writer ?? currentWriter(),
    };
    await writeJsonAtomically(join(directory, SESSION_FILE), meta);
    const events = await openPrivate(join(directory, EVENTS_FILE), 'a');
    const ending = await reserveEnding(directory).catch(async (error: unknown) => {
      await events.close();
      throw error;
    });
    const recorder = new FileRunRecorder(dataDir, sessionId, directory, events, ending, meta, start.storeWriter ?? StoreWriter.asIs);
    await recorder.guard(() => appendToIndex(dataDir, [summaryOf(meta)]), 'the session index');
    return recorder;
  }

  get failure(): string | null {
    return this.firstFailure;
  }

  saveScreenshot(
    step: number,
    image: Buffer,
    mime: ScreenshotRef['mime'],
    size: { width: number; height: number },
    extras?: { fullResolution?: Buffer | undefined; part?: string | undefined },
  ): ScreenshotRef {
    const id = extras?.part ? `${stepStem(step)}-${extras.part}` : stepStem(step);
    const path = `${SCREENSHOTS_DIR}/${id}.${mime === 'image/png' ? 'png' : 'jpg'}`;
    const full = extras?.fullResolution;
    // Held until written, so the loop can read it back without waiting for the disk.
    this.unwritten.set(path, image);
    this.recent.delete(path);
    this.recent.set(path, image);
    for (const oldest of this.recent.keys()) {
      if (this.recent.size <= RECENT_SCREENSHOTS) break;
      this.recent.delete(oldest);
    }
    void this.enqueueFile(async () => {
      try {
        await this.writeFile(path, image);
        if (full) await this.writeFile(`${SCREENSHOTS_DIR}/${id}.full.png`, full);
      } finally {
        this.unwritten.delete(path);
      }
    }, `screenshot ${path}`);
    return { id, path, width: size.width, height: size.height, mime };
  }

  async readScreenshot(ref: ScreenshotRef): Promise<Buffer> {
    return this.unwritten.get(ref.path) ?? this.recent.get(ref.path) ?? readFile(join(this.directory, ref.path));
  }

  get writtenSeq(): number {
    return this.lastWrittenSeq;
  }

  written(): Promise<void> {
    return Promise.all([this.appends, this.files]).then(() => undefined);
  }

  saveReply(step: number, raw: string): Promise<void> {
    return this.enqueueFile(async () => {
      if (!this.repliesReady) {
        // Not recursive: a session folder deleted under a live recorder is not brought back.
        await makePrivateDir(join(this.directory, REPLIES_DIR), { recursive: false }).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
        this.repliesReady = true;
      }
      await this.writeFile(`${REPLIES_DIR}/${stepStem(step)}.txt`, raw);
    }, `reply of step ${step}`);
  }

  record(event: AgentEvent): Promise<void> {
    if (event.type === 'run-finished') {
      this.finished = event;
      // The ending goes first into the reserved space: on a full disk it is what still fits.
      void this.enqueue(() => this.writeEndingInPlace(endingOf(event)), ENDING_FILE);
    }
    // Events recorded while an earlier append is under way go out together, in one append, still
    // after every append queued before them and before any queued after them.
    if (!this.batch) {
      const batch: EventBatch = { text: '', events: [], written: Promise.resolve() };
      batch.written = this.enqueue(async () => {
        if (this.batch === batch) this.batch = null;
        this.eventsSize = await appendWhole(this.events, this.eventsSize, batch.text);
        this.bytes += Buffer.byteLength(batch.text);
        this.lastWrittenSeq = Math.max(this.lastWrittenSeq, ...batch.events.map((event) => event.seq));
        // What is on disk: a batch that did not fit is not counted.
        for (const written of batch.events) this.totals = addToTotals(this.totals, written);
      }, EVENTS_FILE);
      this.batch = batch;
    }
    this.batch.text += `${JSON.stringify(event)}\n`;
    this.batch.events.push(event);
    return this.batch.written;
  }

  flush(): Promise<void> {
    // One sync at a time: the loop asks at every step's end without waiting, and on a busy disk
    // syncs piled up in the thread pool the step's own writes need. A flush asked for while one
    // runs waits for it, then one more sync takes everything written since, for all who asked.
    if (!this.syncing) return this.startSync();
    this.syncNext ??= this.syncing.then(() => {
      this.syncNext = null;
      return this.startSync();
    });
    return this.syncNext;
  }

  private startSync(): Promise<void> {
    const sync = this.syncWritten().finally(() => {
      if (this.syncing === sync) this.syncing = null;
    });
    this.syncing = sync;
    return sync;
  }

  private async syncWritten(): Promise<void> {
    await this.written();
    const files = this.unsynced.splice(0);
    await this.guard(async () => {
      await Promise.all([this.events.datasync(), ...files.map((file) => file.datasync())]);
    }, 'fsync');
    await Promise.all(files.map((file) => file.close().catch(() => undefined)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush();
    const finished = this.finished;
    const { steps, usage } = this.totals;
    this.meta = { ...this.meta, bytes: this.bytes, steps, costUsd: usage.costUsd, usage: { ...usage } };
    if (finished) this.meta = metaWithEnding(this.meta, finished);
    // Closed without a run-finished event: nobody will finish it, so say so now.
    else this.meta = { ...this.meta, status: 'interrupted', endedAt: Date.now(), reason: 'the recording was closed before the run finished' };
    await this.guard(() => writeJsonAtomically(join(this.directory, SESSION_FILE), this.meta), SESSION_FILE);
    await this.guard(() => appendToIndex(this.dataDir, [summaryOf(this.meta)]), 'the session index');
    await this.events.close().catch(() => undefined);
    await this.ending.close().catch(() => undefined);
  }

  private async writeFile(relative: string, data: Buffer | string): Promise<void> {
    const path = join(this.directory, relative);
    // The session folder is the owner's alone (0700): the file's mode is set as it is written.
    // Half a screenshot is no record: one that did not fit is removed, which gives its space back.
    const file = await writePrivateInPrivateFolder(path, data);
    this.unsynced.push(file);
    this.bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
  }

  /** The ending into the reserved space; when even that fails, the empty marker. Never throws. */
  private async writeEndingInPlace(ending: SessionEnding): Promise<void> {
    try {
      await writeEnding(this.ending, ending);
    } catch {
      await markWriteFailed(this.directory).catch(() => undefined);
    }
  }

  /** Runs appends one after the other; a failure is remembered, never passed on. */
  private enqueue(task: () => Promise<void>, what: string): Promise<void> {
    // Events recorded from now on go after this write.
    this.batch = null;
    this.appends = this.appends.then(() => this.guard(task, what));
    return this.appends;
  }

  /** Runs file writes one after the other, beside the appends; a failure is remembered, never passed on. */
  private enqueueFile(task: () => Promise<void>, what: string): Promise<void> {
    this.files = this.files.then(() => this.guard(task, what));
    return this.files;
  }

  private async guard(task: () => Promise<void>, what: string): Promise<void> {
    try {
      await task();
    } catch (error) {
      await this.failed(error, what);
    }
  }

  /**
   * The first failed write: kept in words, and said on disk at once, where a full disk still lets
   * it through (the marker is a name without data, the ending goes into reserved space), in case
   * the process does not live to write the run's own ending.
   */
  private async failed(error: unknown, what: string): Promise<void> {
    if (this.firstFailure !== null) return;
    const removed = (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
    this.firstFailure = describeWriteFailure(error, removed ? this.directory : sessionsRoot(this.dataDir), what);
    await markWriteFailed(this.directory).catch(() => undefined);
    await this.writeEndingInPlace({
      status: 'failed',
      reason: `the session could not be recorded, so the run stopped: ${this.firstFailure}`,
      endedAt: Date.now(),
      steps: this.totals.steps,
      usage: { ...this.totals.usage },
    });
  }
}

function endingOf(event: AgentEventOf<'run-finished'>): SessionEnding {
  return { status: event.status, reason: event.reason, endedAt: event.at, steps: event.steps, usage: event.usage };
}

function metaWithEnding(meta: SessionMeta, event: AgentEventOf<'run-finished'>): SessionMeta {
  return { ...meta, status: event.status, endedAt: event.at, steps: event.steps, costUsd: event.usage.costUsd, usage: event.usage, reason: event.reason };
}
