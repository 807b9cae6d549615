/**
 * The shared session store under the CLI and the service: a real s3rver process with the real AWS
 * SDK client, and a folder, the same tests for both. A session recorded on one data directory is
 * uploaded (session.json last, every object checked before the local copy goes) and read from
 * another data directory as a second machine would; a half-uploaded session is never taken as
 * whole; a store that cannot be used is a message naming it and the fix.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionLibrary } from '../../../src/main/store/session-library';
import { SessionStore } from '../../../src/main/store/session-store';
import { uploadSession } from '../../../src/main/store/session-upload';
import { openSharedStore } from '../../../src/main/store/shared-store/open-store';
import type { SharedStore, SharedStoreSettings } from '../../../src/main/store/shared-store/types';
import { StoreCache } from '../../../src/main/store/store-cache';
import { FIXTURE_STEPS, recordFixtureSession, type RecordedFixture } from '../../fixtures/session-fixture';
import { S3RVER_KEY, startS3, type TestS3 } from '../../fixtures/s3-server';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-shared-store-'));
let s3: TestS3;

beforeAll(async () => {
  s3 = await startS3(['sessions', 'other']);
});
afterAll(async () => {
  await s3?.close();
  rmSync(scratch, { recursive: true, force: true });
});

function s3Settings(overrides: Partial<Extract<SharedStoreSettings, { kind: 's3' }>> = {}): SharedStoreSettings {
  return {
    kind: 's3',
    bucket: 'sessions',
    prefix: 'team/a',
    endpoint: s3.endpoint,
    endpointFrom: 'AWS_ENDPOINT_URL_S3',
    region: 'us-east-1',
    pathStyle: true,
    credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY },
    keepLocal: false,
    ...overrides,
  };
}

const dataDir = (name: string) => mkdtempSync(join(scratch, `${name}-`));

/** The real store, with every call it gets written down in order (what was written, and whether the local copy was still there when it was checked). */
function watched(store: SharedStore, localFolder: string): { store: SharedStore; writes: string[]; checkedWhileLocal: boolean[] } {
  const writes: string[] = [];
  const checkedWhileLocal: boolean[] = [];
  return {
    writes,
    checkedWhileLocal,
    store: {
      name: store.name,
      check: () => store.check(),
      sessionIds: () => store.sessionIds(),
      files: (id) => store.files(id),
      read: (id, path) => store.read(id, path),
      write: (id, path, data, sha256) => {
        writes.push(path);
        return store.write(id, path, data, sha256);
      },
      copy: (id, path) => {
        checkedWhileLocal.push(existsSync(localFolder));
        return store.copy(id, path);
      },
      close: () => store.close(),
    },
  };
}

