/**
 * The local file provider (Mnemo's default): `<data-dir>/memory/facts/`.
 *
 *   facts.log            a header line, then one change a line: `{"put":{fact}}` or `{"forget":id}`,
 *                        each sealed (AES-256-GCM, its own nonce) when the memory is encrypted
 *   facts.snapshot.json  every fact as of a generation, written atomically
 *   facts.lock           held while a process reads-modifies-writes
 *
 * A save takes the lock, reads the lines other processes appended since it last looked, applies
 * the rules, appends its line (one write, flushed to disk) and lets go: two processes writing at
 * once lose nothing, and a save costs the same at 100k facts as at 1k. Readers need no lock: they
 * read complete lines only. When the log has grown past the facts it holds, or when a fact is
 * forgotten (so that no file keeps it), the snapshot is rewritten and the log started anew with
 * the next generation; a reader that finds the log replaced reads the snapshot again.
 *
 * A torn last record (a crash in the middle of its write) is never dropped: under the lock, where
 * no writer can be mid-line, its bytes are kept aside as `facts.log.torn-<time>` (owner-only) and
 * reported, and only then is the log cut back to its last whole record, at open or at the next
 * write, whichever comes first. `check()` does the same on demand (`mnemo facts check`).
 */
import { open, readdir, readFile, rm, stat, truncate } from 'node:fs/promises';
import { makePrivateDir, openPrivate, writeFileAtomically } from '../../disk/files';
import { join } from 'node:path';
import { type MemoryCipher, MemoryKeyError } from '../encryption';
import { withFileLock } from '../file-lock';
import type { StoredFact } from './model';
import { describeError, MemoryStoreError, type FactLogCheck, type TornRecord } from './provider';
import { type FactChange, TableFactStore, type TableStoreOptions } from './table';

export const FACTS_DIRECTORY = ['memory', 'facts'] as const;
const LOG = 'facts.log';
const SNAPSHOT = 'facts.snapshot.json';
const LOCK = 'facts.lock';
/** What a torn record kept aside is named: `facts.log.torn-20250101T120000.000Z`. */
const TORN_PREFIX = `${LOG}.torn-`;

interface Header {
  mnemo: 'facts-log';
  gen: number;
  encrypted: boolean;
}

interface Snapshot {
  mnemo: 'facts-snapshot';
  gen: number;
  encrypted: boolean;
  facts?: StoredFact[];
  sealed?: string;
}

export interface FileFactStoreOptions extends TableStoreOptions {
  /** Encrypts every line and the snapshot; absent: plain JSON. */
  cipher?: MemoryCipher | null;
  /** Rewrite the snapshot once the log holds this many lines more than there are facts. Default 2000. */
  rewriteSlack?: number;
}

export function factsDirectory(dataDir: string): string {
  return join(dataDir, ...FACTS_DIRECTORY);
}

export class FileFactStore extends TableFactStore {
  readonly location: string;
  readonly directory: string;
  private readonly cipher: MemoryCipher | null;
  private readonly rewriteSlack: number;
  /** The log file we read (its inode), how far, and its generation. */
  private inode = -1;
  private offset = 0;
  private generation = 0;
  private lines = 0;
  private readonly now: () => number;
  /** Torn records this process kept aside. */
  private readonly recovered: TornRecord[] = [];
  /** Damaged lines skipped while reading (also among the warnings). */
  private readonly damaged: string[] = [];

  constructor(dataDir: string, options: FileFactStoreOptions = {}) {
    super(options);
    this.now = options.now ?? Date.now;
    this.directory = factsDirectory(dataDir);
    this.location = `file ${this.directory}`;
    this.cipher = options.cipher ?? null;
    this.rewriteSlack = options.rewriteSlack ?? 2000;
  }

  private get logPath(): string {
    return join(this.directory, LOG);
  }

  private get snapshotPath(): string {
    return join(this.directory, SNAPSHOT);
  }

