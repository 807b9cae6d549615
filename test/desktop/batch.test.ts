/**
 * `mnemo batch` end to end, on real private desktops: a form run is recorded on a private desktop
 * and saved as a workflow with a parameter, then the real CLI runs it over a table of values, each
 * row on a private desktop of its own with Chromium (`--app`) on the instrumented page, N at once.
 * What each row typed is checked where it lands: the page's submit reports. Ctrl+C in the middle
 * and `resume` submit every row exactly once; a row that keeps failing (a task the scripted model
 * gives up on) is run 1 + K times, then reported; a values file with the wrong columns is refused
 * by name. No desktop is left running.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kioskCommand } from '../fixtures/desktop/chromium';
import { startEventServer, type EventServer } from '../fixtures/desktop/event-server';
import { FORM_IMAGE, formToolCall, saveFormWorkflow } from '../fixtures/desktop/form-workflow';
import { processesOfDesktopsUnder, TEST_DESKTOP_SETTINGS, xvfbUnder } from '../fixtures/desktop/private-desktops';
import { jsonLines, runMnemo, startMnemo } from '../fixtures/mnemo-cli';
import { startMemoryModelServer, startScriptedServer, type ScriptedServer } from '../fixtures/openai-server';
import { userText } from '../fixtures/openai-server/request-text';
import type { RowReport } from '../fixtures/batch-row-report';

/** Chromium starts and runs on a busy machine, a dozen times over: many minutes, not seconds (nothing here is timed). */
const SLOW = { timeout: 1_800_000 };
const toolCall = formToolCall;

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-batch-'));
let memoryModel: ScriptedServer;
let page: EventServer;
let data: string;
/** The kiosk command every row's desktop starts: a profile of its own each time (three Chromiums never share one). */
let rowApp: string;
const env = { OPENAI_API_KEY: '' };

interface SessionJson {
  startedAt: number;
  endedAt: number | null;
  status: string;
  batch?: { id: string; row: number };
}

const sessionOf = (id: string) => JSON.parse(readFileSync(join(data, 'sessions', id, 'session.json'), 'utf8')) as SessionJson;

function csv(names: readonly string[]): string {
  const file = join(scratch, `rows-${names.length}-${Math.random().toString(16).slice(2)}.csv`);
  writeFileSync(file, `name\n${names.map((name) => `"${name}"`).join('\n')}\n`);
  return file;
}

/** What the page's form received: every submitted name, as often as it was submitted. */
function submitted(since: number): string[] {
  return page
    .events()
    .filter((event) => event.index >= since && event.type === 'submit' && event.run === 'batch')
    .map((event) => String((event as { field?: unknown }).field));
}

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
  page = await startEventServer();
  data = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(data, 'config.json'), JSON.stringify({ image: { maxWidth: FORM_IMAGE.width }, memory: { model: { baseUrl: memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS }));
  const marker = '__PROFILE__';
  rowApp = kioskCommand(page, 'batch', marker).replace(`'--user-data-dir=${marker}'`, `"--user-data-dir=$(mktemp -d ${scratch}/profile-XXXXXX)"`);

  // The workflow: a form filled in once on a private desktop, saved with the name as its parameter.
  await saveFormWorkflow({ page, dataDir: data, env, scratch, readyTimeoutMs: 120_000 });
}, 600_000);

