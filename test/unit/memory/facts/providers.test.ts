/**
 * The fact rules on every provider, against its real storage: files in a temporary data
 * directory (plain and encrypted) and a real redis-server. Dedup, supersede with history,
 * subject priority then recency, forget (history included), ranked search, the seed's four calls.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FactType,
  InMemoryFactStore,
  MemoryScope,
  MemorySubject,
  MemorySubjects,
  NoMemory,
  openFileFactStore,
  openRedisFactStore,
  resolveFacts,
  SubjectRegistry,
  type FactStore,
  type MultipleFacts,
  type SingleFact,
} from '../../../../src/main/memory/facts';
import { openMemoryCipher } from '../../../../src/main/memory/encryption';
import { useMemoryStorage } from '../../../fixtures/memory-storage';

const app = MemoryScope.Product('my-app');

function single(keyword: string, value: string, timestamp: number, description = `the ${keyword}`): SingleFact {
  return { concept: { keyword, description, factType: FactType.SINGLE }, value, timestamp };
}

function multiple(keyword: string, values: string[], timestamp: number): MultipleFacts {
  return { concept: { keyword, description: `the ${keyword}`, factType: FactType.MULTIPLE }, values, timestamp };
}

const storage = useMemoryStorage('facts', { redis: true });

/** Two handles on one storage, as two processes would have. */
type Pair = { a: FactStore; b: FactStore };
const providers: Record<string, () => Promise<Pair>> = {
  memory: async () => {
    const store = new InMemoryFactStore();
    return { a: store, b: store };
  },
  file: async () => {
    const dir = await storage.tempDir();
    return { a: await openFileFactStore(dir), b: await openFileFactStore(dir) };
  },
  'file, encrypted': async () => {
    const dir = await storage.tempDir();
    const key = { secret: 'correct horse battery staple', origin: 'the test' };
    const cipherA = await openMemoryCipher(join(dir, 'memory'), key);
    const cipherB = await openMemoryCipher(join(dir, 'memory'), key);
    if (!cipherA.ok || !cipherB.ok) throw new Error('no cipher');
    return { a: await openFileFactStore(dir, { cipher: cipherA.cipher }), b: await openFileFactStore(dir, { cipher: cipherB.cipher }) };
  },
  redis: async () => {
    const organisation = storage.newOrganisation();
    return { a: await openRedisFactStore({ connection: await storage.connect({ organisation }) }), b: await openRedisFactStore({ connection: await storage.connect({ organisation }) }) };
  },
};

