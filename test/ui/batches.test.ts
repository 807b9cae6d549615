/**
 * The Batches view against the real core: `mnemo serve` on a data directory holding two batches
 * written by the real journal code (as `mnemo batch run` leaves them) and a recorded session, the
 * window in Debian's Chromium driven by playwright-core, controls found by role and accessible name.
 *
 * A batch shows with its progress and rows (a secret cell as its reference); a row's session link
 * opens that session in the Run view; a row that ends in the journal (written by another process,
 * as a terminal's `mnemo batch run` would) updates the view without a reload; "Retry failed rows"
 * journals the retry on disk and runs the failed row again on a private desktop with the scripted
 * model, whose request carries the row's value, and the row turns succeeded live; "Cancel"
 * journals the cancel on disk; "New batch" starts a task over CSV rows, each row's values reaching
 * its own run on a private desktop and its row turning succeeded live. The queue's place says "No schedules" and "No queue set". The view
 * is saved at 1280x800 and 1920x1080 (docs/screenshots/batches-*.png).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchJournal } from '../../src/main/batch/journal';
import type { BatchDefinition, JournalEntry } from '../../src/main/batch/records';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { TEST_DESKTOP_SETTINGS } from '../fixtures/desktop/private-desktops';
import { startTestDisplay, type TestDisplay } from '../fixtures/desktop/test-display';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { userText } from '../fixtures/openai-server/request-text';
import { recordFixtureSession, TASK as SESSION_TASK } from '../fixtures/session-fixture';
import { closeUiTest, dataDirWith, openApp, serveApp, type ServedApp } from '../fixtures/ui/app-harness';

const SCREENSHOTS = resolve(import.meta.dirname, '../../docs/screenshots');
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-ui-batches-'));
const SLOW = { timeout: 300_000 };

const TASK_BATCH = 'b-20261206-101500-a1b2c3';
const WORKFLOW_BATCH = 'b-20261206-111500-d4e5f6';
const FAILED_NAME = 'Grace Hopper';

let display: TestDisplay;
let model: ScriptedServer;
let memoryModel: ScriptedServer;
let app: ServedApp;
let browser: Browser;
let page: Page;
let problems: string[] = [];
let sessionId: string;
let dataDir: string;

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

const writer = { pid: 999_999, hostname: 'elsewhere' };

function journalOf(id: string): JournalEntry[] {
  return readFileSync(join(dataDir, 'batches', id, 'journal.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as JournalEntry);
}

const rowOf = (row: number): Locator => page.getByRole('table', { name: 'Batch rows' }).getByRole('row', { name: `Row ${row}`, exact: true });

async function saveScreenshot(name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  display = await startTestDisplay();
  model = await startScriptedServer({ replies: (request) => (request.body?.tools ? toolCall([{ type: 'finished' }], 'Written down.') : { text: 'ok' }) });
  memoryModel = await startMemoryModelServer();
  dataDir = dataDirWith({ model: { baseUrl: model.url, model: 'gpt-4.1', family: 'tools' }, image: { maxWidth: 960 }, memory: { model: { baseUrl: memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS }, scratch);
  sessionId = (await recordFixtureSession(dataDir, { missingStep: null })).sessionId;

  // A task batch a terminal ran to its end: row 1 succeeded (the recorded session), row 2 failed for good.
  const taskBatch: BatchDefinition = {
    id: TASK_BATCH,
    createdAt: Date.UTC(2026, 11, 6, 10, 15),
    source: { kind: 'task', task: 'Write {{name}} down' },
    valuesFile: 'people.csv',
    columns: ['name'],
    rows: [
      { row: 1, cells: { name: { kind: 'text', text: 'Ada Lovelace' } } },
      { row: 2, cells: { name: { kind: 'text', text: FAILED_NAME } } },
    ],
    concurrency: 2,
    concurrencyReason: '2 at once (--concurrency)',
    retries: 0,
    desktop: {},
  };
  const tasks = await BatchJournal.create(dataDir, taskBatch);
  const at = taskBatch.createdAt;
  for (const entry of [
    { type: 'opened', at, writer, rows: [1, 2], concurrency: 2 },
    { type: 'attempt-started', at: at + 10, row: 1, attempt: 1, session: sessionId },
    { type: 'attempt-ended', at: at + 2000, row: 1, attempt: 1, session: sessionId, status: 'succeeded', runStatus: 'finished', reason: 'done', steps: 5, costUsd: 0.0123, durationMs: 1990, screenValues: { entry: 'Ada Lovelace', summary: 'Written down.' }, final: true },
    { type: 'attempt-ended', at: at + 2100, row: 2, attempt: 1, session: null, status: 'failed', runStatus: null, reason: 'could not start: no display', steps: 0, costUsd: 0, durationMs: 100, final: true },
    { type: 'closed', at: at + 2200 },
  ] satisfies JournalEntry[])
    await tasks.append(entry);

  // A workflow batch nobody runs any more, its rows without an outcome; a secret column by reference.
  const workflowBatch: BatchDefinition = {
    id: WORKFLOW_BATCH,
    createdAt: Date.UTC(2026, 11, 6, 11, 15),
    source: { kind: 'workflow', name: 'invoice', policy: 'stop', speed: 1 },
    valuesFile: 'invoices.jsonl',
    columns: ['customer', 'password'],
    rows: [
      { row: 1, cells: { customer: { kind: 'text', text: 'ACME' }, password: { kind: 'secret', source: 'keychain', name: 'INVOICE_PW' } } },
      { row: 2, cells: { customer: { kind: 'text', text: 'Globex' }, password: { kind: 'secret', source: 'env', name: 'GLOBEX_PW' } } },
    ],
    concurrency: 1,
    concurrencyReason: '1 at once (--concurrency)',
    retries: 1,
    desktop: {},
  };
  await BatchJournal.create(dataDir, workflowBatch);

  app = await serveApp(dataDir, display.display);
  browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: HEADLESS_CHROMIUM_ARGS });
  const opened = await openApp(browser, app, '#/batches');
  page = opened.page;
  problems = opened.problems;
  await page.setViewportSize({ width: 1280, height: 800 });
}, 300_000);

afterAll(async () => {
  await closeUiTest({ pages: page ? [page] : [], browser, app, servers: [model, memoryModel], display: display ? { display: display.display, close: () => display.stop() } : undefined });
  rmSync(scratch, { recursive: true, force: true });
});

describe('the Batches view', () => {
  it('lists the batches with their progress, and one open shows its rows, a secret as its reference', SLOW, async () => {
    await page.getByRole('link', { name: 'Batches' }).click();
    const list = page.getByRole('list', { name: 'Batches in this data directory' });
    await expect.poll(() => list.getByRole('listitem').count()).toBe(2);
    await expect.poll(() => list.getByRole('listitem').first().textContent()).toContain('invoice');
    await expect.poll(() => page.getByRole('button', { name: `Open batch ${TASK_BATCH}` }).textContent()).toContain('2/2 done (1 failed), 0 running');

    await page.getByRole('button', { name: `Open batch ${WORKFLOW_BATCH}` }).click();
    await expect.poll(() => rowOf(1).textContent()).toContain('${keychain:INVOICE_PW}');
    expect(await rowOf(2).textContent()).toContain('${env:GLOBEX_PW}');
    expect(await rowOf(1).textContent()).toContain('pending');
    expect(await page.getByRole('region', { name: 'Schedules' }).textContent()).toContain('No schedules');
    expect(await page.getByRole('region', { name: 'Workers' }).textContent()).toContain('No queue set');
    expect(problems).toEqual([]);
  });

  it('follows a row that ends in the journal, written by another process, without a reload', SLOW, async () => {
    await page.getByRole('button', { name: `Open batch ${WORKFLOW_BATCH}` }).click();
    await expect.poll(() => rowOf(1).textContent()).toContain('pending');
    const opened = await BatchJournal.open(dataDir, WORKFLOW_BATCH);
    if (!opened.ok) throw new Error(opened.message);
    const at = Date.now();
    await opened.journal.append({ type: 'attempt-started', at, row: 1, attempt: 1, session: sessionId });
    await expect.poll(() => rowOf(1).textContent()).toContain('running');
    await opened.journal.append({ type: 'attempt-ended', at: at + 50, row: 1, attempt: 1, session: sessionId, status: 'succeeded', runStatus: 'finished', reason: 'done', steps: 3, costUsd: 0.02, durationMs: 50, screenValues: { Name: 'Ada Lovelace', Password: '(hidden, 8 characters)' }, final: true });
    await expect.poll(() => rowOf(1).textContent()).toContain('succeeded');
    // What the run read off the screen, in its own column.
    expect(await rowOf(1).getByRole('cell').last().textContent()).toBe('Name: Ada Lovelace; Password: (hidden, 8 characters)');
    await expect.poll(() => page.getByRole('button', { name: `Open batch ${WORKFLOW_BATCH}` }).textContent()).toContain('1/2 done (0 failed)');
    expect(problems).toEqual([]);
  });

  it("opens a row's session in the Run view", SLOW, async () => {
    await page.getByRole('button', { name: `Open batch ${TASK_BATCH}` }).click();
    await rowOf(1).getByRole('link', { name: `Open session ${sessionId}` }).click();
    await expect.poll(() => page.locator('.run-header .run-task').textContent()).toBe(SESSION_TASK);
    expect(await page.getByRole('link', { name: 'Run' }).getAttribute('aria-current')).toBe('page');
    expect(problems).toEqual([]);
  });

  it('"Retry failed rows" journals the retry and runs the failed row again on a private desktop, the row turning succeeded live', SLOW, async () => {
    await page.goto(`${app.origin}/#/batches/${TASK_BATCH}`);
    await expect.poll(() => rowOf(2).textContent()).toContain('failed');
    await saveScreenshot('batches-1280x800');
    await page.getByRole('button', { name: 'Retry failed rows' }).click();
    await expect.poll(() => journalOf(TASK_BATCH).some((entry) => entry.type === 'reopened' && entry.rows.join() === '2')).toBe(true);
    await expect.poll(() => rowOf(2).textContent(), { timeout: 240_000 }).toContain('succeeded');
    const ended = journalOf(TASK_BATCH).filter((entry): entry is Extract<JournalEntry, { type: 'attempt-ended' }> => entry.type === 'attempt-ended' && entry.row === 2);
    expect(ended.at(-1)).toMatchObject({ status: 'succeeded', runStatus: 'finished', final: true });
    const session = ended.at(-1)?.session as string;
    expect(JSON.parse(readFileSync(join(dataDir, 'sessions', session, 'session.json'), 'utf8'))).toMatchObject({ batch: { id: TASK_BATCH, row: 2 } });
    // The row's value reached its run: the task the model was given.
    expect(model.requests.filter((request) => request.body?.tools).some((request) => userText(request).includes(`Write ${FAILED_NAME} down`))).toBe(true);
    await expect.poll(() => rowOf(2).getByRole('link', { name: `Open session ${session}` }).count()).toBe(1);
    await expect.poll(() => page.getByRole('button', { name: `Open batch ${TASK_BATCH}` }).textContent()).toContain('2/2 done (0 failed)');
    expect(problems).toEqual([]);
  });

  it('"New batch" starts a task over CSV rows, two at once on private desktops; each row reaches its own run and turns succeeded live', SLOW, async () => {
    const form = page.getByRole('form', { name: 'New batch' });
    await form.getByRole('combobox', { name: 'Each row runs' }).selectOption({ label: 'A task' });
    await form.getByRole('textbox', { name: 'Task', exact: true }).fill('Note {{name}} of {{city}}');
    await form.getByRole('textbox', { name: 'Values (CSV)' }).fill('name,city\n"Hopper, Grace",Arlington\nKatherine Johnson,Hampton\n');
    await form.getByRole('spinbutton', { name: 'Concurrency' }).fill('2');
    await form.getByRole('button', { name: 'Start batch' }).click();
    // It opens at once, its rows still to run or running; each then ends succeeded without a reload.
    const opened = page.getByRole('region', { name: /^Batch b-/ });
    await expect.poll(async () => (await opened.count()) === 1 && (await opened.getAttribute('aria-label')) !== `Batch ${TASK_BATCH}`).toBe(true);
    const id = ((await opened.getAttribute('aria-label')) ?? '').replace(/^Batch /, '');
    expect(id).toMatch(/^b-\d{8}-\d{6}-[0-9a-f]{6}$/);
    await expect.poll(() => rowOf(1).textContent(), { timeout: 240_000 }).toContain('succeeded');
    await expect.poll(() => rowOf(2).textContent(), { timeout: 240_000 }).toContain('succeeded');
    expect(await rowOf(1).textContent()).toContain('Hopper, Grace');
    const tasks = model.requests.filter((request) => request.body?.tools).map((request) => userText(request));
    expect(tasks.filter((text) => text.includes('Note Hopper, Grace of Arlington'))).toHaveLength(1);
    expect(tasks.filter((text) => text.includes('Note Katherine Johnson of Hampton'))).toHaveLength(1);
    expect(journalOf(id).filter((entry) => entry.type === 'attempt-ended' && entry.final)).toHaveLength(2);
    await expect.poll(() => page.getByRole('button', { name: `Open batch ${id}` }).textContent()).toContain('2/2 done (0 failed)');

    // Columns that do not fit the task are refused, named, and nothing starts.
    await form.getByRole('textbox', { name: 'Values (CSV)' }).fill('nom\nAda\n');
    await form.getByRole('button', { name: 'Start batch' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/nom/);
    expect(await page.getByRole('list', { name: 'Batches in this data directory' }).getByRole('listitem').count()).toBe(3);
    // The refusal is a 400 the browser logs as a failed load: expected here, and only that one.
    const refused = problems.filter((problem) => /status of 400 .*\/api\/batches\)$/.test(problem));
    expect(refused).toHaveLength(1);
    problems.splice(problems.indexOf(refused[0] as string), 1);
    expect(problems).toEqual([]);
  });

  it('"Cancel" journals the cancel on disk and the batch shows cancelled', SLOW, async () => {
    await page.getByRole('button', { name: `Open batch ${WORKFLOW_BATCH}` }).click();
    await expect.poll(() => rowOf(2).textContent()).toContain('pending');
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect.poll(() => journalOf(WORKFLOW_BATCH).some((entry) => entry.type === 'cancelled')).toBe(true);
    await expect.poll(() => page.getByRole('button', { name: `Open batch ${WORKFLOW_BATCH}` }).textContent()).toContain('cancelled');
    // At both sizes the rows, the buttons and the New batch form are within the window's width.
    for (const size of [
      { width: 1280, height: 800 },
      { width: 1920, height: 1080 },
    ]) {
      await page.setViewportSize(size);
      for (const part of [page.getByRole('table', { name: 'Batch rows' }), page.getByRole('button', { name: 'Retry failed rows' }), page.getByRole('button', { name: 'Cancel', exact: true }), page.getByRole('form', { name: 'New batch' })]) {
        const box = await part.boundingBox();
        expect(box, `${size.width}x${size.height}`).not.toBeNull();
        expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= size.width, `${size.width}x${size.height}: ${JSON.stringify(box)}`).toBe(true);
      }
    }
    await saveScreenshot('batches-1920x1080');
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problems).toEqual([]);
  });
});
