/**
 * MCP's run_batch and get_batch, driven by the official SDK's client over stdio as an agent's host
 * drives `mnemo mcp`: a task over a small table given inline (and one given as a values file) runs
 * in the background on private desktops with the scripted model, run_batch answering the batch id
 * at once; get_batch is asked until every row has its outcome. Each row's value reached its own
 * run (the task the model was sent), each row's session is tagged with the batch and the row, and
 * the journal on disk agrees. A table whose columns do not fit the task is refused, naming them.
 * No private desktop is left running.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchDetail } from '../../src/shared/batch';
import { TEST_DESKTOP_SETTINGS, xvfbUnder } from '../fixtures/desktop/private-desktops';
import { connectStdio, textOf, type StdioMcp } from '../fixtures/mcp-client';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { userText } from '../fixtures/openai-server/request-text';

const SLOW = { timeout: 600_000 };
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-mcp-batch-'));
const NAMES = ['Ada Lovelace', 'Grace Hopper', 'Edsger Dijkstra'];

let model: ScriptedServer;
let memoryModel: ScriptedServer;
let mcp: StdioMcp;
let data: string;

type Structured<T> = CallToolResult & { structuredContent: T };
const call = async <T,>(client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Structured<T>;

function toolCall(actions: unknown[], thought: string): ScriptedReply {
  return { text: thought, toolCalls: [{ name: 'computer', arguments: { thought, actions } }] };
}

/** get_batch until every row has an outcome (the model answers at once; the desktops take their time). */
async function untilDone(batchId: string): Promise<BatchDetail> {
  const deadline = Date.now() + 480_000;
  for (;;) {
    const got = await call<BatchDetail>(mcp.client, 'get_batch', { batchId });
    expect(got.isError, textOf(got)).toBeFalsy();
    const batch = got.structuredContent;
    if (batch.counts.pending + batch.counts.running === 0 && batch.status !== 'running') return batch;
    if (Date.now() > deadline) throw new Error(`batch ${batchId} did not end: ${JSON.stringify(batch.counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const tasksSent = () => model.requests.filter((request) => request.body?.tools).map((request) => userText(request));
const sessionOf = (id: string) => JSON.parse(readFileSync(join(data, 'sessions', id, 'session.json'), 'utf8')) as { status: string; batch?: { id: string; row: number } };

beforeAll(async () => {
  model = await startScriptedServer({ replies: (request) => (request.body?.tools ? toolCall([{ type: 'finished', summary: 'Written down.' }], 'Written down.') : { text: 'ok' }) });
  memoryModel = await startMemoryModelServer();
  data = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(data, 'config.json'), JSON.stringify({ memory: { model: { baseUrl: memoryModel.url } }, desktop: TEST_DESKTOP_SETTINGS }));
  mcp = await connectStdio(['--data-dir', data, '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools'], { env: { OPENAI_API_KEY: '' } });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await Promise.all([model?.close(), memoryModel?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

describe('run_batch and get_batch', () => {
  it('lists both tools with their schemas', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.run_batch?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get_batch?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(Object.keys(byName.run_batch?.outputSchema?.properties ?? {})).toEqual(['batchId', 'rows', 'concurrency', 'concurrencyReason', 'status']);
    expect(byName.get_batch?.inputSchema.required).toEqual(['batchId']);
    expect(Object.keys(byName.get_batch?.outputSchema?.properties ?? {})).toContain('rows');
  });

  it('runs a task over inline rows in the background, two at once on private desktops; every row reaches its own run', SLOW, async () => {
    const started = await call<{ batchId: string; rows: number; concurrency: number; concurrencyReason: string; status: string }>(mcp.client, 'run_batch', {
      task: 'Write down {{name}}',
      rows: NAMES.map((name) => ({ name })),
      concurrency: 2,
    });
    expect(started.isError, textOf(started)).toBeFalsy();
    expect(started.structuredContent).toMatchObject({ rows: 3, concurrency: 2, concurrencyReason: '2 at once (concurrency)' });
    const { batchId } = started.structuredContent;
    expect(batchId).toMatch(/^b-\d{8}-\d{6}-[0-9a-f]{6}$/);

    const batch = await untilDone(batchId);
    expect(batch).toMatchObject({ id: batchId, status: 'done', total: 3, counts: { succeeded: 3, failed: 0, pending: 0, running: 0 }, source: { kind: 'task', task: 'Write down {{name}}' }, valuesFile: '(inline rows)' });
    expect(batch.rows.map((row) => [row.row, row.values.name, row.status])).toEqual(NAMES.map((name, i) => [i + 1, name, 'succeeded']));
    // What each run read off the screen: on a bare desktop, nothing typed, only the model's closing summary.
    expect(batch.rows.map((row) => row.screenValues)).toEqual(NAMES.map(() => ({ summary: 'Written down.' })));
    for (const row of batch.rows) {
      expect(row.session).not.toBeNull();
      expect(sessionOf(row.session as string)).toMatchObject({ status: 'finished', batch: { id: batchId, row: row.row } });
    }
    for (const name of NAMES) expect(tasksSent().filter((text) => text.includes(`Write down ${name}`)).length, name).toBe(1);
    // The journal on disk says the same: one final outcome per row.
    const journal = readFileSync(join(data, 'batches', batchId, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; row?: number; final?: boolean });
    expect(journal.filter((entry) => entry.type === 'attempt-ended' && entry.final).map((entry) => entry.row).sort()).toEqual([1, 2, 3]);
    expect(journal.at(-1)?.type).toBe('closed');
  });

  it('reads the rows from a values file', SLOW, async () => {
    const file = join(scratch, 'people.csv');
    writeFileSync(file, 'name\n"Barbara Liskov"\n');
    const started = await call<{ batchId: string }>(mcp.client, 'run_batch', { task: 'Write down {{name}}', valuesFile: file, concurrency: 1 });
    expect(started.isError, textOf(started)).toBeFalsy();
    const batch = await untilDone(started.structuredContent.batchId);
    expect(batch).toMatchObject({ valuesFile: file, counts: { succeeded: 1 } });
    expect(tasksSent().some((text) => text.includes('Write down Barbara Liskov'))).toBe(true);
    await expect.poll(() => xvfbUnder(data).length, { timeout: 60_000 }).toBe(0);
  });

  it('refuses a table whose columns do not fit the task (naming them), an unknown workflow, rows given twice, and an unknown batch', async () => {
    const refused = await call(mcp.client, 'run_batch', { task: 'Write down {{name}}', rows: [{ nom: 'Ada' }] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/name/);
    expect(textOf(refused)).toMatch(/nom/);
    const noWorkflow = await call(mcp.client, 'run_batch', { workflow: 'no-such-workflow', rows: [{ name: 'Ada' }] });
    expect(noWorkflow.isError).toBe(true);
    expect(textOf(noWorkflow)).toContain('no-such-workflow');
    const both = await call(mcp.client, 'run_batch', { task: 'Write down {{name}}', rows: [{ name: 'Ada' }], valuesFile: '/nowhere.csv' });
    expect(textOf(both)).toContain('not both');
    const unknown = await call(mcp.client, 'get_batch', { batchId: 'b-19990101' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('no batch "b-19990101"');
  });
});
