/**
 * Where working memory is kept (seed 002's `IMemoryManager`): one record per conversation id,
 * `store`, `retrieve`, `delete`. In this process (`InMemoryManager`), in files under the data
 * directory (`FileMemoryManager`, Mnemo's default; sealed with the memory key when one is set), or
 * in Redis (`RedisMemoryManager`), so every machine on that server sees the same memory.
 * Failures throw, as in the seed; the agent turns them into its status strings.
 */
import { readFile, readdir, rm } from 'node:fs/promises';
import { makePrivateDir } from '../../disk/files';
import { StoreWriter } from '../../disk/store-writer';
import { join } from 'node:path';
import type { MemoryCipher } from '../encryption';
import { writeFileAtomically } from '../../disk/files';
import type { RedisConnection } from '../redis';

export interface WorkingMemoryRecord {
  conversation_id: string;
  working_memory: string;
  metadata: Record<string, unknown>;
  /** Milliseconds since the epoch. */
  updated_at: number;
}

export interface StoreInput {
  conversation_id: string;
  working_memory: string;
  metadata?: Record<string, unknown>;
}

export interface WorkingMemoryManager {
  /** Where the records are, for messages. */
  readonly location: string;
  store(input: StoreInput): Promise<void>;
  /** The conversation's record, as a list of at most one (the seed's shape). */
  retrieve(query: { conversation_id: string }): Promise<WorkingMemoryRecord[]>;
  delete(query: { conversation_id: string }): Promise<void>;
  /** Conversation ids that have a working memory. */
  list(): Promise<string[]>;
}

/** Conversation ids become file names and keys: keep them to a safe alphabet. */
export const WORKING_MEMORY_ID_PATTERN = /^[\w][\w.-]{0,80}$/;

function checkId(id: string): void {
  if (!WORKING_MEMORY_ID_PATTERN.test(id)) throw new Error(`"${id}" is not a conversation id`);
}

function record(input: StoreInput, now: number): WorkingMemoryRecord {
  return { conversation_id: input.conversation_id, working_memory: input.working_memory, metadata: input.metadata ?? {}, updated_at: now };
}

export class InMemoryManager implements WorkingMemoryManager {
  readonly location = 'memory';
  private readonly records = new Map<string, WorkingMemoryRecord>();

  constructor(private readonly now: () => number = Date.now) {}

  async store(input: StoreInput): Promise<void> {
    checkId(input.conversation_id);
    this.records.set(input.conversation_id, record(input, this.now()));
  }

  async retrieve(query: { conversation_id: string }): Promise<WorkingMemoryRecord[]> {
    const found = this.records.get(query.conversation_id);
    return found ? [structuredClone(found)] : [];
  }

  async delete(query: { conversation_id: string }): Promise<void> {
    this.records.delete(query.conversation_id);
  }

  async list(): Promise<string[]> {
    return [...this.records.keys()].sort();
  }
}

export function workingMemoryDirectory(dataDir: string): string {
  return join(dataDir, 'memory', 'working');
}

/** `<data-dir>/memory/working/<conversation-id>.json`, written atomically. */
export class FileMemoryManager implements WorkingMemoryManager {
  readonly location: string;
  private readonly directory: string;

  constructor(
    dataDir: string,
    private readonly cipher: MemoryCipher | null = null,
    private readonly now: () => number = Date.now,
    /** What the records pass before they are sealed and written (the redaction policy applied). */
    private readonly writer: StoreWriter = StoreWriter.asIs,
  ) {
    this.directory = workingMemoryDirectory(dataDir);
    this.location = `file ${this.directory}`;
  }

  private path(id: string): string {
    checkId(id);
    return join(this.directory, `${id}.json`);
  }

  async store(input: StoreInput): Promise<void> {
    const json = this.writer.text(JSON.stringify(record(input, this.now())));
    await makePrivateDir(this.directory);
    await writeFileAtomically(this.path(input.conversation_id), `${this.cipher ? JSON.stringify({ sealed: this.cipher.seal(json) }) : json}\n`, { sync: true });
  }

  async retrieve(query: { conversation_id: string }): Promise<WorkingMemoryRecord[]> {
    let text: string;
    try {
      text = await readFile(this.path(query.conversation_id), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const parsed = JSON.parse(text) as WorkingMemoryRecord | { sealed: string };
    if ('sealed' in parsed) {
      if (!this.cipher) throw new Error(`the working memory of ${query.conversation_id} is encrypted: give the memory key`);
      return [JSON.parse(this.cipher.open(parsed.sealed)) as WorkingMemoryRecord];
    }
    if (this.cipher) throw new Error(`the working memory of ${query.conversation_id} is not encrypted, but a memory key was given`);
    return [parsed];
  }

  async delete(query: { conversation_id: string }): Promise<void> {
    await rm(this.path(query.conversation_id), { force: true });
  }

  async list(): Promise<string[]> {
    const names = await readdir(this.directory).catch(() => [] as string[]);
    return names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -5)).sort();
  }
}

/** `<ns>working:<conversation-id>` holds the record as JSON. */
export class RedisMemoryManager implements WorkingMemoryManager {
  readonly location: string;

  constructor(
    private readonly connection: RedisConnection,
    private readonly now: () => number = Date.now,
    /** What the records pass before they are sent (the redaction policy applied). */
    private readonly writer: StoreWriter = StoreWriter.asIs,
  ) {
    this.location = `redis ${connection.displayUrl}`;
  }

  private key(id: string): string {
    checkId(id);
    return `${this.connection.keyPrefix}working:${id}`;
  }

  async store(input: StoreInput): Promise<void> {
    try {
      await this.connection.client.set(this.key(input.conversation_id), this.writer.text(JSON.stringify(record(input, this.now()))));
    } catch (error) {
      throw new Error(this.connection.describe(error));
    }
  }

  async retrieve(query: { conversation_id: string }): Promise<WorkingMemoryRecord[]> {
    const json = await this.connection.client.get(this.key(query.conversation_id));
    return json === null ? [] : [JSON.parse(json) as WorkingMemoryRecord];
  }

  async delete(query: { conversation_id: string }): Promise<void> {
    await this.connection.client.del(this.key(query.conversation_id));
  }

  async list(): Promise<string[]> {
    const prefix = `${this.connection.keyPrefix}working:`;
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.connection.client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys.map((key) => key.slice(prefix.length)).sort();
  }
}
