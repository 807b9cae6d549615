/**
 * The package as a user gets it: `npm pack`, then `npm install -g` of the tarball into a
 * temporary prefix (its dependencies come from the registry, as for anyone), then the installed
 * `mnemo`, started away from the clone: it runs its shipped build (no sources, no tsx, no
 * electron-vite there) for `sessions`, `doctor`, `run` and `serve` with the window it sends to a
 * browser. Slow: it installs sharp, nut-js and the rest.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayProblem } from '../fixtures/desktop/display';
import { startInstalledMnemo, type CliRun } from '../fixtures/mnemo-cli';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-package-'));
/** An X display that answers (CI's, or the desktop tests'), for what drives the operator host. */
const display = process.env.DISPLAY?.trim() && displayProblem(process.env.DISPLAY.trim()) === null ? process.env.DISPLAY.trim() : undefined;
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** npm, with its output kept; rejects when it fails. */
function npm(args: string[], cwd: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    // No update check, no audit: only what the install needs from the registry.
    const child = spawn('npm', args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(stdout) : reject(new Error(`npm ${args.join(' ')} exited ${code}:\n${stderr}`))));
  });
}

interface Packed {
  filename: string;
  entryCount: number;
  files: Array<{ path: string }>;
}

let packed: Packed;
let installedBin: string;
/** Where the installed commands run: nowhere near the clone. */
let elsewhere: string;

function installed(args: string[], env: NodeJS.ProcessEnv = {}) {
  return startInstalledMnemo(installedBin, args, { cwd: elsewhere, env });
}

beforeAll(async () => {
  // The build is fresh (test/build-fresh.ts); packing here must not rebuild what other tests use.
  const listing = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], root);
  [packed] = JSON.parse(listing) as [Packed];
  const prefix = join(scratch, 'prefix');
  await npm(['install', '--global', '--prefix', prefix, join(scratch, packed.filename)], scratch);
  installedBin = resolve(join(prefix, 'bin'), readlinkSync(join(prefix, 'bin', 'mnemo')));
  elsewhere = mkdtempSync(join(scratch, 'home-'));
}, 900_000);

describe('npm pack', () => {
  it('holds what the package runs: the built CLI, the window, the sample; no sources, tests or benches', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'bin/mnemo.js', 'dist/cli/mnemo.js', 'dist/cli/operator-host.js', 'out/renderer/index.html', 'samples/first-session/session.json']));
    expect(paths.filter((path) => /^(src|test|bench|docs|scripts|node_modules)\//.test(path) || path.endsWith('.ts'))).toEqual([]);
    expect(paths.filter((path) => !/^(package\.json|README\.md|LICENSE|bin\/mnemo\.js|dist\/cli\/|out\/|samples\/)/.test(path))).toEqual([]);
    expect(packed.entryCount).toBe(paths.length);
  });

  it('installs globally as a mnemo command that runs the installed package', () => {
    expect(installedBin).toBe(join(scratch, 'prefix', 'lib', 'node_modules', 'mnemo', 'bin', 'mnemo.js'));
  });
});

