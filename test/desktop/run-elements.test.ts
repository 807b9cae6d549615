/**
 * `run:elements` on a real private desktop: the snapshot a window's live view outlines is read
 * from the run's display alone, named only as the run names it (`:N`) and the data directory its
 * desktop lives in: its cookie there and its root window's accessibility bus. The user's session
 * bus in the environment (here a bogus one) is never asked. Chromium shows the test form, which
 * reports where its elements are.
 *
 * Debian packages: at-spi2-core, dbus-daemon, chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ElementSnapshot } from '../../src/shared/elements';
import type { Rect } from '../../src/shared/frame';
import { openElementReader } from '../../src/main/operator/a11y/open-reader';
import { DesktopHost, type PrivateDesktop } from '../../src/main/operator/private-desktop/desktop-host';
import { runDesktopSnapshot } from '../../src/main/service/runs/run-elements';
import { CHROMIUM_EXECUTABLE, CHROMIUM_MACHINE_FLAGS } from '../fixtures/chromium-flags';
import { FIRST_PRIVATE_DISPLAY, waitUntil } from '../fixtures/desktop/private-desktops';
import { startFormServer, type FormLayout } from '../fixtures/elements/form-server';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-run-elements-'));
const desktops: PrivateDesktop[] = [];

afterAll(async () => {
  for (const desktop of desktops) await desktop.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function expectSameBox(actual: Rect, expected: Rect): void {
  expect(Math.abs(actual.x - expected.x)).toBeLessThanOrEqual(1);
  expect(Math.abs(actual.y - expected.y)).toBeLessThanOrEqual(1);
  expect(Math.abs(actual.x + actual.width - (expected.x + expected.width))).toBeLessThanOrEqual(1);
  expect(Math.abs(actual.y + actual.height - (expected.y + expected.height))).toBeLessThanOrEqual(1);
}

describe('run:elements on a private desktop', () => {
  it('reads the run display’s own tree by its name and data directory, never the user’s bus', async () => {
    const form = await startFormServer();
    try {
      const dataDir = mkdtempSync(join(scratch, 'data-'));
      const hostEnv = { ...process.env };
      delete hostEnv.AT_SPI_BUS_ADDRESS;
      delete hostEnv.DBUS_SESSION_BUS_ADDRESS;
      const host = new DesktopHost({ dataDir, firstDisplay: FIRST_PRIVATE_DISPLAY, env: hostEnv });
      // What Mnemo itself runs with: a session bus of the user's, which must not be asked.
      const env = { ...hostEnv, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/mnemo-user-bus' };
      const profile = mkdtempSync(join(scratch, 'profile-'));
      const chromium = [CHROMIUM_EXECUTABLE, ...CHROMIUM_MACHINE_FLAGS, '--kiosk', '--test-type', `--user-data-dir=${profile}`, form.url].join(' ');
      const started = await host.start({ size: { width: 1280, height: 800 }, apps: [chromium] });
      if (!started.ok) throw new Error(started.message);
      desktops.push(started.desktop);
      await waitUntil(() => form.layout() !== undefined, 'the form to report its layout', 60_000);
      const layout = form.layout() as FormLayout;

      // The run as the window knows it: its display's name, nothing of the desktop's environment.
      const desktop = { private: true as const, size: '1280x800', apps: [chromium], display: started.desktop.display };
      let snapshot: ElementSnapshot | undefined;
      const failures: string[] = [];
      await waitUntil(
        async () => {
          const read = await runDesktopSnapshot(desktop, { dataDir, env, openReader: openElementReader });
          if (!read.ok) {
            failures.push(`${read.error.kind}: ${read.error.message}`);
            return false;
          }
          snapshot = read.value;
          return read.value.elements.some((element) => element.role === 'push button' && element.name === 'Submit');
        },
        'the form in the run display’s tree',
        60_000,
      );
      if (!snapshot) throw new Error(`no snapshot: ${failures.at(-1) ?? ''}`);
      expect(snapshot.display).toBe(started.desktop.display);
      const submit = snapshot.elements.find((element) => element.role === 'push button' && element.name === 'Submit');
      const user = snapshot.elements.find((element) => element.role === 'entry' && element.name === 'User name');
      if (!submit || !user) throw new Error('the form is not whole in the snapshot');
      expectSameBox(submit.bounds, layout.rects.submit);
      expectSameBox(user.bounds, layout.rects.user);
      expect(JSON.stringify(snapshot)).not.toContain('hunter2');
    } finally {
      await form.close();
    }
  });

  it('a display without an accessibility bus is a value that says so', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const env = { ...process.env };
    delete env.AT_SPI_BUS_ADDRESS;
    delete env.DBUS_SESSION_BUS_ADDRESS;
    const host = new DesktopHost({ dataDir, firstDisplay: FIRST_PRIVATE_DISPLAY, env, accessibility: false });
    const started = await host.start({ size: { width: 1280, height: 800 }, apps: [] });
    if (!started.ok) throw new Error(started.message);
    desktops.push(started.desktop);
    const read = await runDesktopSnapshot({ private: true, size: '1280x800', apps: [], display: started.desktop.display }, { dataDir, env, openReader: openElementReader });
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.error.kind).toBe('unavailable');
  });
});
