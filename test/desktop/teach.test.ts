/**
 * Teach by demonstration on real displays (the shared 1280x800 one and a 1920x1080 Xvfb of this
 * file's own), with real RECORD and the real CLI: `mnemo teach` runs as a process while xdotool
 * clicks and types into the instrumented form in kiosk Chromium, as a user would; Ctrl+C (SIGINT)
 * stops it. The session on disk has the user's steps with their screenshots, in pixels of those
 * screenshots; `mnemo workflow save` takes it with parameters, and `mnemo workflow run` with new
 * values submits them on the page with no model call. Text typed into a password field reached with
 * Tab (no click says where the field is) is masked in every file. Also: ctrl+alt+shift+s on the display stops
 * it, and a missing display or a server without RECORD is exit 1 with a message naming the fix.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MASK } from '../../src/shared/describe-action';
import { readSession } from '../../src/main/store/session-reader';
import { startBareXvfb } from '../fixtures/desktop/bare-xvfb';
import { failureScreenshot, requireDisplay, runX } from '../fixtures/desktop/display';
import { type PageEventOf } from '../fixtures/desktop/event-server';
import { centreOf, TARGET_LAYOUT, type Rect } from '../fixtures/desktop/layout';
import { openKioskScreen, type KioskScreen } from '../fixtures/desktop/kiosk-screen';
import { runMnemo, runMnemoJson, startMnemo, type StartedMnemo } from '../fixtures/mnemo-cli';

type Event = { type: string; [key: string]: unknown };

/** Every file under `dir`. */
const filesUnder = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));

const NAME = 'Ada Lovelace';
const NOTES = 'Analytical Engine, Note G';
const NEW_NAME = 'Grace Hopper';
const NEW_NOTES = 'COBOL & FLOW-MATIC';
const DEADLINE_MS = 60_000;

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-teach-'));
afterAll(() => {
  if (!process.env.KEEP_SCRATCH) rmSync(scratch, { recursive: true, force: true });
});

/** Polls until `check` holds (generous deadline, no fixed sleep). */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `mnemo teach --json` running on a display, its events as they come. */
class Teaching {
  readonly events: Event[] = [];
  readonly process: StartedMnemo;

  constructor(display: string, dataDir: string, task: string) {
    this.process = startMnemo(['teach', task, '--data-dir', dataDir, '--json'], { env: { DISPLAY: display }, onEvent: (event) => this.events.push(event) });
  }

  actions(): Array<{ type: string; [key: string]: unknown }> {
    return this.events.filter((e) => e.type === 'action').map((e) => e.action as { type: string });
  }

  /** Waits until the recording runs (its first note), or the process ended. */
  async started(): Promise<void> {
    let ended = false;
    void this.process.result.then(() => (ended = true));
    await until('the recording to start', () => ended || this.events.some((e) => e.type === 'note' && e.step === 0));
    if (ended) throw new Error(`mnemo teach ended before recording: ${this.process.output().stderr}`);
  }

  /** Waits until `count` actions of the user are recorded. */
  recorded(count: number): Promise<void> {
    return until(`${count} recorded actions (have ${this.actions().length}: ${JSON.stringify(this.actions())})`, () => this.actions().length >= count);
  }
}

type Screen = KioskScreen;
const openScreen = openKioskScreen;

