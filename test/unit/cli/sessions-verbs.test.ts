/**
 * `mnemo sessions delete ID` and `mnemo sessions prune`: the verbs as subcommands, and the flag
 * forms they replace (`--delete ID`, `--prune`) as aliases: the same output, the same exit codes,
 * the same effect on disk. Two identical data directories, one for each spelling.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mnemo, recordSession, releaseOpenRecorders, type CliRun } from '../store/helpers';

const DAY = 86_400_000;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-sessions-verbs-'));
let original: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  original = mkdtempSync(join(scratch, 'original-'));
  const now = Date.now();
  ids.ancient = (await recordSession(original, { task: 'ancient', startedAt: now - 100 * DAY })).id;
  ids.old = (await recordSession(original, { task: 'old', startedAt: now - 10 * DAY })).id;
  ids.fresh = (await recordSession(original, { task: 'fresh', startedAt: now - 1000 })).id;
  await releaseOpenRecorders();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the original data directory; the path inside the output is the same for both spellings. */
function copyOf(name: string): string {
  const dir = join(mkdtempSync(join(scratch, `${name}-`)), 'data');
  cpSync(original, dir, { recursive: true });
  return dir;
}

/** Where a command line names the data directory: each spelling gets a copy of its own. */
const DATA = '{data}';

/**
 * Runs the verb form and the flag form, each on its own copy of the data directory, and checks
 * that they agree (output with the directory named alike, exit code) and exit with `code`.
 */
async function agreeing(verb: string[], flag: string[], code: number): Promise<{ run: CliRun; dirs: string[] }> {
  const dirs = [copyOf('verb'), copyOf('flag')];
  const runs = await Promise.all([verb, flag].map((args, i) => mnemo(args.map((arg) => (arg === DATA ? (dirs[i] as string) : arg)))));
  const [byVerb, byFlag] = runs.map((run, i) => ({ code: run.code, stdout: run.stdout.replaceAll(dirs[i] as string, 'DATA'), stderr: run.stderr.replaceAll(dirs[i] as string, 'DATA') }));
  expect(byVerb?.code, byVerb?.stderr).toBe(code);
  expect(byVerb).toEqual(byFlag);
  return { run: byVerb as CliRun, dirs };
}

const sessionIds = (run: CliRun) => (JSON.parse(run.stdout) as Array<{ id: string }>).map((session) => session.id);
const gone = (dirs: string[], id: string) => dirs.every((dir) => !existsSync(join(dir, 'sessions', id)));

describe('mnemo sessions delete ID', { timeout: 60_000, concurrent: true }, () => {
  it('deletes the session and lists the rest, as --delete ID does', async () => {
    const id = ids.old as string;
    const { run, dirs } = await agreeing(['sessions', 'delete', id, '--json', '--data-dir', DATA], ['sessions', '--delete', id, '--json', '--data-dir', DATA], 0);
    expect(run.stderr).toBe(`deleted session ${id}\n`);
    expect(sessionIds(run)).toEqual([ids.fresh, ids.ancient]);
    expect(gone(dirs, id)).toBe(true);
  });

  it('takes the options before the verb too, and a prefix or "last"', async () => {
    const { run } = await agreeing(['sessions', '--data-dir', DATA, 'delete', 'last'], ['sessions', '--data-dir', DATA, '--delete', 'last'], 0);
    expect(run.stderr).toBe(`deleted session ${ids.fresh}\n`);
    expect(run.stdout).toMatch(/^ID\s+STARTED/);
  });

  it('a session that does not exist: exit 1 and the same message', async () => {
    const missing = '20990101-000000-abcdef';
    const { run } = await agreeing(['sessions', 'delete', missing, '--data-dir', DATA], ['sessions', '--delete', missing, '--data-dir', DATA], 1);
    expect(run.stderr).toMatch(/no session "20990101-000000-abcdef"/);
  });

  it('without an id: exit 2', async () => {
    const missing = await mnemo(['sessions', 'delete', '--data-dir', copyOf('no-id')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing required argument 'id'/);
  });
});

describe('mnemo sessions prune', { timeout: 60_000, concurrent: true }, () => {
  /** `sessions prune ARGS` and `sessions --prune ARGS`, agreeing. */
  const prune = (args: string[], code: number) => agreeing(['sessions', 'prune', ...args, '--data-dir', DATA], ['sessions', '--prune', ...args, '--data-dir', DATA], code);

  it('--retention-days: deletes what is older and lists the rest, as --prune does', async () => {
    const { run, dirs } = await prune(['--retention-days', '30', '--json'], 0);
    expect(run.stderr).toMatch(new RegExp(`^deleted ${ids.ancient} \\(older than 30 days, .*\\)\\npruned 1 session\\(s\\), freed `));
    expect(sessionIds(run)).toEqual([ids.fresh, ids.old]);
    expect(gone(dirs, ids.ancient as string)).toBe(true);
  });

  it('--retention-gb, and nothing to prune without a retention: the same output and exit codes', async () => {
    expect((await prune(['--retention-gb', '0.000001', '--json'], 0)).run.stderr).toMatch(/over the size limit/);
    expect((await prune([], 0)).run.stderr).toMatch(/nothing to prune: no retention set/);
  });

  it('a bad value: exit 2 in both spellings', async () => {
    const { run } = await prune(['--retention-gb', 'lots'], 2);
    expect(run.stderr).toMatch(/--retention-gb must be a positive number, got "lots"/);
  });

  it('the help of each verb names its own options', async () => {
    const help = await mnemo(['sessions', 'prune', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: mnemo sessions prune \[options\]/);
    expect(help.stdout).toMatch(/--retention-days <n>/);
    expect(help.stdout).toMatch(/--data-dir <dir>/);
    const listing = await mnemo(['sessions', '--help']);
    expect(listing.stdout).toMatch(/delete \[options\] <id>/);
    expect(listing.stdout).toMatch(/--delete <id>/);
  });
});
