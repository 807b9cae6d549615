/**
 * `mnemo run --desktop private` end to end, on real Xvfb displays: the real CLI starts an X
 * display of its own with Chromium (`--app`) on the instrumented form page and fills it, while a
 * second display standing for the user's (openbox, a page that reports every input event, a
 * pointer parked, both selections set) receives nothing at all. Two private runs go at once; a run
 * killed with SIGKILL leaves no X server behind once Mnemo starts again; a replay starts the
 * recorded desktop again.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kioskCommand } from '../fixtures/desktop/chromium';
import { startEventServer, type EventServer } from '../fixtures/desktop/event-server';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import type { PageState } from '../fixtures/desktop/page-events';
import { alive, processesOfDesktopsUnder, TEST_DESKTOP_SETTINGS, waitUntil, xvfbUnder } from '../fixtures/desktop/private-desktops';
import { watchUserDisplay, type UserDisplay, type WatchedUserDisplay } from '../fixtures/desktop/user-display';
import { jsonLines, runMnemo, startMnemo } from '../fixtures/mnemo-cli';
import { startMemoryModelServer, startScriptedServer, type ReplyScript, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';

/** Chromium starts and runs on a busy machine: minutes, not seconds (nothing here is timed). */
const SLOW = { timeout: 300_000 };

/** The model gets 960x600 images of the private 1280x800 display. */
const IMAGE = { width: 960, height: 600 };
const toImage = (p: { x: number; y: number }) => ({ x: Math.round((p.x * IMAGE.width) / 1280), y: Math.round((p.y * IMAGE.height) / 800) });
const FIELD = toImage(centreOf(TARGET_LAYOUT.field));
const SUBMIT = toImage(centreOf(TARGET_LAYOUT['btn-center']));
/** Typed through the private display's clipboard (no key types é or ü on a US layout). */
const NAME = 'Ada Lovelace, née Byron — ü';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-private-run-'));
let user: UserDisplay;
let userPage: EventServer;
let watched: WatchedUserDisplay;
let memoryModel: ScriptedServer;

const USER_CLIPBOARD = "the user's own clipboard";
const USER_PRIMARY = "the user's own selection";

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

function dataDir(): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ image: { maxWidth: IMAGE.width }, memory: { model: { baseUrl: memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS }));
  return dir;
}

function modelFlags(model: ScriptedServer, data: string): string[] {
  return ['--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', data, '--json', '--non-interactive'];
}

/** A model that waits for the private page, fills the name, submits, and reads the page's state before it says done. */
function formFiller(page: EventServer, run: string, name: string, seen: { state?: PageState }): ReplyScript {
  const replies: Array<() => Promise<ScriptedReply>> = [
    async () => {
      await page.waitForType('ready', (event) => event.run === run, { timeoutMs: 60_000, description: `the private page ${run}` });
      return toolCall([{ type: 'click', ...FIELD }, { type: 'type', text: name }], 'I fill in the name.');
    },
    async () => toolCall([{ type: 'click', ...SUBMIT }], 'I submit the form.'),
    async () => {
      seen.state = await page.state();
      return toolCall([{ type: 'finished', summary: 'Submitted.' }], 'Done.');
    },
  ];
  let index = 0;
  return async () => replies[index++]?.() ?? toolCall([{ type: 'finished' }], 'Done.');
}

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
  watched = await watchUserDisplay();
  ({ user, page: userPage } = watched);
  await setSelection(user.display, '--clipboard', USER_CLIPBOARD);
  await setSelection(user.display, '--primary', USER_PRIMARY);
  await watched.kiosk.focus();
});