describe.each([
  { label: '1280x800', size: null },
  { label: '1920x1080', size: '1920x1080' },
])('a form filled by hand, taught, saved and run again with new values, at $label', ({ label, size }) => {
  let screen: Screen;
  let dataDir: string;
  let sessionId: string;

  const xdotool = (...args: string[]) => runX(screen.display, 'xdotool', args);
  const onScreen = (rect: Rect) => screen.kiosk.toScreen(centreOf(rect));
  const submitted = () => screen.server.events().filter((e): e is PageEventOf<'submit'> => e.type === 'submit');
  const clicked = () => screen.server.events().flatMap((e) => (e.type === 'click' ? [(e as PageEventOf<'click'>).target] : []));
  const preparePage = async () => {
    await xdotool('mousemove', '900', String(screen.size.height - 60));
    await screen.kiosk.focus();
    await screen.server.reset();
    screen.server.clear();
  };
  /** A click as a user makes it: move there, press, release. */
  const clickAt = async (rect: Rect) => {
    const { x, y } = onScreen(rect);
    await xdotool('mousemove', String(Math.round(x)), String(Math.round(y)), 'click', '1');
  };

  beforeAll(async () => {
    screen = await openScreen(size);
    dataDir = mkdtempSync(join(scratch, 'data-'));
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ image: { maxWidth: 960 } }));
  }, 120_000);
  afterAll(async () => {
    await screen?.close();
  });
  beforeEach(({ task, onTestFailed }) => {
    onTestFailed(async () => {
      await failureScreenshot(screen.display, `teach-${label}-${task.name}`);
    });
  });

  it('records the user’s clicks and typing, one step each with the screenshot before it, until Ctrl+C', async () => {
    await preparePage();
    const teaching = new Teaching(screen.display, dataDir, `Fill in the form with ${NAME} and submit it`);
    await teaching.started();
    // At a person's pace: each action once the one before it is recorded.
    await clickAt(TARGET_LAYOUT.field);
    await teaching.recorded(1);
    await xdotool('type', '--delay', '20', NAME);
    await clickAt(TARGET_LAYOUT.area);
    await teaching.recorded(3);
    await xdotool('type', '--delay', '20', NOTES);
    await clickAt(TARGET_LAYOUT['btn-center']);
    await teaching.recorded(5);
    await until('the page to have the submit', () => submitted().length === 1);
    teaching.process.child.kill('SIGINT');
    const ended = await teaching.process.result;
    expect(ended.code, ended.stderr).toBe(0);
    expect(submitted().map((e) => [e.field, e.area])).toEqual([[NAME, NOTES]]);

    sessionId = teaching.events[0]!.runId as string;
    const read = await readSession(dataDir, sessionId);
    if (!read.ok) throw new Error(read.message);
    const { session } = read;
    expect(session.meta).toMatchObject({ status: 'finished', family: 'demonstration', steps: 5, task: `Fill in the form with ${NAME} and submit it` });
    const image = { width: 960, height: Math.round((960 * screen.size.height) / screen.size.width) };
    const inImage = (rect: Rect) => {
      const { x, y } = onScreen(rect);
      return { x: (x * image.width) / screen.size.width, y: (y * image.height) / screen.size.height };
    };
    const actions = session.events.filter((e) => e.type === 'action');
    expect(actions.every((e) => e.actor === 'user')).toBe(true);
    expect(actions.map((e) => e.type === 'action' && e.action.type)).toEqual(['click', 'type', 'click', 'type', 'click']);
    expect(actions.map((e) => e.type === 'action' && e.action.type === 'type' && e.action.text).filter(Boolean)).toEqual([NAME, NOTES]);
    // The points are where the user clicked, in pixels of the recorded screenshot.
    for (const [index, rect] of [[0, TARGET_LAYOUT.field], [2, TARGET_LAYOUT.area], [4, TARGET_LAYOUT['btn-center']]] as const) {
      const action = actions[index]!.type === 'action' ? actions[index]!.action : null;
      const expected = inImage(rect);
      expect(action).toMatchObject({ type: 'click' });
      if (action?.type !== 'click') continue;
      expect(Math.abs(action.x - expected.x), `click ${index}`).toBeLessThanOrEqual(1);
      expect(Math.abs(action.y - expected.y), `click ${index}`).toBeLessThanOrEqual(1);
    }
    for (const step of session.steps) {
      expect(step.screenshotMissing, `step ${step.step}`).toBeFalsy();
      expect(step.frame?.image).toMatchObject(image);
      expect(step.frame?.bounds).toMatchObject({ width: screen.size.width, height: screen.size.height });
      const bytes = readFileSync(join(session.directory, step.screenshot!.path));
      expect(bytes.length).toBeGreaterThan(1000);
    }
    // Sessions list it like any run.
    const listed = JSON.parse((await runMnemo(['sessions', '--data-dir', dataDir, '--json'], { env: { DISPLAY: screen.display } })).stdout) as Array<{ id: string; status: string }>;
    expect(listed.find((s) => s.id === sessionId)).toMatchObject({ status: 'finished' });
  }, 180_000);

  it('a password field reached with Tab: what it took is masked in every file; a plain field reached so is kept', async () => {
    /** Clicks the notes, Shift+Tab to the field above, types `text` there and Tab away, under `mnemo teach`. */
    const teachTabbedTyping = async (password: boolean, text: string) => {
      await preparePage();
      await screen.server.password(password);
      const taughtIn = mkdtempSync(join(scratch, 'tabbed-'));
      const teaching = new Teaching(screen.display, taughtIn, 'Sign in');
      await teaching.started();
      await clickAt(TARGET_LAYOUT.area);
      await teaching.recorded(1);
      await xdotool('key', 'shift+Tab');
      await until('the field to have the focus', async () => (await screen.server.state()).activeElement === 'field');
      await xdotool('type', '--delay', '20', text);
      await until('the field to hold the text', async () => (await screen.server.state()).field.value === text);
      await xdotool('key', 'Tab');
      await teaching.recorded(4);
      teaching.process.child.kill('SIGINT');
      const ended = await teaching.process.result;
      expect(ended.code, ended.stderr).toBe(0);
      const holding = filesUnder(taughtIn).filter((file) => readFileSync(file).includes(text));
      return { typed: teaching.actions().filter((action) => action.type === 'type'), holding };
    };
    try {
      const secret = await teachTabbedTyping(true, 'hunter2!');
      expect(secret.typed).toEqual([{ type: 'type', text: MASK }]);
      expect(secret.holding).toEqual([]);
      const plain = await teachTabbedTyping(false, 'Ada Lovelace');
      expect(plain.typed).toEqual([{ type: 'type', text: 'Ada Lovelace' }]);
    } finally {
      await screen.server.password(false);
    }
  }, 180_000);

  it('saved with parameters and run with new values: the new values submitted, with no model call', async () => {
    const env = { DISPLAY: screen.display, OPENAI_API_KEY: '' };
    const saved = await runMnemoJson(['workflow', 'save', sessionId, '--name', 'taught', '--param', `name=${NAME}`, '--param', `notes=${NOTES}`, '--data-dir', dataDir, '--json'], { env });
    expect(saved.code, saved.stderr).toBe(0);
    const json = JSON.parse(saved.stdout) as { params: unknown[]; steps: Array<{ action: { type: string; text?: string } }>; trusted: boolean };
    // Taught and saved on this machine: trusted, so it runs.
    expect(json.trusted).toBe(true);
    expect(json.params).toEqual([
      { name: 'name', secret: false, example: NAME },
      { name: 'notes', secret: false, example: NOTES },
    ]);
    expect(json.steps.map((step) => step.action.type)).toEqual(['click', 'type', 'click', 'type', 'click']);
    expect(json.steps[1]!.action).toEqual({ type: 'type', text: '{{name}}' });

    await preparePage();
    const run = await runMnemoJson(['workflow', 'run', 'taught', '--set', `name=${NEW_NAME}`, '--set', `notes=${NEW_NOTES}`, '--data-dir', dataDir, '--json'], { env });
    expect(run.code, run.stderr).toBe(0);
    // The page's submit reaches its server over HTTP, possibly after the run's last step ended.
    await expect.poll(() => submitted().length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(submitted().map((e) => [e.field, e.area])).toEqual([[NEW_NAME, NEW_NOTES]]);
    expect(clicked()).toEqual(['field', 'area', 'btn-center']);
    const report = run.events.at(-1) as Event;
    console.log(`[teach ${label}] ${run.events.filter((e) => e.type === 'workflow-step').map((e) => `${e.step} ${e.decision}: ${e.how}`).join(' | ')}`);
    expect(report).toMatchObject({ type: 'workflow-report', status: 'finished', steps: 5, modelCalls: 0, tokens: 0, recording: { modelCalls: 0 } });
  }, 180_000);
});

