/**
 * Elements read from the accessibility tree (AT-SPI) of real apps, each test on a private desktop
 * of its own: its own X display, session bus and accessibility bus, started by the desktop host
 * before the apps (as a run's private desktop is). Chromium shows the test form (kiosk: its
 * client pixels are screen pixels) and reports where its elements are; a GTK3 app (zenity's form)
 * is compared with where X says its window is. A display without an accessibility bus is a clear
 * message, and pixels only.
 *
 * Debian packages: at-spi2-core, dbus-daemon, zenity, chromium, xdotool, x11-utils (xwininfo).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ElementSnapshotSchema, type Element, type ElementSnapshot } from '../../src/shared/elements';
import type { Rect } from '../../src/shared/frame';
import { findElements } from '../../src/main/operator/a11y/element-query';
import { openElementReader, type OpenReader } from '../../src/main/operator/a11y/open-reader';
import { DesktopHost, type PrivateDesktop } from '../../src/main/operator/private-desktop/desktop-host';
import { CHROMIUM_EXECUTABLE, CHROMIUM_MACHINE_FLAGS } from '../fixtures/chromium-flags';
import { FIRST_PRIVATE_DISPLAY, waitUntil } from '../fixtures/desktop/private-desktops';
import { useElementDesktops, withoutMachineBuses } from '../fixtures/elements/element-desktops';
import { snapshotWhen } from '../fixtures/elements/snapshot-when';
import { startFormServer, type FormLayout } from '../fixtures/elements/form-server';
import { runMnemo } from '../fixtures/mnemo-cli';

const { scratch, desktops, readers } = useElementDesktops('mnemo-elements-');

async function startDesktop(size: { width: number; height: number }, apps: string[], options: { accessibility?: boolean } = {}): Promise<PrivateDesktop> {
  const host = new DesktopHost({ dataDir: mkdtempSync(join(scratch, 'data-')), firstDisplay: FIRST_PRIVATE_DISPLAY, env: withoutMachineBuses(), ...options });
  const started = await host.start({ size, apps });
  if (!started.ok) throw new Error(started.message);
  desktops.push(started.desktop);
  return started.desktop;
}

async function readerOf(desktop: PrivateDesktop): Promise<OpenReader> {
  const opening = await openElementReader(desktop.env);
  if (!opening.ok) throw new Error(opening.message);
  readers.push(opening.opened);
  return opening.opened;
}


/** The first element matching `role:name`, or undefined. */
function find(snapshot: ElementSnapshot, query: string): Element | undefined {
  const [role = '', name = ''] = query.split(':');
  return findElements(snapshot.elements, { role, name })[0];
}

function one(snapshot: ElementSnapshot, query: string): Element {
  const found = find(snapshot, query);
  if (!found) throw new Error(`no ${query} in ${JSON.stringify(snapshot.elements.map((element) => `${element.role}:${element.name}`))}`);
  return found;
}

function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(file, [...args], { env, timeout: 20_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${file} ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout))),
  );
}

/** `mnemo doctor --json` on a desktop, its checks by name. */
async function doctorChecks(env: NodeJS.ProcessEnv): Promise<Map<string, { status: string; detail: string; fix: string }>> {
  const run = await runMnemo(['doctor', '--json', '--data-dir', mkdtempSync(join(scratch, 'doctor-'))], { env: { OPENAI_API_KEY: '', XDG_SESSION_TYPE: 'x11', ...env } });
  const checks = JSON.parse(run.stdout) as Array<{ check: string; status: string; detail: string; fix: string }>;
  return new Map(checks.map((check) => [check.check, check]));
}

const centre = (rect: Rect) => ({ x: Math.floor(rect.x + rect.width / 2), y: Math.floor(rect.y + rect.height / 2) });

/** How far apart two boxes are at each edge: left, top, right, bottom. */
const edgeGaps = (actual: Rect, expected: Rect): Record<'left' | 'top' | 'right' | 'bottom', number> => ({
  left: Math.abs(actual.x - expected.x),
  top: Math.abs(actual.y - expected.y),
  right: Math.abs(actual.x + actual.width - (expected.x + expected.width)),
  bottom: Math.abs(actual.y + actual.height - (expected.y + expected.height)),
});

/** Within a pixel on every edge (the page's fractional CSS pixels, rounded by the tree). */
const sameBox = (actual: Rect, expected: Rect): boolean => Object.values(edgeGaps(actual, expected)).every((gap) => gap <= 1);

