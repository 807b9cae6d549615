/**
 * `mnemo batch run --store`: each row's session goes to the shared session store as its run ends
 * (a real s3rver process, the AWS SDK's client), and the batch says where they went before it
 * exits. Another data directory, as a second machine, then lists them with their batch tags
 * (`mnemo sessions --json`) and shows them (`mnemo show --json`); the machine that ran them keeps
 * no copy. The rows run on real private desktops, the model a scripted OpenAI-compatible server.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DESKTOP_SETTINGS, xvfbUnder } from '../fixtures/desktop/private-desktops';
import { formToolCall } from '../fixtures/desktop/form-workflow';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';
import { startMemoryModelServer, startScriptedServer, type ScriptedServer } from '../fixtures/openai-server';
import { startS3, type TestS3 } from '../fixtures/s3-server';

/** Private desktops start on a busy machine: minutes, not seconds (nothing here is timed). */
const SLOW = { timeout: 900_000 };

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-batch-store-'));
let memoryModel: ScriptedServer;
let s3: TestS3;

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
  s3 = await startS3(['sessions']);
});
afterAll(async () => {
  await memoryModel?.close();
  await s3?.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface RowReport {
  batch: string;
  row: number;
  status: string;
  session: string | null;
}

describe('mnemo batch run --store', () => {
  it("uploads each row's session to the store; another data directory lists them with their batch and shows them", SLOW, async () => {
    const where = 's3://sessions/batches';
    const env = { ...s3.env, OPENAI_API_KEY: '', AWS_EC2_METADATA_DISABLED: 'true' };
    const model = await startScriptedServer({ replies: () => formToolCall([{ type: 'finished', summary: 'Entered.' }], 'Done.') });
    const data = mkdtempSync(join(scratch, 'runner-'));
    writeFileSync(join(data, 'config.json'), JSON.stringify({ memory: { model: { baseUrl: memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS }));
    const file = join(scratch, 'invoices.csv');
    writeFileSync(file, 'number,customer\n1001,Acme\n1002,Globex\n1003,Initech\n');
    try {
      const run = await runMnemo(
        ['batch', 'run', '--task', 'Enter invoice {{number}} for {{customer}}', '--values', file, '--concurrency', '2', '--store', where, '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', data, '--json'],
        { env },
      );
      expect(run.code, run.stderr).toBe(0);
      const rows = jsonLines<RowReport>(run.stdout);
      expect(rows.map((row) => row.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
      const ids = rows.map((row) => row.session as string);
      for (const id of ids) expect(run.stderr).toMatch(new RegExp(`session ${id} uploaded to s3://sessions/batches \\(\\d+ files, .+\\), its local copy removed`));
      expect(run.stderr).toContain(`sessions: 3 of 3 in ${where}\n`);
      // The machine that ran them keeps no copy, and nothing waits for an upload.
      for (const id of ids) expect(existsSync(join(data, 'sessions', id))).toBe(false);
      expect(existsSync(join(data, 'pending-uploads')) ? readdirSync(join(data, 'pending-uploads')) : []).toEqual([]);

      // A second machine: its own data directory, the same store.
      const reader = mkdtempSync(join(scratch, 'reader-'));
      const listed = await runMnemo(['sessions', '--json', '--data-dir', reader, '--store', where], { env });
      expect(listed.code, listed.stderr).toBe(0);
      const sessions = JSON.parse(listed.stdout) as Array<{ id: string; status: string; store?: string; batch?: { id: string; row: number } }>;
      for (const [index, id] of ids.entries()) {
        expect(sessions.find((session) => session.id === id)).toMatchObject({ status: 'finished', store: where, batch: { id: rows[0]?.batch, row: index + 1 } });
      }
      const shown = await runMnemo(['show', ids[1] as string, '--json', '--data-dir', reader, '--store', where], { env });
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout)).toMatchObject({ id: ids[1], status: 'finished', store: where, task: 'Enter invoice 1002 for Globex', batch: { id: rows[0]?.batch, row: 2 } });
    } finally {
      await model.close();
    }
    expect(xvfbUnder(data)).toEqual([]);
  });
});
