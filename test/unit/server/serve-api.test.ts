/**
 * The browser API of `mnemo serve`, over real HTTP, with the real run service (the display
 * replaced by the fake operator) and a scripted OpenAI-compatible model: the token, the cookie,
 * Origin and Host checks, the routes the issue fixes, server-sent events with catching up, and
 * stopping the server stopping its run cleanly.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import { startMnemoServer, type MnemoServer } from '../../../src/main/server/mnemo-server';
import { startMemoryModelServer, type ScriptedServer } from '../../fixtures/openai-server';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { waitFor } from '../../fixtures/fakes';
import { startService, toolCall, type ServiceSetup } from '../service/service-harness';

let memoryModel: ScriptedServer;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-serve-api-'));
const rendererDir = join(scratch, 'renderer');
const open: Array<{ server: MnemoServer; setup: ServiceSetup }> = [];

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
  // A stand-in for the built renderer: the server's job is to serve it, not to build it here.
  writeFileSync(join(scratch, 'index.html'), '');
});
afterEach(async () => {
  for (const { server, setup } of open.splice(0)) {
    await server.close();
    await setup.close();
  }
});
afterAll(async () => {
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const done = toolCall([{ type: 'finished', summary: 'Done.' }], 'All done.');
const move = (x: number) => toolCall([{ type: 'mouse_move', x, y: 100 }], `Move to ${x}.`);

async function serve(replies: Parameters<typeof startService>[0]) {
  const setup = await startService(replies, memoryModel.url);
  const server = await startMnemoServer({ service: setup.service, rendererDir, port: 0 });
  open.push({ server, setup });
  const call = (path: string, init: RequestInit & { token?: string | null } = {}) => {
    const { token = server.token, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    if (rest.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${server.origin}${path}`, { ...rest, headers, redirect: 'manual' });
  };
  return { setup, server, call };
}

/** A request with a Host header of our choosing (fetch will not send one), as a DNS-rebinding page would. */
function statusWithHost(origin: string, token: string, host: string): Promise<number | undefined> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path: '/api/sessions', headers: { host, authorization: `Bearer ${token}` } }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('error', reject);
    request.end();
  });
}

/** Reads a server-sent event stream until `until` says stop; the events in order. */
async function readEvents(response: Response, until: (events: AgentEvent[]) => boolean): Promise<AgentEvent[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: AgentEvent[] = [];
  let buffer = '';
  while (!until(events)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block.split('\n').find((line) => line.startsWith('data: '));
      if (data) events.push(JSON.parse(data.slice(6)) as AgentEvent);
    }
  }
  await reader.cancel();
  return events;
}