/** The form's elements as the tree names them, by the id the page reports them under. */
const FORM_ELEMENTS = [
  ['entry:User name', 'user'],
  ['password text:Password', 'secret'],
  ['check box:I agree', 'agree'],
  ['push button:Submit', 'submit'],
  ['link:Need help?', 'help'],
] as const;

function expectSameBox(actual: Rect, expected: Rect): void {
  for (const [edge, gap] of Object.entries(edgeGaps(actual, expected))) expect(gap, `the ${edge} edge`).toBeLessThanOrEqual(1);
}

describe.each([
  { width: 1280, height: 800, image: { width: 1280, height: 800 } },
  { width: 1920, height: 1080, image: { width: 1280, height: 720 } },
])('Chromium with the test form at $width x $height', ({ width, height, image }) => {
  it('puts each element where the page says it is, on the screen and on the model image; no password value; --at and --find; a removed element is stale', async () => {
    const form = await startFormServer();
    try {
      const profile = mkdtempSync(join(scratch, 'profile-'));
      // No --force-renderer-accessibility here: the private desktop adds it.
      const chromium = [CHROMIUM_EXECUTABLE, ...CHROMIUM_MACHINE_FLAGS, '--kiosk', '--test-type', `--user-data-dir=${profile}`, form.url].join(' ');
      const desktop = await startDesktop({ width, height }, [chromium]);
      expect(desktop.notes).toEqual([]);
      const reader = await readerOf(desktop);
      await waitUntil(() => form.layout() !== undefined, 'the form to report its layout', 60_000);
      const layout = form.layout() as FormLayout;
      expect(layout.devicePixelRatio).toBe(1);
      const first = await snapshotWhen(reader, (taken) => taken.elements.some((element) => element.role === 'push button' && element.name === 'Submit'), 'the form in the tree');
      // The tree's boxes come from a layout of its own, which under load can be a moment behind the
      // page's (CI once saw the name field 47 px narrower, as if the stylesheet's width had not reached it yet):
      // wait until every box is where the page says. If they never are, the checks below name the one that is off.
      const placed = (taken: ElementSnapshot) =>
        FORM_ELEMENTS.every(([query, id]) => {
          const found = find(taken, query);
          return found !== undefined && sameBox(found.bounds, layout.rects[id]);
        });
      const snapshot = await snapshotWhen(reader, placed, 'the boxes in the tree where the page says they are', 30_000).catch(() => first);
      expect(snapshot.method).toBe('collection');
      expect(snapshot.truncated).toBeUndefined();

      const user = one(snapshot, 'entry:User name');
      const secret = one(snapshot, 'password text:Password');
      const submit = one(snapshot, 'push button:Submit');
      const help = one(snapshot, 'link:Need help?');
      // Kiosk: the page's client pixels are the screen's.
      for (const [query, id] of FORM_ELEMENTS) expectSameBox(one(snapshot, query).bounds, layout.rects[id]);
      expect(user.value).toBe('alice');
      expect(user.states).toEqual(expect.arrayContaining(['editable', 'focusable']));
      expect(secret).not.toHaveProperty('value');
      expect(JSON.stringify(snapshot)).not.toContain('hunter2');

      // A walk of the tree finds what the Collection query found; past its budget a snapshot is cut and says so.
      const interactive = (taken: ElementSnapshot) => taken.elements.filter((element) => element.interactive).map((element) => `${element.role}:${element.name}@${element.bounds.x},${element.bounds.y}`);
      const walked = await reader.reader.snapshot({ method: 'walk' });
      if (!walked.ok) throw new Error(walked.message);
      expect(walked.snapshot.method).toBe('walk');
      // (The walk stops at what does not show: Chromium's kiosk toolbar, whose address bar still
      // says it shows to the Collection query, is left out by it.)
      const queried = interactive(snapshot);
      expect(interactive(walked.snapshot).filter((found) => !queried.includes(found))).toEqual([]);
      expect(interactive(walked.snapshot)).toEqual(expect.arrayContaining(queried.filter((found) => !found.startsWith('entry:Address'))));
      expect(await reader.reader.snapshot({ method: 'walk', budgetMs: 0 })).toMatchObject({ ok: true, snapshot: { truncated: { reason: 'time', limit: 0 } } });

      // The command: the snapshot with boxes on the model image (1280 wide at most, as a screenshot).
      const printed = await runMnemo(['elements', '--json'], { env: desktop.env });
      expect(printed.stderr).toBe('');
      expect(printed.code).toBe(0);
      // The printed snapshot is the shared contract's shape.
      const fromCli = ElementSnapshotSchema.parse(JSON.parse(printed.stdout));
      expect(fromCli.frame?.image).toMatchObject(image);
      expect(fromCli.frame?.bounds).toEqual({ x: 0, y: 0, width, height });
      const submitted = one(fromCli, 'push button:Submit');
      expectSameBox(submitted.bounds, layout.rects.submit);
      const scale = image.width / width;
      const expectedImage = { x: layout.rects.submit.x * scale, y: layout.rects.submit.y * scale, width: layout.rects.submit.width * scale, height: layout.rects.submit.height * scale };
      expectSameBox(submitted.imageBounds as Rect, expectedImage);
      expect(printed.stdout).not.toContain('hunter2');

      // The element at a point without a snapshot: asked down from the window, the same element.
      for (const [rect, role, name] of [[layout.rects.agree, 'check box', 'I agree'], [layout.rects.user, 'entry', 'User name'], [layout.rects.submit, 'push button', 'Submit']] as const) {
        const pointed = await reader.reader.elementAt(centre(rect));
        expect(pointed).toMatchObject({ ok: true, element: { role, name, ref: one(snapshot, `${role}:${name}`).ref } });
        expectSameBox((pointed as { element: Element }).element.bounds, rect);
      }
      expect(await reader.reader.elementAt(centre(layout.rects.submit))).toMatchObject({ method: 'point' });
      expect(await reader.reader.elementAt({ x: width + 10, y: 10 })).toEqual({ ok: true, element: undefined, method: 'point', window: snapshot.window });
      const at = await runMnemo(['elements', '--json', '--at', `${centre(layout.rects.agree).x},${centre(layout.rects.agree).y}`], { env: desktop.env });
      expect(at.code).toBe(0);
      expect(JSON.parse(at.stdout)).toMatchObject({ role: 'check box', name: 'I agree' });
      const found = await runMnemo(['elements', '--find', 'entry:user name'], { env: desktop.env });
      expect(found.code).toBe(0);
      expect(found.stdout).toMatch(/^\d+\. entry "User name" = "alice" at /);
      const missing = await runMnemo(['elements', '--find', 'push button:Nothing like it'], { env: desktop.env });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/no element of the active window .* matches "push button:Nothing like it"/);

      // A ref holds while the element does; taken away, it is stale: a value, not a throw.
      expect(await reader.reader.resolve(submit)).toMatchObject({ ok: true });
      await run('xdotool', ['mousemove', String(centre(help.bounds).x), String(centre(help.bounds).y), 'click', '1'], desktop.env);
      await waitUntil(async () => !(await reader.reader.resolve(submit)).ok, 'the removed button to be stale', 30_000);
      expect(await reader.reader.resolve(submit)).toMatchObject({ ok: false, kind: 'stale', message: expect.stringMatching(/push button "Submit" .* is stale/) });
    } finally {
      await form.close();
    }
  }, 180_000);
});

