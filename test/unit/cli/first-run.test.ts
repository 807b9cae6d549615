/**
 * A newcomer's first commands: `npm install` may run exactly the install script the app needs
 * (Electron's, which fetches its binary), and `npm start` without that binary says what is
 * missing, how to fetch it, and that `npx mnemo serve` runs the same app meanwhile.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-first-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the install', () => {
  it("allows Electron's install script and no other that the app does not need", () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
    expect(pkg.allowScripts).toEqual({ electron: true, 'electron-winstaller': false, esbuild: false });
  });

  it('leaves no install script unreviewed (npm install-scripts ls)', () => {
    const listed = spawnSync('npm', ['install-scripts', 'ls'], { cwd: root, encoding: 'utf8' });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/No packages with unreviewed install scripts/);
  });
});

describe('npm start without the Electron binary', () => {
  it('exits non-zero with one clear message naming the fetch command and mnemo serve', () => {
    // An empty folder where Electron's binary should be: as after ELECTRON_SKIP_BINARY_DOWNLOAD.
    const started = spawnSync('npm', ['start'], { cwd: root, encoding: 'utf8', env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: mkdtempSync(join(scratch, 'no-electron-')) } });
    expect(started.status).not.toBe(0);
    expect(started.stderr).toContain("Electron's binary is not installed");
    expect(started.stderr).toContain('node node_modules/electron/install.js');
    expect(started.stderr).toContain('npx mnemo serve');
  });
});