  /**
   * Reads what is stored; a store written with the other encryption setting is refused. A log
   * that ends in part of a line is looked at again under the lock: a writer mid-line finishes
   * first; what is still torn then is kept aside (see the header). Not getting the lock is a
   * warning, not a store that cannot open.
   */
  async open(): Promise<void> {
    await this.sync();
    if (!(await this.endsTorn())) return;
    try {
      await this.exclusive(() => this.recoverTorn());
    } catch (error) {
      this.problems.push(`${this.logPath} ends in part of a record that could not be looked at under the lock (${describeError(error)}); mnemo facts check tries again`);
    }
  }

  /**
   * The log's state, whole or recovered: a torn last record kept aside now (under the lock), what
   * this process kept aside before, every torn record kept in the folder, the damaged lines skipped.
   */
  async check(): Promise<FactLogCheck> {
    const exists = await this.guard(() => this.logExists());
    if (exists) await this.exclusive(() => this.recoverTorn());
    else await this.sync();
    const names = await readdir(this.directory).catch(() => [] as string[]);
    return {
      log: this.logPath,
      exists,
      records: this.lines,
      facts: this.table.size,
      recovered: [...this.recovered],
      keptAside: names.filter((name) => name.startsWith(TORN_PREFIX)).sort().map((name) => join(this.directory, name)),
      damaged: [...this.damaged],
    };
  }