describe('access', () => {
  it('every /api request needs the token: 401 without it, 401 with another', async () => {
    const { call } = await serve([]);
    expect((await call('/api/sessions', { token: null })).status).toBe(401);
    expect((await call('/api/sessions', { token: 'not-the-token' })).status).toBe(401);
    expect((await call('/api/sessions')).status).toBe(200);
  });

  it('a foreign Origin or Host is refused with 403, even with the token', async () => {
    const { call, server } = await serve([]);
    expect((await call('/api/sessions', { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect((await call('/api/sessions', { headers: { origin: 'null' } })).status).toBe(403);
    expect(await statusWithHost(server.origin, server.token, 'evil.example')).toBe(403);
    expect(await statusWithHost(server.origin, server.token, new URL(server.origin).host)).toBe(200);
  });

  it('opening the printed URL sets an HttpOnly cookie and drops the token from the address', async () => {
    const { server } = await serve([]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
    const opened = await fetch(server.url, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/');
    const cookie = opened.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const withCookie = await fetch(`${server.origin}/api/sessions`, { headers: { cookie: cookie.split(';')[0] as string } });
    expect(withCookie.status).toBe(200);
    // A wrong token in the URL sets nothing.
    const wrong = await fetch(`${server.origin}/?token=wrong`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });
});

describe('runs', () => {
  it('POST /api/runs starts a run ({"id"}); a second start while it runs is 409 naming it; the sessions routes match the CLI', async () => {
    // The first reply takes its time: the run is still going when the second start comes.
    const { setup, call } = await serve([{ ...move(10), delayMs: 60_000 }]);
    const started = await call('/api/runs', { method: 'POST', body: JSON.stringify({ task: 'Move the mouse' }) });
    expect(started.status).toBe(200);
    const { id } = (await started.json()) as { id: string };
    expect(id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);

    const second = await call('/api/runs', { method: 'POST', body: JSON.stringify({ task: 'Another' }) });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ id, error: expect.stringContaining(id) });
    expect((await call(`/api/runs/${id}/stop`, { method: 'POST' })).status).toBe(200);
    await setup.service.runs.get(id)?.done;

    const listed = (await (await call('/api/sessions')).json()) as unknown[];
    const cli = await runMnemo(['sessions', '--json', '--data-dir', setup.dataDir]);
    expect(listed).toEqual(JSON.parse(cli.stdout));

    const shown = (await (await call(`/api/sessions/${id}`)).json()) as { steps: Array<{ screenshot: string | null }>; status: string };
    expect(shown).toMatchObject({ status: 'aborted' });
    const screenshot = shown.steps[0]?.screenshot as string;
    expect(screenshot).toBe(`/api/sessions/${id}/files/screenshots/step-0001.jpg`);
    const image = await call(screenshot);
    expect(image.headers.get('content-type')).toBe('image/jpeg');
    const bytes = Buffer.from(await image.arrayBuffer());
    expect(bytes.equals(readFileSync(join(setup.dataDir, 'sessions', id, 'screenshots', 'step-0001.jpg')))).toBe(true);
    expect((await call(`${screenshot}?thumb=120`)).headers.get('content-type')).toBe('image/jpeg');
    expect((await call(`/api/sessions/${id}/files/../../config.json`)).status).not.toBe(200);
    expect((await call(`/api/sessions/${id}`, { token: null })).status).toBe(401);
  });

  it('pause, resume, answer and stop through the API; a bad request is 400 with the problem named', async () => {
    const { setup, call } = await serve([toolCall([{ type: 'ask_user', question: 'Which file?' }], 'I must ask.'), move(20), move(30), done]);
    expect((await call('/api/runs', { method: 'POST', body: JSON.stringify({ task: '' }) })).status).toBe(400);
    expect((await call('/api/runs', { method: 'POST', body: '{not json' })).status).toBe(400);
    const { id } = (await (await call('/api/runs', { method: 'POST', body: JSON.stringify({ task: 'Open a file' }) })).json()) as { id: string };
    const run = setup.service.runs.get(id);
    if (!run) throw new Error('the run is not going on');
    await waitFor(() => run.pendingQuestion !== null, 'the question');
    const current = (await (await call('/api/runs/current')).json()) as { pendingQuestion: { question: string } };
    expect(current.pendingQuestion.question).toBe('Which file?');
    expect((await call(`/api/runs/${id}/answer`, { method: 'POST', body: JSON.stringify({ text: 'notes.txt' }) })).status).toBe(200);
    expect((await call(`/api/runs/${id}/answer`, { method: 'POST', body: JSON.stringify({ text: 'again' }) })).status).toBe(409);
    expect(await (await call(`/api/runs/${id}/pause`, { method: 'POST' })).json()).toMatchObject({ paused: true });
    expect(await (await call(`/api/runs/${id}/resume`, { method: 'POST' })).json()).toMatchObject({ paused: false });
    expect((await call(`/api/runs/${id}/stop`, { method: 'POST' })).status).toBe(200);
    const outcome = await run.done;
    expect(['aborted', 'finished']).toContain(outcome.status);
    expect((await call('/api/runs/nope/stop', { method: 'POST' })).status).toBe(404);
    const events = (await (await call(`/api/sessions/${id}/events?since=0`)).json()) as AgentEvent[];
    expect(events).toContainEqual(expect.objectContaining({ type: 'user-answer', kind: 'question', answer: 'notes.txt' }));
  });

  it('GET /api/events?since=N streams the run from after N, each data line a --json event with seq', async () => {
    const { setup, call } = await serve([move(10), move(20), move(30), done]);
    const { id } = (await (await call('/api/runs', { method: 'POST', body: JSON.stringify({ task: 'Move around' }) })).json()) as { id: string };
    await setup.service.runs.get(id)?.done.catch(() => undefined);
    // After the run: the session is followed from its record.
    const all = await readEvents(await call(`/api/events?since=0&session=${id}`), (events) => events.at(-1)?.type === 'run-finished');
    expect(all.map((event) => event.seq)).toEqual(all.map((_, index) => index + 1));
    const later = await readEvents(await call(`/api/events?since=5&session=${id}`), (events) => events.at(-1)?.type === 'run-finished');
    expect(later.map((event) => event.seq)).toEqual(all.slice(5).map((event) => event.seq));
    expect(later[0]).toEqual(all[5]);
  });

  it('a stream opened before a run follows it from its first event; stopping the server ends the run aborted, not interrupted', async () => {
    const { setup, server, call } = await serve([move(10), move(20), { ...move(30), delayMs: 60_000 }]);
    const stream = call('/api/events?since=0');
    const { id } = (await (await call('/api/runs', { method: 'POST', body: JSON.stringify({ task: 'Keep going' }) })).json()) as { id: string };
    const events = await readEvents(await stream, (list) => list.filter((event) => event.type === 'step-finished').length >= 2);
    expect(events[0]).toMatchObject({ type: 'run-started', seq: 1, runId: id, task: 'Keep going' });
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    await server.close();
    open.splice(open.findIndex((entry) => entry.server === server), 1);
    const meta = JSON.parse(readFileSync(join(setup.dataDir, 'sessions', id, 'session.json'), 'utf8')) as { status: string };
    expect(meta.status).toBe('aborted');
    await setup.close();
  });
});

describe('settings', () => {
  it('GET shows the settings without the key; PUT validates and writes config.json, keeping the key where the CLI reads it', async () => {
    const { setup, call } = await serve([]);
    const before = (await (await call('/api/settings')).json()) as { hasApiKey: boolean; configPath: string };
    expect(before).toMatchObject({ hasApiKey: false, configPath: join(setup.dataDir, 'config.json') });
    const bad = await call('/api/settings', { method: 'PUT', body: JSON.stringify({ config: { agent: { maxSteps: -1 } } }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: expect.stringMatching(/agent\.maxSteps/) });
    const saved = await call('/api/settings', {
      method: 'PUT',
      body: JSON.stringify({ config: { model: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', family: 'tools' }, agent: { maxSteps: 7 } }, apiKey: 'sk-saved-key' }),
    });
    expect(saved.status).toBe(200);
    const view = (await saved.json()) as { hasApiKey: boolean; config: { model: Record<string, unknown> } };
    expect(view.hasApiKey).toBe(true);
    expect(view.config.model.apiKey).toBeUndefined();
    const file = JSON.parse(readFileSync(join(setup.dataDir, 'config.json'), 'utf8')) as { model: { apiKey: string }; agent: { maxSteps: number } };
    expect(file).toMatchObject({ model: { apiKey: 'sk-saved-key' }, agent: { maxSteps: 7 } });
  });

  it('POST /api/provider/check with a base URL without /v1 says so', async () => {
    const { setup, call } = await serve([]);
    const checked = await call('/api/provider/check', { method: 'POST', body: JSON.stringify({ model: { baseUrl: setup.server.origin, model: 'm', family: 'tools' } }) });
    expect(checked.status).toBe(200);
    expect(await checked.json()).toMatchObject({ ok: false, message: expect.stringContaining(`did you mean ${setup.server.origin}/v1?`) });
  });
});

describe('the long-lived memory', () => {
  it('facts: POST saves, GET lists with history and filters, search ranks, DELETE forgets; a run teaches a fact naming its session; bad requests are 400', async () => {
    const fact = { type: 'save_fact', keyword: 'report-folder', description: 'Where the user keeps reports', value: 'Documents/Reports' };
    const { setup, call } = await serve([toolCall([fact], 'I remember the folder.'), done]);
    const started = (await (await call('/api/runs', { method: 'POST', body: JSON.stringify({ task: 'Remember the reports folder' }) })).json()) as { id: string };
    await setup.service.runs.get(started.id)?.done;

    const person = { subject: 'machine', scope: 'cross-product', keyword: 'shell', description: 'The login shell', values: ['bash'] };
    const saved = await call('/api/facts', { method: 'POST', body: JSON.stringify(person) });
    expect(saved.status).toBe(200);
    const shell = (await saved.json()) as { id: string };
    expect(shell).toMatchObject({ subject: 'machine', keyword: 'shell', values: ['bash'], history: [] });
    await call('/api/facts', { method: 'POST', body: JSON.stringify({ ...person, values: ['fish'] }) });

    const all = (await (await call('/api/facts')).json()) as Array<{ keyword: string; sessionId?: string; values: string[]; history: Array<{ values: string[] }> }>;
    expect(all.map((entry) => entry.keyword).sort()).toEqual(['report-folder', 'shell']);
    expect(all.find((entry) => entry.keyword === 'report-folder')).toMatchObject({ sessionId: started.id, values: ['Documents/Reports'] });
    expect(all.find((entry) => entry.keyword === 'shell')).toMatchObject({ values: ['fish'], history: [{ values: ['bash'] }] });
    expect(all.find((entry) => entry.keyword === 'shell')).not.toHaveProperty('sessionId');
    // The same as the CLI prints (which leaves the history out).
    const cli = JSON.parse((await runMnemo(['facts', 'list', '--json', '--data-dir', setup.dataDir])).stdout) as unknown[];
    expect(all.map(({ history: _history, ...rest }) => rest)).toEqual(cli);

    expect(((await (await call('/api/facts?subject=machine&scope=')).json()) as unknown[]).length).toBe(1);
    const hits = (await (await call('/api/facts/search?q=reports&limit=5')).json()) as Array<{ keyword: string; score: number }>;
    expect(hits).toMatchObject([{ keyword: 'report-folder', score: expect.any(Number) }]);

    const noText = await call('/api/facts/search?q=');
    expect(noText.status).toBe(400);
    expect(await noText.json()).toMatchObject({ error: expect.stringMatching(/the search text is empty/) });
    expect((await call('/api/facts?subject=nobody')).status).toBe(400);
    expect((await call('/api/facts', { method: 'POST', body: JSON.stringify({ ...person, values: [] }) })).status).toBe(400);

    expect((await call(`/api/facts/${encodeURIComponent(shell.id)}`, { method: 'DELETE' })).status).toBe(200);
    const again = await call(`/api/facts/${encodeURIComponent(shell.id)}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ kind: 'not_found' });
    expect(((await (await call('/api/facts')).json()) as Array<{ keyword: string }>).map((entry) => entry.keyword)).toEqual(['report-folder']);
  });

  it('GET /api/memory/conversations and /api/memory/working?conversation= answer the working memory a run wrote', async () => {
    const { setup, call } = await serve([done]);
    const started = (await (await call('/api/runs', { method: 'POST', body: JSON.stringify({ task: 'Do one thing' }) })).json()) as { id: string; conversationId: string };
    await setup.service.runs.get(started.id)?.done;
    const conversations = (await (await call('/api/memory/conversations')).json()) as string[];
    expect(conversations).toEqual([started.conversationId]);
    const working = await call(`/api/memory/working?conversation=${started.conversationId}`);
    expect(working.status).toBe(200);
    expect(await working.json()).toMatchObject({ conversationId: started.conversationId, memory: expect.any(String), updatedAt: expect.any(Number) });
    expect(await (await call('/api/memory/working?conversation=conv-00000000')).json()).toBeNull();
    expect((await call('/api/memory/working')).status).toBe(400);
    expect((await call('/api/memory/working?conversation=..%2Fx')).status).toBe(400);
    expect((await call('/api/memory/nothing')).status).toBe(404);
  });
});
