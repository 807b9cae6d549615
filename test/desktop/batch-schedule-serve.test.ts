/**
 * A local schedule fires while the window's server is open: the real `mnemo batch schedule` (no
 * queue: kept in the data directory), then the real `mnemo serve` on that data directory (no
 * Electron), which fires it as the app does: a batch of the values file, run in the background on
 * a private desktop against a scripted model, journalled where `mnemo batch list` reads it, its
 * firing said in serve's log.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formToolCall } from '../fixtures/desktop/form-workflow';
import { TEST_DESKTOP_SETTINGS, xvfbUnder } from '../fixtures/desktop/private-desktops';
import { runMnemo, startMnemo, type StartedMnemo } from '../fixtures/mnemo-cli';
import { startMemoryModelServer, startScriptedServer, type ScriptedServer } from '../fixtures/openai-server';
import { userText } from '../fixtures/openai-server/request-text';

const SLOW = { timeout: 600_000 };
const POLL = { timeout: 300_000, interval: 250 };

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-schedule-serve-'));
const env = { OPENAI_API_KEY: '' };
let memoryModel: ScriptedServer;
let model: ScriptedServer;
const asked: string[] = [];
let served: StartedMnemo | undefined;

interface Listed {
  id: string;
  source: string;
  rows: number;
  succeeded: number;
  status: string;
}

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
  model = await startScriptedServer({
    replies: (request) => {
      asked.push(/Check invoice \d+/.exec(userText(request))?.[0] ?? '');
      return formToolCall([{ type: 'finished', summary: 'Checked.' }], 'Done.');
    },
  });
}, 120_000);

afterAll(async () => {
  if (served && served.child.exitCode === null) {
    served.child.kill('SIGKILL');
    await served.result;
  }
  for (const pid of xvfbUnder(scratch)) process.kill(pid, 'SIGKILL');
  await model?.close();
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

it('mnemo serve fires a local schedule while it is open: a batch of its values, run and journalled', SLOW, async () => {
  const data = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(data, 'config.json'), JSON.stringify({ memory: { model: { baseUrl: memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS }));
  const values = join(scratch, 'invoices.csv');
  writeFileSync(values, 'number\n1001\n');
  const scheduled = await runMnemo(
    ['batch', 'schedule', '--task', 'Check invoice {{number}}', '--cron', '* * * * * *', '--values', values, '--concurrency', '1', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', data],
    { env },
  );
  expect(scheduled.code, scheduled.stderr).toBe(0);
  // Nothing fires it yet: no batch.
  expect(JSON.parse((await runMnemo(['batch', 'list', '--json', '--data-dir', data], { env })).stdout || '[]')).toEqual([]);

  served = startMnemo(['serve', '--port', '0', '--data-dir', data], { env });
  const server = served;
  await expect.poll(() => /Mnemo is at /.test(server.output().stdout) || server.child.exitCode !== null, POLL).toBe(true);
  expect(server.child.exitCode, server.output().stderr).toBeNull();

  // It fires: a batch of the schedule's values, its row run to the end (the firings after it wait while it runs).
  await expect.poll(() => /schedule s-\S+ fired: batch b-/.test(server.output().stderr), POLL).toBe(true);
  const done = async () => (JSON.parse((await runMnemo(['batch', 'list', '--json', '--data-dir', data], { env })).stdout || '[]') as Listed[]).find((batch) => batch.succeeded === 1);
  await expect.poll(done, POLL).toBeDefined();
  const batch = (await done()) as Listed;
  expect(batch).toMatchObject({ source: 'task "Check invoice {{number}}"', rows: 1, succeeded: 1 });
  expect(asked).toContain('Check invoice 1001');

  server.child.kill('SIGTERM');
  await server.result;
  // The schedule stays, for the next time something fires it.
  const listed = await runMnemo(['batch', 'schedules', '--json', '--data-dir', data], { env });
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ where: 'local', cron: '* * * * * *' })]);
});
