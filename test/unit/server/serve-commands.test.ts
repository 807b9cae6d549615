/**
 * Every window command through the real `mnemo serve` (MnemoServer on 127.0.0.1, the token in
 * the Authorization header) with the generated HTTP client, over the real run service (the fake
 * operator for a display, a scripted OpenAI-compatible model): each one reaches its handler and
 * does what it says, where it lands (the record, config.json, the fact store). The reads answer
 * the same over HTTP as over IPC, because both are the contract's.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, type Sender } from '../../../src/main/app/dispatch';
import { createHandlers } from '../../../src/main/app/handlers';
import { startMnemoServer, type MnemoServer } from '../../../src/main/server/mnemo-server';
import { AppBackend, configFileKeyStore } from '../../../src/main/service/app-backend';
import { commandNames, ok, type CommandApi, type CommandName, type RequestOf } from '../../../src/shared/contract';
import { createHttpCommands } from '../../../src/shared/http-commands';
import { startMemoryModelServer, type ScriptedServer } from '../../fixtures/openai-server';
import { startService, toolCall, type ServiceSetup } from '../service/service-harness';

let memoryModel: ScriptedServer;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-serve-commands-'));
let setup: ServiceSetup | undefined;
let server: MnemoServer | undefined;

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
  writeFileSync(join(scratch, 'index.html'), '');
});
afterEach(async () => {
  await server?.close();
  await setup?.close();
  server = setup = undefined;
});
afterAll(async () => {
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function poll<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const move = (x: number) => toolCall([{ type: 'mouse_move', x, y: 100 }], `Move to ${x}.`);
const done = toolCall([{ type: 'finished', summary: 'Done.' }], 'All done.');

describe('every command through mnemo serve', () => {
  it('reaches its handler and does what it says', async () => {
    setup = await startService([toolCall([{ type: 'ask_user', question: 'Which file?' }], 'I must ask.'), move(20), done, move(20), done], memoryModel.url);
    const service = setup.service;
    server = await startMnemoServer({ service, rendererDir: scratch, port: 0 });
    const origin = server.origin;
    const headers = { authorization: `Bearer ${server.token}` };
    const downloads: Array<{ url: string; filename: string }> = [];
    const http = createHttpCommands({ origin, headers, download: (url, filename) => downloads.push({ url, filename }) });
    // Which commands this test sent, to show that it sent every one.
    const called = new Set<CommandName>();
    const api = new Proxy(http, {
      get: (target, name: CommandName) => {
        called.add(name);
        return target[name];
      },
    }) as CommandApi;

    expect(await api['app:version']()).toEqual(ok({ version: '0.1.0', platform: process.platform }));
    // The display list goes through the operator's host: a list where a display answers, else no_display.
    const displays = await api['operator:displays']();
    if (displays.ok) expect(displays.value.filter((display) => display.primary)).toHaveLength(1);
    else expect(displays.error.kind).toBe('no_display');

    const started = await api['run:start']({ task: 'Open a file' });
    if (!started.ok) throw new Error(started.error.message);
    const { id, conversationId } = started.value;
    const question = await poll('the question', async () => {
      const current = await api['run:current']();
      return current.ok && current.value?.pendingQuestion ? current.value.pendingQuestion : undefined;
    });
    expect(question.question).toBe('Which file?');
    expect(await api['run:start']({ task: 'Another' })).toMatchObject({ ok: false, error: { kind: 'busy', sessionId: id } });
    expect(await api['run:pause']({ id })).toMatchObject({ ok: true, value: { id, paused: true } });
    expect(await api['run:resume']({ id })).toMatchObject({ ok: true, value: { id, paused: false } });
    expect(await api['run:answer']({ id, text: 'notes.txt', questionId: question.id })).toMatchObject({ ok: true, value: { id } });
    expect(await api['run:answer']({ id, text: 'again' })).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    expect((await service.run(id)?.done)?.status).toBe('finished');
    expect(await api['run:current']()).toEqual(ok(null));
    expect(await api['run:stop']({ id })).toMatchObject({ ok: false, error: { kind: 'not_found' } });

    const listed = await api['sessions:list']({ status: 'finished' });
    expect(listed).toMatchObject({ ok: true, value: [{ id, task: 'Open a file', status: 'finished' }] });
    const events = await api['sessions:events']({ id, since: 0 });
    if (!events.ok) throw new Error(events.error.message);
    expect(events.value[0]).toMatchObject({ type: 'run-started', seq: 1 });
    expect(events.value).toContainEqual(expect.objectContaining({ type: 'user-answer', answer: 'notes.txt' }));
    expect(await api['sessions:events']({ id, since: 3 })).toEqual(ok(events.value.slice(3)));

    expect(await api['sessions:export']({ id })).toEqual(ok({ path: `mnemo-${id}.html` }));
    const report = await fetch(downloads[0]?.url ?? '', { headers });
    expect(report.headers.get('content-disposition')).toBe(`attachment; filename="mnemo-${id}.html"`);
    expect(await report.text()).toContain('Open a file');

    const replay = await api['replay:start']({ session: id, policy: 'stop', speed: 0 });
    if (!replay.ok) throw new Error(replay.error.message);
    expect(replay.value.id).not.toBe(id);
    await service.run(replay.value.id)?.done;

    const fact = { subject: 'user', scope: 'product:mnemo', keyword: 'editor', description: 'The editor the user prefers', values: ['Vim'] };
    const saved = await api['facts:save'](fact);
    if (!saved.ok) throw new Error(saved.error.message);
    expect(saved.value).toMatchObject({ ...fact, factType: 'single', history: [] });
    expect(await api['facts:list']({ scope: 'product:mnemo' })).toMatchObject({ ok: true, value: [{ id: saved.value.id, values: ['Vim'] }] });
    expect(await api['facts:search']({ text: 'editor', limit: 3 })).toMatchObject({ ok: true, value: [{ id: saved.value.id, score: expect.any(Number) }] });
    expect(await api['facts:forget']({ id: saved.value.id })).toEqual(ok({ id: saved.value.id }));
    expect(await api['facts:forget']({ id: saved.value.id })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    expect(await api['memory:conversations']()).toMatchObject({ ok: true, value: expect.arrayContaining([conversationId]) });
    expect(await api['memory:working']({ conversationId: conversationId as string })).toMatchObject({ ok: true, value: { conversationId } });

    const checked = await api['provider:check']({ model: { baseUrl: setup.server.origin, model: 'm', family: 'tools' } });
    expect(checked).toMatchObject({ ok: true, value: { ok: false, message: expect.stringContaining(`did you mean ${setup.server.origin}/v1?`) } });
    const doctor = await api['doctor:run']();
    if (!doctor.ok) throw new Error(doctor.error.message);
    expect(doctor.value.map((check) => check.check)).toContain('display');

    const before = await api['settings:get']();
    expect(before).toMatchObject({ ok: true, value: { configPath: join(setup.dataDir, 'config.json') } });
    const config = before.ok ? before.value.config : {};
    expect(await api['settings:save']({ config: { ...config, agent: { maxSteps: 9 } }, apiKey: 'sk-saved-key' })).toMatchObject({ ok: true, value: { hasApiKey: true } });
    expect(JSON.parse(readFileSync(join(setup.dataDir, 'config.json'), 'utf8'))).toMatchObject({ agent: { maxSteps: 9 }, model: { apiKey: 'sk-saved-key' } });

    expect(await api['sessions:delete']({ id })).toEqual(ok({ id }));
    expect(existsSync(join(setup.dataDir, 'sessions', id))).toBe(false);
    expect(await api['sessions:events']({ id })).toMatchObject({ ok: false, error: { kind: 'not_found' } });

    expect([...called].sort()).toEqual([...commandNames].sort());
    // Where a display answers, the display list and the doctor each start the operator's host.
  }, 120_000);

  it('answers the reads as IPC does', async () => {
    setup = await startService([move(10), done], memoryModel.url);
    const service = setup.service;
    server = await startMnemoServer({ service, rendererDir: scratch, port: 0 });
    const http = createHttpCommands({ origin: server.origin, headers: { authorization: `Bearer ${server.token}` } });
    const started = await http['run:start']({ task: 'Move once' });
    if (!started.ok) throw new Error(started.error.message);
    await service.run(started.value.id)?.done;
    await http['facts:save']({ subject: 'machine', scope: 'cross-product', keyword: 'shell', values: ['bash'] });

    const renderer: Sender = { url: 'file:///renderer/index.html', isMainFrame: true };
    const handlers = createHandlers({ appInfo: { version: '0.1.0', platform: process.platform }, listDisplays: async () => ok([]), backend: new AppBackend(service, configFileKeyStore(service)), exportReport: async () => ok({ path: null }) });
    const dispatch = createDispatcher(handlers, (url) => url === renderer.url);
    const reads: { [C in CommandName]?: RequestOf<C> } = {
      'app:version': undefined,
      'run:current': undefined,
      'sessions:list': {},
      'sessions:events': { id: started.value.id, since: 2 },
      'settings:get': undefined,
      'facts:list': {},
      'facts:search': { text: 'shell' },
      'memory:conversations': undefined,
      'memory:working': { conversationId: started.value.conversationId as string },
    };
    for (const [name, request] of Object.entries(reads) as Array<[CommandName, unknown]>) {
      const overHttp = await (http[name] as (request: unknown) => Promise<unknown>)(request);
      expect(overHttp, name).toMatchObject({ ok: true });
      expect(overHttp, name).toEqual(await dispatch(name, renderer, request));
    }
  });
});
