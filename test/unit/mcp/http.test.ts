/**
 * `mnemo mcp --http` and `mnemo serve`'s /mcp, reached by real HTTP clients and by the official
 * SDK's client: the token (header or ?token=) or 401, another Origin or Host 403, one independent
 * session per client (two at once, answers never crossing), the tool choice (--read-only,
 * --tools). Nothing here needs a display: the tools called read and write the data directory.
 */
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { waitFor } from '../../fixtures/fakes';
import { startHttpMcp, textOf, type HttpMcp } from '../../fixtures/mcp-client';
import { runMnemo, startMnemo } from '../../fixtures/mnemo-cli';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-mcp-http-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** No X server answers there: nothing in these tests may need one. */
const NO_DISPLAY = { DISPLAY: ':939' };

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One POST with exactly these headers (Host and Origin included), as a browser or a rebinding page would send it. */
function post(url: string, headers: Record<string, string>, body = INITIALIZE): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

describe('mnemo mcp --http', () => {
  let mcp: HttpMcp;
  const dataDir = join(scratch, 'data');
  beforeAll(async () => {
    mcp = await startHttpMcp(['--data-dir', dataDir], { env: NO_DISPLAY });
  }, 180_000);
  afterAll(async () => mcp?.stop());

  it('prints MCP at http://127.0.0.1:P/mcp and its token', () => {
    expect(mcp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(mcp.mnemo.output().stdout).toContain(`MCP at ${mcp.url}\ntoken: ${mcp.token}\n`);
    expect(mcp.token.length).toBeGreaterThanOrEqual(20);
  });

  it('answers 401 without the token, or with another one, and says how to send it', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-the-token' }] as Array<Record<string, string>>) {
      const reply = await post(mcp.url, headers);
      expect(reply.status).toBe(401);
      expect(reply.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(JSON.parse(reply.body).error).toMatch(/Authorization: Bearer <token>.*\?token=/);
    }
    expect((await post(`${mcp.url}?token=wrong`, {})).status).toBe(401);
  });

  it('answers 403 to another Origin or Host, token or not', async () => {
    const port = new URL(mcp.url).port;
    const foreignOrigin = await post(mcp.url, { authorization: `Bearer ${mcp.token}`, origin: 'http://evil.example' });
    expect(foreignOrigin.status).toBe(403);
    expect(JSON.parse(foreignOrigin.body).error).toContain('the Origin "http://evil.example" is not this server\'s');
    const rebound = await post(mcp.url, { authorization: `Bearer ${mcp.token}`, host: `evil.example:${port}` });
    expect(rebound.status).toBe(403);
    expect((await post(mcp.url, { origin: 'http://evil.example' })).status).toBe(403);
    // The same request from this machine's own origin is served.
    const own = await post(mcp.url, { authorization: `Bearer ${mcp.token}`, origin: `http://127.0.0.1:${port}` });
    expect(own.status).toBe(200);
    expect(own.headers['mcp-session-id']).toBeTruthy();
  });

  it('agrees to each protocol version current clients speak', async () => {
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      const reply = await post(mcp.url, { authorization: `Bearer ${mcp.token}` }, body);
      expect(reply.status).toBe(200);
      // An SSE stream with one message, or the JSON itself.
      const message = JSON.parse(/^data: (.+)$/m.exec(reply.body)?.[1] ?? reply.body) as { result: { protocolVersion: string; serverInfo: { name: string } } };
      expect(message.result).toMatchObject({ protocolVersion: version, serverInfo: { name: 'mnemo' } });
    }
  });

  it('reads a message through the same guard as every route: 400 for JSON nested too deep or with __proto__, 413 past 4 MB', async () => {
    const auth = { authorization: `Bearer ${mcp.token}` };
    const deep = INITIALIZE.replace('"capabilities":{}', `"capabilities":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const refusedDeep = await post(mcp.url, auth, deep);
    expect(refusedDeep.status).toBe(400);
    expect(JSON.parse(refusedDeep.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700, message: 'the request body is not JSON Mnemo takes: it nests deeper than 64 levels' } });
    const hostile = await post(mcp.url, auth, INITIALIZE.replace('"capabilities":{}', '"capabilities":{"__proto__":{"admin":true}}'));
    expect(hostile.status).toBe(400);
    const large = await post(mcp.url, auth, INITIALIZE.replace('"capabilities":{}', `"capabilities":{"x":"${'a'.repeat(5 * 1024 * 1024)}"}`));
    expect(large.status).toBe(413);
    expect(JSON.parse(large.body).error.message).toBe('the request body is larger than 4 MB');
    // A message within bounds is served as before.
    expect((await post(mcp.url, auth)).status).toBe(200);
  });

  it('takes the token as ?token= from clients that cannot send headers', async () => {
    const client = new Client({ name: 'query-token', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${mcp.url}?token=${mcp.token}`)));
    expect(await toolNames(client)).toEqual(['screenshot', 'act', 'run_task', 'list_sessions', 'get_session', 'search_facts', 'save_fact', 'list_workflows', 'run_workflow', 'run_batch', 'get_batch', 'snapshot']);
    await client.close();
  });

  it('serves two clients at once, each in its own session, the answers never crossing', async () => {
    const [first, second] = await Promise.all([mcp.connect(), mcp.connect()]);
    const a = first as Client;
    const b = second as Client;
    const ids = [(a.transport as StreamableHTTPClientTransport).sessionId, (b.transport as StreamableHTTPClientTransport).sessionId];
    expect(ids[0]).toBeTruthy();
    expect(ids[0]).not.toBe(ids[1]);

    const save = (client: Client, keyword: string, value: string) =>
      client.callTool({ name: 'save_fact', arguments: { subject: 'user', scope: 'cross-product', keyword, description: `the ${keyword}`, values: [value] } });
    // Interleaved: each client saves and reads back its own facts, many calls in flight at once.
    const calls = Array.from({ length: 8 }, (_, i) => [save(a, `alpha-${i}`, `first client ${i}`), save(b, `beta-${i}`, `second client ${i}`)]).flat();
    const saved = await Promise.all(calls);
    saved.forEach((result, index) => {
      const fact = (result.structuredContent as { fact: { keyword: string; values: string[] } }).fact;
      const i = Math.floor(index / 2);
      expect(fact).toMatchObject(index % 2 === 0 ? { keyword: `alpha-${i}`, values: [`first client ${i}`] } : { keyword: `beta-${i}`, values: [`second client ${i}`] });
    });
    const [foundA, foundB] = await Promise.all([a.callTool({ name: 'search_facts', arguments: { query: 'first client', limit: 50 } }), b.callTool({ name: 'search_facts', arguments: { query: 'second client', limit: 50 } })]);
    const keywords = (result: typeof foundA) => (result.structuredContent as { facts: Array<{ keyword: string }> }).facts.map((fact) => fact.keyword);
    expect(keywords(foundA).filter((k) => k.startsWith('alpha-')).length).toBe(8);
    expect(keywords(foundB).filter((k) => k.startsWith('beta-')).length).toBe(8);

    // Ending one session leaves the other working.
    await (a.transport as StreamableHTTPClientTransport).terminateSession();
    await a.close();
    expect((await b.callTool({ name: 'list_sessions', arguments: {} })).isError).toBeFalsy();
    const stale = await post(mcp.url, { authorization: `Bearer ${mcp.token}`, 'mcp-session-id': ids[0] as string }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(stale.status).toBe(404);
  });

  it('keeps what a connection remembers to itself: act without a screenshot of its own is an error', async () => {
    const client = await mcp.connect();
    const acted = await client.callTool({ name: 'act', arguments: { action: { type: 'click', x: 10, y: 10 } } });
    expect(acted.isError).toBe(true);
    expect(textOf(acted as never)).toContain('no screenshot yet in this session: call screenshot first');
  });
});

