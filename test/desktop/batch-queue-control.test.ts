/**
 * Controlling a batch on a BullMQ queue once its rows are out there, end to end: a real
 * redis-server, a worker that is a real `mnemo worker` process with its own data directory, the
 * real `mnemo batch run --queue` following the rows from another, every row a task run on a
 * private desktop of the worker's, against a scripted model that records what it was asked.
 *
 * - `mnemo batch cancel` while a worker runs the first row: the rows still waiting leave the queue
 *   (never run), the worker stops the run it holds (its session ends aborted, its job's result
 *   says `cancelled`), the follower ends (exit 4) with every row without an outcome, for resume.
 * - `mnemo batch retry --failed`: only the failed row goes back on the queue, a worker runs it,
 *   and the batch is whole (exit 0).
 * - What a row's run read off the screen: a row typed into the instrumented page in kiosk Chromium
 *   on the worker's private desktop; its field, read back through that desktop's accessibility
 *   tree, is in the job's result (`values`) and the follower's `--json` row (`screenValues`).
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kioskCommand } from '../fixtures/desktop/chromium';
import { startEventServer } from '../fixtures/desktop/event-server';
import { FORM_IMAGE, formToolCall, toFormImage } from '../fixtures/desktop/form-workflow';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { jsonLines, runMnemo, startMnemo } from '../fixtures/mnemo-cli';
import type { RowReport } from '../fixtures/batch-row-report';
import { done, INVOICE_TASK, useQueueBatches } from '../fixtures/queue-batches';

/** Private desktops started on a busy machine: minutes, not seconds (nothing here is timed). */
const SLOW = { timeout: 600_000 };
const POLL = { timeout: 300_000, interval: 200 };
const TASK = INVOICE_TASK;

const batches = useQueueBatches('mnemo-batch-queue-control-', POLL);
const { scratch, env, rowsFile, startWorker, scriptedModel, withQueue } = batches;
// The model answers in 960x600 images of the 1280x800 desktops (the form's points: toFormImage).
const dataDir = (name: string) => batches.dataDir(name, { imageMaxWidth: FORM_IMAGE.width });



/** The batch a data directory holds (its only one). */
async function onlyBatch(dir: string): Promise<string | undefined> {
  const listed = await runMnemo(['batch', 'list', '--json', '--data-dir', dir], { env });
  return (JSON.parse(listed.stdout || '[]') as Array<{ id: string }>)[0]?.id;
}