describe.each(Object.keys(providers))('%s provider', (name) => {
  const open = providers[name] as () => Promise<Pair>;

  it('saving the same fact twice stores it once, and the other handle sees it', async () => {
    const { a, b } = await open();
    expect((await a.save(single('ide-theme', 'Dark Theme', 1000), MemorySubjects.User, app)).change).toBe('added');
    expect((await b.save(single('ide-theme', 'Dark Theme', 2000), MemorySubjects.User, app)).change).toBe('unchanged');
    const listed = await a.list();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ keyword: 'ide-theme', values: ['Dark Theme'], timestamp: 1000, history: [] });
    expect(await b.load({ keyword: 'IDE-Theme', description: '', factType: FactType.SINGLE }, MemorySubjects.User, app)).toEqual([
      { concept: { keyword: 'ide-theme', description: 'the ide-theme', factType: 'SINGLE' }, value: 'Dark Theme', timestamp: 1000 },
    ]);
  });

  it('a new value of a SINGLE concept supersedes the old one, which stays in the history', async () => {
    const { a, b } = await open();
    await a.save(single('greeting', 'John', 1000, "User's name"), MemorySubjects.User, app);
    const outcome = await b.save(single('greeting', 'Johnny', 2000, "User's name"), MemorySubjects.User, app);
    expect(outcome.change).toBe('superseded');
    const [fact] = await a.list();
    expect(fact).toMatchObject({ values: ['Johnny'], timestamp: 2000, history: [{ values: ['John'], timestamp: 1000 }] });
    // An older value arriving late is history, not the current value.
    await a.save(single('greeting', 'Jo', 1500, "User's name"), MemorySubjects.User, app);
    const [after] = await b.list();
    expect(after?.values).toEqual(['Johnny']);
    expect(after?.history.map((version) => version.values[0])).toEqual(['John', 'Jo']);
  });

  it('MULTIPLE facts gather their values once each', async () => {
    const { a, b } = await open();
    await a.save(multiple('programming-languages', ['Kotlin', 'Java'], 1000), MemorySubjects.User, app);
    expect((await b.save(multiple('programming-languages', ['Java', 'Python'], 2000), MemorySubjects.User, app)).change).toBe('extended');
    expect((await a.save(multiple('programming-languages', ['Python'], 3000), MemorySubjects.User, app)).change).toBe('unchanged');
    const facts = await b.loadAll(MemorySubjects.User, app);
    expect(facts).toEqual([{ concept: { keyword: 'programming-languages', description: 'the programming-languages', factType: 'MULTIPLE' }, values: ['Kotlin', 'Java', 'Python'], timestamp: 2000 }]);
  });

  it('the more specific subject wins, then the newer fact', async () => {
    const { a, b } = await open();
    await a.save(single('favourite-colour', 'white', 5000), MemorySubject.Everything, app);
    await a.save(single('favourite-colour', 'red', 1500), MemorySubjects.User, app);
    await a.save(single('shell', 'bash', 1000), MemorySubjects.Machine, app);
    await a.save(single('shell', 'zsh', 2000), MemorySubjects.Machine, MemoryScope.CrossProduct);
    const resolved = resolveFacts(await b.list(), new SubjectRegistry());
    expect(resolved.map((fact) => `${fact.keyword}=${fact.values[0]}`)).toEqual(['shell=zsh', 'favourite-colour=red']);
    // Listing keeps every fact, most specific subject first, then newest.
    expect((await b.list()).map((fact) => `${fact.subject}:${fact.values[0]}`)).toEqual(['machine:zsh', 'user:red', 'machine:bash', 'everything:white']);
  });

  it('search is ranked: the best match first, filtered by subject and scope', async () => {
    const { a, b } = await open();
    await a.saveMany([
      { fact: single('preferred-editor', 'Vim', 1000, "The user's preferred text editor"), subject: MemorySubjects.User, scope: app },
      { fact: single('browser', 'Firefox', 1000, 'The web browser the user opens links in'), subject: MemorySubjects.User, scope: app },
      { fact: single('editor-font', 'Fira Code', 1000, 'Font of the code editor'), subject: MemorySubjects.User, scope: app },
      { fact: single('os', 'Debian 13', 1000, 'Operating system of this machine'), subject: MemorySubjects.Machine, scope: app },
    ]);
    const hits = await b.search('which text editor does the user prefer');
    expect(hits[0]?.fact.keyword).toBe('preferred-editor');
    expect(hits.map((hit) => hit.fact.keyword)).toContain('editor-font');
    expect(hits.every((hit, index) => index === 0 || (hits[index - 1]?.score ?? 0) >= hit.score)).toBe(true);
    expect((await b.search('debian')).map((hit) => hit.fact.keyword)).toEqual(['os']);
    expect(await b.search('debian', { subjects: ['user'] })).toEqual([]);
    expect((await b.loadByDescription('firefox browser', MemorySubjects.User, app)).map((fact) => fact.concept.keyword)).toEqual(['browser']);
    expect(await b.loadByDescription('firefox', MemorySubjects.User, MemoryScope.CrossProduct)).toEqual([]);
  });

  it('a forgotten fact is gone for every handle, its history included', async () => {
    const { a, b } = await open();
    const first = await a.save(single('secret-word', 'swordfish', 1000), MemorySubjects.User, app);
    await a.save(single('secret-word', 'marlin', 2000), MemorySubjects.User, app);
    await a.save(single('kept', 'still here', 1000), MemorySubjects.User, app);
    expect(await b.forget(first.fact.id)).toBe(true);
    expect(await b.forget(first.fact.id)).toBe(false);
    expect((await a.list()).map((fact) => fact.keyword)).toEqual(['kept']);
    expect(await a.search('swordfish marlin')).toEqual([]);
    expect(await a.get(first.fact.id)).toBeUndefined();
  });
});

describe('storage after forgetting', () => {
  it('no file of the file provider holds a forgotten fact or its history', async () => {
    const dir = await storage.tempDir();
    const store = await openFileFactStore(dir);
    const saved = await store.save(single('pin', 'alpha-4711', 1000), MemorySubjects.User, app);
    await store.save(single('pin', 'bravo-0815', 2000), MemorySubjects.User, app);
    await store.save(single('kept', 'unrelated', 1000), MemorySubjects.User, app);
    await store.forget(saved.fact.id);
    const factsDir = join(dir, 'memory', 'facts');
    for (const file of await readdir(factsDir)) {
      const text = await readFile(join(factsDir, file), 'utf8');
      expect(text).not.toContain('alpha-4711');
      expect(text).not.toContain('bravo-0815');
    }
    expect((await (await openFileFactStore(dir)).list()).map((fact) => fact.keyword)).toEqual(['kept']);
  });

  it('Redis holds nothing of a forgotten fact', async () => {
    const connection = await storage.connect();
    const store = await openRedisFactStore({ connection });
    const saved = await store.save(single('pin', 'alpha-4711', 1000), MemorySubjects.User, app);
    await store.forget(saved.fact.id);
    const keys = await connection.client.keys(`${connection.keyPrefix}*`);
    for (const key of keys) {
      const type = await connection.client.type(key);
      const dump = type === 'hash' ? JSON.stringify(await connection.client.hgetall(key)) : JSON.stringify(await connection.client.xrange(key, '-', '+'));
      expect(dump).not.toContain('alpha-4711');
    }
  });
});

describe('NoMemory', () => {
  it('stores nothing, as the seed default', async () => {
    await NoMemory.save(single('a', 'b', 1), MemorySubjects.User, app);
    expect(await NoMemory.list()).toEqual([]);
    expect(await NoMemory.loadAll(MemorySubjects.User, app)).toEqual([]);
  });
});