  private async logExists(): Promise<boolean> {
    return stat(this.logPath).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      },
    );
  }

  /** Whether the log holds bytes after the last whole record this process read. */
  private async endsTorn(): Promise<boolean> {
    const info = await stat(this.logPath).catch(() => null);
    return info !== null && info.ino === this.inode && this.offset > 0 && info.size > this.offset;
  }

  /** Inside the lock: caught up, then a torn end kept aside. */
  private async recoverTorn(): Promise<void> {
    await this.catchUp();
    await this.keepTornAside();
  }

  /**
   * Inside the lock, after catching up: bytes after the last whole record are a write cut short
   * (no writer is mid-line while we hold the lock). They are copied to `facts.log.torn-<time>`
   * (owner-only, flushed) before the log is cut back to its last whole record, and reported.
   */
  private async keepTornAside(): Promise<void> {
    // Without a header read (offset 0) this is no log of ours to cut.
    if (!(await this.endsTorn())) return;
    const handle = await open(this.logPath, 'r');
    let tail: Buffer;
    try {
      tail = await this.readRange(handle, this.offset, (await handle.stat()).size);
    } finally {
      await handle.close();
    }
    const file = await this.writeAside(tail);
    await truncate(this.logPath, this.offset);
    this.recovered.push({ file, bytes: tail.length });
    this.problems.push(`${this.logPath} ended in a torn record (${tail.length} bytes: a write cut short); it was kept aside as ${file}, and the log goes on from its last whole record`);
  }

  /** The torn bytes in a new owner-only file of their own (never over an earlier one). */
  private async writeAside(bytes: Buffer): Promise<string> {
    const stamp = new Date(this.now()).toISOString().replace(/[-:]/g, '');
    for (let attempt = 0; ; attempt += 1) {
      const file = join(this.directory, `${TORN_PREFIX}${stamp}${attempt > 0 ? `-${attempt}` : ''}`);
      let handle;
      try {
        handle = await openPrivate(file, 'wx');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw error;
      }
      try {
        await handle.writeFile(bytes);
        await handle.datasync();
      } catch (error) {
        await handle.close().catch(() => undefined);
        await rm(file, { force: true }).catch(() => undefined);
        throw error;
      }
      await handle.close();
      return file;
    }
  }

  protected exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.guard(async () => {
      await makePrivateDir(this.directory);
      return withFileLock(join(this.directory, LOCK), work);
    });
  }

  protected sync(): Promise<void> {
    return this.guard(() => this.catchUp());
  }

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof MemoryStoreError) throw error;
      throw new MemoryStoreError(`the facts in ${this.directory} cannot be used: ${describeError(error)}`);
    }
  }

  private async catchUp(): Promise<void> {
    let handle;
    try {
      handle = await open(this.logPath, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // No log: a store never written, or one whose every fact was forgotten mid-rewrite.
      if (this.inode !== -1 || this.table.size > 0) await this.reload(null);
      return;
    }
    try {
      const info = await handle.stat();
      if (info.ino !== this.inode || info.size < this.offset) {
        await this.reload(handle);
        return;
      }
      if (info.size > this.offset) await this.readLines(handle, info.size);
    } finally {
      await handle.close();
    }
  }

  /** Everything again: the snapshot, then the log opened before it was read (see the header). */
  private async reload(handle: Awaited<ReturnType<typeof open>> | null): Promise<void> {
    this.table.clear();
    this.inode = -1;
    this.offset = 0;
    this.lines = 0;
    const snapshot = await this.readSnapshot();
    for (const fact of snapshot?.facts ?? []) this.table.put(fact);
    this.generation = snapshot?.gen ?? 0;
    if (!handle) return;
    const info = await handle.stat();
    this.inode = info.ino;
    const first = await this.readRange(handle, 0, Math.min(info.size, 4096));
    const newline = first.indexOf(10);
    if (newline < 0) return;
    const header = this.parseHeader(first.subarray(0, newline).toString('utf8'));
    this.offset = newline + 1;
    if (header.gen < this.generation) {
      // A rewrite wrote the snapshot but had not replaced the log yet: the snapshot holds it all.
      this.offset = info.size;
      return;
    }
    this.generation = header.gen;
    await this.readLines(handle, info.size);
  }

  private parseHeader(line: string): Header {
    let header: Partial<Header>;
    try {
      header = JSON.parse(line) as Partial<Header>;
    } catch {
      throw new MemoryStoreError(`${this.logPath} does not start with a facts header; it is not a Mnemo facts log`);
    }
    if (header.mnemo !== 'facts-log' || typeof header.gen !== 'number') throw new MemoryStoreError(`${this.logPath} is not a Mnemo facts log`);
    this.checkEncryption(header.encrypted === true, this.logPath);
    return header as Header;
  }

  private checkEncryption(encrypted: boolean, path: string): void {
    if (encrypted && !this.cipher) throw new MemoryStoreError(`the facts in ${path} are encrypted: give the memory key (MNEMO_MEMORY_KEY, --memory-key-file or memory.encryption.keyFile)`);
    if (!encrypted && this.cipher) throw new MemoryStoreError(`the facts in ${path} are not encrypted, but a memory key was given; they are left as they are`);
  }

  private async readSnapshot(): Promise<Snapshot | null> {
    let text: string;
    try {
      text = await readFile(this.snapshotPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    let snapshot: Snapshot;
    try {
      snapshot = JSON.parse(text) as Snapshot;
    } catch {
      throw new MemoryStoreError(`${this.snapshotPath} is damaged (not JSON); the facts were not loaded and nothing was written`);
    }
    this.checkEncryption(snapshot.encrypted === true, this.snapshotPath);
    if (snapshot.encrypted) snapshot.facts = JSON.parse(this.openSealed(snapshot.sealed ?? '', this.snapshotPath)) as StoredFact[];
    return snapshot;
  }

  private openSealed(sealed: string, where: string): string {
    try {
      return (this.cipher as MemoryCipher).open(sealed);
    } catch (error) {
      if (error instanceof MemoryKeyError) throw new MemoryStoreError(`${where}: ${error.message}; nothing was written`);
      throw error;
    }
  }

  private async readRange(handle: Awaited<ReturnType<typeof open>>, from: number, to: number): Promise<Buffer> {
    const buffer = Buffer.alloc(to - from);
    let read = 0;
    while (read < buffer.length) {
      const { bytesRead } = await handle.read(buffer, read, buffer.length - read, from + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return buffer.subarray(0, read);
  }

  /** Applies the complete lines between the offset and `size`; a line being written waits. */
  private async readLines(handle: Awaited<ReturnType<typeof open>>, size: number): Promise<void> {
    const chunk = await this.readRange(handle, this.offset, size);
    const end = chunk.lastIndexOf(10);
    if (end < 0) return;
    const text = chunk.subarray(0, end).toString('utf8');
    this.offset += end + 1;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      this.lines += 1;
      this.applyLine(line);
    }
  }

  private applyLine(line: string): void {
    // A line that does not open with the key stops everything: writing on would lose it.
    const plain = this.cipher ? this.openSealed(line, this.logPath) : line;
    let change: FactChange;
    try {
      change = JSON.parse(plain) as FactChange;
    } catch (error) {
      const problem = `${this.logPath}: a damaged line was skipped (${describeError(error)})`;
      this.problems.push(problem);
      this.damaged.push(problem);
      return;
    }
    if ('put' in change && change.put && typeof change.put.id === 'string') this.table.put(change.put);
    else if ('forget' in change && typeof change.forget === 'string') this.table.delete(change.forget);
  }

  protected async commit(changes: readonly FactChange[]): Promise<readonly FactChange[]> {
    if (changes.some((change) => 'forget' in change)) {
      // A forgotten fact must be in no file afterwards: rewrite instead of appending.
      const after = new Map([...this.table.all()].map((fact) => [fact.id, fact]));
      for (const change of changes) {
        if ('forget' in change) after.delete(change.forget);
        else after.set(change.put.id, change.put);
      }
      await this.rewriteLog([...after.values()]);
      return changes;
    }
    const text = changes.map((change) => `${this.sealed(JSON.stringify(change))}\n`).join('');
    const info = await stat(this.logPath).catch(() => null);
    if (info === null || info.ino !== this.inode) {
      await this.startLog(this.generation);
    } else if (info.size > this.offset) {
      // Bytes after the last full line while we hold the lock: a writer died mid-line. Kept aside, then cut.
      await this.keepTornAside();
    }
    const handle = await openPrivate(this.logPath, 'a');
    try {
      await handle.write(text);
      await handle.datasync();
      this.offset = (await handle.stat()).size;
    } finally {
      await handle.close();
    }
    this.lines += changes.length;
    if (this.lines > this.table.size + changes.length + this.rewriteSlack) {
      const after = new Map([...this.table.all()].map((fact) => [fact.id, fact]));
      for (const change of changes) if ('put' in change) after.set(change.put.id, change.put);
      await this.rewriteLog([...after.values()]);
    }
    return changes;
  }

  /** A new, empty log of this generation (through a rename, so readers see it whole). */
  private async startLog(generation: number): Promise<void> {
    const header: Header = { mnemo: 'facts-log', gen: generation, encrypted: this.cipher !== null };
    await writeFileAtomically(this.logPath, `${JSON.stringify(header)}\n`, { sync: true });
    const info = await stat(this.logPath);
    this.inode = info.ino;
    this.offset = info.size;
    this.lines = 0;
    this.generation = generation;
  }

  /** The snapshot of the next generation, then a new log for it (inside the lock). */
  private async rewriteLog(facts: StoredFact[]): Promise<void> {
    const generation = this.generation + 1;
    const snapshot: Snapshot = this.cipher
      ? { mnemo: 'facts-snapshot', gen: generation, encrypted: true, sealed: this.sealed(JSON.stringify(facts)) }
      : { mnemo: 'facts-snapshot', gen: generation, encrypted: false, facts };
    // A sealed snapshot passed the writer before it was sealed.
    const text = `${JSON.stringify(snapshot)}\n`;
    await writeFileAtomically(this.snapshotPath, this.cipher ? text : this.writer.text(text), { sync: true });
    await this.startLog(generation);
  }

  /** A record as written: through the store writer (the redaction policy), then sealed when encrypted. */
  private sealed(json: string): string {
    const kept = this.writer.text(json);
    return this.cipher ? this.cipher.seal(kept) : kept;
  }

  /** Removes every file of the store (tests, `forget --all`). */
  async destroy(): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
    this.table.clear();
  }

  async close(): Promise<void> {}
}

/** Opens the data directory's facts (reading what is there); errors as `MemoryStoreError`. */
export async function openFileFactStore(dataDir: string, options: FileFactStoreOptions = {}): Promise<FileFactStore> {
  const store = new FileFactStore(dataDir, options);
  await store.open();
  return store;
}
