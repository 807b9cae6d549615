/**
 * `mnemo workflow run --desktop private --app …` end to end, on real Xvfb displays: a form run
 * recorded on a private desktop is saved as a workflow with a parameter, then run with a new value
 * on another private desktop the real CLI starts with Chromium (`--app`) on the instrumented page.
 * The new value is submitted there, with no model; a second display standing for the user's
 * (openbox, a page that reports every input event, a pointer parked) receives nothing at all, and
 * no desktop is left running.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kioskCommand } from '../fixtures/desktop/chromium';
import { startEventServer } from '../fixtures/desktop/event-server';
import { FORM_IMAGE, saveFormWorkflow } from '../fixtures/desktop/form-workflow';
import { processesOfDesktopsUnder, TEST_DESKTOP_SETTINGS, xvfbUnder } from '../fixtures/desktop/private-desktops';
import { USER_INPUT_EVENTS, watchUserDisplay, type WatchedUserDisplay } from '../fixtures/desktop/user-display';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';
import { startMemoryModelServer, type ScriptedServer } from '../fixtures/openai-server';

/** Chromium starts and runs on a busy machine: minutes, not seconds (nothing here is timed). */
const SLOW = { timeout: 300_000 };

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-workflow-private-'));
let watched: WatchedUserDisplay;
let memoryModel: ScriptedServer;

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
  watched = await watchUserDisplay();
}, 120_000);

afterAll(async () => {
  await watched?.close();
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('a workflow run on a private desktop', () => {
  it("fills the form in Chromium started with --app with the new value, no model call, and the user's display gets nothing", SLOW, async () => {
    const page = await startEventServer();
    const data = mkdtempSync(join(scratch, 'data-'));
    writeFileSync(join(data, 'config.json'), JSON.stringify({ image: { maxWidth: FORM_IMAGE.width }, memory: { model: { baseUrl: memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS }));
    const { user, page: userPage } = watched;
    const env = { DISPLAY: user.display, OPENAI_API_KEY: '' };
    try {
      await saveFormWorkflow({ page, dataDir: data, env, scratch, readyTimeoutMs: 60_000 });

      const before = await user.pointer();
      const mark = userPage.mark();
      const since = page.mark();
      const app = kioskCommand(page, 'rerun', mkdtempSync(join(scratch, 'profile-')));
      const run = await runMnemo(['workflow', 'run', 'form', '--set', 'name=Grace Hopper', '--desktop', 'private', '--app', app, '--data-dir', data, '--json', '--non-interactive'], { env });
      expect(run.code, run.stderr).toBe(0);
      const events = jsonLines(run.stdout);
      expect(events.at(-1)).toMatchObject({ type: 'workflow-report', status: 'finished', modelCalls: 0, stopped: 0 });

      // On the private display's page: the new value submitted (its report may still be on its way).
      await page.waitForType('submit', (event) => event.run === 'rerun', { since, description: 'the submit on the private page' });
      const rerun = page.events().filter((event) => event.index >= since && event.run === 'rerun');
      expect(rerun.filter((event) => event.type === 'submit')).toEqual([expect.objectContaining({ field: 'Grace Hopper' })]);

      // The user's display: no input event reached its page, the pointer did not move.
      await userPage.settle(300);
      expect(userPage.events().filter((event) => event.index >= mark && USER_INPUT_EVENTS.has(event.type))).toEqual([]);
      expect(await user.pointer()).toEqual(before);

      // The session records the private desktop it ran on; the desktop and its app are gone.
      const id = String(events[0]?.runId);
      const meta = JSON.parse(readFileSync(join(data, 'sessions', id, 'session.json'), 'utf8')) as { desktop?: unknown };
      expect(meta.desktop).toEqual({ private: true, size: '1280x800', apps: [app], display: expect.stringMatching(/^:\d+$/) });
      expect(xvfbUnder(data)).toEqual([]);
      expect(processesOfDesktopsUnder(data)).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('refuses the private desktop\'s own flags without --desktop private (exit 2, naming them)', async () => {
    const data = mkdtempSync(join(scratch, 'data-'));
    const run = await runMnemo(['workflow', 'run', 'form', '--set', 'name=x', '--app', 'xterm', '--data-dir', data, '--json'], { env: { DISPLAY: watched.user.display } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--app applies to a private desktop: add --desktop private/);
  });
});
