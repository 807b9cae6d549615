/**
 * The window's commands over HTTP, generated from the contract: every command has a binding,
 * the server's router (src/main/server/router.ts) and the HTTP client (src/shared/http-commands.ts)
 * agree on each one (the request a caller gives is the request the handler gets, awkward
 * characters and numbers included), and answers are checked on both sides of the wire: a server
 * that answers what the contract does not allow gives the client an `invalid_response` value,
 * never an exception or a wrong value. Everything over real HTTP on 127.0.0.1.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { commandNames, commands, err, ok, type CommandName, type RequestOf, type Result } from '../../../src/shared/contract';
import { API_PREFIX, type HttpBinding } from '../../../src/shared/http-binding';
import { createHttpCommands, type HttpTransport } from '../../../src/shared/http-commands';
import { commandRoutes, createRouter, type HttpHandlers, type Route } from '../../../src/main/server/router';
import { readJson, send } from '../../../src/main/http/http-io';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A real HTTP server around the router, as `mnemo serve` puts it (without the token, which is not what is tested here). */
function serveRoutes(routes: readonly Route[]): Promise<string> {
  const router = createRouter(routes);
  return listen((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    void router({ method: request.method ?? 'GET', path: url.pathname.slice(API_PREFIX.length), query: url.searchParams, body: () => readJson(request) }).then((reply) => send(response, reply));
  });
}