describe('the globally installed mnemo', () => {
  it('mnemo sessions: a new data directory lists the sample session', async () => {
    const dataDir = join(elsewhere, 'sessions-data');
    const listed = await installed(['sessions', '--json', '--data-dir', dataDir]).result;
    expect(listed.code, listed.stderr).toBe(0);
    // Nothing built at start: the package runs what it ships.
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ sample: true, status: 'finished', steps: 4 })]);
    const table = await installed(['sessions', '--data-dir', dataDir]).result;
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+STARTED\s+STATUS\s+STEPS\s+COST\s+TASK\n\S+\s.*\(sample\)/);
  });

  it('mnemo doctor: every check, each with its status; the data directory usable, Electron not there', async () => {
    const dataDir = join(elsewhere, 'doctor-data');
    const doctor = await installed(['doctor', '--json', '--data-dir', dataDir]).result;
    // 1: the provider is not configured (and maybe no display); never a crash.
    expect([0, 1], doctor.stderr).toContain(doctor.code);
    const checks = JSON.parse(doctor.stdout) as Array<{ check: string; status: string; detail: string }>;
    expect(checks.map((check) => check.check)).toEqual(expect.arrayContaining(['display', 'capture', 'input', 'electron', 'data directory', 'provider']));
    expect(checks.find((check) => check.check === 'data directory')).toMatchObject({ status: 'ok' });
    expect(checks.find((check) => check.check === 'electron')).toMatchObject({ status: 'warn' });
    expect(checks.find((check) => check.check === 'provider')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/missing --base-url/) });
  });

  it('mnemo run without a display: the run service loads; exit 3 naming DISPLAY', async () => {
    const run = await installed(['run', 'Open the editor', '--data-dir', join(elsewhere, 'run-data'), '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--family', 'tools', '--non-interactive'], {
      DISPLAY: ':4095',
    }).result;
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/DISPLAY=:4095/);
  });

  it('mnemo serve: sends the window to a browser, and stops on SIGTERM', async () => {
    const served = installed(['serve', '--port', '0', '--data-dir', join(elsewhere, 'serve-data')]);
    const deadline = Date.now() + 60_000;
    let url: string | undefined;
    while (url === undefined && Date.now() < deadline) {
      url = /Mnemo is at (\S+)/.exec(served.output().stdout)?.[1];
      if (url === undefined) await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
    expect(url, served.output().stderr).toBeDefined();
    // The token in the address is traded for a cookie, as a browser would.
    const opened = await fetch(url as string, { redirect: 'manual' });
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const page = await fetch(new URL('/', url), { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await page.text();
    expect(html).toMatch(/<div id="root"><\/div>/);
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    const bundle = await fetch(new URL(script as string, url), { headers: { cookie } });
    expect(bundle.status).toBe(200);
    served.child.kill('SIGTERM');
    const ended: CliRun = await served.result;
    expect(ended.code, ended.stderr).toBe(0);
  });

  it('mnemo --help lists every command', async () => {
    const help = await installed(['--help']).result;
    expect(help.code).toBe(0);
    for (const command of ['displays', 'screenshot', 'act', 'run', 'parse', 'sessions', 'show', 'replay', 'export', 'memory', 'check-model', 'serve', 'doctor', 'facts']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(dirname(installedBin)).not.toContain(root);
  });
});

describe.skipIf(display === undefined)('the globally installed mnemo on a display: its operator host runs from the package', () => {
  it('mnemo act: a no-op action, its result as JSON', async () => {
    const acted = await installed(['act', '--json', '{"type":"wait","ms":0}'], { DISPLAY: display }).result;
    expect(acted.code, acted.stderr).toBe(0);
    expect(JSON.parse(acted.stdout)).toMatchObject({ ok: true, type: 'wait' });
  });

  it('mnemo screenshot: the image written, its Frame printed', async () => {
    const file = join(elsewhere, 'screen.png');
    const shot = await installed(['screenshot', '-o', file], { DISPLAY: display }).result;
    expect(shot.code, shot.stderr).toBe(0);
    expect(JSON.parse(shot.stdout)).toMatchObject({ image: { format: 'png' } });
    expect(readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
  });

  it('mnemo run: opens the display, then ends at the provider check before step 1 (exit 3)', async () => {
    const dataDir = join(elsewhere, 'run-display-data');
    // A provider on a port nothing listens on.
    const closed = createServer();
    await new Promise<void>((resolveListen) => closed.listen(0, '127.0.0.1', resolveListen));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolveClose) => closed.close(() => resolveClose()));
    const run = await installed(['run', 'Open the editor', '--data-dir', dataDir, '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm', '--family', 'tools', '--non-interactive', '--json'], {
      DISPLAY: display,
    }).result;
    expect(run.code, run.stderr).toBe(3);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; status?: string; reason?: string });
    expect(events[0]).toMatchObject({ type: 'run-started' });
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'failed', reason: expect.stringMatching(/connection refused/) });
    const listed = await installed(['sessions', '--json', '--data-dir', dataDir]).result;
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ task: 'Open the editor', status: 'failed' })]);
  });
});
