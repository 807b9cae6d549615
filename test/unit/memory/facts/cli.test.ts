/**
 * `mnemo facts` and `mnemo memory working`, run as a user runs them: the JSON shapes, the rules
 * seen from the command line, exit 2 on a bad subject, scope or argument, and the same commands
 * against a real redis-server.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FactJson } from '../../../../src/main/memory/facts/model';
import { useMemoryStorage } from '../../../fixtures/memory-storage';
import { runMnemo } from '../../../fixtures/mnemo-cli';

const storage = useMemoryStorage('facts-cli', { redis: true });

async function add(dataDir: string, args: string[], extra: string[] = []): Promise<string> {
  const run = await runMnemo(['facts', 'add', '--data-dir', dataDir, ...args, ...extra]);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.trim();
}

describe('mnemo facts', () => {
  it('add prints the id (or the fact with --json); list and search print the documented objects', { timeout: 240_000 }, async () => {
    const dataDir = await storage.tempDir();
    const id = await add(dataDir, ['--subject', 'user', '--scope', 'product:mnemo', '--keyword', 'preferred-editor', '--description', "The user's preferred text editor", '--value', 'Vim']);
    expect(id).toMatch(/^f-[0-9a-f]{12}$/);
    const multiple = await runMnemo(['facts', 'add', '--data-dir', dataDir, '--subject', 'machine', '--scope', 'agent:mnemo@box', '--keyword', 'installed-editors', '--description', 'Editors installed here', '--value', 'vim', '--value', 'code', '--multiple', '--json']);
    const fact = JSON.parse(multiple.stdout) as FactJson;
    expect(Object.keys(fact)).toEqual(['id', 'subject', 'scope', 'keyword', 'description', 'factType', 'values', 'timestamp']);
    expect(fact).toMatchObject({ subject: 'machine', scope: 'agent:mnemo@box', keyword: 'installed-editors', factType: 'multiple', values: ['vim', 'code'] });
    await add(dataDir, ['--subject', 'everything', '--scope', 'cross-product', '--keyword', 'company', '--description', 'Where the user works', '--value', 'ACME']);

    const listed = JSON.parse((await runMnemo(['facts', 'list', '--json', '--data-dir', dataDir])).stdout) as FactJson[];
    expect(listed.map((f) => f.keyword).sort()).toEqual(['company', 'installed-editors', 'preferred-editor']);
    expect(listed.at(-1)?.subject).toBe('everything');
    expect(listed.find((f) => f.id === id)).toEqual({ id, subject: 'user', scope: 'product:mnemo', keyword: 'preferred-editor', description: "The user's preferred text editor", factType: 'single', values: ['Vim'], timestamp: expect.any(Number) });
    const bySubject = JSON.parse((await runMnemo(['facts', 'list', '--json', '--subject', 'machine', '--data-dir', dataDir])).stdout) as FactJson[];
    expect(bySubject.map((f) => f.keyword)).toEqual(['installed-editors']);
    const byScope = JSON.parse((await runMnemo(['facts', 'list', '--json', '--scope', 'cross-product', '--data-dir', dataDir])).stdout) as FactJson[];
    expect(byScope.map((f) => f.keyword)).toEqual(['company']);

    const found = JSON.parse((await runMnemo(['facts', 'search', 'which text editor', '--json', '--data-dir', dataDir])).stdout) as FactJson[];
    expect(found[0]).toMatchObject({ id, keyword: 'preferred-editor', score: expect.any(Number) });
    expect(found.every((f, i) => i === 0 || (found[i - 1]?.score ?? 0) >= (f.score ?? 0))).toBe(true);
    const text = await runMnemo(['facts', 'list', '--data-dir', dataDir]);
    expect(text.stdout).toContain(`${id}  user  product:mnemo  preferred-editor: Vim`);
  });

  it('the same fact twice is stored once; a new value supersedes; forget removes it', { timeout: 240_000 }, async () => {
    const dataDir = await storage.tempDir();
    const args = ['--subject', 'user', '--scope', 'product:mnemo', '--keyword', 'home-city', '--description', 'Where the user lives'];
    const first = await add(dataDir, [...args, '--value', 'Lyon']);
    expect(await add(dataDir, [...args, '--value', 'Lyon'])).toBe(first);
    expect(await add(dataDir, [...args, '--value', 'Paris'])).toBe(first);
    const listed = JSON.parse((await runMnemo(['facts', 'list', '--json', '--data-dir', dataDir])).stdout) as FactJson[];
    expect(listed).toMatchObject([{ id: first, values: ['Paris'] }]);
    const forget = await runMnemo(['facts', 'forget', first, '--data-dir', dataDir]);
    expect(forget.code).toBe(0);
    expect(JSON.parse((await runMnemo(['facts', 'list', '--json', '--data-dir', dataDir])).stdout)).toEqual([]);
    const again = await runMnemo(['facts', 'forget', first, '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no fact ${first}`);
  });

  it('exit 2 with a clear message on a bad scope, subject or argument', { timeout: 240_000 }, async () => {
    const dataDir = await storage.tempDir();
    const base = ['facts', 'add', '--data-dir', dataDir, '--keyword', 'k', '--description', 'd', '--value', 'v'];
    const cases: Array<[string[], RegExp]> = [
      [[...base, '--subject', 'user', '--scope', 'product'], /"product" is not a scope: scopes are written agent:<name>, feature:<id>, product:<name> or cross-product/],
      [[...base, '--subject', 'user', '--scope', 'galaxy:far'], /is not a scope/],
      [[...base, '--subject', 'customer', '--scope', 'cross-product'], /unknown subject "customer" \(known: machine, user, everything/],
      [[...base, '--subject', 'User!', '--scope', 'cross-product'], /"User!" is not a subject name/],
      [['facts', 'add', '--data-dir', dataDir, '--subject', 'user', '--scope', 'cross-product', '--keyword', 'k', '--description', 'd'], /required option '--value <value>' not specified/],
      [['facts', 'add', '--data-dir', dataDir, '--subject', 'user', '--scope', 'cross-product', '--keyword', 'k', '--description', 'd', '--value', 'a', '--value', 'b'], /a single fact has one value/],
      [['facts', 'list', '--data-dir', dataDir, '--scope', 'feature:'], /"feature:" is not a scope/],
      [['facts', 'list', '--data-dir', dataDir, '--subject', 'nobody'], /unknown subject "nobody"/],
      [['facts', 'search', 'x', '--limit', '0', '--data-dir', dataDir], /--limit must be a positive integer/],
      [['facts', 'list', '--data-dir', dataDir, '--redis-url', 'http://localhost'], /is not a Redis URL/],
      [['memory', 'working', '--data-dir', dataDir, '--conversation', '../etc'], /is not a conversation id/],
    ];
    for (const [args, message] of cases) {
      const run = await runMnemo(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('custom subjects come from the settings file', { timeout: 240_000 }, async () => {
    const dataDir = await storage.tempDir();
    await writeFile(join(dataDir, 'config.json'), JSON.stringify({ memory: { facts: { subjects: [{ name: 'project', promptDescription: 'The project at hand', priorityLevel: 0 }] } } }));
    const id = await add(dataDir, ['--subject', 'project', '--scope', 'feature:billing', '--keyword', 'build-tool', '--description', 'How it builds', '--value', 'gradle']);
    expect(id).toMatch(/^f-/);
  });

  it('Redis unreachable at start: the local files with a warning where the settings allow it', { timeout: 240_000 }, async () => {
    const dataDir = await storage.tempDir();
    await writeFile(join(dataDir, 'config.json'), JSON.stringify({ memory: { redisUrl: 'redis://127.0.0.1:1', redisFallback: 'local' } }));
    const id = await add(dataDir, ['--subject', 'user', '--scope', 'product:mnemo', '--keyword', 'offline', '--description', 'Saved while Redis was away', '--value', 'kept locally']);
    const listed = await runMnemo(['facts', 'list', '--json', '--data-dir', dataDir]);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain('mnemo: warning: cannot reach Redis at redis://127.0.0.1:1');
    expect(listed.stderr).toContain(`the memory is kept in ${dataDir} instead`);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id, values: ['kept locally'] }]);
  });

  it('Redis unreachable: exit 1 naming the server; two data directories share facts through Redis', { timeout: 240_000 }, async () => {
    const [a, b] = [await storage.tempDir(), await storage.tempDir()];
    const down = await runMnemo(['facts', 'list', '--data-dir', a, '--redis-url', 'redis://127.0.0.1:1']);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('cannot reach Redis at redis://127.0.0.1:1');
    const env = { MNEMO_REDIS_URL: storage.redis.url };
    const id = await add(a, ['--subject', 'user', '--scope', 'product:mnemo', '--keyword', 'shared-fact', '--description', 'Seen by every machine', '--value', 'hello from A'], ['--redis-url', storage.redis.url]);
    const seen = await runMnemo(['facts', 'search', 'shared', '--json', '--data-dir', b], { env });
    expect(JSON.parse(seen.stdout)).toMatchObject([{ id, values: ['hello from A'] }]);
    const forgot = await runMnemo(['facts', 'forget', id, '--data-dir', b], { env });
    expect(forgot.code).toBe(0);
    expect(JSON.parse((await runMnemo(['facts', 'list', '--json', '--data-dir', a, '--redis-url', storage.redis.url])).stdout)).toEqual([]);
  });
});

describe('mnemo memory working', () => {
  it('prints the working memory kept for the conversation (text and --json); none is exit 1', { timeout: 240_000 }, async () => {
    const dataDir = await storage.tempDir();
    const { FileMemoryManager } = await import('../../../../src/main/memory/working');
    await new FileMemoryManager(dataDir).store({ conversation_id: 'conv-abc', working_memory: 'The user is planning a trip to Lyon.' });
    const text = await runMnemo(['memory', 'working', '--conversation', 'conv-abc', '--data-dir', dataDir]);
    expect(text).toMatchObject({ code: 0, stdout: 'The user is planning a trip to Lyon.\n' });
    const json = JSON.parse((await runMnemo(['memory', 'working', '--conversation', 'conv-abc', '--json', '--data-dir', dataDir])).stdout) as Record<string, unknown>;
    expect(json).toEqual({ conversationId: 'conv-abc', memory: 'The user is planning a trip to Lyon.', updatedAt: expect.any(Number) });
    const none = await runMnemo(['memory', 'working', '--conversation', 'conv-none', '--data-dir', dataDir]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('conversation conv-none has no working memory yet');
  });
});