describe('a GTK3 app (zenity --forms)', () => {
  it('is read with its window where X has it; typed text is read back live, a password never', async () => {
    const desktop = await startDesktop({ width: 1280, height: 800 }, ["zenity --forms --title='Elements GTK' --add-entry=Name --add-password=Secret"]);
    expect(desktop.notes).toEqual([]);
    const reader = await readerOf(desktop);
    const snapshot = await snapshotWhen(reader, (taken) => taken.elements.some((element) => element.role === 'push button' && element.name === 'OK'), 'the zenity form in the tree');
    expect(snapshot.window).toMatchObject({ app: 'zenity', name: 'Elements GTK' });

    // X's own word for where the dialog is: its window with the window manager's frame around it,
    // which GTK counts in the window's extents (_NET_FRAME_EXTENTS).
    const info = await run('xwininfo', ['-name', 'Elements GTK'], desktop.env);
    const number = (label: string) => Number(new RegExp(`${label}:\\s+(-?\\d+)`).exec(info)?.[1]);
    const frame = await run('xprop', ['-name', 'Elements GTK', '_NET_FRAME_EXTENTS'], desktop.env);
    const [left = 0, right = 0, top = 0, bottom = 0] = (/=\s*(.*)$/m.exec(frame)?.[1] ?? '').split(',').map(Number);
    expect(snapshot.window.bounds).toEqual({
      x: number('Absolute upper-left X') - left,
      y: number('Absolute upper-left Y') - top,
      width: number('Width') + left + right,
      height: number('Height') + top + bottom,
    });

    const ok = one(snapshot, 'push button:OK');
    // At a point: the button by the descent; the entry, unnamed in the tree, named by the snapshot from its label.
    expect(await reader.reader.elementAt(centre(ok.bounds))).toMatchObject({ ok: true, method: 'point', element: { role: 'push button', name: 'OK', ref: ok.ref, bounds: ok.bounds } });
    const name = one(snapshot, 'text:Name');
    expect(await reader.reader.elementAt(centre(name.bounds))).toMatchObject({ ok: true, method: 'snapshot', element: { role: 'text', name: 'Name', nameFrom: 'label', ref: name.ref } });
    const at = await runMnemo(['elements', '--json', '--at', `${centre(ok.bounds).x},${centre(ok.bounds).y}`], { env: desktop.env });
    expect(at.code).toBe(0);
    expect(JSON.parse(at.stdout)).toMatchObject({ role: 'push button', name: 'OK' });
    // In words, as a snapshot's line; the unnamed entry by the label beside it.
    const atText = await runMnemo(['elements', '--at', `${centre(name.bounds).x},${centre(name.bounds).y}`], { env: desktop.env });
    expect(atText.code).toBe(0);
    expect(atText.stdout).toMatch(/^\d+\. text "Name" = "" at \d+,\d+ \d+x\d+ \[.*\] \(image \d+,\d+ \d+x\d+\)\n$/);

    // The focus starts in the first field: type there, then in the password field after Tab.
    const field = snapshot.elements.find((element) => element.role === 'text');
    expect(field?.states).toContain('focused');
    await run('xdotool', ['type', '--delay', '40', 'bob'], desktop.env);
    await run('xdotool', ['key', 'Tab'], desktop.env);
    await run('xdotool', ['type', '--delay', '40', 'pw-never-read'], desktop.env);
    const typed = await snapshotWhen(reader, (taken) => taken.elements.some((element) => element.role === 'text' && element.value === 'bob') && taken.elements.some((element) => element.role === 'password text' && element.states.includes('focused')), 'the typed text in the tree');
    const password = typed.elements.find((element) => element.role === 'password text');
    expect(password).toBeDefined();
    expect(password).not.toHaveProperty('value');
    expect(JSON.stringify(typed)).not.toContain('pw-never-read');
    const printed = await runMnemo(['elements', '--json'], { env: desktop.env });
    expect(printed.code).toBe(0);
    expect(printed.stdout).not.toContain('pw-never-read');
    // doctor: the desktop's accessibility bus answers, zenity on it.
    const doctor = await doctorChecks(desktop.env);
    expect(doctor.get('accessibility')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/the accessibility bus answers .*[1-9]\d* applications? on it: elements can be read/), fix: '' });
  }, 180_000);
});