afterAll(async () => {
  await page?.close();
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('mnemo batch run', () => {
  it('runs a workflow over 12 rows, 3 at once on private desktops: each row\'s value reaches its own form, the runs overlap, the summary and --json are right', SLOW, async () => {
    const names = Array.from({ length: 12 }, (_, i) => `Person ${String(i + 1).padStart(2, '0')}`);
    const since = page.mark();
    const run = await runMnemo(['batch', 'run', 'form', '--values', csv(names), '--concurrency', '3', '--app', rowApp, '--data-dir', data, '--json'], { env });
    expect(run.code, run.stderr).toBe(0);

    // --json: one object per row, every row succeeded with its own session tagged with the batch and the row.
    const rows = jsonLines<RowReport>(run.stdout);
    expect(rows.map((row) => row.row)).toEqual(names.map((_, i) => i + 1));
    expect(rows.map((row) => row.values.name)).toEqual(names);
    expect(rows.every((row) => row.status === 'succeeded' && row.attempts === 1 && row.session !== null)).toBe(true);
    const batchId = rows[0]?.batch as string;
    expect(batchId).toMatch(/^b-/);
    expect(new Set(rows.map((row) => row.session)).size).toBe(12);
    // What each run read off the screen: the form's field, read back through the tree after the typing, held the row's own value.
    for (const [i, row] of rows.entries()) expect(Object.values(row.screenValues), JSON.stringify(row.screenValues)).toContain(names[i]);
    const sessions = rows.map((row) => sessionOf(row.session as string));
    expect(sessions.map((session) => session.batch)).toEqual(rows.map((row) => ({ id: batchId, row: row.row })));
    expect(sessions.every((session) => session.status === 'finished')).toBe(true);

    // Every row's value submitted on a form, exactly once.
    await expect.poll(() => submitted(since).length).toBe(12);
    expect([...submitted(since)].sort()).toEqual([...names].sort());

    // The runs overlapped: at some moment more than one was going on, and never more than 3.
    const moments = sessions.flatMap((session) => [
      { at: session.startedAt, change: 1 },
      { at: session.endedAt as number, change: -1 },
    ]);
    moments.sort((a, b) => a.at - b.at || a.change - b.change);
    let going = 0;
    let most = 0;
    for (const moment of moments) most = Math.max(most, (going += moment.change));
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(3);

    // The progress line and the concurrency said; the table of `show`, and `list`.
    expect(run.stderr).toMatch(/concurrency 3 at once \(--concurrency\)/);
    expect(run.stderr).toMatch(/12\/12 done \(0 failed\), 0 running, ETA 0s, \$\d/);
    const shown = await runMnemo(['batch', 'show', batchId, '--data-dir', data], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/done; workflow form/);
    for (const name of names) expect(shown.stdout).toMatch(new RegExp(`\\b${name}\\s+succeeded\\s+1\\s`));
    const shownJson = await runMnemo(['batch', 'show', batchId, '--json', '--data-dir', data], { env });
    expect((JSON.parse(shownJson.stdout) as { rows: RowReport[] }).rows.map((row) => row.screenValues)).toEqual(rows.map((row) => row.screenValues));
    expect(shown.stdout).toMatch(/12 succeeded, 0 failed; \$/);
    const listed = await runMnemo(['batch', 'list', '--json', '--data-dir', data], { env });
    expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ id: batchId, rows: 12, succeeded: 12, failed: 0, withoutOutcome: 0, status: 'done' }));

    expect(xvfbUnder(data)).toEqual([]);
    expect(processesOfDesktopsUnder(data)).toEqual([]);
  });

  it('Ctrl+C in the middle lets the runs going on finish and starts no more; resume runs only the rest: each row done exactly once', SLOW, async () => {
    const names = Array.from({ length: 6 }, (_, i) => `Resumed ${String(i + 1).padStart(2, '0')}`);
    const since = page.mark();
    let interrupted = false;
    const started = startMnemo(['batch', 'run', 'form', '--values', csv(names), '--concurrency', '2', '--app', rowApp, '--data-dir', data, '--json'], { env });
    const stderrWatch = setInterval(() => {
      // Once the first row has its outcome, Ctrl+C.
      if (!interrupted && /[1-9]\/6 done/.test(started.output().stderr)) {
        interrupted = true;
        started.child.kill('SIGINT');
      }
    }, 100);
    const first = await started.result.finally(() => clearInterval(stderrWatch));
    expect(interrupted).toBe(true);
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toMatch(/stopping: no new row starts/);
    const firstRows = jsonLines<RowReport>(first.stdout);
    const done = firstRows.filter((row) => row.status === 'succeeded').length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(6);
    expect(firstRows.filter((row) => row.status !== 'succeeded').every((row) => row.status === 'pending' && row.attempts === 0)).toBe(true);
    const batchId = firstRows[0]?.batch as string;

    const resumed = await runMnemo(['batch', 'resume', batchId, '--data-dir', data, '--json'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`batch ${batchId}: ${6 - done} rows`));
    const rows = jsonLines<RowReport>(resumed.stdout);
    expect(rows.map((row) => row.status)).toEqual(Array(6).fill('succeeded'));
    expect(rows.every((row) => row.attempts === 1 && row.sessions.length === 1)).toBe(true);

    await expect.poll(() => submitted(since).length).toBe(6);
    await page.settle(500, 30_000);
    expect([...submitted(since)].sort()).toEqual([...names].sort());

    // Resuming a batch whose rows all have an outcome runs nothing.
    const again = await runMnemo(['batch', 'resume', batchId, '--data-dir', data], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/every row has an outcome, nothing to resume/);
    expect(xvfbUnder(data)).toEqual([]);
  });

  it('runs a failing row 1 + K times, then reports it failed (exit 3), the other rows succeeded', SLOW, async () => {
    // A task per row on a bare private desktop: the scripted model gives up on "Globex" every time.
    const model = await startScriptedServer({
      replies: (request) =>
        /Globex/.test(userText(request)) ? toolCall([{ type: 'fail', reason: 'the customer Globex is unknown' }], 'I cannot.') : toolCall([{ type: 'finished', summary: 'Entered.' }], 'Done.'),
    });
    try {
      const file = join(scratch, 'invoices.csv');
      writeFileSync(file, 'number,customer\n1001,Acme\n1002,Globex\n1003,Initech\n');
      const run = await runMnemo(
        ['batch', 'run', '--task', 'Enter invoice {{number}} for {{customer}}', '--values', file, '--retries', '2', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', data, '--json'],
        { env },
      );
      expect(run.code, run.stderr).toBe(3);
      // No --concurrency: the batch chose by the machine, and said how.
      expect(run.stderr).toMatch(/concurrency \d+ at once, what this machine holds: \d+ CPU cores? \(one run each\) and [\d.]+ GB free memory .* set the limit/);
      const rows = jsonLines<RowReport>(run.stdout);
      expect(rows.map((row) => [row.values.customer, row.status, row.attempts])).toEqual([
        ['Acme', 'succeeded', 1],
        ['Globex', 'failed', 3],
        ['Initech', 'succeeded', 1],
      ]);
      const failed = rows[1] as RowReport;
      expect(failed.reason).toMatch(/Globex is unknown/);
      expect(failed.sessions).toHaveLength(3);
      for (const id of failed.sessions) expect(sessionOf(id)).toMatchObject({ status: 'failed', batch: { id: failed.batch, row: 2 } });
      // The tag reads back through `mnemo show` and `mnemo sessions`.
      const shownSession = JSON.parse((await runMnemo(['show', failed.sessions[0] as string, '--json', '--data-dir', data], { env })).stdout) as { batch?: unknown };
      expect(shownSession.batch).toEqual({ id: failed.batch, row: 2 });
      const listedSessions = JSON.parse((await runMnemo(['sessions', '--json', '--data-dir', data], { env })).stdout) as Array<{ id: string; batch?: unknown }>;
      expect(listedSessions.find((session) => session.id === rows[0]?.session)?.batch).toEqual({ id: failed.batch, row: 1 });
      // Each task the model was given had the row's values in it.
      const tasks = model.requests.map(userText);
      expect(tasks.filter((text) => /Enter invoice 1002 for Globex/.test(text))).toHaveLength(3);
      expect(tasks.some((text) => /Enter invoice 1001 for Acme/.test(text))).toBe(true);

      // The table says it too; retry --failed runs the failed row again.
      const shown = await runMnemo(['batch', 'show', failed.batch, '--data-dir', data], { env });
      expect(shown.stdout).toMatch(/Globex\s+failed\s+3\s.*Globex is unknown/);
      const retried = await runMnemo(['batch', 'retry', failed.batch, '--failed', '--retries', '0', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', data, '--json'], { env });
      expect(retried.code, retried.stderr).toBe(3);
      expect(retried.stderr).toMatch(/: 1 row of/);
      expect(jsonLines<RowReport>(retried.stdout).map((row) => [row.row, row.status, row.attempts])).toEqual([
        [1, 'succeeded', 1],
        [2, 'failed', 1],
        [3, 'succeeded', 1],
      ]);
    } finally {
      await model.close();
    }
    expect(xvfbUnder(data)).toEqual([]);
  });

  it('kill -9 in the middle loses no row\'s outcome: resume runs only the row that was cut off, its first session interrupted', SLOW, async () => {
    // Rows 1 and 3 finish at once; row 2's first run waits for the model until its batch is killed.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let killed = false;
    let row2Asked = false;
    const model = await startScriptedServer({
      replies: async (request) => {
        if (/for Globex/.test(userText(request)) && !killed) {
          row2Asked = true;
          await held;
        }
        return toolCall([{ type: 'finished', summary: 'Entered.' }], 'Done.');
      },
    });
    try {
      const file = join(scratch, 'crash.csv');
      writeFileSync(file, 'number,customer\n2001,Acme\n2002,Globex\n2003,Initech\n');
      const flags = ['--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', data];
      const started = startMnemo(['batch', 'run', '--task', 'Enter invoice {{number}} for {{customer}}', '--values', file, '--concurrency', '3', ...flags, '--json'], { env });
      await expect.poll(() => row2Asked && /2\/3 done/.test(started.output().stderr), { timeout: 300_000 }).toBe(true);
      killed = true;
      started.child.kill('SIGKILL');
      const first = await started.result;
      release();
      expect(first.signal).toBe('SIGKILL');
      const batchId = /batch (b-[\w-]+):/.exec(first.stderr)?.[1] as string;
      expect(batchId).toBeDefined();

      // The journal kept rows 1 and 3's outcomes; row 2 was running when the process died.
      const shown = JSON.parse((await runMnemo(['batch', 'show', batchId, '--json', '--data-dir', data], { env })).stdout) as { status: string; rows: RowReport[] };
      expect(shown.status).toBe('incomplete');
      expect(shown.rows.map((row) => row.status)).toEqual(['succeeded', 'running', 'succeeded']);
      const cutOff = shown.rows[1]?.session as string;

      const resumed = await runMnemo(['batch', 'resume', batchId, ...flags, '--json'], { env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(new RegExp(`batch ${batchId}: 1 row of`));
      const rows = jsonLines<RowReport>(resumed.stdout);
      expect(rows.map((row) => [row.row, row.status, row.sessions.length])).toEqual([
        [1, 'succeeded', 1],
        [2, 'succeeded', 2],
        [3, 'succeeded', 1],
      ]);
      expect(rows[1]?.sessions[0]).toBe(cutOff);
      expect(sessionOf(cutOff)).toMatchObject({ status: 'interrupted', batch: { id: batchId, row: 2 } });
      // Each task reached the model once, but the row that was cut off: twice.
      const asked = (customer: string) => model.requests.map(userText).filter((text) => text.includes(`for ${customer}`)).length;
      expect([asked('Acme'), asked('Globex'), asked('Initech')]).toEqual([1, 2, 1]);
    } finally {
      release();
      await model.close();
    }
    // The desktop the killed run left behind is stopped by the next launch.
    await expect.poll(() => xvfbUnder(data)).toEqual([]);
  });

  it('cancel from another terminal stops the batch\'s runs going on and starts no new row (exit 4); resume takes it up again', SLOW, async () => {
    // Every row's run waits for the model until the batch is cancelled.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const model = await startScriptedServer({
      replies: async () => {
        asked++;
        await held;
        return toolCall([{ type: 'finished', summary: 'Entered.' }], 'Done.');
      },
    });
    try {
      const file = join(scratch, 'cancel.csv');
      writeFileSync(file, 'number,customer\n3001,Acme\n3002,Globex\n3003,Initech\n');
      const flags = ['--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', data];
      const started = startMnemo(['batch', 'run', '--task', 'Enter invoice {{number}} for {{customer}}', '--values', file, '--concurrency', '2', ...flags, '--json'], { env });
      await expect.poll(() => asked, { timeout: 300_000 }).toBe(2);
      const batchId = /batch (b-[\w-]+):/.exec(started.output().stderr)?.[1] as string;
      const listed = JSON.parse((await runMnemo(['batch', 'list', '--json', '--data-dir', data], { env })).stdout) as Array<{ id: string; status: string }>;
      expect(listed.find((batch) => batch.id === batchId)?.status).toBe('running');

      const cancel = await runMnemo(['batch', 'cancel', batchId, '--data-dir', data], { env });
      expect(cancel.code, cancel.stderr).toBe(0);
      expect(cancel.stderr).toMatch(/cancelled; process \d+ stops its runs going on/);
      const first = await started.result;
      expect(first.code, first.stderr).toBe(4);
      expect(first.stderr).toMatch(/cancelled \(mnemo batch cancel\)/);
      expect(jsonLines<RowReport>(first.stdout).map((row) => row.status)).toEqual(['pending', 'pending', 'pending']);
      expect(asked).toBe(2);
      const after = JSON.parse((await runMnemo(['batch', 'list', '--json', '--data-dir', data], { env })).stdout) as Array<{ id: string; status: string }>;
      expect(after.find((batch) => batch.id === batchId)?.status).toBe('cancelled');

      release();
      const resumed = await runMnemo(['batch', 'resume', batchId, ...flags, '--json'], { env });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(jsonLines<RowReport>(resumed.stdout).map((row) => row.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    } finally {
      release();
      await model.close();
    }
    await expect.poll(() => xvfbUnder(data)).toEqual([]);
  });

  it('refuses a values file whose columns do not match the workflow\'s parameters, naming them (exit 2, no batch made)', async () => {
    const file = join(scratch, 'wrong.csv');
    writeFileSync(file, 'nom,age\nAda,36\n');
    const batches = () => (existsSync(join(data, 'batches')) ? readdirSync(join(data, 'batches')).length : 0);
    const before = batches();
    const run = await runMnemo(['batch', 'run', 'form', '--values', file, '--app', rowApp, '--data-dir', data], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}: the columns do not match workflow "form"'s parameters: missing "name"; unknown "nom", "age" (expected: "name")`);
    expect(batches()).toBe(before);
  });
});