/** One request per command, with what tends to go wrong on the wire: separators, spaces, non-ASCII, numbers. */
const samples: { [C in CommandName]: RequestOf<C> } = {
  'app:version': undefined,
  'operator:displays': undefined,
  'run:start': { task: 'Open the editor & type "hi" — 100% sure?', conversationId: 'conv-0123abcd' },
  'run:current': undefined,
  'run:pause': { id: 'run 1/ü' },
  'run:resume': { id: '20250101-120000-abcdef' },
  'run:stop': { id: 'x?y#z&w=%41' },
  'run:answer': { id: '20250101-120000-abcdef', text: 'notes/ä.txt', questionId: 3 },
  'runs:list': undefined,
  'run:takeover': { id: 'run 1/ü' },
  'run:input': { id: '20250101-120000-abcdef', action: { type: 'drag', x: 10, y: 20, toX: 1910.5, toY: 1070 } },
  'run:handback': { id: '20250101-120000-abcdef', note: 'I typed "ü" & pressed Enter / done?' },
  'run:elements': { id: 'run 1/ü' },
  'replay:start': { session: '20250101-120000-abcdef', policy: 'reground', speed: 2.5 },
  'sessions:list': { search: 'a&b=c d', status: 'finished' },
  'sessions:events': { id: '20250101-120000-abcdef', since: 12 },
  'sessions:delete': { id: '20250101-120000-abcdef' },
  'sessions:export': { id: '20250101-120000-abcdef' },
  'settings:get': undefined,
  'settings:save': { config: { agent: { maxSteps: 7 }, model: { baseUrl: 'http://127.0.0.1:1/v1' } }, apiKey: 'sk-new' },
  'provider:check': { model: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm' }, apiKey: '' },
  'provider:grounding': { model: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', family: 'pyautogui', coordinates: 'relative-1000' }, apiKey: '', targets: 3 },
  'doctor:run': undefined,
  'facts:list': { subject: 'user', scope: '' },
  'facts:search': { text: 'where? & how=1', subject: 'user', limit: 5 },
  'facts:save': { subject: 'user', scope: 'product:mnemo', keyword: 'editor', description: 'The editor', values: ['Vim', 'a/b'], multiple: true },
  'facts:forget': { id: 'f-12/34 %zz' },
  'memory:conversations': undefined,
  'memory:working': { conversationId: 'conv-0123abcd' },
  'workflows:list': undefined,
  'workflows:show': { name: 'invoice_2.v-1' },
  'workflows:trust': { name: 'invoice_2.v-1', digest: 'sha256:0f3a' },
  'workflows:propose': { id: '20250101-120000-abcdef' },
  'workflows:save': { session: 'last', name: 'invoice', params: [{ name: 'amount', value: '1 000,50 € & "q"' }, { name: 'password', secret: true }], autoParams: false },
  'workflows:delete': { name: 'invoice_2.v-1' },
  'workflows:export': { name: 'invoice' },
  'workflows:import': { file: { format: 'mnemo-workflow-export', files: { 'anchors/a.png': 'AAAA' } }, name: 'copy', replace: true },
  'workflows:run': { name: 'invoice', values: { amount: 'a&b=c / ü', note: '' }, policy: 'reground', speed: 0 },
  'teach:start': { task: 'Fill in the invoice & send it', display: 3 },
  'teach:stop': { id: 'teach-1' },
  'batches:start': { task: 'Enter invoice {{number}} & "send" it', csv: 'number\n1001\n"1,002"\n', concurrency: 2, retries: 1 },
  'batches:list': undefined,
  'batches:get': { id: 'b-20261206-201500-1a2b3c' },
  'batches:retry': { id: 'b-20261206-201500-1a2b3c', failedOnly: false },
  'batches:cancel': { id: 'b-20261206' },
  'batches:queue': undefined,
};

/** Handlers that keep the request they were given and answer a failure (which no response schema checks). */
function recordingHandlers(received: Map<CommandName, unknown>): HttpHandlers {
  return Object.fromEntries(
    commandNames.map((name) => [
      name,
      async (request: unknown) => {
        received.set(name, request);
        return err('not_found', `recorded ${name}`);
      },
    ]),
  ) as unknown as HttpHandlers;
}

describe('every command over HTTP', () => {
  it('has a binding, and the handler gets exactly the request the client was given', async () => {
    expect(Object.keys(samples).sort()).toEqual([...commandNames].sort());
    const received = new Map<CommandName, unknown>();
    const origin = await serveRoutes(commandRoutes(recordingHandlers(received)));
    const downloads: Array<{ url: string; filename: string }> = [];
    const api = createHttpCommands({ origin, download: (url, filename) => downloads.push({ url, filename }) });

    for (const name of commandNames) {
      const call = api[name] as (request: unknown) => Promise<Result<unknown>>;
      const answer = await call(samples[name]);
      const expected = commands[name].request.parse(samples[name]);
      if ((commands[name].http as HttpBinding).download !== undefined) {
        // The page saves the file; what it asks for reaches the same handler.
        expect(answer).toEqual(ok({ path: 'mnemo-20250101-120000-abcdef.html' }));
        const saved = downloads.at(-1);
        expect(saved?.filename).toBe('mnemo-20250101-120000-abcdef.html');
        const fetched = await fetch(saved?.url ?? '');
        expect(fetched.status).toBe(404);
        expect(await fetched.json()).toEqual({ error: `recorded ${name}`, kind: 'not_found' });
      } else {
        expect(answer, name).toEqual(err('not_found', `recorded ${name}`));
      }
      expect(received.get(name), name).toEqual(expected);
    }
    expect([...received.keys()].sort()).toEqual([...commandNames].sort());
  });

  it('keeps the routes the window and scripts use', () => {
    const routes = Object.fromEntries(commandNames.map((name) => [name, `${commands[name].http.method} ${commands[name].http.path}`]));
    expect(routes).toMatchObject({
      'run:start': 'POST /runs',
      'run:current': 'GET /runs/current',
      'run:pause': 'POST /runs/:id/pause',
      'run:resume': 'POST /runs/:id/resume',
      'run:stop': 'POST /runs/:id/stop',
      'run:answer': 'POST /runs/:id/answer',
      'runs:list': 'GET /runs',
      'run:takeover': 'POST /runs/:id/takeover',
      'run:input': 'POST /runs/:id/input',
      'run:handback': 'POST /runs/:id/handback',
      'run:elements': 'GET /runs/:id/elements',
      'replay:start': 'POST /replays',
      'sessions:list': 'GET /sessions',
      'sessions:events': 'GET /sessions/:id/events',
      'sessions:delete': 'DELETE /sessions/:id',
      'sessions:export': 'GET /sessions/:id/report.html',
      'settings:get': 'GET /settings',
      'settings:save': 'PUT /settings',
      'provider:check': 'POST /provider/check',
      'provider:grounding': 'POST /provider/grounding',
      'doctor:run': 'GET /doctor',
      'app:version': 'GET /version',
      'facts:list': 'GET /facts',
      'facts:search': 'GET /facts/search',
      'facts:save': 'POST /facts',
      'facts:forget': 'DELETE /facts/:id',
      'memory:conversations': 'GET /memory/conversations',
      'memory:working': 'GET /memory/working',
      'workflows:list': 'GET /workflows',
      'workflows:show': 'GET /workflows/:name',
      'workflows:trust': 'POST /workflows/:name/trust',
      'workflows:propose': 'GET /sessions/:id/workflow-params',
      'workflows:save': 'POST /workflows',
      'workflows:delete': 'DELETE /workflows/:name',
      'workflows:export': 'GET /workflows/:name/export',
      'workflows:import': 'POST /workflows/import',
      'workflows:run': 'POST /workflows/:name/run',
      'teach:start': 'POST /teach',
      'teach:stop': 'POST /teach/:id/stop',
    });
  });

  it('puts the fields where the routes always had them: the query by its old names, the body as sent', async () => {
    const seen: Array<{ method: string; url: string; body: string }> = [];
    const origin = await listen((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        seen.push({ method: request.method ?? '', url: request.url ?? '', body });
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"seen"}');
      });
    });
    const api = createHttpCommands({ origin });
    await api['facts:search']({ text: 'reports', scope: 'cross-product', limit: 5 });
    await api['memory:working']({ conversationId: 'conv-0123abcd' });
    await api['sessions:events']({ id: '20250101-120000-abcdef', since: 4 });
    await api['run:answer']({ id: 'r1', text: 'yes', questionId: 2 });
    await api['run:stop']({ id: 'r1' });
    await api['facts:forget']({ id: 'f-1' });
    expect(seen).toEqual([
      { method: 'GET', url: '/api/facts/search?q=reports&scope=cross-product&limit=5', body: '' },
      { method: 'GET', url: '/api/memory/working?conversation=conv-0123abcd', body: '' },
      { method: 'GET', url: '/api/sessions/20250101-120000-abcdef/events?since=4', body: '' },
      { method: 'POST', url: '/api/runs/r1/answer', body: '{"text":"yes","questionId":2}' },
      { method: 'POST', url: '/api/runs/r1/stop', body: '' },
      { method: 'DELETE', url: '/api/facts/f-1', body: '' },
    ]);
  });

  it('names a bad request by what was sent, and keeps a failure’s status, kind and session', async () => {
    const handlers = recordingHandlers(new Map());
    handlers['run:start'] = async () => ({ ok: false, error: { kind: 'busy', message: 'a run is going on', sessionId: '20250101-120000-abcdef' } });
    const origin = await serveRoutes(commandRoutes(handlers));
    const missing = await fetch(`${origin}/api/memory/working`);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: 'conversation: missing' });
    const notANumber = await fetch(`${origin}/api/facts/search?q=x&limit=many`);
    expect(notANumber.status).toBe(400);
    expect(((await notANumber.json()) as { error: string }).error).toMatch(/^limit: /);
    // A path that could name no session names nothing: 404, as an unknown one.
    const notASession = await fetch(`${origin}/api/sessions/..%2Fconfig.json/events`);
    expect(notASession.status).toBe(404);
    expect(await notASession.json()).toEqual({ error: 'id: "../config.json" is not a session id', kind: 'not_found' });
    expect((await fetch(`${origin}/api/runs/r1/jump`, { method: 'POST' })).status).toBe(404);

    const busy = await fetch(`${origin}/api/runs`, { method: 'POST', body: '{"task":"Go"}' });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toEqual({ error: 'a run is going on', kind: 'busy', id: '20250101-120000-abcdef' });
    expect(await createHttpCommands({ origin })['run:start']({ task: 'Go' })).toEqual({
      ok: false,
      error: { kind: 'busy', message: 'a run is going on', sessionId: '20250101-120000-abcdef' },
    });
    // A request the contract rejects never leaves the client.
    expect(await createHttpCommands({ origin })['run:pause']({ id: '' })).toMatchObject({ ok: false, error: { kind: 'invalid_request' } });
  });
});

