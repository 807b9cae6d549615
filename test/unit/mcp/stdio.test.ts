/**
 * `mnemo mcp` over stdio, started by the official SDK's client as a host application starts it:
 * the handshake (the server's name, version, capabilities and instructions), a tool that needs the
 * missing display answering with an error in words,
 * --read-only hiding every tool that changes something, and the client closing stdin ending the
 * process cleanly. No display is needed for what is called here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { connectStdio, textOf } from '../../fixtures/mcp-client';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-mcp-stdio-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('introduces itself; a tool that needs the display it lacks says so as an error', { timeout: 120_000 }, async () => {
  const mcp = await connectStdio(['--data-dir', join(scratch, 'hello')], { env: { DISPLAY: ':939' } });
  try {
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'mnemo', version: '0.1.0' });
    expect(mcp.client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    expect(mcp.client.getInstructions()).toMatch(/call screenshot, then act/);
    const shot = await mcp.client.callTool({ name: 'screenshot', arguments: {} });
    // No display: an error in words, not a crash.
    expect(shot.isError).toBe(true);
    expect(textOf(shot as never)).toMatch(/DISPLAY=:939/);
    expect((await mcp.client.listTools()).tools).toHaveLength(12);
  } finally {
    await mcp.close();
  }
});

it('--read-only offers only the tools that change nothing', { timeout: 120_000 }, async () => {
  const mcp = await connectStdio(['--read-only', '--data-dir', join(scratch, 'read-only')], { env: { DISPLAY: ':939' } });
  try {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['screenshot', 'list_sessions', 'get_session', 'search_facts', 'list_workflows', 'get_batch', 'snapshot']);
    expect(tools.map((tool) => tool.annotations?.readOnlyHint)).toEqual([true, true, true, true, true, true, true]);
    const saved = await mcp.client.callTool({ name: 'save_fact', arguments: { subject: 'user', scope: 'cross-product', keyword: 'k', description: '', values: ['v'] } });
    expect(saved.isError).toBe(true);
    expect(mcp.stderr()).not.toMatch(/internal error/);
  } finally {
    await mcp.close();
  }
});