describe('the tools offered', () => {
  it('--read-only hides every tool that changes something; act is unknown', async () => {
    const mcp = await startHttpMcp(['--read-only', '--data-dir', join(scratch, 'read-only')], { env: NO_DISPLAY });
    try {
      const client = await mcp.connect();
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['screenshot', 'list_sessions', 'get_session', 'search_facts', 'list_workflows', 'get_batch', 'snapshot']);
      expect(tools.every((tool) => tool.annotations?.readOnlyHint === true && tool.annotations.destructiveHint === false)).toBe(true);
      const acted = await client.callTool({ name: 'act', arguments: { action: { type: 'click', x: 1, y: 1 }, space: 'screen' } });
      expect(acted.isError).toBe(true);
      expect(textOf(acted as never)).toMatch(/act not found/);
    } finally {
      await mcp.stop();
    }
  }, 180_000);

  it('--tools is an allow-list; with --read-only only the read-only ones it names', async () => {
    const mcp = await startHttpMcp(['--tools', 'search_facts,save_fact,list_sessions', '--read-only', '--data-dir', join(scratch, 'allow')], { env: NO_DISPLAY });
    try {
      expect(await toolNames(await mcp.connect())).toEqual(['list_sessions', 'search_facts']);
    } finally {
      await mcp.stop();
    }
  }, 180_000);

  it('an unknown tool name in --tools is bad input (exit 2), naming it and the tools there are', async () => {
    const run = await runMnemo(['mcp', '--tools', 'screenshot,click_everything', '--data-dir', join(scratch, 'unknown')], { env: NO_DISPLAY });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--tools: no tool "click_everything" (the tools: screenshot, act, run_task, list_sessions, get_session, search_facts, save_fact, list_workflows, run_workflow, run_batch, get_batch, snapshot)');
    expect(run.stdout).toBe('');
  });
});

