/**
 * Facts in Redis, shared by every Mnemo process that names the same server (and organisation):
 *
 *   <ns>facts:records   a hash, fact id → the fact as JSON (its history included)
 *   <ns>facts:changes   a stream of the ids changed, in order (capped)
 *
 * Each process keeps a mirror of the records, with the search index, and catches up from the
 * stream before it answers (one round trip; only the changed records are fetched), so search runs
 * locally in milliseconds. A save applies the seed's rules to the record as last seen and writes it
 * with a compare-and-set script: if another process changed the record meanwhile, the save is
 * redone on the newer record. Forgetting deletes the record; the stream holds ids only, so nothing
 * of the fact remains.
 */
import type { RedisConnection } from '../redis';
import { versionOf, type StoredFact } from './model';
import { MemoryStoreError } from './provider';
import { type FactChange, TableFactStore, type TableStoreOptions } from './table';

/** HGET the record; if it is still what the caller saw, write (or delete) it and log the id. */
const COMPARE_AND_SET = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then current = '' end
if current ~= ARGV[2] then return {0, current} end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'id', ARGV[1])
return {1, id}`;

const STREAM_CAP = 200_000;

/** A stream entry as ioredis returns it: its id and its fields, flattened. */
type StreamEntry = [string, string[]];
const MAX_ATTEMPTS = 20;

export interface RedisFactStoreOptions extends TableStoreOptions {
  connection: RedisConnection;
}

export class RedisFactStore extends TableFactStore {
  readonly location: string;
  private readonly connection: RedisConnection;
  private readonly recordsKey: string;
  private readonly changesKey: string;
  /** The JSON of each record as last read or written: what a compare-and-set expects. */
  private readonly raw = new Map<string, string>();
  private lastId: string | null = null;
  /** Stream entries this process wrote, whose records it already has. */
  private readonly own = new Set<string>();

  constructor(options: RedisFactStoreOptions) {
    super(options);
    this.connection = options.connection;
    this.location = `redis ${options.connection.displayUrl}`;
    this.recordsKey = `${options.connection.keyPrefix}facts:records`;
    this.changesKey = `${options.connection.keyPrefix}facts:changes`;
  }

  private fail(error: unknown): never {
    if (error instanceof MemoryStoreError) throw error;
    throw new MemoryStoreError(this.connection.describe(error));
  }

  protected async sync(): Promise<void> {
    try {
      if (this.lastId === null) await this.reload();
      else await this.catchUp();
    } catch (error) {
      this.fail(error);
    }
  }

  private async reload(): Promise<void> {
    const client = this.connection.client;
    const result = await client.multi().xrevrange(this.changesKey, '+', '-', 'COUNT', 1).hgetall(this.recordsKey).exec();
    if (!result) throw new Error('the transaction was aborted');
    for (const [error] of result) if (error) throw error;
    const last = result[0]?.[1] as StreamEntry[];
    const records = result[1]?.[1] as Record<string, string>;
    this.table.clear();
    this.raw.clear();
    this.own.clear();
    for (const [id, json] of Object.entries(records)) this.accept(id, json);
    this.lastId = last[0]?.[0] ?? '0-0';
  }

  private async catchUp(): Promise<void> {
    const client = this.connection.client;
    for (;;) {
      const last = this.lastId as string;
      const replies = (await client.pipeline().xrange(this.changesKey, last, last).xrange(this.changesKey, `(${last}`, '+', 'COUNT', 5000).exec()) ?? [];
      for (const [error] of replies) if (error) throw error;
      const seen = (replies[0]?.[1] ?? []) as StreamEntry[];
      const range = (replies[1]?.[1] ?? []) as StreamEntry[];
      // The entry we last read was trimmed away: changes may be missing, read everything again.
      if (last !== '0-0' && seen.length === 0 && range.length > 0) {
        await this.reload();
        return;
      }
      if (range.length === 0) return;
      const changed = new Set<string>();
      for (const [entryId, fields] of range) {
        if (this.own.delete(entryId)) continue;
        const id = fields[1];
        if (id) changed.add(id);
      }
      if (changed.size > 0) {
        const ids = [...changed];
        const values = await client.hmget(this.recordsKey, ...ids);
        ids.forEach((id, index) => {
          const json = values[index];
          if (json === null || json === undefined) {
            this.table.delete(id);
            this.raw.delete(id);
          } else this.accept(id, json);
        });
      }
      this.lastId = (range[range.length - 1] as StreamEntry)[0];
      if (range.length < 5000) return;
    }
  }

  private accept(id: string, json: string): void {
    try {
      const fact = JSON.parse(json) as StoredFact;
      this.table.put(fact);
      this.raw.set(id, json);
    } catch {
      this.problems.push(`${this.location}: the record of ${id} is not JSON and was skipped`);
    }
  }

  /** The compare-and-set keeps writes apart; within the process, saves are already in series. */
  protected exclusive<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  protected async commit(changes: readonly FactChange[]): Promise<readonly FactChange[]> {
    try {
      const client = this.connection.client;
      let pending = [...changes];
      const written: FactChange[] = [];
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt >= MAX_ATTEMPTS) throw new Error(`${pending.length} change(s) kept meeting concurrent writes; try again`);
        const pipeline = client.pipeline();
        for (const change of pending) {
          const id = 'put' in change ? change.put.id : change.forget;
          const next = 'put' in change ? JSON.stringify(change.put) : '';
          pipeline.eval(COMPARE_AND_SET, 2, this.recordsKey, this.changesKey, id, this.raw.get(id) ?? '', next, STREAM_CAP);
        }
        const results = (await pipeline.exec()) ?? [];
        const retry: FactChange[] = [];
        pending.forEach((change, index) => {
          const [error, reply] = results[index] ?? [new Error('no reply'), null];
          if (error) throw error;
          const [applied, value] = reply as [number, string];
          const id = 'put' in change ? change.put.id : change.forget;
          if (applied === 1) {
            written.push(change);
            this.own.add(value);
            if ('put' in change) this.raw.set(id, JSON.stringify(change.put));
            else this.raw.delete(id);
            return;
          }
          // Someone else changed this record: take theirs and redo the change on it.
          if (value === '') {
            this.table.delete(id);
            this.raw.delete(id);
          } else this.accept(id, value);
          retry.push(this.redo(change));
        });
        pending = retry;
      }
      return written;
    } catch (error) {
      this.fail(error);
    }
  }

  /** A change made again on the newer record (a forget stays a forget; a put re-applies its rules). */
  private redo(change: FactChange): FactChange {
    if ('forget' in change) return change;
    const theirs = this.table.get(change.put.id);
    if (!theirs) return change;
    const ours = change.put;
    // Merge: the newer current value wins; every other version becomes history, each once.
    const versions = [...theirs.history, ...ours.history, versionOf(theirs), versionOf(ours)];
    const newest = ours.timestamp >= theirs.timestamp ? ours : theirs;
    const seen = new Set<string>();
    const history = versions
      .filter((version) => !(version.timestamp === newest.timestamp && version.values.join('\u0000') === newest.values.join('\u0000')))
      .filter((version) => {
        const key = `${version.timestamp}\u0000${version.values.join('\u0000')}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .sort((a, b) => a.timestamp - b.timestamp);
    const values = newest.factType === 'MULTIPLE' && theirs.factType === ours.factType ? [...new Set([...theirs.values, ...ours.values])] : newest.values;
    return { put: { ...newest, values, history } };
  }

  async close(): Promise<void> {}
}

export async function openRedisFactStore(options: RedisFactStoreOptions): Promise<RedisFactStore> {
  const store = new RedisFactStore(options);
  await store.list({ subjects: [] });
  return store;
}
