/**
 * npm run bench:facts — save, load and search latency of the fact providers at 1k, 10k and 100k
 * facts, for the file provider (a temporary data directory; every save takes the lock, catches up,
 * appends and fdatasyncs) and for Redis (a redis-server this benchmark starts on 127.0.0.1).
 *
 * A store of each size is filled in batches; then 500 single saves of new facts, 500 loads of
 * random known concepts and 500 searches of two or three words are timed one at a time, the sizes
 * taking turns call by call (this machine is shared and noisy: each size sees the same noise). Facts are
 * synthetic: a 3,000-word vocabulary, plus words most facts share ("user", "machine"), so some
 * postings lists are long as in real text.
 *
 * The last two lines are the goals, each for the slower provider:
 *   facts save p95 100k/1k: R        (goal ≤ 2: a save costs the same whatever the store holds)
 *   facts search p95 at 100k: X ms   (goal < 20 ms)
 * Options: --dir DIR (default: the OS temp dir), --sizes 1000,10000,100000, --samples N (500).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FactType, MemorySubjects, openFileFactStore, openRedisFactStore, type FactStore, type SaveRequest, type SingleFact } from '../src/main/memory/facts';
import { openRedis, type RedisConnection } from '../src/main/memory/redis';
import { startRedis } from '../test/fixtures/redis-server';
import { fmt, median } from './lib/stats';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
const SIZES = (option('--sizes') ?? '1000,10000,100000').split(',').map(Number);
const SAMPLES = Number(option('--samples') ?? 500);
const root = await mkdtemp(join(option('--dir') ?? tmpdir(), 'mnemo-bench-facts-'));

/** A small deterministic generator, so every run sees the same facts. */
let seed = 42;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
}
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'gu', 'de', 'fi', 'ho', 'ju', 'be'];
const VOCABULARY = Array.from({ length: 3000 }, (_, i) => `${SYLLABLES[i % 16]}${SYLLABLES[(i >> 4) % 16]}${SYLLABLES[(i >> 8) % 16]}${i >> 12 > 0 ? SYLLABLES[i >> 12] : ''}`);
const word = () => VOCABULARY[Math.floor(random() * VOCABULARY.length)] as string;
const words = (n: number) => Array.from({ length: n }, word).join(' ');

function fact(i: number, at: number): SaveRequest {
  const single: SingleFact = {
    concept: { keyword: `${word()}-${word()}-${i}`, description: `${random() < 0.3 ? 'the user ' : ''}${words(6)}`, factType: FactType.SINGLE },
    value: `${random() < 0.2 ? 'machine ' : ''}${words(3)}`,
    timestamp: at,
  };
  return { fact: single, subject: random() < 0.7 ? MemorySubjects.User : MemorySubjects.Machine, scope: 'product:mnemo' };
}

function p95(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] as number;
}

interface Row {
  provider: string;
  size: number;
  save: number[];
  load: number[];
  search: number[];
}

interface Filled {
  size: number;
  store: FactStore;
  known: SaveRequest[];
}

async function fill(store: FactStore, size: number): Promise<Filled> {
  const known: SaveRequest[] = [];
  for (let start = 0; start < size; start += 2000) {
    const batch = Array.from({ length: Math.min(2000, size - start) }, (_, j) => fact(start + j, 1000 + start + j));
    await store.saveMany(batch);
    if (known.length < 5000) known.push(...batch.slice(0, 200));
  }
  return { size, store, known };
}

const time = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

/**
 * Times every size in turn, call by call (the order rotating), so a machine that gets busier or
 * quieter during the run weighs on each size alike: the ratios are the figures to trust.
 */
async function measure(provider: string, stores: Filled[]): Promise<Row[]> {
  const rows = stores.map(({ size }) => ({ provider, size, save: [] as number[], load: [] as number[], search: [] as number[] }));
  const gc = (globalThis as { gc?: () => void }).gc;
  const inTurn = async (record: (row: Row, filled: Filled, i: number) => Promise<void>) => {
    gc?.();
    for (let i = 0; i < SAMPLES; i += 1) {
      for (let k = 0; k < stores.length; k += 1) {
        const at = (i + k) % stores.length;
        await record(rows[at] as Row, stores[at] as Filled, i);
      }
    }
  };
  // Warm up each path of each store.
  for (const { store, size } of stores) {
    for (let i = 0; i < 20; i += 1) {
      const request = fact(size + SAMPLES + i, 20_000_000 + i);
      await store.save(request.fact, request.subject, request.scope);
      await store.search(words(2));
    }
  }
  await inTurn(async (row, { store, size }, i) => {
    const request = fact(size + i, 10_000_000 + i);
    row.save.push(await time(() => store.save(request.fact, request.subject, request.scope)));
  });
  await inTurn(async (row, { store, known }) => {
    const pick = known[Math.floor(random() * known.length)] as SaveRequest;
    row.load.push(await time(() => store.load(pick.fact.concept, pick.subject as typeof MemorySubjects.User, { kind: 'product', name: 'mnemo' })));
  });
  await inTurn(async (row, { store }) => {
    const query = random() < 0.3 ? `user ${words(2)}` : words(2 + Math.floor(random() * 2));
    row.search.push(await time(() => store.search(query, { limit: 10 })));
  });
  for (const { store } of stores) await store.close();
  return rows;
}

const redis = await startRedis();
const connections: RedisConnection[] = [];
const rows: Row[] = [];
try {
  const files: Filled[] = [];
  for (const size of SIZES) files.push(await fill(await openFileFactStore(await mkdtemp(join(root, `file-${size}-`))), size));
  rows.push(...(await measure('file', files)));
  files.length = 0;
  const redisStores: Filled[] = [];
  for (const size of SIZES) {
    const opened = await openRedis(redis.url, { organisation: `bench-${size}` });
    if (!opened.ok) throw new Error(opened.message);
    connections.push(opened.connection);
    redisStores.push(await fill(await openRedisFactStore({ connection: opened.connection }), size));
  }
  rows.push(...(await measure('redis', redisStores)));
} finally {
  for (const connection of connections) await connection.close();
  await redis.stop();
  await rm(root, { recursive: true, force: true });
}

const kilo = (size: number) => (size >= 1000 ? `${size / 1000}k` : String(size));
console.log(`facts: ${SAMPLES} samples per figure, ms (median / p95)`);
console.log('provider  size   save            load            search');
for (const row of rows) {
  const cell = (values: number[]) => `${fmt(median(values))} / ${fmt(p95(values))}`.padEnd(16);
  console.log(`${row.provider.padEnd(9)} ${kilo(row.size).padEnd(6)} ${cell(row.save)}${cell(row.load)}${cell(row.search)}`);
}
const smallest = Math.min(...SIZES);
const largest = Math.max(...SIZES);
const of = (provider: string, size: number) => rows.find((row) => row.provider === provider && row.size === size) as Row;
const ratios = ['file', 'redis'].map((provider) => p95(of(provider, largest).save) / p95(of(provider, smallest).save));
const searches = ['file', 'redis'].map((provider) => p95(of(provider, largest).search));
console.log(`facts save p95 ${kilo(largest)}/${kilo(smallest)}: ${Math.max(...ratios).toFixed(2)}`);
console.log(`facts search p95 at ${kilo(largest)}: ${Math.max(...searches).toFixed(1)} ms`);
