/**
 * The run engine through the real `mnemo run` on the real display: the provider is checked before
 * step 1 (a failure retrying cannot fix ends the run at once, in one line, with no step spent),
 * one run at a time per display (`busy`), and a follow-up task continues a conversation.
 */
import { createServer } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { currentWriter } from '../../src/main/store/writer-identity';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';
import { requireDisplay, runX } from '../fixtures/desktop/display';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';

let display: string;
let memoryModel: ScriptedServer;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-run-engine-'));
const servers: ScriptedServer[] = [];

const finished: ScriptedReply = { text: 'Done.', toolCalls: [{ name: 'computer', arguments: { thought: 'Done.', actions: [{ type: 'finished', summary: 'All done.' }] } }] };

function dataDir(): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ image: { maxWidth: 960 }, memory: { model: { baseUrl: memoryModel.url } } }));
  return dir;
}

async function server(options: Parameters<typeof startScriptedServer>[0]): Promise<ScriptedServer> {
  const started = await startScriptedServer(options);
  servers.push(started);
  return started;
}

async function run(task: string, baseUrl: string, dir: string, extra: string[] = []) {
  const result = await runMnemo(['run', task, '--base-url', baseUrl, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dir, '--json', '--non-interactive', ...extra], {
    env: { DISPLAY: display, OPENAI_API_KEY: 'sk-test' },
  });
  return { ...result, events: jsonLines(result.stdout) };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  display = requireDisplay();
  memoryModel = await startMemoryModelServer();
  await runX(display, 'xdotool', ['mousemove', '640', '700']);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the provider check before step 1', () => {
  it('a rejected API key ends the run at once: exit 3, one line, no step and no completion spent', async () => {
    const model = await server({ replies: [finished], models: { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } } });
    const outcome = await run('Do something', model.url, dataDir());
    expect(outcome.code, outcome.stderr).toBe(3);
    expect(outcome.events.map((e) => e.type)).toEqual(['run-started', 'run-finished']);
    expect(outcome.events[1]).toMatchObject({ status: 'failed', steps: 0, reason: expect.stringMatching(/provider cannot be used: 401 .*refused the API key.*check the key/) });
    expect(model.requests).toHaveLength(0);
    expect(model.probes[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  it('a base URL without /v1 names the fix', async () => {
    const model = await server({ replies: [finished] });
    const outcome = await run('Do something', model.origin, dataDir());
    expect(outcome.code).toBe(3);
    expect(outcome.events.at(-1)).toMatchObject({ status: 'failed', reason: expect.stringContaining(`the base URL has no /v1 — did you mean ${model.origin}/v1?`) });
  });

  it('a web page instead of the API is summarised (status, content type, title), never printed whole', async () => {
    const page = `<!DOCTYPE html><html><head><title>Sign in to the proxy</title></head><body>${'<p>lorem ipsum</p>'.repeat(200)}</body></html>`;
    const model = await server({ replies: [finished], models: { raw: page, status: 200, contentType: 'text/html; charset=utf-8' } });
    const outcome = await run('Do something', model.url, dataDir(), []);
    expect(outcome.code).toBe(3);
    const reason = String((outcome.events.at(-1) as { reason?: string }).reason);
    expect(reason).toMatch(/web page, not the OpenAI API \(HTTP 200, text\/html; charset=utf-8, page title "Sign in to the proxy"\)/);
    expect(reason).not.toContain('lorem');
    expect(outcome.stdout + outcome.stderr).not.toContain('lorem ipsum');
  });

  it('a refused connection ends the run at once, saying so', async () => {
    const port = await closedPort();
    const outcome = await run('Do something', `http://127.0.0.1:${port}/v1`, dataDir());
    expect(outcome.code).toBe(3);
    expect(outcome.events.at(-1)).toMatchObject({ status: 'failed', steps: 0, reason: expect.stringMatching(/cannot reach http:\/\/127\.0\.0\.1:\d+\/v1: connection refused/) });
  });

  it('a server without a model list (or a 500 on it) does not stop the run', async () => {
    const model = await server({ replies: [finished], models: { status: 500 } });
    const outcome = await run('Do something', model.url, dataDir());
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.events).toContainEqual(expect.objectContaining({ type: 'note', step: 0, message: expect.stringMatching(/provider check: .*HTTP 500; going on/) }));
    expect(outcome.events.at(-1)).toMatchObject({ status: 'finished' });
  });

  it('without --json the terminal shows the reason in one line and the run ends', async () => {
    const model = await server({ replies: [finished], models: { status: 403, body: 'forbidden' } });
    const outcome = await runMnemo(['run', 'Do something', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir(), '--non-interactive'], {
      env: { DISPLAY: display },
    });
    expect(outcome.code).toBe(3);
    expect(outcome.stderr.split('\n').filter((line) => /provider cannot be used/.test(line))).toHaveLength(1);
    expect(outcome.stderr).not.toMatch(/step 1/);
  });
});

describe('one run at a time per display', () => {
  it('a second start while the display is in use is refused as busy, naming the running session (exit 3)', async () => {
    const dir = dataDir();
    // Another live process holds the display: this test's own process stands in for it.
    mkdirSync(join(dir, 'locks'), { recursive: true });
    const lock = join(dir, 'locks', `display-${display.replace(/[^\w.-]+/g, '_')}.json`);
    writeFileSync(lock, JSON.stringify({ display, writer: currentWriter(), sessionId: '20261201-010203-abcdef', since: Date.now() }));
    const model = await server({ replies: [finished] });
    const outcome = await run('Do something', model.url, dir);
    expect(outcome.code).toBe(3);
    expect(outcome.stderr).toMatch(/busy: .* is in use: session 20261201-010203-abcdef is running on it/);
    expect(outcome.events).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it('a lock left by a process that is gone is taken over', async () => {
    const dir = dataDir();
    mkdirSync(join(dir, 'locks'), { recursive: true });
    const lock = join(dir, 'locks', `display-${display.replace(/[^\w.-]+/g, '_')}.json`);
    writeFileSync(lock, JSON.stringify({ display, writer: { pid: 999_999_999, hostname: currentWriter().hostname }, sessionId: 'gone', since: 0 }));
    const model = await server({ replies: [finished] });
    const outcome = await run('Do something', model.url, dir);
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(() => readFileSync(lock)).toThrow();
  });
});

describe('conversations', () => {
  it('mnemo run prints the conversation id; --conversation continues it, and the model sees the earlier task', async () => {
    const dir = dataDir();
    const first = await server({ replies: [finished] });
    const one = await runMnemo(['run', 'Open the quarterly report', '--base-url', first.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dir, '--non-interactive'], {
      env: { DISPLAY: display },
    });
    expect(one.code, one.stderr).toBe(0);
    const id = /conversation (conv-[0-9a-f]+) \(a follow-up task continues it with --conversation \1\)/.exec(one.stderr)?.[1];
    expect(id, one.stderr).toBeDefined();

    const second = await server({ replies: [finished] });
    const two = await run('Now print it', second.url, dir, ['--conversation', id as string]);
    expect(two.code, two.stderr).toBe(0);
    expect(two.events[0]).toMatchObject({ type: 'run-started', conversationId: id });
    const system = JSON.stringify(second.requests[0]?.body.messages[0]);
    expect(system).toContain('Open the quarterly report');

    const unknown = await run('Again', second.url, dir, ['--conversation', 'conv-00000000']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no conversation "conv-00000000"/);
  });
});