describe('a batch on a queue, controlled', () => {
  it('cancel takes the waiting rows off the queue and stops the run a worker holds; every row is left for resume', SLOW, async () => {
    // The first row's model call is held until the test ends: its run is going on when the batch is cancelled.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const model = await scriptedModel(async (task) => {
      if (/Acme/.test(task)) await held;
      return done();
    });
    try {
      const workerDir = dataDir('cancel-worker');
      await startWorker(workerDir, 1);
      const dir = dataDir('cancel-producer');
      const following = startMnemo(['batch', 'run', '--task', TASK, '--values', rowsFile(['Acme', 'Globex', 'Initech']), '--queue', batches.redisUrl, ...model.modelFlags, '--data-dir', dir, '--json'], { env });
      batches.track(following);
      await expect.poll(() => model.asked.some((asked) => asked.task === 'Enter invoice 1000 for Acme'), POLL).toBe(true);
      const batchId = (await onlyBatch(dir)) as string;

      const cancel = await runMnemo(['batch', 'cancel', batchId, '--data-dir', dir], { env });
      expect(cancel.code, cancel.stderr).toBe(0);
      expect(cancel.stderr).toMatch(new RegExp(`batch ${batchId}: cancelled; process ${following.child.pid} stops`));
      // The waiting rows are taken off by the cancel or by the follower, whichever comes first (checked below, on the queue).
      expect(cancel.stderr).toMatch(/the queue: [0-2] rows? taken off it; its workers stop the runs of the batch they hold/);

      // The follower hears it, follows the stopped run to its end and stops: exit 4, every row without an outcome.
      const ended = await following.result;
      expect(ended.code, ended.stderr).toBe(4);
      expect(ended.stderr).toMatch(/cancelled \(mnemo batch cancel\)/);
      expect(jsonLines<RowReport>(ended.stdout).map((row) => [row.values.customer, row.status, row.attempts])).toEqual([
        ['Acme', 'pending', 1],
        ['Globex', 'pending', 0],
        ['Initech', 'pending', 0],
      ]);

      // On the worker: the run stopped (its session aborted), the job's result says why; nothing else ran.
      const sessions = JSON.parse((await runMnemo(['sessions', '--json', '--data-dir', workerDir], { env })).stdout) as Array<{ id: string; status: string; batch?: { id: string; row: number } }>;
      expect(sessions.map((session) => [session.batch, session.status])).toEqual([[{ id: batchId, row: 1 }, 'aborted']]);
      const result = await withQueue(async (queue) => (await queue.getJob(`row-${batchId}-1`))?.returnvalue as Record<string, unknown>);
      expect(result).toMatchObject({ batch: batchId, row: 1, status: 'interrupted', final: false, error: { kind: 'cancelled', message: expect.stringMatching(new RegExp(`its batch ${batchId} was cancelled`)) } });
      expect(await withQueue((queue) => queue.getJobCountByTypes('wait', 'prioritized', 'delayed', 'active'))).toBe(0);
      expect(model.asked.map((asked) => asked.task).filter((task) => !/Acme/.test(task))).toEqual([]);
      const shown = JSON.parse((await runMnemo(['batch', 'show', batchId, '--json', '--data-dir', dir], { env })).stdout) as { status: string };
      expect(shown.status).toBe('cancelled');
    } finally {
      release();
      await model.server.close();
    }
  });

  it('retry --failed puts only the failed row back on the queue, and a worker runs it', SLOW, async () => {
    let failing = true;
    const model = await scriptedModel((task) => (failing && /Globex/.test(task) ? formToolCall([{ type: 'fail', reason: 'the customer Globex is unknown' }], 'I cannot.') : done()));
    try {
      await startWorker(dataDir('retry-worker'), 2);
      const dir = dataDir('retry-producer');
      const first = await runMnemo(['batch', 'run', '--task', TASK, '--values', rowsFile(['Acme', 'Globex', 'Initech']), '--queue', batches.redisUrl, ...model.modelFlags, '--data-dir', dir, '--json'], { env });
      expect(first.code, first.stderr).toBe(3);
      const firstRows = jsonLines<RowReport>(first.stdout);
      expect(firstRows.map((row) => [row.values.customer, row.status])).toEqual([
        ['Acme', 'succeeded'],
        ['Globex', 'failed'],
        ['Initech', 'succeeded'],
      ]);
      const batchId = firstRows[0]?.batch as string;

      failing = false;
      model.asked.length = 0;
      const retried = await runMnemo(['batch', 'retry', batchId, '--failed', ...model.modelFlags, '--data-dir', dir, '--json'], { env });
      expect(retried.code, retried.stderr).toBe(0);
      expect(retried.stderr).toMatch(new RegExp(`batch ${batchId}: 1 row of .* on the queue`));
      const rows = jsonLines<RowReport>(retried.stdout);
      expect(rows.map((row) => [row.values.customer, row.status, row.attempts])).toEqual([
        ['Acme', 'succeeded', 1],
        ['Globex', 'succeeded', 1],
        ['Initech', 'succeeded', 1],
      ]);
      // Only the failed row ran again, in a session of its own; the others kept theirs.
      expect(model.asked.map((asked) => asked.task)).toEqual(['Enter invoice 1001 for Globex']);
      expect(rows[1]?.sessions).toHaveLength(2);
      expect(rows[1]?.session).not.toBe(firstRows[1]?.session);
      expect([rows[0]?.session, rows[2]?.session]).toEqual([firstRows[0]?.session, firstRows[2]?.session]);
      // Its new job (the batch's second round on the queue) carries the run's outcome.
      const result = await withQueue(async (queue) => (await queue.getJob(`row-${batchId}-2-r2`))?.returnvalue as Record<string, unknown>);
      expect(result).toMatchObject({ batch: batchId, row: 2, status: 'succeeded', session: rows[1]?.session, error: null, values: { summary: 'Entered.' }, final: true });
    } finally {
      await model.server.close();
    }
  });

  it("a row's job result carries what its run read off the screen: the field it typed into, read back through the tree", SLOW, async () => {
    const page = await startEventServer();
    let typed = false;
    const model = await scriptedModel(async (task) => {
      // The row's first request: once the page is up, click the field and type the customer; then done.
      if (!typed) {
        typed = true;
        await page.waitForType('ready', (event) => event.run === 'queued', { timeoutMs: 240_000, description: 'the page on the worker\'s private desktop' });
        const customer = /for (\w+)/.exec(task)?.[1] ?? '';
        return formToolCall([{ type: 'click', ...toFormImage(centreOf(TARGET_LAYOUT.field)) }, { type: 'type', text: customer }], 'I type the customer.');
      }
      return done();
    });
    try {
      await startWorker(dataDir('read-worker'), 1);
      const app = kioskCommand(page, 'queued', mkdtempSync(join(scratch, 'profile-')));
      const run = await runMnemo(['batch', 'run', '--task', TASK, '--values', rowsFile(['Acme']), '--app', app, '--queue', batches.redisUrl, ...model.modelFlags, '--data-dir', dataDir('read-producer'), '--json'], { env });
      expect(run.code, run.stderr).toBe(0);
      const [row] = jsonLines<RowReport>(run.stdout);
      // The page's field has no accessible name: it is known by the label shown above it ("#field").
      expect(row?.screenValues).toEqual({ '#field': 'Acme', summary: 'Entered.' });
      const result = await withQueue(async (queue) => (await queue.getJob(`row-${row?.batch}-1`))?.returnvalue as Record<string, unknown>);
      expect(result).toMatchObject({ status: 'succeeded', values: { '#field': 'Acme', summary: 'Entered.' } });
    } finally {
      await model.server.close();
      await page.close();
    }
  });
});
