/**
 * The blackboard and the conversations in Redis, for machines that share one memory.
 *
 *   <ns>blackboard:log        a list of the board's changes, one JSON op each, in the order written
 *   <ns>blackboard:snapshot   the board as of the ops trimmed from the log's head
 *   <ns>conversation:<id>     a conversation's tiers as JSON
 *
 * Loading takes the snapshot and the log in one transaction and replays the log. Every change is
 * appended (RPUSH) in the background, in order; `flush` reports a change Redis did not take. Now
 * and then one process (holding a short lock) folds the log's head into the snapshot: it replays
 * what Redis holds, not its own view, so changes from other machines are kept.
 */
import { randomBytes } from 'node:crypto';
import { StoreWriter } from '../disk/store-writer';
import type { BlackboardDict } from './events';
import { applyBlackboardOp, parseBlackboardOp, type BlackboardLoad, type BlackboardOp, type LoadableBlackboardStore, type PersistOutcome } from './blackboard';
import type { RedisConnection } from './redis';
import type { TieredMemoryDict } from './tiered';

const EMPTY: BlackboardDict = { questions: [], requests: [], trajectories: [], screenshots: [] };
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export class RedisBlackboardStore implements LoadableBlackboardStore {
  private readonly logKey: string;
  private readonly snapshotKey: string;
  private readonly lockKey: string;
  private writes: Promise<void> = Promise.resolve();
  private failure: string | null = null;
  private sinceRewrite = 0;

  /** The last write failed: said once, not again for every write after it. */
  private failing = false;

  constructor(
    private readonly connection: RedisConnection,
    private readonly options: {
      rewriteEvery?: number;
      /** Told at once when a change does not reach Redis (the running agent says it). */
      onWriteFailure?: ((message: string) => void) | undefined;
      /** What the changes pass before they are sent (the redaction policy applied); default: as they are. */
      writer?: StoreWriter | undefined;
    } = {},
  ) {
    this.logKey = `${connection.keyPrefix}blackboard:log`;
    this.snapshotKey = `${connection.keyPrefix}blackboard:snapshot`;
    // The key keeps its old spelling: machines of other versions share this Redis.
    this.lockKey = `${connection.keyPrefix}blackboard:compacting`;
  }

  /** Throws (with the server named) when Redis cannot be read. */
  async load(): Promise<BlackboardLoad> {
    try {
      return await this.read();
    } catch (error) {
      throw new Error(this.connection.describe(error));
    }
  }

  private async read(): Promise<BlackboardLoad & { length: number }> {
    const result = await this.connection.client.multi().get(this.snapshotKey).lrange(this.logKey, 0, -1).exec();
    if (!result) throw new Error('the transaction was aborted');
    for (const [error] of result) if (error) throw error;
    const snapshotText = result[0]?.[1] as string | null;
    const lines = result[1]?.[1] as string[];
    const warnings: string[] = [];
    let blackboard: BlackboardDict = EMPTY;
    if (snapshotText) {
      try {
        blackboard = { ...EMPTY, ...(JSON.parse(snapshotText) as Partial<BlackboardDict>) };
      } catch {
        warnings.push(`the blackboard snapshot in Redis (${this.snapshotKey}) is damaged; only the log was loaded`);
      }
    }
    lines.forEach((line, index) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = undefined;
      }
      const op = parseBlackboardOp(value);
      if (op) blackboard = applyBlackboardOp(blackboard, op);
      else warnings.push(`blackboard log entry ${index + 1} in Redis is damaged and was skipped`);
    });
    return { blackboard, warnings, length: lines.length };
  }

  record(op: BlackboardOp): void {
    const line = (this.options.writer ?? StoreWriter.asIs).text(JSON.stringify({ seq: 1, at: Date.now(), ...op }));
    this.sinceRewrite += 1;
    const rewrite = this.sinceRewrite >= (this.options.rewriteEvery ?? 200);
    if (rewrite) this.sinceRewrite = 0;
    this.writes = this.writes.then(async () => {
      try {
        await this.connection.client.rpush(this.logKey, line);
        this.failing = false;
      } catch (error) {
        this.failure = `a blackboard change was not saved: ${this.connection.describe(error)}`;
        if (!this.failing) this.options.onWriteFailure?.(this.failure);
        this.failing = true;
        return;
      }
      if (rewrite) await this.rewrite().catch(() => undefined);
    });
  }

  /** Folds the log's head into the snapshot, under a short lock so two machines never both do. */
  async rewrite(): Promise<void> {
    const client = this.connection.client;
    const token = randomBytes(8).toString('hex');
    if ((await client.set(this.lockKey, token, 'PX', 10_000, 'NX')) !== 'OK') return;
    try {
      const { blackboard, length } = await this.read();
      // Others only append meanwhile: trimming the first `length` entries drops exactly what was folded in.
      const result = await client.multi().set(this.snapshotKey, JSON.stringify(blackboard)).ltrim(this.logKey, length, -1).exec();
      for (const [error] of result ?? []) if (error) throw error;
    } finally {
      await client.eval(RELEASE, 1, this.lockKey, token);
    }
  }

  async flush(): Promise<PersistOutcome> {
    await this.writes;
    const failure = this.failure;
    this.failure = null;
    return failure === null ? { ok: true } : { ok: false, error: failure };
  }
}

/** Where a conversation's tiers are saved between its tasks. */
export interface ConversationStore {
  readonly location: string;
  /** The tiers; null when there is no such conversation. Throws when the storage fails. */
  load(id: string): Promise<TieredMemoryDict | null>;
  save(id: string, dict: TieredMemoryDict): Promise<void>;
}

export class RedisConversationStore implements ConversationStore {
  readonly location: string;

  constructor(
    private readonly connection: RedisConnection,
    /** What the tiers pass before they are sent (the redaction policy applied). */
    private readonly writer: StoreWriter = StoreWriter.asIs,
  ) {
    this.location = `redis ${connection.displayUrl}`;
  }

  private key(id: string): string {
    return `${this.connection.keyPrefix}conversation:${id}`;
  }

  async load(id: string): Promise<TieredMemoryDict | null> {
    const text = await this.connection.client.get(this.key(id));
    return text === null ? null : (JSON.parse(text) as TieredMemoryDict);
  }

  async save(id: string, dict: TieredMemoryDict): Promise<void> {
    try {
      await this.connection.client.set(this.key(id), this.writer.text(JSON.stringify(dict)));
    } catch (error) {
      throw new Error(this.connection.describe(error));
    }
  }
}
