/**
 * The desktop a run used, as `mnemo show --json` and `mnemo sessions --json` print it, after real
 * runs of the real CLI: one on a private desktop it started (its size, an app), one on the
 * display in DISPLAY, the user's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDisplay } from '../fixtures/desktop/display';
import { TEST_DESKTOP_SETTINGS } from '../fixtures/desktop/private-desktops';
import { runMnemo, runMnemoJson, type CliRun } from '../fixtures/mnemo-cli';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';

/** Starting an X server and an app on a busy machine: minutes, not seconds (nothing here is timed). */
const SLOW = { timeout: 300_000 };

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-session-desktop-'));
const display = requireDisplay();
let memoryModel: ScriptedServer;
let model: ScriptedServer;
let dataDir: string;

const done: ScriptedReply = { text: 'Done.', toolCalls: [{ name: 'computer', arguments: { thought: 'Nothing to do.', actions: [{ type: 'finished', summary: 'Looked.' }] } }] };

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
  model = await startScriptedServer({ replies: () => done });
  dataDir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ memory: { model: { baseUrl: memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS }));
});
afterAll(async () => {
  await model?.close();
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A run that ends at once; its session id (the run id its events carry). */
async function run(task: string, desktop: string[]): Promise<string> {
  const ran = await runMnemoJson(['run', task, '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive', ...desktop], { env: { DISPLAY: display } });
  expect(ran.code, ran.stderr).toBe(0);
  const finished = ran.events.find((event) => event.type === 'run-finished');
  expect(finished).toMatchObject({ status: 'finished' });
  return finished?.runId as string;
}

function json<T>(ran: CliRun): T {
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout) as T;
}

describe('mnemo show --json and mnemo sessions --json', () => {
  it('name the desktop each run used: a private one with its size and apps, or the user display', SLOW, async () => {
    const onPrivate = await run('Look at a private desktop', ['--desktop', 'private', '--desktop-size', '1024x768', '--app', 'xterm -title mnemo-test']);
    const onUsers = await run('Look at my desktop', []);

    const privateDesktop = { private: true, size: '1024x768', apps: ['xterm -title mnemo-test'], display: expect.stringMatching(/^:\d+$/) };
    const usersDesktop = { private: false, display: expect.stringContaining(display) };
    expect(json<{ desktop: unknown }>(await runMnemo(['show', onPrivate, '--json', '--data-dir', dataDir])).desktop).toEqual(privateDesktop);
    expect(json<{ desktop: unknown }>(await runMnemo(['show', onUsers, '--json', '--data-dir', dataDir])).desktop).toEqual(usersDesktop);

    const listed = json<Array<{ id: string; desktop?: unknown }>>(await runMnemo(['sessions', '--json', '--data-dir', dataDir]));
    expect(listed.map(({ id, desktop }) => ({ id, desktop }))).toEqual([
      { id: onUsers, desktop: usersDesktop },
      { id: onPrivate, desktop: privateDesktop },
    ]);
  });
});
