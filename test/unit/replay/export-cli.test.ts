/**
 * `mnemo export` end to end: the real CLI in a child process, a real session on disk, the files
 * it writes read back.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_STEPS, recordFixtureSession, TASK, type RecordedFixture } from '../../fixtures/session-fixture';
import { runMnemo } from '../../fixtures/mnemo-cli';


interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function mnemo(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return runMnemo(args, { env });
}

const exists = (path: string) => stat(path).then(() => true, () => false);

describe('mnemo export', { timeout: 60_000, concurrent: true }, () => {
  let dataDir: string;
  let outDir: string;
  let fixture: RecordedFixture;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mnemo-export-data-'));
    outDir = await mkdtemp(join(tmpdir(), 'mnemo-export-out-'));
    fixture = await recordFixtureSession(dataDir, { missingStep: null });
  });

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('writes the HTML report and the raw record, and says so', async () => {
    const dir = join(outDir, 'both');
    await mkdir(dir);
    const html = join(dir, 'report.html');
    const json = join(dir, 'record.json');
    const run = await mnemo(['export', fixture.sessionId, '--html', html, '--json', json, '--data-dir', dataDir]);
    // Written where the user chose, outside the data directory: a reminder of what a report holds.
    expect(run.stderr).toBe('mnemo export: note: the report holds the screenshots of the session (what was on the screen); share it with care\n');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^wrote ${html}: HTML report of session ${fixture.sessionId}, 6 step\\(s\\), \\d+\\.\\d KB$`));
    expect(lines[1]).toMatch(new RegExp(`^wrote ${json}: raw record of session ${fixture.sessionId}, \\d+ event\\(s\\)`));

    const page = await readFile(html, 'utf8');
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page.match(/<section class="step"/g)).toHaveLength(FIXTURE_STEPS.length);
    expect(page).toContain(`data:image/jpeg;base64,${fixture.screenshots.get(3)?.toString('base64')}`);

    const record = JSON.parse(await readFile(json, 'utf8')) as { meta: { id: string; task: string; status: string }; events: Array<{ type: string }>; warnings: unknown[] };
    expect(Object.keys(record)).toEqual(['meta', 'events', 'warnings']);
    expect(record.meta).toMatchObject({ id: fixture.sessionId, task: TASK, status: 'finished' });
    const lineCount = (await readFile(join(fixture.directory, 'events.jsonl'), 'utf8')).trim().split('\n').length;
    expect(record.events).toHaveLength(lineCount);
    expect(record.events[0]?.type).toBe('run-started');
    expect(record.events.at(-1)?.type).toBe('run-finished');
    expect(record.warnings).toEqual([]);
    // Written by rename: nothing half-written left beside them.
    expect((await readdir(dir)).sort()).toEqual(['record.json', 'report.html']);
  });

  it('finds the data directory through MNEMO_DATA_DIR', async () => {
    const json = join(outDir, 'env.json');
    const run = await mnemo(['export', fixture.sessionId, '--json', json], { MNEMO_DATA_DIR: dataDir });
    expect(run.code).toBe(0);
    expect(JSON.parse(await readFile(json, 'utf8')).meta.id).toBe(fixture.sessionId);
  });

  it('exits 2 when neither --html nor --json is given', async () => {
    const run = await mnemo(['export', fixture.sessionId, '--data-dir', dataDir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('mnemo export: nothing to write: give --html FILE, --json FILE or both\n');
    expect(run.stdout).toBe('');
  });

  it('exits 2 when --html and --json name the same file', async () => {
    const same = join(outDir, 'same.out');
    const run = await mnemo(['export', fixture.sessionId, '--html', same, '--json', same, '--data-dir', dataDir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('name the same file');
    expect(await exists(same)).toBe(false);
  });

  it('exits 2 on an unknown flag or a missing session id', async () => {
    const flag = await mnemo(['export', fixture.sessionId, '--pdf', 'x.pdf', '--data-dir', dataDir]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("mnemo export: unknown option '--pdf'");
    const id = await mnemo(['export']);
    expect(id.code).toBe(2);
    expect(id.stderr).toContain("missing required argument 'session-id'");
  });

  it('exits 1 for an unknown session, writing nothing', async () => {
    const html = join(outDir, 'unknown.html');
    const run = await mnemo(['export', '20990101-000000-abcdef', '--html', html, '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`mnemo export: no session "20990101-000000-abcdef" in ${join(dataDir, 'sessions')}\n`);
    expect(await exists(html)).toBe(false);
    const dots = await mnemo(['export', '../etc', '--html', html, '--data-dir', dataDir]);
    expect(dots.code).toBe(1);
    expect(dots.stderr).toContain('is not a session id');
  });

  it('exits 1 when the file cannot be written', async () => {
    const html = join(outDir, 'no-such-folder', 'report.html');
    const run = await mnemo(['export', fixture.sessionId, '--html', html, '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`mnemo export: cannot write ${html}:`);
    expect(run.stdout).toBe('');
  });
});
