/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`), a client Mnemo did not write,
 * listing and calling Mnemo's tools: over stdio, started from a config file written the way the
 * README tells Claude Desktop users to write theirs, and over Streamable HTTP with ?token=.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startHttpMcp } from '../../fixtures/mcp-client';
import { MNEMO_BIN } from '../../fixtures/mnemo-cli';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-inspector-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const require = createRequire(import.meta.url);
const INSPECTOR = join(dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'cli/build/cli.js');
/** No X server answers there: the tools called here need none. */
const NO_DISPLAY = ':939';

/** `mcp-inspector --cli <args>`; resolves with its exit code and what it printed. */
function inspector(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INSPECTOR, '--cli', ...args], { env: { ...process.env, DISPLAY: NO_DISPLAY }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function json(args: readonly string[]): Promise<Record<string, unknown>> {
  const run = await inspector(args);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe('the MCP Inspector CLI', () => {
  it('over stdio, from a Claude Desktop style config: lists the tools and calls save_fact and search_facts', { timeout: 180_000 }, async () => {
    const config = join(scratch, 'claude_desktop_config.json');
    const dataDir = join(scratch, 'stdio-data');
    writeFileSync(config, JSON.stringify({ mcpServers: { mnemo: { command: 'node', args: [MNEMO_BIN, 'mcp', '--data-dir', dataDir], env: { DISPLAY: NO_DISPLAY } } } }));
    const server = ['--config', config, '--server', 'mnemo'];

    const listed = (await json([...server, '--method', 'tools/list'])) as { tools: Array<{ name: string; annotations: Record<string, boolean>; inputSchema: { type: string }; outputSchema: { type: string } }> };
    expect(listed.tools.map((tool) => tool.name)).toEqual(['screenshot', 'act', 'run_task', 'list_sessions', 'get_session', 'search_facts', 'save_fact', 'list_workflows', 'run_workflow', 'run_batch', 'get_batch', 'snapshot']);
    for (const tool of listed.tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema.type).toBe('object');
      expect(typeof tool.annotations.readOnlyHint).toBe('boolean');
      expect(typeof tool.annotations.destructiveHint).toBe('boolean');
    }

    const saved = (await json([...server, '--method', 'tools/call', '--tool-name', 'save_fact', ...['--tool-arg', 'subject=user', '--tool-arg', 'scope=cross-product', '--tool-arg', 'keyword=editor'], ...['--tool-arg', 'description=the editor the user likes', '--tool-arg', 'values=["Helix"]']])) as {
      structuredContent: { fact: { keyword: string; values: string[] } };
    };
    expect(saved.structuredContent.fact).toMatchObject({ keyword: 'editor', values: ['Helix'] });
    const found = (await json([...server, '--method', 'tools/call', '--tool-name', 'search_facts', '--tool-arg', 'query=editor', '--tool-arg', 'limit=5'])) as { structuredContent: { facts: Array<{ values: string[] }> } };
    expect(found.structuredContent.facts.map((fact) => fact.values)).toEqual([['Helix']]);
  });

  it('over Streamable HTTP with ?token=: lists the tools and calls list_sessions; an invalid action comes back as an error result', { timeout: 180_000 }, async () => {
    const mcp = await startHttpMcp(['--data-dir', join(scratch, 'http-data')], { env: { DISPLAY: NO_DISPLAY } });
    try {
      const url = `${mcp.url}?token=${mcp.token}`;
      const listed = (await json([url, '--method', 'tools/list'])) as { tools: Array<{ name: string }> };
      expect(listed.tools).toHaveLength(12);
      const sessions = (await json([url, '--method', 'tools/call', '--tool-name', 'list_sessions', '--tool-arg', 'limit=1'])) as { structuredContent: { sessions: unknown[] } };
      // A new data directory offers the sample session.
      expect(sessions.structuredContent.sessions).toHaveLength(1);
      const invalid = (await json([url, '--method', 'tools/call', '--tool-name', 'act', '--tool-arg', 'action={"type":"click","x":"left"}'])) as { isError: boolean; content: Array<{ text: string }> };
      expect(invalid.isError).toBe(true);
      expect(invalid.content[0]?.text).toMatch(/action\.x/);
    } finally {
      await mcp.stop();
    }
  });
});
