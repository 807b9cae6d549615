/**
 * `mnemo sessions` and `mnemo show` end to end: the real CLI in a child process over real data
 * directories; stdout JSON, stderr messages and exit codes checked.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentWriter } from '../../../src/main/store/writer-identity';
import { deadPid, mnemo, recordSession, releaseOpenRecorders, STEP_COST, type Recorded } from './helpers';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-store-cli-'));
const DAY = 86_400_000;

let dataDir: string;
let old: Recorded;
let form: Recorded;
let crashed: Recorded;

beforeAll(async () => {
  dataDir = mkdtempSync(join(scratch, 'data-'));
  const now = Date.now();
  old = await recordSession(dataDir, { task: 'Open the settings', startedAt: now - 2 * DAY, steps: 2 });
  form = await recordSession(dataDir, { task: 'Fill in the Form with "Ada"', startedAt: now - DAY, steps: 3, finish: 'failed', replies: true });
  crashed = await recordSession(dataDir, { task: 'Crashed run', startedAt: now - 1000, steps: 2, finish: null, writer: { ...currentWriter(), pid: deadPid() } });
});
afterAll(async () => {
  await releaseOpenRecorders();
  rmSync(scratch, { recursive: true, force: true });
});

function json<T>(run: { code: number | null; stdout: string; stderr: string }): T {
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout) as T;
}

describe('mnemo sessions', { timeout: 60_000, concurrent: true }, () => {
  it('--json: {id, task, status, startedAt, steps, cost}, newest first; a dead run marked interrupted', async () => {
    const run = await mnemo(['sessions', '--json', '--data-dir', dataDir]);
    expect(run.stderr).toBe('');
    const list = json<Array<Record<string, unknown>>>(run);
    expect(list).toEqual([
      { id: crashed.id, task: 'Crashed run', status: 'interrupted', startedAt: new Date(crashed.events[0]!.at - 100).toISOString(), steps: 2, cost: STEP_COST * 2 },
      { id: form.id, task: 'Fill in the Form with "Ada"', status: 'failed', startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), steps: 3, cost: STEP_COST * 3 },
      { id: old.id, task: 'Open the settings', status: 'finished', startedAt: expect.any(String), steps: 2, cost: STEP_COST * 2 },
    ]);
    expect(JSON.parse(readFileSync(join(crashed.directory, 'session.json'), 'utf8')).status).toBe('interrupted');
  });

  it('--search matches task words ignoring case, and status', async () => {
    const byTask = json<Array<{ id: string }>>(await mnemo(['sessions', '--json', '--search', 'form ADA', '--data-dir', dataDir]));
    expect(byTask.map((s) => s.id)).toEqual([form.id]);
    const byStatus = json<Array<{ id: string }>>(await mnemo(['sessions', '--json', '--search', 'Finished', '--data-dir', dataDir]));
    expect(byStatus.map((s) => s.id)).toEqual([old.id]);
  });

  it('without --json: a table; MNEMO_DATA_DIR is the default data directory', async () => {
    const run = await mnemo(['sessions'], { MNEMO_DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STARTED\s+STATUS\s+STEPS\s+COST\s+TASK$/);
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(new RegExp(`^${form.id}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+failed\\s+3\\s+\\$0\\.0075\\s+Fill in the Form with "Ada"$`));
  });

  it('a new data directory lists the sample session to explore; once it is deleted: [] or a message, exit 0', async () => {
    const empty = join(scratch, 'empty');
    const listed = json(await mnemo(['sessions', '--json', '--data-dir', empty])) as Array<{ id: string; sample?: boolean }>;
    expect(listed).toEqual([expect.objectContaining({ sample: true, status: 'finished' })]);
    const deleted = await mnemo(['sessions', '--delete', (listed[0] as { id: string }).id, '--json', '--data-dir', empty]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(json(deleted)).toEqual([]);
    const text = await mnemo(['sessions', '--data-dir', empty]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(`no sessions in ${empty}\n`);
  });

  it('--prune deletes past the retention (flags or config.json), then lists the rest', async () => {
    const dir = mkdtempSync(join(scratch, 'prune-'));
    const ancient = await recordSession(dir, { task: 'ancient', startedAt: Date.now() - 100 * DAY });
    await recordSession(dir, { task: 'fresh' });
    const byFlag = await mnemo(['sessions', '--json', '--prune', '--retention-days', '30', '--data-dir', dir]);
    expect(json<Array<{ task: string }>>(byFlag).map((s) => s.task)).toEqual(['fresh']);
    expect(byFlag.stderr).toMatch(new RegExp(`deleted ${ancient.id} \\(older than 30 days`));
    expect(existsSync(ancient.directory)).toBe(false);

    await recordSession(dir, { task: 'old enough', startedAt: Date.now() - 10 * DAY });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ store: { retentionDays: 5 } }));
    const byConfig = await mnemo(['sessions', '--json', '--prune', '--data-dir', dir]);
    expect(json<Array<{ task: string }>>(byConfig).map((s) => s.task)).toEqual(['fresh']);
  });

  it('exit 2 for bad arguments and a bad store section', async () => {
    const unknownFlag = await mnemo(['sessions', '--jsno', '--data-dir', dataDir]);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toMatch(/unknown option '--jsno'/);
    const withoutPrune = await mnemo(['sessions', '--retention-days', '3', '--data-dir', dataDir]);
    expect(withoutPrune.code).toBe(2);
    expect(withoutPrune.stderr).toMatch(/go with --prune/);
    const badNumber = await mnemo(['sessions', '--prune', '--retention-gb', 'lots', '--data-dir', dataDir]);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toMatch(/--retention-gb must be a positive number/);
    const dir = mkdtempSync(join(scratch, 'config-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ store: { retentionDayz: 3 } }));
    const badConfig = await mnemo(['sessions', '--prune', '--data-dir', dir]);
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toMatch(/store.*retentionDayz/);
  });
});

describe('mnemo show', { timeout: 60_000, concurrent: true }, () => {
  interface Shown {
    id: string;
    task: string;
    status: string;
    warnings: Array<{ file: string; line: number; message: string }>;
    steps: Array<{ step: number; complete: boolean; action: unknown; result: unknown; thought: string | null; screenshot: string | null; reply: string | null }>;
  }

  it('--json: the steps with action, result, thought and the screenshot as an absolute path', async () => {
    const run = await mnemo(['show', form.id, '--json', '--data-dir', dataDir]);
    expect(run.stderr).toBe('');
    const shown = json<Shown>(run);
    expect(shown).toMatchObject({ id: form.id, task: 'Fill in the Form with "Ada"', status: 'failed', warnings: [] });
    expect(shown.steps).toHaveLength(3);
    shown.steps.forEach((step, i) => {
      expect(step).toMatchObject({
        step: i + 1,
        complete: true,
        action: { type: 'mouse_move', x: 100 * (i + 1), y: 50 },
        result: { ok: true, type: 'mouse_move', points: [{ x: 200 * (i + 1), y: 100 }] },
        thought: `Step ${i + 1}: move on.`,
        screenshot: join(form.directory, 'screenshots', `step-000${i + 1}.jpg`),
        reply: join(form.directory, 'replies', `step-000${i + 1}.txt`),
      });
      expect(readFileSync(step.screenshot!)).toEqual(Buffer.alloc(2000, i + 1));
    });
  });

  it('a unique prefix of an id, or "last"', async () => {
    expect(json<Shown>(await mnemo(['show', old.id.slice(0, 19), '--json', '--data-dir', dataDir])).id).toBe(old.id);
    expect(json<Shown>(await mnemo(['show', 'last', '--json', '--data-dir', dataDir])).id).toBe(crashed.id);
  });

  it('without --json: readable text', async () => {
    const run = await mnemo(['show', form.id, '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^session  ${form.id}\\ntask     Fill in the Form with "Ada"\\nstatus   failed: it went wrong\\n`));
    expect(run.stdout).toContain('\nstep 2  (0.6 s, $0.0050 so far)\n  thought: Step 2: move on.\n  → move to (200, 50)  ✓\n  screenshot: ');
  });

  it('a damaged record still shows, with the warnings on stderr and in the JSON', async () => {
    const dir = mkdtempSync(join(scratch, 'damaged-'));
    const session = await recordSession(dir, { steps: 3 });
    const eventsPath = join(session.directory, 'events.jsonl');
    const lines = readFileSync(eventsPath, 'utf8').split('\n');
    lines[2] = '{"type":"observation", BROKEN';
    writeFileSync(eventsPath, lines.join('\n'));
    appendFileSync(eventsPath, '{"type":"note","st');
    const run = await mnemo(['show', session.id, '--json', '--data-dir', dir]);
    const shown = json<Shown>(run);
    expect(shown.warnings).toEqual([
      { file: 'events.jsonl', line: 3, message: expect.stringMatching(/^corrupt line skipped/) },
      { file: 'events.jsonl', line: 21, message: expect.stringMatching(/^truncated line skipped/) },
    ]);
    expect(run.stderr).toMatch(/^mnemo: warning: events.jsonl line 3: corrupt line skipped.*\nmnemo: warning: events.jsonl line 21: truncated line skipped/);
    expect(shown.steps.map((s) => [s.step, s.complete, s.screenshot !== null])).toEqual([
      [1, true, false],
      [2, true, true],
      [3, true, true],
    ]);
  });

  it('an unknown id: exit 1 with a message; a malformed one or a bad flag: exit 2', async () => {
    const unknown = await mnemo(['show', '20200101-000000-ffffff', '--data-dir', dataDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe(`mnemo: no session "20200101-000000-ffffff" in ${join(dataDir, 'sessions')} (mnemo sessions lists them)\n`);
    const ambiguous = await mnemo(['show', '2', '--data-dir', dataDir]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(/"2" matches 3 sessions/);
    const malformed = await mnemo(['show', '../etc', '--data-dir', dataDir]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/"..\/etc" is not a session id/);
    const missing = await mnemo(['show', '--data-dir', dataDir]);
    expect(missing.code).toBe(2);
    const badFlag = await mnemo(['show', form.id, '--jason', '--data-dir', dataDir]);
    expect(badFlag.code).toBe(2);
  });
});

describe('mnemo sessions over a damaged data directory', { timeout: 60_000 }, () => {
  it('names a plain file where a session folder was, and a session whose session.json cannot be read; the other sessions still list', async () => {
    const dir = mkdtempSync(join(scratch, 'damaged-'));
    const kept = await recordSession(dir, { task: 'Kept whole', steps: 1 });
    const replaced = await recordSession(dir, { task: 'Replaced by a file', steps: 1 });
    const unreadable = await recordSession(dir, { task: 'Its session.json unreadable', steps: 1 });
    // The folder replaced by a plain file of the same name (a bad copy, a sync tool).
    rmSync(replaced.directory, { recursive: true, force: true });
    writeFileSync(replaced.directory, 'not a folder');
    // session.json that cannot be read at all (a folder in its place, which no account can read as a file).
    rmSync(join(unreadable.directory, 'session.json'));
    mkdirSync(join(unreadable.directory, 'session.json'));
    // Read from the folders, not from an index that remembers them.
    rmSync(join(dir, 'sessions', 'index.jsonl'));

    const run = await mnemo(['sessions', '--json', '--data-dir', dir]);
    expect(run.code, run.stderr).toBe(0);
    const warnings = run.stderr.split('\n').filter(Boolean);
    expect(warnings).toEqual(
      expect.arrayContaining([
        `mnemo: warning: session ${replaced.id}: ${replaced.directory} is not a folder (a file or a link where a session folder should be); not listed`,
        expect.stringMatching(new RegExp(`^mnemo: warning: session ${unreadable.id}: session\\.json cannot be read: EISDIR.*; listed from its events$`)),
      ]),
    );
    expect(warnings).toHaveLength(2);
    expect((JSON.parse(run.stdout) as Array<{ id: string }>).map((session) => session.id).sort()).toEqual([kept.id, unreadable.id].sort());

    // The folder gone and only the file left: still said, and "no sessions" is not all that is said.
    const alone = mkdtempSync(join(scratch, 'alone-'));
    const only = await recordSession(alone, { task: 'The only one', steps: 1 });
    rmSync(only.directory, { recursive: true, force: true });
    writeFileSync(only.directory, '');
    const text = await mnemo(['sessions', '--data-dir', alone]);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe(`mnemo: warning: session ${only.id}: ${only.directory} is not a folder (a file or a link where a session folder should be); not listed\n`);
  });
});
