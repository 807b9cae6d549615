/**
 * The renderer in real headless Chromium, built with the app's own renderer config (React
 * plugin, CSP <meta>), with a fake `window.mnemo` standing in for the preload.
 *
 * Served over HTTP rather than file://, because Chromium refuses ES module scripts from file://
 * (Electron's file protocol allows them); the CSP <meta> applies the same way.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import electronViteConfig from '../../electron.vite.config';
import { commands, resultSchema, type Display, type Result } from '../../src/shared/contract';
import { HEADLESS_CHROMIUM_ARGS } from '../fixtures/chromium-flags';

const CHROMIUM_ARGS = HEADLESS_CHROMIUM_ARGS;

const rendererRoot = resolve(import.meta.dirname, '../../src/renderer');

const twoDisplays: Display[] = [
  { id: 1, bounds: { x: 0, y: 0, width: 1920, height: 1080 }, scaleFactor: 1, primary: true },
  { id: 'HDMI-1', bounds: { x: 1920, y: 0, width: 2560, height: 1440 }, scaleFactor: 2, primary: false },
];

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

/** Installs a fake `window.mnemo` before any page script runs; `displaysAnswer` is its reply. */
async function openWithFakeApi(browser: Browser, url: string, displaysAnswer: Result<Display[]>): Promise<{ page: Page; problems: string[] }> {
  // The fake answers what the real main process would: check it against the contract first.
  resultSchema(commands['operator:displays'].response).parse(displaysAnswer);
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  await page.addInitScript((answer) => {
    const api = {
      'app:version': async () => ({ ok: true, value: { version: '0.0.0-test', platform: 'linux' } }),
      'operator:displays': async () => answer,
      onEvent: () => () => undefined,
    };
    Object.defineProperty(globalThis, 'mnemo', { value: Object.freeze(api) });
  }, displaysAnswer);
  await page.goto(url);
  return { page, problems };
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

  it('lists both displays the API reports', async () => {
    const { page, problems } = await openWithFakeApi(browser, url, { ok: true, value: twoDisplays });

    await expect.poll(() => page.title()).toBe('Mnemo');
    await page.getByRole('heading', { name: 'Mnemo', level: 1 }).waitFor();
    const items = page.getByRole('list', { name: 'Displays' }).getByRole('listitem');
    await items.nth(1).waitFor();
    expect(await items.count()).toBe(2);
    expect(await items.nth(0).innerText()).toMatch(/Display 1\s*primary\s*1920×1080 at \(0, 0\), scale 1/);
    expect(await items.nth(1).innerText()).toMatch(/Display HDMI-1\s*2560×1440 at \(1920, 0\), scale 2/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows the task box disabled, with the reason', async () => {
    const { page } = await openWithFakeApi(browser, url, { ok: true, value: twoDisplays });
    await page.getByRole('heading', { name: 'Task' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Task' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Run' }).isDisabled()).toBe(true);
    expect(await page.getByText(/agent loop arrives with the next milestone/i).isVisible()).toBe(true);
    await page.close();
  });

  it('shows a failed answer as an alert, not a crash', async () => {
    const { page, problems } = await openWithFakeApi(browser, url, {
      ok: false,
      error: { kind: 'unavailable', message: 'no display server' },
    });
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toBe('unavailable: no display server');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('runs under a CSP that refuses inline scripts', async () => {
    const { page } = await openWithFakeApi(browser, url, { ok: true, value: twoDisplays });
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
