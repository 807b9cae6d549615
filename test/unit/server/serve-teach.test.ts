/**
 * The demonstration commands through the real `mnemo serve`: on a service without a display,
 * `POST /api/teach` answers 503 `no_display` with the reason and `POST /api/teach/<id>/stop` of
 * a demonstration that is not going on 404, and the generated client gets the same as values; with
 * another recorder plugged in (`RunServiceDeps.demonstrations`), the request reaches it as sent
 * and its answer comes back. (test/desktop/teach.test.ts records a real one through serve.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { StartTeach } from '../../../src/shared/app-api';
import { createHttpCommands } from '../../../src/shared/http-commands';
import { startMnemoServer, type MnemoServer } from '../../../src/main/server/mnemo-server';
import type { TeachHost } from '../../../src/main/service/runs/demonstrations';
import { useMemoryModel } from '../../fixtures/memory-model';
import { startService, type ServiceSetup } from '../service/service-harness';

const memoryModel = useMemoryModel();
const rendererDir = mkdtempSync(join(tmpdir(), 'mnemo-serve-teach-'));
writeFileSync(join(rendererDir, 'index.html'), '');
let setup: ServiceSetup | undefined;
let server: MnemoServer | undefined;

afterEach(async () => {
  await server?.close();
  await setup?.close();
  server = setup = undefined;
});
afterAll(() => rmSync(rendererDir, { recursive: true, force: true }));

async function serve(teach?: TeachHost) {
  setup = await startService([], memoryModel.url, teach ? { deps: { demonstrations: teach } } : {});
  server = await startMnemoServer({ service: setup.service, rendererDir, port: 0 });
  const headers = { authorization: `Bearer ${server.token}` };
  return { origin: server.origin, headers, api: createHttpCommands({ origin: server.origin, headers }) };
}

describe('teach:start and teach:stop through mnemo serve', () => {
  it('without a display: 503 saying why; a demonstration that is not going on: 404', async () => {
    const { origin, headers, api } = await serve();
    const started = await fetch(`${origin}/api/teach`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ task: 'Fill in the invoice' }) });
    expect(started.status).toBe(503);
    expect(await started.json()).toEqual({ kind: 'no_display', error: expect.stringContaining('DISPLAY is not set') });
    const stopped = await fetch(`${origin}/api/teach/teach-1/stop`, { method: 'POST', headers });
    expect(stopped.status).toBe(404);
    expect(await api['teach:start']({ task: 'Fill in the invoice' })).toMatchObject({ ok: false, error: { kind: 'no_display' } });
    expect(await api['teach:stop']({ id: 'teach-1' })).toMatchObject({ ok: false, error: { kind: 'not_found', message: 'no demonstration teach-1 is being recorded' } });
    // A request without its task is refused before it reaches the service.
    expect(await api['teach:start']({ task: '  ' })).toMatchObject({ ok: false, error: { kind: 'invalid_request', message: expect.stringContaining('say what you will do') } });
  });

  it('reach the recorder plugged in, and bring its answers back', async () => {
    const asked: Array<StartTeach | string> = [];
    const teach: TeachHost = {
      startTeach: async (request) => {
        asked.push(request);
        return { ok: true, value: { id: 'teach-7' } };
      },
      stopTeach: async (id) => {
        asked.push(id);
        return id === 'teach-7' ? { ok: true, value: { sessionId: '20250101-120000-abcdef' } } : { ok: false, error: { kind: 'not_found', message: `no demonstration ${id} is recording` } };
      },
    };
    const { api } = await serve(teach);
    expect(await api['teach:start']({ task: 'Fill in the invoice', display: 42 })).toEqual({ ok: true, value: { id: 'teach-7' } });
    expect(await api['teach:stop']({ id: 'teach-7' })).toEqual({ ok: true, value: { sessionId: '20250101-120000-abcdef' } });
    expect(await api['teach:stop']({ id: 'teach-8' })).toMatchObject({ ok: false, error: { kind: 'not_found', message: 'no demonstration teach-8 is recording' } });
    expect(asked).toEqual([{ task: 'Fill in the invoice', display: 42 }, 'teach-7', 'teach-8']);
  });
});
