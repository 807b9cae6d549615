/**
 * Smoke test of the real Electron app: build it, launch it, look at its one window.
 *
 * Electron's binary is downloaded by `npm install` (scripts/fetch-electron.js); where that could
 * not happen (offline machines, ELECTRON_SKIP_BINARY_DOWNLOAD) this suite reports itself skipped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { build } from 'electron-vite';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppVersionSchema, commandNames, resultSchema, type MnemoApi } from '../../src/shared/contract';

const projectRoot = resolve(import.meta.dirname, '../..');

/** The Electron executable, resolved the way the `electron` package does, or null if absent. */
function electronExecutable(): string | null {
  try {
    const packageDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    const pathFile = join(packageDir, 'path.txt');
    if (!existsSync(pathFile)) return null;
    const relative = readFileSync(pathFile, 'utf8').trim();
    const distDir = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(packageDir, 'dist');
    const executable = join(distDir, relative);
    return existsSync(executable) ? executable : null;
  } catch {
    return null;
  }
}

const executablePath = electronExecutable();

const packageVersion = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * `window.mnemo` as page functions see it. Page functions are serialised into the renderer, so
 * each one spells this cast out itself instead of calling a helper from this module.
 */
type PageGlobals = { mnemo: MnemoApi; require?: unknown; process?: unknown };

describe.skipIf(executablePath === null)('Electron app (smoke)', () => {
  let app: ElectronApplication | undefined;
  let window: Page;

  beforeAll(async () => {
    await build({ root: projectRoot, logLevel: 'warn' });
    app = await _electron.launch({
      executablePath: executablePath ?? undefined,
      // Chromium's sandbox cannot start as root (containers, CI); everywhere else keep it on.
      args: [projectRoot, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      cwd: projectRoot,
    });
    window = await app.firstWindow();
    await window.waitForLoadState('domcontentloaded');
  });

  afterAll(async () => {
    await app?.close();
  });

  it('opens one window titled Mnemo', async () => {
    await expect.poll(() => window.title()).toBe('Mnemo');
    expect(app?.windows()).toHaveLength(1);
  });

  it('renders the window over IPC: the views, the task box, the settings from config.json', async () => {
    for (const name of ['Run', 'Memory', 'Blackboard', 'History', 'Settings']) await window.getByRole('link', { name, exact: true }).waitFor();
    // Without a provider the window opens on Settings; with one, on Run. Either way it read the settings over IPC.
    await window.locator('.settings-view, .run-view').first().waitFor();
    await window.getByRole('link', { name: 'Run' }).click();
    await window.getByRole('textbox', { name: 'Task' }).waitFor();
    expect(await window.getByRole('button', { name: 'Start' }).count()).toBe(1);
    await window.getByRole('link', { name: 'Settings' }).click();
    await expect.poll(() => window.locator('.settings-view code').first().innerText()).not.toBe('—');
  });

  it('gives the page the contract functions and nothing of Node or Electron', async () => {
    const exposed = await window.evaluate(() => {
      const page = globalThis as unknown as PageGlobals;
      return { keys: Object.keys(page.mnemo).sort(), require: typeof page.require, process: typeof page.process };
    });
    expect(exposed).toEqual({ keys: [...commandNames, 'onEvent'].sort(), require: 'undefined', process: 'undefined' });
  });

  it('answers a command over IPC and refuses a malformed request', async () => {
    const version = await window.evaluate(() => (globalThis as unknown as PageGlobals).mnemo['app:version']());
    expect(resultSchema(AppVersionSchema).parse(version)).toMatchObject({ ok: true, value: { version: packageVersion } });

    // The preload forwards whatever it is given; the main process must refuse it.
    const malformed = await window.evaluate(() =>
      (globalThis as unknown as PageGlobals).mnemo['app:version']({ unexpected: true } as never),
    );
    expect(malformed).toMatchObject({ ok: false, error: { kind: 'invalid_request' } });
  });
});
