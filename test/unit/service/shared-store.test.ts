/**
 * A shared session store end to end: a run of the real run service (the display replaced by the
 * fake operator, the model a scripted OpenAI-compatible server) whose session goes to a real
 * s3rver process through the AWS SDK, or to a folder; read back from another data directory, as a
 * second machine would, through the real CLI (`mnemo sessions --json`, `show --json`,
 * `export --html`) and through `mnemo serve` (the sessions list, the session view, its file
 * routes). An upload that fails (the server stopped) leaves the session local, says so in one
 * line, and is done at the next start.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunHandle } from '../../../src/main/service/run-service';
import { startMnemoServer } from '../../../src/main/server/mnemo-server';
import { sessionDirectory } from '../../../src/main/store/paths';
import { PENDING_UPLOADS_DIR } from '../../../src/main/store/pending-uploads';
import { SessionStore } from '../../../src/main/store/session-store';
import { serviceOnFakeDisplay } from '../../fixtures/fake-display-service';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { startMemoryModelServer, startScriptedServer, type ScriptedServer } from '../../fixtures/openai-server';
import { startS3, type TestS3 } from '../../fixtures/s3-server';
import { FAST_SETTLE } from '../run/agent-harness';
import { toolCall } from './service-harness';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-shared-runs-'));
let memoryModel: ScriptedServer;
let s3: TestS3;

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
  s3 = await startS3(['sessions']);
  writeFileSync(join(scratch, 'index.html'), '');
});
afterAll(async () => {
  await memoryModel?.close();
  await s3?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const STEPS = [toolCall([{ type: 'click', x: 100, y: 100 }], 'Open the menu.'), toolCall([{ type: 'click', x: 200, y: 120 }], 'Pick the item.'), toolCall([{ type: 'finished', summary: 'Done.' }], 'All done.')];

const dataDir = (name: string) => mkdtempSync(join(scratch, `${name}-`));

/** A run service on a data directory, its model scripted, its log kept; closed by the caller. */
async function serviceOn(dir: string, store: Record<string, unknown>, env: Record<string, string>) {
  const model = await startScriptedServer({ replies: STEPS });
  const log: string[] = [];
  const { service } = await serviceOnFakeDisplay({ dataDir: dir, config: { memory: { model: { baseUrl: memoryModel.url } }, store }, modelUrl: model.url, deps: { env, log: (line) => log.push(line) } });
  return {
    service,
    log,
    async close() {
      await service.close();
      await model.close();
    },
  };
}

async function runTask(service: Awaited<ReturnType<typeof serviceOn>>['service']): Promise<RunHandle> {
  const started = await service.agentRuns.start({ task: 'Pick the item from the menu', agent: { settle: FAST_SETTLE } });
  if (!started.ok) throw new Error(started.error.message);
  expect(await started.value.done).toMatchObject({ status: 'finished', steps: 3 });
  return started.value;
}

const cli = (args: string[], env: Record<string, string>) => runMnemo(args, { env: { ...env, AWS_EC2_METADATA_DISABLED: 'true' } });

describe.each([
  ['S3 (s3rver)', () => ({ where: 's3://sessions/runs', env: s3.env })],
  ['a folder', () => ({ where: mkdtempSync(join(scratch, 'mount-')), env: {} as Record<string, string> })],
])('sessions in %s', { timeout: 90_000 }, (_name, storeOf) => {
  it('a run ends: its session goes to the store, verified, the local copy removed; another data directory reads it with sessions, show and export', async () => {
    const { where, env } = storeOf();
    const machineA = dataDir('machine-a');
    const a = await serviceOn(machineA, { shared: where }, env);
    let handle: RunHandle;
    try {
      handle = await runTask(a.service);
    } finally {
      await a.close();
    }
    expect(existsSync(sessionDirectory(machineA, handle.id))).toBe(false);
    expect(readdirSync(join(machineA, PENDING_UPLOADS_DIR))).toEqual([]);
    expect(a.log.filter((line) => line.includes(handle.id))).toEqual([expect.stringMatching(new RegExp(`^session ${handle.id} uploaded to ${where.replace(/[/.]/g, '\\$&')} \\(\\d+ files, .+\\), its local copy removed$`))]);

    // Machine B: nothing of its own, the same store.
    const machineB = dataDir('machine-b');
    const listed = await cli(['sessions', '--json', '--data-dir', machineB, '--store', where], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ id: handle.id, task: 'Pick the item from the menu', status: 'finished', steps: 3, store: where })]));

    const shown = await cli(['show', handle.id, '--json', '--data-dir', machineB, '--store', where], env);
    expect(shown.code, shown.stderr).toBe(0);
    const session = JSON.parse(shown.stdout) as { id: string; store: string; status: string; steps: Array<{ step: number; screenshot: string | null; action: { type: string } | null }> };
    expect(session).toMatchObject({ id: handle.id, status: 'finished', store: where });
    expect(session.steps.map((step) => step.action?.type)).toEqual(['click', 'click', 'finished']);
    const screenshots = session.steps.map((step) => step.screenshot as string);
    for (const path of screenshots) expect(path.startsWith(join(machineB, 'store-cache'))).toBe(true);

    const report = join(scratch, `${handle.id}-${where.startsWith('s3') ? 's3' : 'folder'}.html`);
    const exported = await cli(['export', handle.id, '--html', report, '--data-dir', machineB, '--store', where], env);
    expect(exported.code, exported.stderr).toBe(0);
    const page = readFileSync(report, 'utf8');
    for (const path of screenshots) expect(page).toContain(`data:image/jpeg;base64,${readFileSync(path).toString('base64')}`);

    // Without the store, machine B has nothing.
    const alone = await cli(['sessions', '--json', '--data-dir', machineB], {});
    expect(JSON.parse(alone.stdout).map((s: { id: string }) => s.id)).not.toContain(handle.id);
  });
});

