/**
 * No route list is kept by hand: the one route-table.ts makes from the contract names every
 * contract command (and every route that is not one), real `mnemo serve` over the real run service
 * answers each of them (the router never says "no route"), and docs/app.md shows exactly that list.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandNames, commands } from '../../../src/shared/contract';
import { otherRoutes } from '../../../src/shared/http-binding';
import { routeTable, routeTableMarkdown, type RouteRow } from '../../../src/main/server/route-table';
import { startMnemoServer, type MnemoServer } from '../../../src/main/server/mnemo-server';
import { startMemoryModelServer, type ScriptedServer } from '../../fixtures/openai-server';
import { startService, type ServiceSetup } from '../service/service-harness';

const repoRoot = new URL('../../../', import.meta.url);

describe('the list of routes', () => {
  it('names every contract command once, with its binding, provider:grounding included', () => {
    const rows = routeTable();
    const served = rows.filter((row) => row.command).map((row) => row.serves);
    expect(served).toEqual(commandNames);
    expect(served).toContain('provider:grounding');
    for (const row of rows.filter((one) => one.command)) {
      const binding = commands[row.serves as keyof typeof commands].http;
      expect(`${row.method} ${row.path}`, row.serves).toBe(`${binding.method} /api${binding.path.replace(/[:*](\w+)/g, '<$1>')}`);
    }
    expect(rows.filter((row) => !row.command)).toHaveLength(Object.keys(otherRoutes).length);
  });

  it('says where the request fields ride: the query of a GET, the body of a POST', () => {
    const row = (name: string) => routeTable().find((one) => one.serves === name) as RouteRow;
    expect(row('facts:search')).toMatchObject({ method: 'GET', path: '/api/facts/search', query: '?subject=&scope=&q=&limit=', body: '' });
    expect(row('run:answer')).toMatchObject({ method: 'POST', path: '/api/runs/<id>/answer', query: '', body: '{"text", "questionId"?}' });
    expect(row('run:stop')).toMatchObject({ query: '', body: '' });
    expect(row('sessions:export')).toMatchObject({ download: true });
  });

  it('is the table docs/app.md shows', () => {
    const page = readFileSync(new URL('docs/app.md', repoRoot), 'utf8');
    const block = /<!-- routes: generated [^\n]*-->\n([\s\S]*?)\n<!-- routes: end -->/.exec(page);
    expect(block, 'docs/app.md has the generated block').not.toBeNull();
    expect(block?.[1], 'docs/app.md: the route table is not the one route-table.ts makes; paste routeTableMarkdown() between the markers').toBe(routeTableMarkdown());
  });
});

describe('mnemo serve', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'mnemo-route-table-'));
  let memoryModel: ScriptedServer;
  let setup: ServiceSetup;
  let server: MnemoServer;

  beforeAll(async () => {
    memoryModel = await startMemoryModelServer();
    writeFileSync(join(scratch, 'index.html'), '');
    setup = await startService([], memoryModel.url);
    server = await startMnemoServer({ service: setup.service, rendererDir: scratch, port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await setup?.close();
    await memoryModel?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A path of the list with its fields filled: a session or run that is not there, a workflow that is not there, a file. */
  const filled = (path: string) => path.replace('<id>', '20990101-000000-abcdef').replace('<name>', 'no-such-workflow').replace('<path>', 'screenshots/none.jpg');

  it('answers every route of the list; the router never says there is no such route', { timeout: 120_000 }, async () => {
    const unrouted: string[] = [];
    for (const row of routeTable()) {
      const abort = new AbortController();
      // A body the request schema refuses: the route is found, and nothing is started or saved.
      const body = row.method === 'POST' || row.method === 'PUT' ? '[]' : undefined;
      const response = await fetch(`${server.origin}${filled(row.path)}`, {
        method: row.method,
        headers: { authorization: `Bearer ${server.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body } : {}),
        signal: abort.signal,
      });
      // The event stream stays open: its status is the answer.
      const text = response.headers.get('content-type')?.startsWith('text/event-stream') ? '' : await response.text();
      abort.abort();
      if (response.status === 404 && /no route/.test(text)) unrouted.push(`${row.method} ${row.path} (${row.serves})`);
    }
    expect(unrouted).toEqual([]);
  });
});