describe('MNEMO_MCP_TOKEN', () => {
  const rule = 'it must be at least 32 characters of A-Z a-z 0-9 - . _ ~ + / with = only at the end (RFC 6750 Bearer), or unset for a generated one';

  it('refuses a token shorter than 32 characters, or one a Bearer header cannot carry, in one line naming the rule (exit 2, nothing served)', async () => {
    const cases = [
      ['a', 'it has 1 character'],
      ['x'.repeat(31), 'it has 31 characters'],
      [`${'a'.repeat(20)} ${'b'.repeat(20)}`, 'it holds a character a Bearer token cannot carry'],
      [`${'a'.repeat(32)}=x`, 'it holds a character a Bearer token cannot carry'],
      [`${'a'.repeat(32)}"`, 'it holds a character a Bearer token cannot carry'],
    ] as const;
    await Promise.all(
      cases.map(async ([token, why]) => {
        const run = await runMnemo(['mcp', '--http', '--port', '0', '--data-dir', join(scratch, 'bad-token')], { env: { ...NO_DISPLAY, MNEMO_MCP_TOKEN: token } });
        expect(run.code, token).toBe(2);
        expect(run.stderr, token).toBe(`mnemo: MNEMO_MCP_TOKEN is not a usable token (${why}): ${rule}\n`);
        expect(run.stdout, token).toBe('');
      }),
    );
  }, 120_000);

  it('takes one of 32 Bearer characters or more (trailing = included) and serves with it', async () => {
    const token = `${'Ab0-._~+/'.repeat(4)}==`;
    const mcp = await startHttpMcp(['--data-dir', join(scratch, 'good-token')], { env: { ...NO_DISPLAY, MNEMO_MCP_TOKEN: token } });
    try {
      expect(mcp.token).toBe(token);
      expect(await toolNames(await mcp.connect())).toContain('list_sessions');
    } finally {
      await mcp.stop();
    }
  }, 180_000);
});

describe('mnemo serve', () => {
  it('mounts the same endpoint at /mcp, with its token and its checks', async () => {
    const served = startMnemo(['serve', '--port', '0', '--data-dir', join(scratch, 'serve')], { env: NO_DISPLAY });
    try {
      await waitFor(() => served.child.exitCode !== null || /MCP at /.test(served.output().stdout), 'mnemo serve to start', 300_000);
      const [, origin, token] = /Mnemo is at (http:\/\/[^/]+)\/\?token=(\S+)/.exec(served.output().stdout) as unknown as [string, string, string];
      expect(served.output().stdout).toContain(`MCP at ${origin}/mcp`);
      expect((await post(`${origin}/mcp`, {})).status).toBe(401);
      expect((await post(`${origin}/mcp`, { authorization: `Bearer ${token}`, origin: 'http://evil.example' })).status).toBe(403);
      const client = new Client({ name: 'serve-client', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      expect(await toolNames(client)).toContain('run_task');
      const listed = await client.callTool({ name: 'list_sessions', arguments: {} });
      // A new data directory offers the sample session to explore.
      expect((listed.structuredContent as { sessions: Array<{ sample?: true }> }).sessions.some((session) => session.sample)).toBe(true);
      await client.close();
    } finally {
      served.child.kill('SIGTERM');
      await served.result;
    }
  }, 400_000);
});