describe('answers validated on HTTP', () => {
  /** A server that answers each path with the status and body given, whatever was asked. */
  async function answering(bodies: Record<string, { status?: number; body: string; type?: string }>): Promise<HttpTransport> {
    const origin = await listen((request, response) => {
      const answer = bodies[`${request.method} ${new URL(request.url ?? '/', 'http://localhost').pathname}`];
      if (!answer) return void response.writeHead(404).end();
      response.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json' }).end(answer.body);
    });
    return { origin };
  }

  it('a malformed answer is an invalid_response value, never an exception or a wrong value', async () => {
    const api = createHttpCommands(
      await answering({
        'GET /api/runs/current': { body: '{"id":5,"kind":"run"}' },
        'GET /api/sessions': { body: '[{"id":"20250101-120000-abcdef","task":"t","status":"finished"}]' },
        'GET /api/version': { body: '<html>Welcome to nginx</html>', type: 'text/html' },
        'GET /api/settings': { body: '' },
        'GET /api/doctor': { body: '[{"check":"display","status":"maybe","detail":"","fix":""}]' },
        'POST /api/runs': { body: '{"started":true}' },
        'GET /api/sessions/20250101-120000-abcdef/events': { body: '[{"type":"run-started","seq":"one"}]' },
      }),
    );
    const answers = {
      current: await api['run:current'](),
      sessions: await api['sessions:list']({}),
      version: await api['app:version'](),
      settings: await api['settings:get'](),
      doctor: await api['doctor:run'](),
      started: await api['run:start']({ task: 'Go' }),
      events: await api['sessions:events']({ id: '20250101-120000-abcdef' }),
    };
    for (const [what, answer] of Object.entries(answers)) expect(answer, what).toMatchObject({ ok: false, error: { kind: 'invalid_response' } });
    // The message names the command and what is wrong.
    expect(!answers.current.ok && answers.current.error.message).toMatch(/^run:current: /);
    expect(!answers.sessions.ok && answers.sessions.error.message).toMatch(/startedAt/);
    expect(!answers.version.ok && answers.version.error.message).toMatch(/not JSON/);
  });

  it('a valid answer is the contract’s value (fields it does not name dropped, as over IPC)', async () => {
    const fact = { id: 'f-1', subject: 'user', scope: 'cross-product', keyword: 'shell', description: '', factType: 'single', values: ['bash'], timestamp: 1 };
    const api = createHttpCommands(await answering({ 'GET /api/facts': { body: JSON.stringify([{ ...fact, internal: 'not for the window' }]) }, 'GET /api/runs/current': { body: 'null' } }));
    expect(await api['facts:list']({})).toEqual(ok([fact]));
    expect(await api['run:current']()).toEqual(ok(null));
  });

  it('a failure without a body that says more, or no server at all, is a value too', async () => {
    const api = createHttpCommands(await answering({ 'GET /api/settings': { status: 502, body: '<h1>Bad gateway</h1>', type: 'text/html' } }));
    expect(await api['settings:get']()).toMatchObject({ ok: false, error: { kind: 'internal', message: expect.stringMatching(/^HTTP 502/) } });
    // A port that was just free: nothing listens there now.
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const { port } = gone.address() as AddressInfo;
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    expect(await createHttpCommands({ origin: `http://127.0.0.1:${port}` })['settings:get']()).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
  });

  it('the server checks its own answers: one the contract does not allow is a 500 invalid_response, not sent on', async () => {
    const handlers = recordingHandlers(new Map());
    handlers['run:current'] = async () => ok({ id: 5 } as never);
    handlers['facts:forget'] = async ({ id }) => ok({ id, secret: 'not in the contract' });
    const origin = await serveRoutes(commandRoutes(handlers));
    const raw = await fetch(`${origin}/api/runs/current`);
    expect(raw.status).toBe(500);
    expect(await raw.json()).toMatchObject({ kind: 'invalid_response', error: expect.stringMatching(/^run:current: /) });
    expect(await createHttpCommands({ origin })['run:current']()).toMatchObject({ ok: false, error: { kind: 'invalid_response' } });
    // Fields the contract does not name do not leave the server.
    expect(await (await fetch(`${origin}/api/facts/f-1`, { method: 'DELETE' })).json()).toEqual({ id: 'f-1' });
  });
});
