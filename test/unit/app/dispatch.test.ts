import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppBackend, configFileKeyStore } from '../../../src/main/service/front-ends/app-backend';
import { RunService } from '../../../src/main/service/run-service';
import { createDispatcher, type Handlers, type Sender } from '../../../src/main/app/dispatch';
import { createHandlers } from '../../../src/main/app/handlers';
import { createDisplayLister } from '../../../src/main/app/displays';
import { err, ok } from '../../../src/shared/contract';

const trusted: Sender = { url: 'file:///app/out/renderer/index.html', isMainFrame: true };
const isTrustedUrl = (url: string) => url === trusted.url;

const display = { id: 0, bounds: { x: 0, y: 0, width: 800, height: 600 }, scaleFactor: 1, primary: true };

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-dispatch-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The real handlers over a run service on an empty data directory (no display needed). */
function backend(): AppBackend {
  const dataDir = mkdtempSync(join(scratch, 'data-'));
  const service = new RunService({ config: { dataDir, path: join(dataDir, 'config.json'), file: {} }, openOperator: async () => ({ ok: false, message: 'no display in this test' }) });
  return new AppBackend(service, configFileKeyStore(service));
}

function handlers(overrides: Partial<Handlers> = {}): Handlers {
  return {
    ...createHandlers({ appInfo: { version: '1.2.3', platform: 'linux' }, listDisplays: async () => ok([display]), backend: backend(), exportReport: async () => ok({ path: null }) }),
    ...overrides,
  };
}

describe('createDispatcher', () => {
  it('answers a valid request from the renderer with the parsed response', async () => {
    const dispatch = createDispatcher(handlers(), isTrustedUrl);
    expect(await dispatch('app:version', trusted, undefined)).toEqual(ok({ version: '1.2.3', platform: 'linux' }));
  });

  it.each<[string, Sender]>([
    ['another page', { url: 'https://example.com/', isMainFrame: true }],
    ['an iframe of the renderer', { url: trusted.url as string, isMainFrame: false }],
    ['a destroyed frame', { url: null, isMainFrame: true }],
  ])('refuses %s', async (_name, sender) => {
    let called = false;
    const dispatch = createDispatcher(
      handlers({
        'app:version': async () => {
          called = true;
          return ok({ version: 'x', platform: 'y' });
        },
      }),
      isTrustedUrl,
    );
    expect(await dispatch('app:version', sender, undefined)).toMatchObject({ ok: false, error: { kind: 'forbidden' } });
    expect(called).toBe(false);
  });

  it('refuses a request that does not match the schema, naming the command', async () => {
    const answer = await createDispatcher(handlers(), isTrustedUrl)('operator:displays', trusted, { all: true });
    expect(answer).toMatchObject({ ok: false, error: { kind: 'invalid_request' } });
    expect(!answer.ok && answer.error.message).toMatch(/^operator:displays: /);
  });

  it('answers an unknown command as unavailable', async () => {
    const answer = await createDispatcher(handlers(), isTrustedUrl)('app:selfDestruct', trusted, undefined);
    expect(answer).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
  });

  it('turns a throwing handler into an internal error value', async () => {
    const dispatch = createDispatcher(
      handlers({
        'operator:displays': async () => {
          throw new Error('xrandr exploded');
        },
      }),
      isTrustedUrl,
    );
    expect(await dispatch('operator:displays', trusted, undefined)).toEqual(err('internal', 'operator:displays: xrandr exploded'));
  });

  it('passes a handler failure through unchanged', async () => {
    const failure = err('unavailable', 'no display server');
    const dispatch = createDispatcher(handlers({ 'operator:displays': async () => failure }), isTrustedUrl);
    expect(await dispatch('operator:displays', trusted, undefined)).toEqual(failure);
  });

  it('refuses a response its schema rejects', async () => {
    const broken = { ...display, scaleFactor: 0 };
    const dispatch = createDispatcher(handlers({ 'operator:displays': async () => ok([broken]) }), isTrustedUrl);
    expect(await dispatch('operator:displays', trusted, undefined)).toMatchObject({ ok: false, error: { kind: 'invalid_response' } });
  });

  it('sends only the contract fields of a response', async () => {
    const operatorDisplay = { ...display, index: 0, name: 'eDP-1' };
    const dispatch = createDispatcher(handlers({ 'operator:displays': async () => ok([operatorDisplay]) }), isTrustedUrl);
    expect(await dispatch('operator:displays', trusted, undefined)).toEqual(ok([display]));
  });
});