describe('a display without an accessibility bus', () => {
  it('is a clear message with the way to have one; the reader says no_bus', async () => {
    const desktop = await startDesktop({ width: 1280, height: 800 }, ['xterm'], { accessibility: false });
    const opening = await openElementReader(desktop.env);
    expect(opening).toMatchObject({ ok: false, kind: 'no_bus' });
    const printed = await runMnemo(['elements'], { env: { ...desktop.env, DBUS_SESSION_BUS_ADDRESS: undefined, AT_SPI_BUS_ADDRESS: undefined } });
    expect(printed.code).toBe(1);
    expect(printed.stdout).toBe('');
    expect(printed.stderr).toContain(`mnemo: no accessibility bus on display ${desktop.display}`);
    expect(printed.stderr).toMatch(/elements cannot be read, only pixels/);
    expect(printed.stderr).toMatch(/to read elements: .*at-spi-bus-launcher/);
    // doctor says so, with the way to have one; pixels still work (its capture and input lines).
    const doctor = await doctorChecks({ ...desktop.env, DBUS_SESSION_BUS_ADDRESS: undefined, AT_SPI_BUS_ADDRESS: undefined });
    expect(doctor.get('accessibility')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/no accessibility bus on display :\d+.*only pixels/), fix: expect.stringMatching(/toolkit-accessibility true.*at-spi-bus-launcher/) });
    expect(doctor.get('capture')).toMatchObject({ status: 'ok' });
  }, 180_000);
});