describe('an upload that fails', { timeout: 90_000 }, () => {
  it('leaves the session local and listed as pending, says so in one line, keeps it from retention, and is done at the next start', async () => {
    const where = 's3://sessions/retried';
    const dir = dataDir('offline');
    await s3.stop();
    let handle: RunHandle;
    const first = await serviceOn(dir, { shared: where }, s3.env);
    try {
      handle = await runTask(first.service);
    } finally {
      await first.close();
    }
    const folder = sessionDirectory(dir, handle.id);
    expect(existsSync(join(folder, 'session.json'))).toBe(true);
    expect(readdirSync(join(dir, PENDING_UPLOADS_DIR))).toEqual([`${handle.id}.json`]);
    const said = first.log.filter((line) => line.includes(handle.id));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(new RegExp(`^session ${handle.id} stays in .+, not uploaded: cannot reach the session store s3://sessions/retried at ${s3.endpoint.replace(/[/.]/g, '\\$&')} \\(AWS_ENDPOINT_URL_S3\\) \\(ECONNREFUSED`));
    expect(said[0]).toContain('set AWS_ENDPOINT_URL_S3');
    expect(said[0]).toMatch(/the upload is tried again at the next start$/);

    // Retention never takes the only copy.
    const pruned = await new SessionStore(dir).prune({ maxAgeDays: 1e-9, maxBytes: 0 });
    expect(pruned.deleted.map((d) => d.id)).not.toContain(handle.id);
    expect(existsSync(folder)).toBe(true);

    // The next start, with the store back.
    await s3.restart();
    const next = await serviceOn(dir, { shared: where }, s3.env);
    try {
      await next.service.open();
      await next.service.records.uploadsSettled();
    } finally {
      await next.close();
    }
    expect(existsSync(folder)).toBe(false);
    expect(readdirSync(join(dir, PENDING_UPLOADS_DIR))).toEqual([]);
    expect(next.log).toContainEqual(expect.stringMatching(new RegExp(`^session ${handle.id} uploaded to s3://sessions/retried`)));
    const shown = await cli(['show', handle.id, '--json', '--data-dir', dataDir('reader'), '--store', where], s3.env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: handle.id, status: 'finished', store: where });
  });
});

describe('replay from a shared store', { timeout: 90_000 }, () => {
  it('another machine replays a stored session (fetched whole), and its replay goes to the store too', async () => {
    const where = 's3://sessions/replayed';
    const recorder = await serviceOn(dataDir('recorded-here'), { shared: where }, s3.env);
    let handle: RunHandle;
    try {
      handle = await runTask(recorder.service);
    } finally {
      await recorder.close();
    }
    const other = dataDir('replayed-there');
    const replayer = await serviceOn(other, { shared: where }, s3.env);
    let replayId: string;
    try {
      const started = await replayer.service.replays.start({ session: handle.id.slice(0, 15), policy: 'stop', speed: 0 });
      if (!started.ok) throw new Error(started.error.message);
      replayId = started.value.id;
      const outcome = await started.value.done;
      expect(outcome.status, outcome.reason).toBe('finished');
      await replayer.service.records.uploadsSettled();
    } finally {
      await replayer.close();
    }
    expect(existsSync(sessionDirectory(other, replayId))).toBe(false);
    const listed = await cli(['sessions', '--json', '--data-dir', dataDir('third'), '--store', where], s3.env);
    expect(JSON.parse(listed.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ id: handle.id, store: where }), expect.objectContaining({ id: replayId, store: where })]));
  });
});

describe('mnemo serve on a shared store', { timeout: 90_000 }, () => {
  it('lists stored sessions with the local ones, shows one, and serves its screenshots from the store', async () => {
    const where = 's3://sessions/served';
    const recorder = await serviceOn(dataDir('recorder'), { shared: where }, s3.env);
    let handle: RunHandle;
    try {
      handle = await runTask(recorder.service);
    } finally {
      await recorder.close();
    }
    const viewer = await serviceOn(dataDir('viewer'), { shared: where }, s3.env);
    const server = await startMnemoServer({ service: viewer.service, rendererDir: scratch, port: 0 });
    try {
      const get = (path: string) => fetch(`${server.origin}${path}`, { headers: { authorization: `Bearer ${server.token}` } });
      const list = (await (await get('/api/sessions')).json()) as Array<{ id: string; store?: string }>;
      expect(list).toContainEqual(expect.objectContaining({ id: handle.id, store: where }));

      const view = await get(`/api/sessions/${handle.id}`);
      expect(view.status).toBe(200);
      const shown = (await view.json()) as { store: string; steps: Array<{ screenshot: string | null }> };
      expect(shown.store).toBe(where);
      const url = shown.steps[0]?.screenshot as string;
      expect(url).toMatch(new RegExp(`^/api/sessions/${handle.id}/files/screenshots/`));
      const image = await get(url);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/jpeg');
      const bytes = Buffer.from(await image.arrayBuffer());
      expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
      expect((await get(`/api/sessions/${handle.id}/files/screenshots/step-9999.jpg`)).status).toBe(404);
      expect((await get(`/api/sessions/${handle.id}/events`)).status).toBe(200);
      expect((await get('/api/sessions/20990101-000000-abcdef')).status).toBe(404);
    } finally {
      await server.close();
      await viewer.close();
    }
  });
});
