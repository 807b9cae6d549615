/**
 * Where the long-lived memory is kept, composed once from the settings: the fact store, the
 * working memory manager, the blackboard's and the conversations' storage, and the Redis
 * connection they share when `--redis-url` (MNEMO_REDIS_URL, memory.redisUrl) is set.
 *
 * Redis unreachable at start is an error, or — with `memory.redisFallback: "local"` — the data
 * directory's files with a warning. The local files are sealed with the memory key when one is
 * given (a key file, MNEMO_MEMORY_KEY, or the app's keychain); a wrong key is refused here, before
 * anything is read or written.
 *
 * Every store is given the process's store writer (deps.writer): what it keeps passes the
 * redaction policy, whoever saves it (a run, the Memory view, `mnemo facts add`).
 */
import { readFile, rm } from 'node:fs/promises';
import { makePrivateDir } from '../../disk/files';
import { StoreWriter } from '../../disk/store-writer';
import { join } from 'node:path';
import { KEYCHECK_FILE, openMemoryCipher, type MemoryCipher, type MemoryKey } from '../../memory/encryption';
import { openFileFactStore, openRedisFactStore, NoMemory, SubjectRegistry, describeError, type FactStore } from '../../memory/facts';
import { openRedis, type RedisConnection } from '../../memory/redis';
import { RedisConversationStore, type ConversationStore } from '../../memory/redis-stores';
import type { TieredMemoryDict } from '../../memory/tiered';
import { FileMemoryManager, RedisMemoryManager, type WorkingMemoryManager } from '../../memory/working';
import type { MemoryStoreSettings } from '../../settings/settings';

export interface MemoryBackends {
  readonly settings: MemoryStoreSettings;
  readonly redis: RedisConnection | null;
  readonly facts: FactStore;
  readonly working: WorkingMemoryManager | null;
  readonly conversations: ConversationStore;
  readonly subjects: SubjectRegistry;
  readonly warnings: string[];
  close(): Promise<void>;
}

export interface MemoryBackendDeps {
  /** The app's key from the OS keychain (safeStorage), used when no key is set otherwise. */
  keychainKey?: () => Promise<string | null>;
  /** What every store writes through (the redaction policy of the settings); default: as it is. */
  writer?: StoreWriter;
}

export type BackendsOpen = { ok: true; backends: MemoryBackends } | { ok: false; message: string };

export function conversationPath(dataDir: string, id: string): string {
  return join(dataDir, 'memory', 'conversations', `${id}.json`);
}

/** `<data-dir>/memory/conversations/<id>.json`, written atomically. */
export class FileConversationStore implements ConversationStore {
  readonly location: string;

  constructor(
    private readonly dataDir: string,
    private readonly writer: StoreWriter = StoreWriter.asIs,
  ) {
    this.location = `file ${join(dataDir, 'memory', 'conversations')}`;
  }

  async load(id: string): Promise<TieredMemoryDict | null> {
    let text: string;
    try {
      text = await readFile(conversationPath(this.dataDir, id), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return JSON.parse(text) as TieredMemoryDict;
  }

  async save(id: string, dict: TieredMemoryDict): Promise<void> {
    await makePrivateDir(join(this.dataDir, 'memory', 'conversations'));
    await this.writer.writeJson(conversationPath(this.dataDir, id), dict);
  }
}

async function memoryKey(settings: MemoryStoreSettings, deps: MemoryBackendDeps): Promise<{ ok: true; key: MemoryKey | null } | { ok: false; message: string }> {
  const source = settings.key;
  if (source === null) {
    const fromKeychain = await deps.keychainKey?.();
    return { ok: true, key: fromKeychain ? { secret: fromKeychain, origin: 'the OS keychain' } : null };
  }
  if (source.kind === 'env') return { ok: true, key: { secret: source.secret, origin: source.name } };
  try {
    return { ok: true, key: { secret: (await readFile(source.path, 'utf8')).trim(), origin: `the key file ${source.path} (${source.from})` } };
  } catch (error) {
    return { ok: false, message: `cannot read the memory key file ${source.path} (${source.from}): ${describeError(error)}` };
  }
}

export async function openMemoryBackends(settings: MemoryStoreSettings, deps: MemoryBackendDeps = {}): Promise<BackendsOpen> {
  const warnings: string[] = [];
  const key = await memoryKey(settings, deps);
  if (!key.ok) return key;
  let cipher: MemoryCipher | null = null;
  let madeKeyCheck = false;
  if (key.key) {
    const opened = await openMemoryCipher(join(settings.dataDir, 'memory'), key.key);
    if (!opened.ok) return opened;
    cipher = opened.cipher;
    madeKeyCheck = opened.created;
  }
  let redis: RedisConnection | null = null;
  if (settings.redisUrl !== null) {
    const opened = await openRedis(settings.redisUrl, { prefix: settings.redisPrefix, organisation: settings.facts.profile.organizationName });
    if (opened.ok) redis = opened.connection;
    else if (settings.redisFallback === 'local') warnings.push(`${opened.message}; the memory is kept in ${settings.dataDir} instead (memory.redisFallback is "local")`);
    else return { ok: false, message: `${opened.message} (set memory.redisFallback to "local" to use the data directory instead)` };
  }
  const subjects = new SubjectRegistry(settings.facts.subjects);
  const writer = deps.writer ?? StoreWriter.asIs;
  let facts: FactStore = NoMemory;
  try {
    if (settings.facts.enabled) facts = redis ? await openRedisFactStore({ connection: redis, subjects, writer }) : await openFileFactStore(settings.dataDir, { cipher, subjects, writer });
  } catch (error) {
    await redis?.close();
    // A key check made just now for memory that turned out not to open with the key (its check
    // file was lost) must not stay: it would lock out the right key next time.
    if (madeKeyCheck) await rm(join(settings.dataDir, 'memory', KEYCHECK_FILE), { force: true });
    return { ok: false, message: describeError(error) };
  }
  warnings.push(...facts.warnings);
  const working = settings.working.enabled ? (redis ? new RedisMemoryManager(redis, Date.now, writer) : new FileMemoryManager(settings.dataDir, cipher, Date.now, writer)) : null;
  const conversations = redis ? new RedisConversationStore(redis, writer) : new FileConversationStore(settings.dataDir, writer);
  return {
    ok: true,
    backends: {
      settings,
      redis,
      facts,
      working,
      conversations,
      subjects,
      warnings,
      async close() {
        await facts.close();
        await redis?.close();
      },
    },
  };
}
