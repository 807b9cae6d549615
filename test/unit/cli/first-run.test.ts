/**
 * A newcomer's first commands: `npm install` runs no dependency's install script; the root
 * package fetches Electron's binary itself (scripts/fetch-electron.js, from `prepare`), and a
 * download that cannot be made (offline, a proxy, a firewall) is one line, not a failed install.
 * `npm start` without that binary says what is missing, how to fetch it, and that
 * `npx mnemo serve` runs the same app meanwhile.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-first-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the install', () => {
  it("runs no dependency's install script: Electron's binary is the root package's own, tolerant step", () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean>; scripts: Record<string, string> };
    // Every dependency with an install script is listed, denied: @google/genai's preinstall is a no-op echo,
    // protobufjs's postinstall a version warning, tesseract.js's an opencollective banner, msgpackr-extract's
    // (bullmq's) an optional native build msgpackr does without.
    expect(pkg.allowScripts).toEqual({ '@google/genai': false, electron: false, 'electron-winstaller': false, esbuild: false, 'msgpackr-extract': false, protobufjs: false, 'tesseract.js': false });
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.js');
    expect(readFileSync(join(root, 'scripts/prepare.js'), 'utf8')).toMatch(/fetchElectron\(\)/);
  });

  it('goes on when the binary cannot be downloaded: exit 0 and one line saying so', async () => {
    // A mirror on a port nothing listens on: the download fails as it does offline.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      npm_command: 'install',
      ELECTRON_MIRROR: `http://127.0.0.1:${port}/`,
      // Not installed, whatever this machine has, and nothing cached to fall back on.
      ELECTRON_OVERRIDE_DIST_PATH: join(scratch, 'no-electron-here'),
      electron_config_cache: mkdtempSync(join(scratch, 'cache-')),
    };
    delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
    const fetched = spawnSync(process.execPath, [join(root, 'scripts/fetch-electron.js')], { cwd: root, encoding: 'utf8', env });
    expect(fetched.status, fetched.stderr).toBe(0);
    expect(fetched.stderr).toBe(
      `mnemo: Electron's binary could not be downloaded (RequestError: connect ECONNREFUSED 127.0.0.1:${port}); the desktop window needs it, the CLI and \`npx mnemo serve\` do not. Fetch it later with: node node_modules/electron/install.js\n`,
    );

    // ELECTRON_SKIP_BINARY_DOWNLOAD: nothing is tried, nothing said.
    const skipped = spawnSync(process.execPath, [join(root, 'scripts/fetch-electron.js')], { cwd: root, encoding: 'utf8', env: { ...env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } });
    expect([skipped.status, skipped.stderr]).toEqual([0, '']);
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