afterAll(async () => {
  await watched?.close();
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** No X server of a private desktop of `data`, nor any program started in one, still runs. */
function expectNoDesktopLeft(data: string): void {
  expect(xvfbUnder(data)).toEqual([]);
  expect(processesOfDesktopsUnder(data)).toEqual([]);
}

/** xsel --input forks a server that keeps the selection; the parent exits once it owns it. */
function setSelection(display: string, which: string, text: string): Promise<void> {
  const child = spawn('xsel', [which, '--input'], { env: { ...process.env, DISPLAY: display }, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.end(text);
  return new Promise((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`xsel ${which} exited with ${code}`)))));
}

describe('a run on a private desktop', () => {
  it("fills the form in Chromium started with --app, and the user's display gets no event, no pointer move, no clipboard change; a replay starts the same desktop again", SLOW, async () => {
    const page = await startEventServer();
    const seen: { state?: PageState } = {};
    const model = await startScriptedServer({ replies: formFiller(page, 'private-1', NAME, seen) });
    const profile = mkdtempSync(join(scratch, 'profile-'));
    const data = dataDir();
    const before = await user.pointer();
    const mark = userPage.mark();
    try {
      const run = await runMnemo(
        ['run', 'Fill in the name and submit the form', '--desktop', 'private', '--app', kioskCommand(page, 'private-1', profile), ...modelFlags(model, data)],
        { env: { DISPLAY: user.display, OPENAI_API_KEY: '' } },
      );
      expect(run.code, run.stderr).toBe(0);
      const events = jsonLines(run.stdout);
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', status: 'finished', steps: 3 });

      // The form on the private display: the name typed whole, the button clicked.
      expect(seen.state?.field.value).toBe(NAME);
      await page.waitForType('click', (event) => event.run === 'private-1' && event.target === 'btn-center');

      // The user's display: no input event reached its page, the pointer did not move, the selections are theirs.
      await userPage.settle(300);
      const inputTypes = new Set(['mousemove', 'mousedown', 'mouseup', 'click', 'dblclick', 'contextmenu', 'auxclick', 'wheel', 'keydown', 'keyup', 'input', 'change']);
      expect(userPage.events().filter((event) => event.index >= mark && inputTypes.has(event.type))).toEqual([]);
      expect(await user.pointer()).toEqual(before);
      expect(await user.selections()).toEqual({ clipboard: USER_CLIPBOARD, primary: USER_PRIMARY });

      // The session records its desktop; the desktop and its apps are gone.
      const [session] = readdirSync(join(data, 'sessions'));
      const meta = JSON.parse(readFileSync(join(data, 'sessions', session as string, 'session.json'), 'utf8')) as { desktop?: unknown };
      expect(meta.desktop).toEqual({ private: true, size: '1280x800', apps: [kioskCommand(page, 'private-1', profile)], display: expect.stringMatching(/^:\d+$/) });
      expectNoDesktopLeft(data);

      // The replay starts the same private desktop again (its app included) and fills the form there again.
      const ready = page.events().filter((event) => event.type === 'ready' && event.run === 'private-1').length;
      const sinceReplay = page.mark();
      const replay = await runMnemo(['replay', session as string, '--speed', '0', '--data-dir', data, '--json', '--non-interactive'], { env: { DISPLAY: user.display } });
      expect(replay.code, replay.stderr).toBe(0);
      expect(jsonLines(replay.stdout).at(-1)).toMatchObject({ type: 'run-finished', status: 'finished' });
      expect(page.events().filter((event) => event.type === 'ready' && event.run === 'private-1').length).toBe(ready + 1);
      // The name typed again in the new page, and the button clicked again. The page's reports may
      // still be on their way when the replay has ended: the click is waited for (it comes last).
      await page.waitForType('click', (event) => event.target === 'btn-center', { since: sinceReplay, description: 'the replayed click on the button' });
      const again = page.events().filter((event) => event.index >= sinceReplay);
      expect(again.filter((event) => event.type === 'input' && event.target === 'field').at(-1)).toMatchObject({ value: NAME });
      const replayId = String(jsonLines(replay.stdout)[0]?.runId);
      const replayed = JSON.parse(readFileSync(join(data, 'sessions', replayId, 'session.json'), 'utf8')) as { desktop?: unknown; replayOf?: string };
      expect(replayed).toMatchObject({ replayOf: session, desktop: { private: true, size: '1280x800', apps: [kioskCommand(page, 'private-1', profile)] } });
      await userPage.settle(300);
      expect(userPage.events().filter((event) => event.index >= mark && inputTypes.has(event.type))).toEqual([]);
      expect(await user.pointer()).toEqual(before);
      expectNoDesktopLeft(data);
    } finally {
      await model.close();
      await page.close();
    }
  });

  it('two private runs at once both finish right, each in its own browser', SLOW, async () => {
    const pages = [await startEventServer(), await startEventServer()];
    const seen = [{} as { state?: PageState }, {} as { state?: PageState }];
    const names = ['Grace Hopper', 'Katherine Johnson'];
    const models = await Promise.all(pages.map((page, i) => startScriptedServer({ replies: formFiller(page, `twin-${i}`, names[i] as string, seen[i] as { state?: PageState }) })));
    const data = dataDir();
    try {
      const runs = await Promise.all(
        pages.map((page, i) =>
          runMnemo(['run', `Fill in ${names[i]}`, '--desktop', 'private', '--app', kioskCommand(page, `twin-${i}`, mkdtempSync(join(scratch, 'profile-'))), ...modelFlags(models[i] as ScriptedServer, data)], {
            env: { DISPLAY: user.display, OPENAI_API_KEY: '' },
          }),
        ),
      );
      for (const [i, run] of runs.entries()) {
        expect(run.code, run.stderr).toBe(0);
        expect(jsonLines(run.stdout).at(-1)).toMatchObject({ type: 'run-finished', status: 'finished' });
        expect(seen[i]?.state?.field.value).toBe(names[i]);
      }
      // Two displays, side by side.
      const displays = runs.map((run) => String(jsonLines(run.stdout)[0]?.runId)).map((id) => JSON.parse(readFileSync(join(data, 'sessions', id, 'session.json'), 'utf8')).desktop.display);
      expect(new Set(displays).size).toBe(2);
      expectNoDesktopLeft(data);
    } finally {
      for (const model of models) await model.close();
      for (const page of pages) await page.close();
    }
  });

  it('a run killed with SIGKILL leaves no X server behind after the next start', SLOW, async () => {
    const data = dataDir();
    // The model never answers: the run sits on its private desktop until it is killed.
    const stuck = await startScriptedServer({ replies: () => ({ text: 'never', delayMs: 600_000 }) });
    const quick = await startScriptedServer({ replies: () => toolCall([{ type: 'finished', summary: 'ok' }], 'Done.') });
    try {
      const killed = startMnemo(['run', 'Wait forever', '--desktop', 'private', '--app', 'xterm', ...modelFlags(stuck, data)], { env: { DISPLAY: user.display, OPENAI_API_KEY: '' } });
      await waitUntil(() => stuck.requests.length > 0, 'the first model request (the desktop is up)', 120_000);
      const [server] = xvfbUnder(data);
      expect(server).toBeDefined();
      killed.child.kill('SIGKILL');
      await killed.result;
      // Killed hard: its display is still there...
      expect(alive(server as number)).toBe(true);
      // ...until Mnemo starts again.
      const next = await runMnemo(['run', 'Say done', ...modelFlags(quick, data)], { env: { DISPLAY: user.display, OPENAI_API_KEY: '' } });
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toMatch(/stopped the private desktop :\d+ left running by process \d+, which is gone/);
      await waitUntil(() => !alive(server as number), 'the X server of the killed run to be gone');
      expectNoDesktopLeft(data);
    } finally {
      await stuck.close();
      await quick.close();
    }
  });

  it('bad desktop flags are said, with exit 2', SLOW, async () => {
    const size = await runMnemo(['run', 'x', '--desktop', 'private', '--desktop-size', '12x9'], { env: { DISPLAY: user.display } });
    expect(size.code).toBe(2);
    expect(size.stderr).toMatch(/--desktop-size: the desktop size 12x9 is out of range/);
    const app = await runMnemo(['run', 'x', '--app', 'xterm'], { env: { DISPLAY: user.display } });
    expect(app.code).toBe(2);
    expect(app.stderr).toMatch(/--app applies to a private desktop: add --desktop private/);
  });
});