describe.each([
  ['S3 (s3rver)', () => s3Settings()],
  ['a folder', () => ({ kind: 'folder', path: mkdtempSync(join(scratch, 'mount-')), keepLocal: false }) as SharedStoreSettings],
])('a shared store in %s', { timeout: 60_000 }, (_name, settingsOf) => {
  let settings: SharedStoreSettings;
  let store: SharedStore;
  let recorded: RecordedFixture;

  beforeAll(async () => {
    settings = settingsOf();
    store = openSharedStore(settings);
    recorded = await recordFixtureSession(dataDir('machine-a'), { missingStep: null });
  });
  afterAll(() => store?.close());

  it('takes every file, session.json last; checks every object before the local copy goes; another data directory lists it and reads it, screenshots when asked', async () => {
    expect(await store.check()).toEqual({ ok: true, value: undefined });
    const local = new SessionStore(recorded.dataDir);
    const spy = watched(store, recorded.directory);
    const localFiles = readdirSync(recorded.directory, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;

    const uploaded = await uploadSession({ local, id: recorded.sessionId, store: spy.store, keepLocal: false });
    expect(uploaded).toMatchObject({ ok: true, value: { files: localFiles, removed: true } });
    expect(spy.writes).toHaveLength(localFiles);
    expect(spy.writes.at(-1)).toBe('session.json');
    expect(spy.checkedWhileLocal).toHaveLength(localFiles);
    expect(spy.checkedWhileLocal.every(Boolean)).toBe(true);
    expect(existsSync(recorded.directory)).toBe(false);
    expect((await local.list()).sessions.map((s) => s.id)).not.toContain(recorded.sessionId);

    // A second machine: its own data directory, the same store.
    const other = dataDir('machine-b');
    const cache = StoreCache.of(other, store.name);
    const library = new SessionLibrary(new SessionStore(other), { store, cache });
    const listing = await library.list();
    expect(listing.storeProblem).toBeNull();
    expect(listing.sessions).toEqual([expect.objectContaining({ id: recorded.sessionId, status: 'finished', steps: FIXTURE_STEPS.length, store: store.name })]);

    const read = await library.read(recorded.sessionId.slice(0, 12));
    if (!read.ok) throw new Error(read.message);
    expect(read.session.store).toBe(store.name);
    expect(read.session.directory).toBe(cache.directory(recorded.sessionId));
    expect(read.session.steps).toHaveLength(FIXTURE_STEPS.length);
    expect(read.session.warnings).toEqual([]);
    // The screenshots are known, and fetched only when asked for.
    const first = read.session.steps[0]?.screenshot?.path as string;
    expect(existsSync(join(read.session.directory, first))).toBe(false);
    const file = await library.file(read.session, first);
    expect(file.ok && file.data.equals(recorded.screenshots.get(1) as Buffer)).toBe(true);
    expect(await readFile(join(read.session.directory, first))).toEqual(recorded.screenshots.get(1));

    // Whole: every file at once (a report, a replay).
    const whole = await library.read(recorded.sessionId, { whole: true });
    if (!whole.ok) throw new Error(whole.message);
    for (const step of whole.session.steps) expect(await readFile(join(whole.session.directory, step.screenshot?.path as string))).toEqual(recorded.screenshots.get(step.step));
    expect(await library.has(recorded.sessionId)).toBe(true);
    expect(await library.delete(recorded.sessionId)).toMatchObject({ ok: false, message: expect.stringContaining(`is in the shared store ${store.name}`) });
  });

  it('with keepLocal the local copy stays, and a session in both is listed once, as the local one', async () => {
    const kept = await recordFixtureSession(dataDir('keeper'), { missingStep: null });
    const local = new SessionStore(kept.dataDir);
    expect(await uploadSession({ local, id: kept.sessionId, store, keepLocal: true })).toMatchObject({ ok: true, value: { removed: false } });
    expect(existsSync(kept.directory)).toBe(true);
    const library = new SessionLibrary(local, { store, cache: StoreCache.of(kept.dataDir, store.name) });
    const listed = (await library.list()).sessions.filter((s) => s.id === kept.sessionId);
    expect(listed).toHaveLength(1);
    expect(listed[0]?.store).toBeUndefined();
  });

  it('a session whose upload stopped half way (no session.json) is not listed, and reads as not whole yet', async () => {
    const id = '20261201-101010-abcdef';
    expect(await store.write(id, 'events.jsonl', Buffer.from('{}\n'), 'x')).toEqual({ ok: true, value: undefined });
    const other = dataDir('half');
    const library = new SessionLibrary(new SessionStore(other), { store, cache: StoreCache.of(other, store.name) });
    expect((await library.list()).sessions.map((s) => s.id)).not.toContain(id);
    expect(await library.read(id)).toEqual({ ok: false, message: `session ${id} is not whole in ${store.name} yet (its upload has not finished)` });
    expect(await library.has(id)).toBe(false);
  });
});

describe('a store that cannot be used', { timeout: 60_000 }, () => {
  it('unreachable: the upload leaves the session local; reading says which store, where, and the fix', async () => {
    const recorded = await recordFixtureSession(dataDir('unreachable'), { missingStep: null });
    // A port nothing listens on any more: a server's, stopped.
    const closed = await startS3([]);
    const endpoint = closed.endpoint;
    await closed.close();
    const store = openSharedStore(s3Settings({ endpoint }));
    const uploaded = await uploadSession({ local: new SessionStore(recorded.dataDir), id: recorded.sessionId, store, keepLocal: false });
    expect(uploaded.ok).toBe(false);
    if (uploaded.ok) return;
    expect(uploaded.message).toContain(`cannot reach the session store s3://sessions/team/a at ${endpoint} (AWS_ENDPOINT_URL_S3)`);
    expect(uploaded.message).toContain('ECONNREFUSED');
    expect(uploaded.message).toContain('set AWS_ENDPOINT_URL_S3');
    expect(existsSync(join(recorded.directory, 'session.json'))).toBe(true);

    const library = new SessionLibrary(new SessionStore(recorded.dataDir), { store, cache: StoreCache.of(recorded.dataDir, store.name) });
    const listing = await library.list();
    expect(listing.sessions.map((s) => s.id)).toEqual([recorded.sessionId]);
    expect(listing.storeProblem).toContain(`cannot reach the session store s3://sessions/team/a at ${endpoint}`);
    expect(await library.resolve('20991231')).toMatchObject({ ok: false, kind: 'store' });
    store.close();
  });

  it('a bucket that does not exist, credentials refused: each named with its fix', async () => {
    const noBucket = openSharedStore(s3Settings({ bucket: 'no-such-bucket' }));
    const missing = await noBucket.check();
    expect(missing).toMatchObject({ ok: false, kind: 'missing' });
    if (!missing.ok) expect(missing.message).toBe(`the session store s3://no-such-bucket/team/a: the bucket "no-such-bucket" does not exist at ${s3.endpoint} (AWS_ENDPOINT_URL_S3): create it, or name another with --store s3://BUCKET/PREFIX`);
    expect(await noBucket.sessionIds()).toMatchObject({ ok: false, kind: 'missing' });
    noBucket.close();

    const refused = openSharedStore(s3Settings({ credentials: { accessKeyId: 'WRONG', secretAccessKey: 'WRONG' } }));
    const denied = await refused.sessionIds();
    expect(denied).toMatchObject({ ok: false, kind: 'credentials' });
    if (!denied.ok) expect(denied.message).toMatch(/^the session store s3:\/\/sessions\/team\/a refused the credentials \(.+\): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    refused.close();
  });

  it('a folder that is not there (a mount missing) is not created', async () => {
    const path = join(scratch, 'not-mounted', 'sessions');
    const store = openSharedStore({ kind: 'folder', path, keepLocal: false });
    expect(await store.check()).toEqual({ ok: false, kind: 'missing', message: `the session store ${path}: the folder does not exist: mount it, or create it, or name another with --store` });
    expect(await store.write('20261201-101010-abcdef', 'session.json', Buffer.from('{}'), 'x')).toMatchObject({ ok: false, kind: 'missing' });
    expect(existsSync(path)).toBe(false);
    await mkdir(path, { recursive: true });
    expect(await store.check()).toEqual({ ok: true, value: undefined });
  });
});
