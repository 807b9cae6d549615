/**
 * The file provider against real processes and real files: two processes saving 500 facts each at
 * once lose none; encrypted files hold no plaintext of any fact and every write has its own nonce;
 * a wrong key fails clearly and leaves the files as they were.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryCipher } from '../../../../src/main/memory/encryption';
import { openFileFactStore } from '../../../../src/main/memory/facts';
import { useMemoryStorage } from '../../../fixtures/memory-storage';
import { runMnemo, runTsFile, type CliRun } from '../../../fixtures/mnemo-cli';

const storage = useMemoryStorage('facts-files');

/** facts-writer.ts in a process of its own: saves `count` facts tagged `tag` to the data directory. */
function writer(dataDir: string, tag: string, count: number, keyFile?: string): Promise<CliRun> {
  return runTsFile('test/fixtures/facts-writer.ts', [dataDir, tag, String(count), ...(keyFile ? [keyFile] : [])]);
}

/** Every file under a folder: path → content. */
async function filesUnder(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name);
      out.set(path, await readFile(path));
    }
  }
  return out;
}

function digest(files: Map<string, Buffer>): string[] {
  return [...files.entries()].map(([path, content]) => `${path} ${createHash('sha256').update(content).digest('hex')}`).sort();
}

describe('two processes writing at once', () => {
  it('2 × 500 saves to the same data directory lose none', { timeout: 240_000 }, async () => {
    const dataDir = await storage.tempDir();
    const [a, b] = await Promise.all([writer(dataDir, 'alpha', 500), writer(dataDir, 'bravo', 500)]);
    expect(a).toMatchObject({ code: 0, stdout: 'done\n' });
    expect(b).toMatchObject({ code: 0, stdout: 'done\n' });
    const facts = await (await openFileFactStore(dataDir)).list();
    expect(facts).toHaveLength(1000);
    for (const tag of ['alpha', 'bravo']) {
      const values = new Set(facts.filter((fact) => fact.keyword.startsWith(tag)).map((fact) => fact.values[0]));
      expect(values.size).toBe(500);
      for (let i = 0; i < 500; i += 1) expect(values.has(`${tag} value ${i}`)).toBe(true);
    }
  });

  it('the same with the files encrypted', { timeout: 240_000 }, async () => {
    const dataDir = await storage.tempDir();
    const keyFile = join(await storage.tempDir(), 'memory.key');
    await writeFile(keyFile, 'a key for two writers\n');
    const [a, b] = await Promise.all([writer(dataDir, 'alpha', 150, keyFile), writer(dataDir, 'bravo', 150, keyFile)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const listed = await runMnemo(['facts', 'list', '--json', '--data-dir', dataDir, '--memory-key-file', keyFile]);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(300);
  });
});

describe('encryption at rest', () => {
  const KEY = 'correct horse battery staple';
  const secretValues = ['swordfish-7731', 'Oberwolfach Lane 12', 'cobalt-kestrel'];

  it('the files hold no plaintext of any fact; each write has a fresh 12-byte nonce', { timeout: 240_000 }, async () => {
    const dataDir = await storage.tempDir();
    const env = { MNEMO_MEMORY_KEY: KEY };
    for (const [index, value] of secretValues.entries()) {
      const added = await runMnemo(['facts', 'add', '--data-dir', dataDir, '--subject', 'user', '--scope', 'product:mnemo', '--keyword', `hidden-keyword-${index}`, '--description', `confidential description ${index}`, '--value', value], { env });
      expect(added.code, added.stderr).toBe(0);
    }
    // The same fact's line written twice (once superseded, once again) must not repeat a nonce.
    await runMnemo(['facts', 'add', '--data-dir', dataDir, '--subject', 'user', '--scope', 'product:mnemo', '--keyword', 'hidden-keyword-0', '--description', 'confidential description 0', '--value', 'changed-value'], { env });
    const files = await filesUnder(join(dataDir, 'memory'));
    expect(files.size).toBeGreaterThan(0);
    const everything = [...files.values()].map((content) => content.toString('latin1')).join('\n');
    for (const plain of [...secretValues, 'hidden-keyword', 'confidential description', 'changed-value']) expect(everything).not.toContain(plain);
    const log = (files.get(join(dataDir, 'memory', 'facts', 'facts.log')) as Buffer).toString('utf8').trim().split('\n');
    const sealed = log.slice(1);
    expect(sealed).toHaveLength(4);
    const nonces = sealed.map((line) => Buffer.from(line.slice(3), 'base64').subarray(0, 12).toString('hex'));
    expect(new Set(nonces).size).toBe(4);
    const listed = await runMnemo(['facts', 'list', '--json', '--data-dir', dataDir], { env });
    expect((JSON.parse(listed.stdout) as Array<{ values: string[] }>).flatMap((fact) => fact.values).sort()).toEqual(['Oberwolfach Lane 12', 'changed-value', 'cobalt-kestrel']);
  });

  it('a wrong key fails clearly and leaves what is stored as it was; no key is refused too', { timeout: 240_000 }, async () => {
    const dataDir = await storage.tempDir();
    await runMnemo(['facts', 'add', '--data-dir', dataDir, '--subject', 'user', '--scope', 'product:mnemo', '--keyword', 'pin', '--description', 'a pin', '--value', '4711'], { env: { MNEMO_MEMORY_KEY: KEY } });
    const before = digest(await filesUnder(dataDir));
    const wrong = { MNEMO_MEMORY_KEY: 'not the key' };
    const list = await runMnemo(['facts', 'list', '--data-dir', dataDir], { env: wrong });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('the memory key from MNEMO_MEMORY_KEY is not the key the memory in');
    expect(list.stderr).toContain('nothing was read or written');
    const add = await runMnemo(['facts', 'add', '--data-dir', dataDir, '--subject', 'user', '--scope', 'product:mnemo', '--keyword', 'pin', '--description', 'a pin', '--value', '0000'], { env: wrong });
    expect(add.code).toBe(1);
    const forget = await runMnemo(['facts', 'forget', 'f-anything', '--data-dir', dataDir], { env: wrong });
    expect(forget.code).toBe(1);
    const none = await runMnemo(['facts', 'list', '--data-dir', dataDir], { env: { MNEMO_MEMORY_KEY: '' } });
    expect(none.code).toBe(1);
    const without = await runMnemo(['facts', 'add', '--data-dir', dataDir, '--subject', 'user', '--scope', 'product:mnemo', '--keyword', 'pin', '--description', 'a pin', '--value', '0000']);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('are encrypted: give the memory key');
    expect(digest(await filesUnder(dataDir))).toEqual(before);
    const right = await runMnemo(['facts', 'list', '--json', '--data-dir', dataDir], { env: { MNEMO_MEMORY_KEY: KEY } });
    expect(JSON.parse(right.stdout)).toMatchObject([{ keyword: 'pin', values: ['4711'] }]);
    // Plain facts opened with a key are refused too, and leave no key check behind.
    const plain = await storage.tempDir();
    await runMnemo(['facts', 'add', '--data-dir', plain, '--subject', 'user', '--scope', 'product:mnemo', '--keyword', 'pin', '--description', 'a pin', '--value', '4711']);
    const plainBefore = digest(await filesUnder(plain));
    const keyed = await runMnemo(['facts', 'list', '--data-dir', plain], { env: { MNEMO_MEMORY_KEY: KEY } });
    expect(keyed.code).toBe(1);
    expect(keyed.stderr).toContain('are not encrypted, but a memory key was given');
    expect(digest(await filesUnder(plain))).toEqual(plainBefore);
  });

  it('the cipher: AES-256-GCM, a new nonce every seal, a wrong key or a changed byte refused', () => {
    const cipher = new MemoryCipher(Buffer.alloc(32, 7));
    const a = cipher.seal('same text');
    const b = cipher.seal('same text');
    expect(a).not.toBe(b);
    expect(cipher.open(a)).toBe('same text');
    expect(() => new MemoryCipher(Buffer.alloc(32, 8)).open(a)).toThrow(/does not open with this key/);
    const raw = Buffer.from(a.slice(3), 'base64');
    raw[14] = (raw[14] as number) ^ 1;
    expect(() => cipher.open(`v1:${raw.toString('base64')}`)).toThrow(/does not open/);
  });
});
