/**
 * A facts log whose last record was torn (a crash in the middle of its write) loses nothing in
 * silence: the torn bytes are kept aside as `facts.log.torn-<time>` (0600, even under umask 000),
 * said as a warning, reported by `mnemo facts check`, and neither the next `facts add` nor any
 * later one erases them. Real files, the real CLI in child processes; and the store itself, for a
 * record torn by another process while this one had the store open.
 */
import { appendFile, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileFactStore } from '../../../../src/main/memory/facts/file-provider';
import { FactType } from '../../../../src/main/memory/facts/model';
import type { FactLogCheck } from '../../../../src/main/memory/facts/provider';
import { useMemoryStorage } from '../../../fixtures/memory-storage';
import { runMnemo } from '../../../fixtures/mnemo-cli';

const storage = useMemoryStorage('facts-torn');
const TORN = '{"put":{"id":"f-0123456789ab","subject":"user","scope":"cross-product","keyw';
const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

let umask: number;
beforeAll(() => {
  // The children inherit it: a file made without Mnemo's own mode would be 0666.
  umask = process.umask(0);
});
afterAll(() => {
  process.umask(umask);
});

const facts = (dataDir: string) => join(dataDir, 'memory', 'facts');
const tornFiles = async (dataDir: string) => (await readdir(facts(dataDir))).filter((name) => name.startsWith('facts.log.torn-')).map((name) => join(facts(dataDir), name));

async function add(dataDir: string, keyword: string, value: string): Promise<{ stderr: string }> {
  const run = await runMnemo(['facts', 'add', '--data-dir', dataDir, '--subject', 'user', '--scope', 'cross-product', '--keyword', keyword, '--description', keyword, '--value', value]);
  expect(run.code, run.stderr).toBe(0);
  return run;
}

async function listed(dataDir: string): Promise<string[]> {
  const run = await runMnemo(['facts', 'list', '--json', '--data-dir', dataDir]);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as Array<{ keyword: string }>).map((fact) => fact.keyword).sort();
}

describe.skipIf(process.platform === 'win32')('a torn last record of facts.log', { timeout: 240_000 }, () => {
  it('is kept aside (0600) and reported by mnemo facts check, which says the log is whole the next time; exit 0 both times', async () => {
    const dataDir = await storage.tempDir();
    await add(dataDir, 'editor', 'Vim');
    const log = join(facts(dataDir), 'facts.log');
    await appendFile(log, TORN);

    const check = await runMnemo(['facts', 'check', '--data-dir', dataDir]);
    expect(check.code, check.stderr).toBe(0);
    const [aside] = await tornFiles(dataDir);
    expect(aside).toBeDefined();
    expect(await readFile(aside as string, 'utf8')).toBe(TORN);
    expect(await mode(aside as string)).toBe('600');
    expect(check.stdout).toBe(`the facts log ${log} was recovered: 1 record, 1 fact whole\n  a torn last record (${TORN.length} bytes, a write cut short) was kept aside as ${aside}\n`);
    expect(check.stderr).toContain(`warning: ${log} ended in a torn record (${TORN.length} bytes: a write cut short); it was kept aside as ${aside}`);
    // The log ends at its last whole record again.
    expect((await readFile(log, 'utf8')).endsWith('\n')).toBe(true);

    const again = await runMnemo(['facts', 'check', '--json', '--data-dir', dataDir]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
    expect(JSON.parse(again.stdout) as FactLogCheck).toEqual({ log, exists: true, records: 1, facts: 1, recovered: [], keptAside: [aside], damaged: [] });
    const text = await runMnemo(['facts', 'check', '--data-dir', dataDir]);
    expect(text.stdout).toBe(`the facts log ${log} is whole: 1 record, 1 fact\n  torn records kept aside before: ${aside}\n`);
  });

  it('a store never written: nothing to check, said in one line, exit 0', async () => {
    const dataDir = await storage.tempDir();
    const check = await runMnemo(['facts', 'check', '--data-dir', dataDir]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toBe(`there is no facts log yet (${join(facts(dataDir), 'facts.log')}): nothing to check\n`);
  });

  it('survives the next facts add, which says where it was kept, and every add after it', async () => {
    const dataDir = await storage.tempDir();
    await add(dataDir, 'editor', 'Vim');
    await appendFile(join(facts(dataDir), 'facts.log'), TORN);

    const next = await add(dataDir, 'shell', 'zsh');
    const [aside] = await tornFiles(dataDir);
    expect(next.stderr).toContain(`it was kept aside as ${aside}`);
    expect(await readFile(aside as string, 'utf8')).toBe(TORN);
    await add(dataDir, 'browser', 'Firefox');
    expect(await tornFiles(dataDir)).toEqual([aside]);
    expect(await readFile(aside as string, 'utf8')).toBe(TORN);
    expect(await listed(dataDir)).toEqual(['browser', 'editor', 'shell']);

    const check = await runMnemo(['facts', 'check', '--json', '--data-dir', dataDir]);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ records: 3, facts: 3, recovered: [], keptAside: [aside] });
  });

  it('torn by another process while this one has the store open: kept aside at the next write, not cut away', async () => {
    const dataDir = await storage.tempDir();
    let now = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
    const store = await openFileFactStore(dataDir, { now: () => now });
    const fact = (keyword: string, value: string) => ({ concept: { keyword, description: keyword, factType: FactType.SINGLE }, value, timestamp: now });
    await store.save(fact('editor', 'Vim'), 'user', 'cross-product');
    await appendFile(join(facts(dataDir), 'facts.log'), TORN);
    now += 1000;
    await store.save(fact('shell', 'zsh'), 'user', 'cross-product');
    const aside = join(facts(dataDir), 'facts.log.torn-20250102T030406.678Z');
    expect(await tornFiles(dataDir)).toEqual([aside]);
    expect(await readFile(aside, 'utf8')).toBe(TORN);
    expect(store.warnings).toContain(`${join(facts(dataDir), 'facts.log')} ended in a torn record (${TORN.length} bytes: a write cut short); it was kept aside as ${aside}, and the log goes on from its last whole record`);
    expect(await store.check()).toMatchObject({ records: 2, facts: 2, recovered: [{ file: aside, bytes: TORN.length }], keptAside: [aside] });
    // A reader opening the store now finds both facts and nothing torn.
    const reader = await openFileFactStore(dataDir);
    expect((await reader.list()).map((stored) => stored.keyword).sort()).toEqual(['editor', 'shell']);
    expect(reader.warnings).toEqual([]);
  });
});
