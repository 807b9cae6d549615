/**
 * The renderer in real headless Chromium, built with the app's own renderer config (React
 * plugin, CSP <meta>), with a fake `window.mnemo` standing in for the preload: the window's IPC
 * transport (catch-up by seq, live events), its language, and its CSP.
 *
 * Served over HTTP rather than file://, because Chromium refuses ES module scripts from file://
 * (Electron's file protocol allows them); the CSP <meta> applies the same way.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import electronViteConfig from '../../electron.vite.config';
import { AgentEventSchema, type AgentEvent } from '../../src/shared/events';
import { HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';
import { fakeRunEvents } from '../fixtures/ui/fake-run';

const CHROMIUM_ARGS = HEADLESS_CHROMIUM_ARGS;

const rendererRoot = resolve(import.meta.dirname, '../../src/renderer');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** A static file server for the build output, on a free port of 127.0.0.1. */
async function serve(dir: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/favicon.ico') {
      // Chromium asks every HTTP origin for one; Electron's file:// page never does.
      response.writeHead(204).end();
      return;
    }
    const file = normalize(join(dir, path === '/' ? 'index.html' : decodeURIComponent(path)));
    if (!file.startsWith(dir + sep)) {
      response.writeHead(403).end();
      return;
    }
    readFile(file).then(
      (body) => response.writeHead(200, { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/` };
}

/**
 * Installs a fake `window.mnemo` (the preload's bridge) before any page script runs: it answers
 * the commands the window asks at start, holds a recorded run whose first `recorded` events
 * `sessions:events` returns, and pushes the rest on the live channel once the page subscribed,
 * from `liveFrom` on (so the live events overlap the record, as they may in the app).
 */
async function openWithFakeApi(
  browser: Browser,
  url: string,
  run: { events: AgentEvent[]; recorded: number; liveFrom: number },
  /** A script run in the page before its own, after the fake is installed. */
  watch?: string,
): Promise<{ page: Page; problems: string[] }> {
  // The fake answers what the real main process would: its events must parse.
  for (const event of run.events) AgentEventSchema.parse(event);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // The fake serves no mnemo-file: images.
    if (message.type() === 'error' && !/mnemo-file|ERR_UNKNOWN_URL_SCHEME|Failed to load resource/.test(message.text())) problems.push(`console error: ${message.text()}`);
  });
  // Plain shapes in the page (the event union is too deep a type for a serialised argument).
  type PageRun = { events: Array<{ runId: string; seq: number }>; recorded: number; liveFrom: number };
  await page.addInitScript((fixture: PageRun) => {
    const ok = (value: unknown) => Promise.resolve({ ok: true, value });
    const runId = fixture.events[0]!.runId;
    const listeners: Array<(event: unknown) => void> = [];
    const calls: string[] = [];
    const api = {
      'run:current': () => ok({ id: runId, kind: 'run', task: 'Fake task', paused: false, conversationId: null, pendingQuestion: null, status: 'running', desktop: { private: false, display: ':0' } }),
      'runs:list': () => ok([{ id: runId, kind: 'run', task: 'Fake task', status: 'running', desktop: { private: false, display: ':0' } }]),
      'sessions:events': ({ since }: { since: number }) => {
        calls.push(`sessions:events ${since}`);
        return ok(fixture.events.slice(0, fixture.recorded).filter((event) => event.seq > since));
      },
      'settings:get': () => ok({ config: { model: { baseUrl: 'http://127.0.0.1:1/v1', model: 'fake', family: 'tools' } }, hasApiKey: false, dataDir: '/tmp/fake', configPath: '/tmp/fake/config.json' }),
      'run:pause': ({ id }: { id: string }) => {
        calls.push(`run:pause ${id}`);
        return ok({ id, kind: 'run', task: 'Fake task', paused: true, conversationId: null, pendingQuestion: null, status: 'paused', desktop: { private: false, display: ':0' } });
      },
      onEvent: (listener: (event: unknown) => void) => {
        listeners.push(listener);
        // The live channel: what the run emits from now on, starting inside the recorded part.
        setTimeout(() => fixture.events.slice(fixture.liveFrom - 1).forEach((event) => listener(event)), 50);
        return () => undefined;
      },
    };
    Object.defineProperty(globalThis, 'mnemo', { value: Object.freeze(api) });
    Object.defineProperty(globalThis, 'fakeCalls', { value: calls });
  }, run as unknown as PageRun);
  if (watch) await page.addInitScript({ content: watch });
  await page.goto(url);
  return { page, problems };
}

/** A live run of `steps` steps (the last one still going), as the loop emits it. */
function liveRun(steps: number): AgentEvent[] {
  return fakeRunEvents(steps, { runId: 'fake-run', lastStepGoing: true }) as unknown as AgentEvent[];
}

describe('renderer in Chromium', () => {
  let outDir: string;
  let server: Server;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'mnemo-renderer-'));
    const renderer = electronViteConfig.renderer ?? {};
    await build({
      ...renderer,
      configFile: false,
      root: rendererRoot,
      // What electron-vite sets for a production renderer: relative asset URLs.
      base: './',
      mode: 'production',
      logLevel: 'warn',
      build: { ...renderer.build, outDir, emptyOutDir: true },
    });
    ({ server, url } = await serve(outDir));
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((closed) => (server ? server.close(closed) : closed(undefined)));
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('over the preload (IPC transport) catches up from the record and follows live events: every step once, in order', async () => {
    const events = liveRun(6);
    // The record holds seq 1..12; the live channel repeats from seq 8 on: no gap, no duplicate.
    const { page, problems } = await openWithFakeApi(browser, url, { events, recorded: 12, liveFrom: 8 });
    const rows = page.getByRole('list', { name: 'Steps' }).getByRole('listitem');
    await expect.poll(() => rows.count()).toBe(6);
    expect(await rows.nth(0).innerText()).toContain('click at (10, 20)');
    expect(await rows.nth(4).innerText()).toContain('Thought of step 5.');
    expect(await rows.nth(5).innerText()).toContain('Thinking about step 6');
    await expect.poll(() => page.getByTestId('step-count').innerText()).toBe('6 / 50');
    // Screenshots load by URL from the app's protocol, never as bytes in events (the fake serves none, so the image retries).
    expect(await page.getByRole('img', { name: 'Current screen' }).getAttribute('src')).toMatch(/^mnemo-file:\/\/session\/fake-run\/screenshots\/step-0006\.jpg(\?retry=\d+)?$/);
    expect(await page.evaluate('globalThis.fakeCalls')).toContain('sessions:events 0');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    expect(await page.evaluate('globalThis.fakeCalls')).toContain('run:pause fake-run');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a long run arrives with its last steps in view: the timeline puts each row on the page once, and none of the first on the way there', async () => {
    const events = liveRun(150);
    // Every row the timeline ever adds to the page, by its position in the list (a row, or a part of
    // the page added with its rows already in it). Page code, as the page runs it.
    const watchRows = `
      const added = [];
      Object.defineProperty(globalThis, 'rowsAdded', { value: added });
      new MutationObserver((records) => {
        for (const record of records) {
          for (const node of record.addedNodes) {
            if (!(node instanceof Element)) continue;
            const rows = node.matches('.virtual-row') ? [node] : [...node.querySelectorAll('.virtual-row')];
            for (const row of rows) added.push(Number(row.getAttribute('aria-posinset')));
          }
        }
      }).observe(document, { childList: true, subtree: true });
    `;
    const { page, problems } = await openWithFakeApi(browser, url, { events, recorded: events.length, liveFrom: events.length + 1 }, watchRows);
    const list = page.getByRole('list', { name: 'Steps' });
    const lastRow = list.getByRole('listitem').filter({ hasText: 'Thinking about step 150' });
    await lastRow.waitFor();
    const viewport = page.locator('.timeline .virtual-viewport');
    const inView = async (row: Locator) => {
      const [box, port] = await Promise.all([row.boundingBox(), viewport.boundingBox()]);
      return box !== null && port !== null && box.y >= port.y - 1 && box.y + box.height <= port.y + port.height + 1;
    };
    expect(await inView(lastRow)).toBe(true);
    // The rows went onto the page once each, where they are shown: none of the first steps on the way to the end.
    const added = (await page.evaluate('globalThis.rowsAdded')) as number[];
    expect(added.length).toBeGreaterThan(0);
    expect(new Set(added).size).toBe(added.length);
    expect(Math.min(...added)).toBeGreaterThan(100);

    // Scrolled to the start by the user: the first rows, and a way back to the latest.
    await viewport.evaluate((element) => element.scrollTo({ top: 0 }));
    const firstRow = list.getByRole('listitem').filter({ hasText: 'click at (10, 20)' });
    await firstRow.waitFor();
    expect(await inView(firstRow)).toBe(true);
    await page.getByRole('button', { name: 'Follow the latest step' }).click();
    await expect.poll(() => inView(lastRow)).toBe(true);
    await page.getByRole('button', { name: 'Follow the latest step' }).waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('keeps the accessible names in English when the window speaks Chinese', async () => {
    const { page, problems } = await openWithFakeApi(browser, url, { events: liveRun(2), recorded: 3, liveFrom: 4 });
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('combobox').last().selectOption('zh');
    await expect.poll(() => page.getByRole('link', { name: 'Settings' }).innerText()).toBe('设置');
    for (const name of ['Run', 'Memory', 'Blackboard', 'History']) expect(await page.getByRole('link', { name, exact: true }).count()).toBe(1);
    expect(await page.getByRole('textbox', { name: 'Base URL' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Test connection' }).innerText()).toBe('测试连接');
    expect(await page.getByRole('button', { name: 'Save' }).innerText()).toBe('保存');
    await page.getByRole('link', { name: 'Run' }).click();
    expect(await page.getByRole('button', { name: 'Start' }).innerText()).toBe('开始');
    expect(await page.getByRole('list', { name: 'Steps' }).count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('runs under a CSP that refuses inline scripts', async () => {
    const { page } = await openWithFakeApi(browser, url, { events: liveRun(1), recorded: 1, liveFrom: 2 });
    const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');

    // An inline script added by the page must be blocked (Playwright's own evaluate is exempt).
    // Written as a string: this file is type-checked without DOM types.
    const outcome = (await page.evaluate(`new Promise((done) => {
      let violated = null;
      document.addEventListener('securitypolicyviolation', (event) => { violated = event.violatedDirective; });
      const script = document.createElement('script');
      script.textContent = 'globalThis.inlineRan = true';
      document.body.append(script);
      setTimeout(() => done({ ran: globalThis.inlineRan === true, violated }), 100);
    })`)) as { ran: boolean; violated: string | null };
    expect(outcome.ran).toBe(false);
    expect(outcome.violated).toMatch(/^script-src/);
    await page.close();
  });
});
