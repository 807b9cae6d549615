/**
 * The window in a browser (its HTTP transport) checks every server-sent event with the event
 * schema. The built window (out/renderer) runs in Debian's Chromium against a scripted stand-in
 * for `mnemo serve` on 127.0.0.1 whose stream carries one malformed event among good ones: the
 * window refuses it in the console, never shows it, and reads that `seq` back from the record.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { send } from '../../src/main/http/http-io';
import { ensureRendererBuilt, rendererFile } from '../../src/main/server/renderer-files';
import { AgentEventSchema, type AgentEvent } from '../../src/shared/events';
import { CHROMIUM_EXECUTABLE, HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { fakeRunEvents } from '../fixtures/ui/fake-run';

const RUN_ID = 'fake-run';
const MALFORMED_SEQ = 5;

/** A run of `steps` finished steps, as the loop emits it (every event valid). */
function recordedRun(steps: number): AgentEvent[] {
  return fakeRunEvents(steps, { runId: RUN_ID }).map((event) => AgentEventSchema.parse(event));
}

const record = recordedRun(3);
const good = record[MALFORMED_SEQ - 1] as Extract<AgentEvent, { type: 'prediction' }>;
if (good.type !== 'prediction') throw new Error(`seq ${MALFORMED_SEQ} of the fixture is a ${good.type}, not the prediction this test spoils`);
/** What the stream sends in place of seq 5: a prediction whose actions are not a list. */
const malformed = { ...good, thought: 'MALFORMED thought', actions: 'not a list' };

const runState = { id: RUN_ID, kind: 'run', task: 'Fake task', paused: false, conversationId: null, pendingQuestion: null, status: 'running', desktop: { private: false, display: ':0' } };
const settingsView = { config: { model: { baseUrl: 'http://127.0.0.1:1/v1', model: 'fake', family: 'tools' } }, hasApiKey: false, dataDir: '/tmp/fake', configPath: '/tmp/fake/config.json' };

let server: Server;
let origin: string;
let browser: Browser;
const streams = new Set<ServerResponse>();
/** The `since` of every read of the record the window made. */
const recordReads: number[] = [];

beforeAll(async () => {
  const built = await ensureRendererBuilt();
  if (!built.ok) throw new Error(built.message);
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (path === '/api/events') {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      streams.add(response);
      response.on('close', () => streams.delete(response));
      for (const event of record) response.write(`data: ${JSON.stringify(event.seq === MALFORMED_SEQ ? malformed : event)}\n\n`);
      return;
    }
    if (path === '/api/runs/current') return send(response, { status: 200, json: runState });
    if (path === '/api/runs') return send(response, { status: 200, json: [runState] });
    if (path === '/api/settings') return send(response, { status: 200, json: settingsView });
    if (path === `/api/sessions/${RUN_ID}/events`) {
      const since = Number(url.searchParams.get('since') ?? '0');
      recordReads.push(since);
      return send(response, { status: 200, json: record.filter((event) => event.seq > since) });
    }
    if (path.startsWith('/api/')) return send(response, { status: 404, json: { error: 'not in this stand-in', kind: 'not_found' } });
    void rendererFile(built.dir, path).then((reply) => send(response, reply));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM_EXECUTABLE, args: HEADLESS_CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  for (const stream of streams) stream.end();
  await new Promise((closed) => (server ? server.close(closed) : closed(undefined)));
});

it('refuses a malformed server-sent event in the console, never shows it, and reads its seq back from the record', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    // The stand-in serves no screenshots and few commands: their 404s are not what this test is about.
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) consoleErrors.push(message.text());
  });
  await page.goto(origin);

  const rows = page.getByRole('list', { name: 'Steps' }).getByRole('listitem');
  await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(3);
  await expect.poll(() => rows.nth(0).innerText()).toContain('Thought of step 1.');
  expect(await rows.nth(0).innerText()).toContain('click at (10, 20)');
  expect(await page.locator('body').innerText()).not.toContain('MALFORMED');
  // The gap the refused event left was read back from the record, after the last good seq.
  expect(recordReads).toContain(MALFORMED_SEQ - 1);
  expect(consoleErrors).toHaveLength(1);
  expect(consoleErrors[0]).toMatch(/^mnemo: refused a server-sent event \("prediction", seq 5\) that does not match the event schema:/);
  expect(consoleErrors[0]).toContain('actions');
  expect(pageErrors).toEqual([]);
  await page.close();
});