describe('operator:displays through the display lister', () => {
  it('asks the operator with the primary size it was given', async () => {
    const lister = createDisplayLister({
      primarySize: async () => ({ width: 1024, height: 768 }),
      load: async () => ({
        listDisplays: async (primarySize) => {
          const size = await primarySize();
          return [{ index: 0, id: 'screen', name: 'screen', bounds: { x: 0, y: 0, ...size }, scaleFactor: 1, primary: true }];
        },
      }),
    });
    const dispatch = createDispatcher(
      createHandlers({ appInfo: { version: '1', platform: 'linux' }, listDisplays: lister, backend: backend(), exportReport: async () => ok({ path: null }) }),
      isTrustedUrl,
    );
    expect(await dispatch('operator:displays', trusted, undefined)).toEqual(
      ok([{ id: 'screen', bounds: { x: 0, y: 0, width: 1024, height: 768 }, scaleFactor: 1, primary: true }]),
    );
  });

  it('answers unavailable when the operator module cannot be loaded', async () => {
    const lister = createDisplayLister({
      primarySize: async () => ({ width: 1, height: 1 }),
      load: async () => {
        throw new Error("Cannot find module 'screenshot-desktop'");
      },
    });
    expect(await lister()).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
  });
});

describe('the run service through IPC', () => {
  it('answers with the service values and its failures as typed errors', async () => {
    const dispatch = createDispatcher(handlers(), isTrustedUrl);
    expect(await dispatch('run:current', trusted, undefined)).toEqual(ok(null));
    // A new data directory offers the sample session to explore.
    expect(await dispatch('sessions:list', trusted, {})).toMatchObject(ok([{ sample: true }]));
    expect(await dispatch('run:pause', trusted, { id: 'nope' })).toEqual(err('not_found', 'no run nope is going on'));
    expect(await dispatch('run:start', trusted, { task: '' })).toMatchObject({ ok: false, error: { kind: 'invalid_request', message: expect.stringMatching(/the task is empty/) } });
    // No model configured: a settings error that names what is missing, before any display is touched.
    expect(await dispatch('run:start', trusted, { task: 'open the editor' })).toMatchObject({ ok: false, error: { kind: 'settings', message: expect.stringMatching(/missing --base-url/) } });
    expect(await dispatch('settings:get', trusted, undefined)).toMatchObject({ ok: true, value: { config: {}, hasApiKey: false } });
  });
});

describe('the long-lived memory through IPC', () => {
  it('saves, lists, searches and forgets facts; lists conversations and reads a working memory; failures are typed', async () => {
    const dispatch = createDispatcher(handlers(), isTrustedUrl);
    const saved = await dispatch('facts:save', trusted, { subject: 'user', scope: 'product:mnemo', keyword: 'editor', description: 'The editor the user prefers', values: ['Vim'] });
    expect(saved).toMatchObject({ ok: true, value: { subject: 'user', keyword: 'editor', values: ['Vim'], factType: 'single', history: [] } });
    const id = (saved as { value: { id: string } }).value.id;
    // A new value supersedes; the old one is history, and a person (no session) taught both.
    await dispatch('facts:save', trusted, { subject: 'user', scope: 'product:mnemo', keyword: 'editor', values: ['Helix'] });
    const listed = await dispatch('facts:list', trusted, { subject: '', scope: 'product:mnemo' });
    expect(listed).toMatchObject({ ok: true, value: [{ id, values: ['Helix'], history: [{ values: ['Vim'] }] }] });
    expect((listed as { value: Array<Record<string, unknown>> }).value[0]).not.toHaveProperty('sessionId');
    expect(await dispatch('facts:search', trusted, { text: 'editor' })).toMatchObject({ ok: true, value: [{ id, score: expect.any(Number) }] });
    expect(await dispatch('facts:search', trusted, { text: '  ' })).toMatchObject({ ok: false, error: { kind: 'invalid_request', message: expect.stringMatching(/the search text is empty/) } });
    expect(await dispatch('facts:list', trusted, { subject: 'nobody' })).toMatchObject({ ok: false, error: { kind: 'settings' } });
    expect(await dispatch('facts:save', trusted, { subject: 'user', scope: 'product:mnemo', keyword: 'editor', values: [] })).toMatchObject({ ok: false, error: { kind: 'invalid_request' } });
    expect(await dispatch('facts:forget', trusted, { id })).toEqual(ok({ id }));
    expect(await dispatch('facts:forget', trusted, { id })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    expect(await dispatch('facts:list', trusted, {})).toEqual(ok([]));

    expect(await dispatch('memory:conversations', trusted, undefined)).toEqual(ok([]));
    expect(await dispatch('memory:working', trusted, { conversationId: 'conv-0123abcd' })).toEqual(ok(null));
    expect(await dispatch('memory:working', trusted, { conversationId: '../etc' })).toMatchObject({ ok: false, error: { kind: 'settings', message: expect.stringMatching(/is not a conversation id/) } });
  });
});