describe('stopping and refusing', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(scratch, 'data-'));
  });

  it('ctrl+alt+shift+s on the display stops it; what came before is recorded', async () => {
    const display = requireDisplay();
    const teaching = new Teaching(display, dataDir, 'Click once');
    await teaching.started();
    await runX(display, 'xdotool', ['mousemove', '40', '700', 'click', '1']);
    await teaching.recorded(1);
    await runX(display, 'xdotool', ['key', 'ctrl+alt+shift+s']);
    const ended = await teaching.process.result;
    expect(ended.code, ended.stderr).toBe(0);
    expect(teaching.actions()).toEqual([{ type: 'click', x: 40, y: 700, button: 'left' }]);
    expect(teaching.events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 1, reason: expect.stringContaining('ctrl+alt+shift+s') });
  }, 120_000);

  it('no display: exit 1, naming DISPLAY', async () => {
    const run = await runMnemo(['teach', 'anything', '--data-dir', dataDir], { env: { DISPLAY: ':87' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/DISPLAY=:87/);
  }, 60_000);

  it('a server without RECORD: exit 1, with the fix', async () => {
    const xvfb = await startBareXvfb({ noReset: true, extraArgs: ['-extension', 'RECORD'] });
    try {
      const run = await runMnemo(['teach', 'anything', '--data-dir', dataDir], { env: { DISPLAY: xvfb.display } });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/has no RECORD extension.*\+extension RECORD/);
    } finally {
      await xvfb.stop();
    }
  }, 60_000);
});
