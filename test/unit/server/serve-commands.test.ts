/**
 * Every window command through the real `mnemo serve` (MnemoServer on 127.0.0.1, the token in
 * the Authorization header) with the generated HTTP client, over the real run service (the fake
 * operator for a display, a scripted OpenAI-compatible model): each one reaches its handler and
 * does what it says, where it lands (the record, config.json, the fact store). The reads answer
 * the same over HTTP as over IPC, because both are the contract's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDispatcher, type Sender } from '../../../src/main/app/dispatch';
import { createHandlers } from '../../../src/main/app/handlers';
import { BatchJournal } from '../../../src/main/batch/journal';
import { AppBackend, configFileKeyStore } from '../../../src/main/service/front-ends/app-backend';
import { commandNames, ok, type CommandApi, type CommandName, type RequestOf } from '../../../src/shared/contract';
import { createHttpCommands } from '../../../src/shared/http-commands';
import { toolCall } from '../service/service-harness';
import { useServe } from './serve-harness';

const serve = useServe();

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
    const ask = (question: string) => toolCall([{ type: 'ask_user', question }], 'I must ask.');
    // Each run its own replies, by the task its request names: the runs in between (replay, the
    // workflow) may or may not ask the model. The second run is taken over while it asks (see the end).
    // (The second run's request may recall the first task: it is looked for first.)
    const scripts = { 'Take it over': [ask('Which folder?'), done], 'Open a file': [ask('Which file?'), move(20), done] };
    const { setup, server, headers } = await serve.start((request) => {
      const text = JSON.stringify(request.body ?? '');
      const script = Object.entries(scripts).find(([task]) => text.includes(task))?.[1];
      return script?.shift() ?? done;
    });
    const service = setup.service;
    const origin = server.origin;
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
    expect(await api['runs:list']()).toMatchObject({ ok: true, value: [{ id, kind: 'run', task: 'Open a file', status: 'asking', desktop: { private: false } }] });
    expect(await api['run:pause']({ id })).toMatchObject({ ok: true, value: { id, paused: true } });
    expect(await api['run:resume']({ id })).toMatchObject({ ok: true, value: { id, paused: false } });
    expect(await api['run:answer']({ id, text: 'notes.txt', questionId: question.id })).toMatchObject({ ok: true, value: { id } });
    expect(await api['run:answer']({ id, text: 'again' })).toMatchObject({ ok: false, error: { kind: 'conflict' } });
    expect((await service.runs.get(id)?.done)?.status).toBe('finished');
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
    await service.runs.get(replay.value.id)?.done;

    // Workflows, each command once (serve-workflows.test.ts goes through them in depth).
    expect(await api['workflows:propose']({ id })).toEqual(ok([]));
    expect(await api['workflows:save']({ session: id, name: 'moves' })).toMatchObject({ ok: true, value: { workflow: { name: 'moves', params: [], steps: [{ action: { type: 'mouse_move', x: 20 } }] } } });
    expect(await api['workflows:list']()).toMatchObject({ ok: true, value: { workflows: [{ name: 'moves', steps: 1, source: id }], damaged: [] } });
    expect(await api['workflows:show']({ name: 'moves' })).toMatchObject({ ok: true, value: { name: 'moves', source: { session: id } } });
    const moved = setup.operator.executed.length;
    const workflowRun = await api['workflows:run']({ name: 'moves', speed: 0 });
    if (!workflowRun.ok) throw new Error(workflowRun.error.message);
    expect((await service.runs.get(workflowRun.value.id)?.done)?.status).toBe('finished');
    expect(setup.operator.executed.slice(moved).map(({ action }) => action.type)).toEqual(['mouse_move']);
    const exportedWorkflow = await api['workflows:export']({ name: 'moves' });
    if (!exportedWorkflow.ok) throw new Error(exportedWorkflow.error.message);
    expect(await api['workflows:import']({ file: exportedWorkflow.value, name: 'moves-2' })).toMatchObject({ ok: true, value: { workflow: { name: 'moves-2', trusted: false } } });
    expect(await api['workflows:run']({ name: 'moves-2', speed: 0 })).toMatchObject({ ok: false, error: { kind: 'untrusted' } });
    expect(await api['workflows:trust']({ name: 'moves-2' })).toMatchObject({ ok: true, value: { name: 'moves-2', trusted: true } });
    expect(await api['workflows:delete']({ name: 'moves-2' })).toEqual(ok({ name: 'moves-2' }));
    expect(existsSync(join(setup.dataDir, 'workflows', 'moves-2'))).toBe(false);

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
    const grounded = await api['provider:grounding']({ model: { baseUrl: setup.server.origin, model: 'm', family: 'tools' }, targets: 1 });
    expect(grounded).toMatchObject({ ok: true, value: { ok: false, message: expect.stringContaining(`did you mean ${setup.server.origin}/v1?`) } });
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

    // A run taken over: input refused before, carried out at the next step boundary (after the answer) while taken over, and handed back.
    const second = await api['run:start']({ task: 'Take it over' });
    if (!second.ok) throw new Error(second.error.message);
    const held = second.value.id;
    const asked = await poll('the second question', async () => {
      const listed = await api['runs:list']();
      return listed.ok && listed.value[0]?.status === 'asking' ? (service.runs.get(held)?.pendingQuestion ?? undefined) : undefined;
    });
    const userMove = { type: 'mouse_move', x: 5, y: 6 } as const;
    expect(await api['run:input']({ id: held, action: userMove })).toMatchObject({ ok: false, error: { kind: 'conflict', message: expect.stringContaining('not taken over') } });
    expect(await api['run:takeover']({ id: held })).toMatchObject({ ok: true, value: { id: held, status: 'taken over' } });
    expect(await api['runs:list']()).toMatchObject({ ok: true, value: [{ id: held, status: 'taken over' }] });
    // The run's elements: read through its display's accessibility bus (none without a display here), a value either way.
    const elements = await api['run:elements']({ id: held });
    expect(elements.ok || ['unavailable', 'not_found'].includes(elements.error.kind)).toBe(true);
    expect(await api['run:elements']({ id: 'no-such-run' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    const input = api['run:input']({ id: held, action: userMove });
    expect(await api['run:answer']({ id: held, text: 'Documents', questionId: asked.id })).toMatchObject({ ok: true });
    expect(await input).toMatchObject({ ok: true, value: { step: 2, result: { ok: true } } });
    expect(await api['run:handback']({ id: held, note: 'moved it' })).toMatchObject({ ok: true, value: { id: held, status: 'running' } });
    expect((await service.runs.get(held)?.done)?.status).toBe('finished');
    const heldEvents = await api['sessions:events']({ id: held });
    if (!heldEvents.ok) throw new Error(heldEvents.error.message);
    expect(heldEvents.value).toContainEqual(expect.objectContaining({ type: 'action', step: 2, actor: 'user', action: expect.objectContaining({ type: 'mouse_move' }) }));
    expect(heldEvents.value).toContainEqual(expect.objectContaining({ type: 'handed-back', note: 'moved it' }));

    // Demonstrations: this service has no X display to record (serve-teach.test.ts plugs another recorder in; the UI test records a real one).
    expect(await api['teach:start']({ task: 'Show it once' })).toMatchObject({ ok: false, error: { kind: 'no_display', message: expect.stringContaining('DISPLAY is not set') } });
    expect(await api['teach:stop']({ id: 'teach-1' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });

    // Batches: none at first; a table that does not fit the task is refused, naming its column;
    // one a terminal left (written by the real journal, its row succeeded) is listed, read,
    // has nothing to retry, and is cancelled on disk. No queue is set.
    expect(await api['batches:list']()).toEqual(ok([]));
    expect(await api['batches:start']({ task: 'Note {{name}}', csv: 'nom\nAda\n' })).toMatchObject({ ok: false, error: { kind: 'invalid', message: expect.stringContaining('"nom"') } });
    const batchId = 'b-20261206-101500-a1b2c3';
    const journal = await BatchJournal.create(service.config.dataDir, {
      id: batchId,
      createdAt: 1,
      source: { kind: 'task', task: 'Note {{name}}' },
      valuesFile: 'people.csv',
      columns: ['name'],
      rows: [{ row: 1, cells: { name: { kind: 'text', text: 'Ada' } } }],
      concurrency: 1,
      concurrencyReason: '1 at once (--concurrency)',
      retries: 0,
      desktop: {},
    });
    await journal.append({ type: 'attempt-ended', at: 2, row: 1, attempt: 1, session: null, status: 'succeeded', runStatus: 'finished', reason: 'done', steps: 1, costUsd: 0, durationMs: 1, final: true });
    expect(await api['batches:list']()).toMatchObject({ ok: true, value: [{ id: batchId, status: 'done', counts: { succeeded: 1 } }] });
    expect(await api['batches:get']({ id: 'b-20261206' })).toMatchObject({ ok: true, value: { id: batchId, rows: [{ row: 1, values: { name: 'Ada' }, status: 'succeeded' }] } });
    expect(await api['batches:retry']({ id: batchId })).toMatchObject({ ok: false, error: { kind: 'conflict', message: expect.stringContaining('nothing to retry') } });
    expect(await api['batches:cancel']({ id: batchId })).toMatchObject({ ok: true, value: { id: batchId } });
    expect(readFileSync(join(service.config.dataDir, 'batches', batchId, 'journal.jsonl'), 'utf8')).toContain('"type":"cancelled"');
    expect(await api['batches:get']({ id: 'b-19990101' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    expect(await api['batches:queue']()).toEqual(ok({ queue: null, schedules: [], workers: [] }));

    expect([...called].sort()).toEqual([...commandNames].sort());
    // Where a display answers, the display list and the doctor each start the operator's host.
  }, 120_000);

  it('answers the reads as IPC does', async () => {
    const { setup, server, headers } = await serve.start([move(10), done]);
    const service = setup.service;
    const http = createHttpCommands({ origin: server.origin, headers });
    const started = await http['run:start']({ task: 'Move once' });
    if (!started.ok) throw new Error(started.error.message);
    await service.runs.get(started.value.id)?.done;
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
      'workflows:list': undefined,
    };
    for (const [name, request] of Object.entries(reads) as Array<[CommandName, unknown]>) {
      const overHttp = await (http[name] as (request: unknown) => Promise<unknown>)(request);
      expect(overHttp, name).toMatchObject({ ok: true });
      expect(overHttp, name).toEqual(await dispatch(name, renderer, request));
    }
  });
});
