/**
 * The private desktop host on real Xvfb: a display of its own at a free number, with access
 * control, a window manager and the apps' windows up; stopped whole; an app that exits or shows no
 * window named in a clear message, leaving nothing behind; and the desktops of a process killed
 * with SIGKILL stopped by the next host that starts.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DesktopHost, type PrivateDesktop } from '../../src/main/operator/private-desktop/desktop-host';
import { processesWithEnvironment } from '../../src/main/operator/private-desktop/processes';
import { alive, FIRST_PRIVATE_DISPLAY, processesOfDesktopsUnder, waitUntil, xdpyinfo, xvfbUnder } from '../fixtures/desktop/private-desktops';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-desktops-'));
const started: PrivateDesktop[] = [];

afterAll(async () => {
  for (const desktop of started) await desktop.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function host(options: Partial<ConstructorParameters<typeof DesktopHost>[0]> = {}): DesktopHost {
  return new DesktopHost({ dataDir: mkdtempSync(join(scratch, 'data-')), firstDisplay: FIRST_PRIVATE_DISPLAY, ...options });
}

describe('a private desktop', () => {
  it('gets a free display with access control, a window manager and the app window up; stop leaves nothing', async () => {
    const desktops = host();
    const result = await desktops.start({ size: { width: 1024, height: 640 }, apps: ['xterm -geometry 40x10+30+40'] });
    if (!result.ok) throw new Error(result.message);
    const desktop = result.desktop;
    started.push(desktop);
    expect(desktop.display).toMatch(/^:\d+$/);
    expect(Number(desktop.display.slice(1))).toBeGreaterThanOrEqual(FIRST_PRIVATE_DISPLAY);
    expect(desktop.notes).toEqual([]);
    // With its cookie: the size asked for, and the xterm's window in the window manager's list.
    const info = await xdpyinfo(desktop.env);
    expect(info).toMatch(/dimensions:\s+1024x640 pixels/);
    const clients = await new Promise<string>((resolve, reject) =>
      execFile('xprop', ['-root', '_NET_CLIENT_LIST'], { env: desktop.env }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    expect(clients).toMatch(/window id # 0x/);
    // Without it: refused, so no other program can draw on it or read it.
    await expect(xdpyinfo({ ...process.env, DISPLAY: desktop.display, XAUTHORITY: join(scratch, 'none') })).rejects.toThrow();
    // Its programs carry its own XAUTHORITY; the user's WAYLAND_DISPLAY is not passed on.
    expect(desktop.env.WAYLAND_DISPLAY).toBeUndefined();
    const programs = processesWithEnvironment(`XAUTHORITY=${desktop.env.XAUTHORITY}`);
    expect(programs.length).toBeGreaterThanOrEqual(2); // openbox, sh/xterm
    const server = desktop.serverPid as number;
    expect(alive(server)).toBe(true);

    await desktop.stop();
    expect(alive(server)).toBe(false);
    expect(processesWithEnvironment(`XAUTHORITY=${desktop.env.XAUTHORITY}`)).toEqual([]);
    expect(existsSync(`/tmp/.X11-unix/X${desktop.display.slice(1)}`)).toBe(false);
    expect(existsSync(desktop.env.XAUTHORITY as string)).toBe(false);
  });

  it('two at once get two displays', async () => {
    const desktops = host();
    const [a, b] = await Promise.all([desktops.start({ size: { width: 800, height: 600 }, apps: [] }), desktops.start({ size: { width: 800, height: 600 }, apps: [] })]);
    if (!a.ok || !b.ok) throw new Error(`${a.ok ? '' : a.message} ${b.ok ? '' : b.message}`);
    started.push(a.desktop, b.desktop);
    expect(a.desktop.display).not.toBe(b.desktop.display);
    await Promise.all([a.desktop.stop(), b.desktop.stop()]);
  });

  it('two hosts sharing a data directory (two Mnemos) starting at once: two displays, each open to its own cookie', async () => {
    const dataDir = mkdtempSync(join(scratch, 'shared-'));
    const one = new DesktopHost({ dataDir, firstDisplay: FIRST_PRIVATE_DISPLAY });
    const other = new DesktopHost({ dataDir, firstDisplay: FIRST_PRIVATE_DISPLAY });
    const [a, b] = await Promise.all([one.start({ size: { width: 800, height: 600 }, apps: [] }), other.start({ size: { width: 800, height: 600 }, apps: [] })]);
    if (a.ok) started.push(a.desktop);
    if (b.ok) started.push(b.desktop);
    if (!a.ok || !b.ok) throw new Error(`${a.ok ? '' : a.message} ${b.ok ? '' : b.message}`);
    expect(a.desktop.display).not.toBe(b.desktop.display);
    expect(a.desktop.env.XAUTHORITY).not.toBe(b.desktop.env.XAUTHORITY);
    // Each desktop's files survived the other's start: its cookie opens its display.
    expect(await xdpyinfo(a.desktop.env)).toMatch(/dimensions:\s+800x600 pixels/);
    expect(await xdpyinfo(b.desktop.env)).toMatch(/dimensions:\s+800x600 pixels/);
    await Promise.all([a.desktop.stop(), b.desktop.stop()]);
    expect(readdirSync(join(dataDir, 'desktops')).filter((name) => name.startsWith('display-'))).toEqual([]);
  });

  it('an app that exits first: said with its exit code and output; the display is stopped', async () => {
    // This file's X servers only (their -auth files lie under scratch): other files start servers meanwhile.
    const before = xvfbUnder(scratch);
    const result = await host().start({ size: { width: 800, height: 600 }, apps: ['echo "no such thing here" >&2; exit 3'] });
    expect(result).toEqual({ ok: false, message: expect.stringMatching(/the app "echo .*" exited with code 3 before showing a window; it said: no such thing here/) });
    await waitUntil(() => xvfbUnder(scratch).every((pid) => before.includes(pid)), 'the Xvfb of the failed start to be gone');
  });

  it('an app that never shows a window: said after the bounded wait', async () => {
    const before = xvfbUnder(scratch);
    const desktops = host({ appTimeoutMs: 1500 });
    const result = await desktops.start({ size: { width: 800, height: 600 }, apps: ['sleep 60'] });
    expect(result).toEqual({ ok: false, message: 'cannot start a private desktop: the app "sleep 60" showed no window within 2 s.' });
    await waitUntil(() => xvfbUnder(scratch).every((pid) => before.includes(pid)), 'the Xvfb of the failed start to be gone');
    expect(processesOfDesktopsUnder(scratch)).toEqual([]);
  });

  it('an app that hands over to an instance elsewhere (exits 0, no window): the message says so', async () => {
    const result = await host({ appTimeoutMs: 1000 }).start({ size: { width: 800, height: 600 }, apps: ['true'] });
    expect(result.ok ? '' : result.message).toMatch(/showed no window within 1 s\. It exited at once without an error: it may have handed the work to an instance already running on another display/);
  });

  it('the desktop of a process killed with SIGKILL is stopped by the next host', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const child = spawn(process.execPath, [fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url)), fileURLToPath(new URL('../fixtures/desktop/start-private-desktop.ts', import.meta.url)), dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before its desktop was up: ${out}`)));
    });
    const { display, xvfb, xauthority } = JSON.parse(line) as { display: string; xvfb: number; xauthority: string };
    expect(alive(xvfb)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    // Killed hard: its desktop is still there...
    expect(alive(xvfb)).toBe(true);
    expect(readdirSync(join(dataDir, 'desktops'))).toContain(`display-${display.slice(1)}.json`);
    // ...until the next host starts.
    const said = await new DesktopHost({ dataDir, firstDisplay: FIRST_PRIVATE_DISPLAY }).reapLeftovers();
    expect(said).toEqual([expect.stringMatching(new RegExp(`stopped the private desktop ${display} left running by process \\d+, which is gone`))]);
    expect(alive(xvfb)).toBe(false);
    expect(processesWithEnvironment(`XAUTHORITY=${xauthority}`)).toEqual([]);
    expect(readdirSync(join(dataDir, 'desktops'))).toEqual([]);
  });
});
