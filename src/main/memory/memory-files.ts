/**
 * The memory that outlives a run, on disk: the conversation's file, and how a run hears about the
 * memory files' writes (the blackboard's and the conversation's).
 *
 * The rule is the session record's: a write that fails is said when it fails, not after the run,
 * and never leaves half a file behind. The conversation is rewritten whole after each change,
 * through a temporary file and a rename, one write at a time (the newest state wins); the
 * blackboard keeps its own log and snapshot (blackboard.ts).
 */
import { basename, dirname } from 'node:path';
import { makePrivateDir } from '../disk/files';
import { StoreWriter } from '../disk/store-writer';
import { describeWriteFailure } from '../disk/write-failure';
import type { PersistOutcome } from './blackboard';
import type { TieredMemory } from './tiered';

/** What a run is given of the memory's files. */
export interface MemoryFiles {
  /** Calls `listener` with each failed write, as it happens; returns the unsubscribe. */
  onWriteFailure(listener: (message: string) => void): () => void;
  /** Waits for the writes under way. */
  flush(): Promise<void>;
}

/**
 * Failed writes, passed to whoever listens now (the running agent, which says them as notes);
 * those nobody heard are kept for the end (the run service logs them).
 */
export class WriteFailureReports {
  private readonly listeners = new Set<(message: string) => void>();
  private unheard: string[] = [];

  readonly report = (message: string): void => {
    if (this.listeners.size === 0) this.unheard.push(message);
    for (const listener of this.listeners) listener(message);
  };

  subscribe(listener: (message: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The failures nobody heard so far; forgotten once taken. */
  takeUnheard(): string[] {
    return this.unheard.splice(0);
  }
}

export interface ConversationFileOptions {
  /** Told when a write fails, at once (once, until a write succeeds again). */
  onWriteFailure?: ((message: string) => void) | undefined;
  /** What the file is written through (the redaction policy applied); default: as it is. */
  writer?: StoreWriter | undefined;
}

/** `<data-dir>/memory/conversations/<id>.json`, kept up to date with the conversation's tiers. */
export class ConversationFile {
  private writes: Promise<void> = Promise.resolve();
  /** A write is queued that has not started: it will take the newest state. */
  private queued = false;
  private failure: string | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    readonly path: string,
    private readonly conversation: TieredMemory,
    private readonly options: ConversationFileOptions = {},
  ) {
    this.unsubscribe = conversation.subscribe(() => this.save());
  }

  /** Writes the conversation as it is by the time the write starts. */
  save(): void {
    if (this.queued) return;
    this.queued = true;
    this.writes = this.writes.then(() => this.write());
  }

  /** Waits for the writes under way: ok, or why the file is behind the conversation. */
  async flush(): Promise<PersistOutcome> {
    await this.writes;
    return this.failure === null ? { ok: true } : { ok: false, error: this.failure };
  }

  /** Stops following the conversation's changes. */
  close(): void {
    this.unsubscribe();
  }

  private async write(): Promise<void> {
    this.queued = false;
    const dict = this.conversation.toDict();
    try {
      await makePrivateDir(dirname(this.path));
      await (this.options.writer ?? StoreWriter.asIs).writeJson(this.path, dict, { sync: true });
      this.failure = null;
    } catch (error) {
      const first = this.failure === null;
      this.failure = `the conversation memory could not be saved: ${describeWriteFailure(error, dirname(this.path), basename(this.path))}`;
      if (first) this.options.onWriteFailure?.(this.failure);
    }
  }
}
