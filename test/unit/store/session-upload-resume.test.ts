/**
 * A session's upload that does not go through in one go: the S3-compatible server (a real s3rver
 * process) killed half way, a signal that stops it, and `mnemo sessions upload` (the real CLI in a
 * child process) that completes it later. The session stays local and pending until the store
 * has all of it, never whole in the store before, and every file arrives byte for byte; another
 * data directory then reads it with `mnemo sessions --json` and `mnemo show --json`. A big
 * session says its progress at each quarter.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkFolder } from '../../../src/main/disk/folder-walk';
import { PENDING_UPLOADS_DIR } from '../../../src/main/store/pending-uploads';
import { SessionStore } from '../../../src/main/store/session-store';
import type { UploadProgress } from '../../../src/main/store/session-upload';
import { SessionUploads } from '../../../src/main/store/session-uploads';
import { openSharedStore } from '../../../src/main/store/shared-store/open-store';
import type { SharedStore, SharedStoreSettings } from '../../../src/main/store/shared-store/types';
import { FIXTURE_STEPS, recordFixtureSession, type RecordedFixture } from '../../fixtures/session-fixture';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { S3RVER_KEY, startS3, type TestS3 } from '../../fixtures/s3-server';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-upload-resume-'));
let s3: TestS3;

beforeAll(async () => {
  s3 = await startS3(['sessions']);
});
afterAll(async () => {
  await s3?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const dataDir = (name: string) => mkdtempSync(join(scratch, `${name}-`));
const cli = (args: string[], env: Record<string, string>) => runMnemo(args, { env: { ...env, AWS_EC2_METADATA_DISABLED: 'true' } });

function s3Settings(prefix: string): SharedStoreSettings {
  return { kind: 's3', bucket: 'sessions', prefix, endpoint: s3.endpoint, endpointFrom: 'AWS_ENDPOINT_URL_S3', region: 'us-east-1', pathStyle: true, credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY }, keepLocal: false };
}

/** A recorded session made big: `extra` more screenshots of 200 KB of noise each (noise, so no layer could shrink it). */
async function bigSession(name: string, extra: number): Promise<{ recorded: RecordedFixture; files: Map<string, string> }> {
  const recorded = await recordFixtureSession(dataDir(name), { missingStep: null });
  for (let n = 0; n < extra; n++) await writeFile(join(recorded.directory, 'screenshots', `step-${String(100 + n).padStart(4, '0')}.jpg`), randomBytes(200_000));
  return { recorded, files: await filesOf(recorded.directory) };
}

/** Its SHA-256: byte-for-byte comparisons of 10 MB of files, without comparing them element by element. */
const digest = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Every file of a session folder, by its path inside it, as it is now (its digest). */
async function filesOf(folder: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const item of walkFolder(folder)) {
    if (item.kind === 'file') files.set(relative(folder, item.path).split(sep).join('/'), digest(await readFile(item.path)));
  }
  return files;
}

/** Every file the store holds of a session, byte for byte. */
async function storedFiles(store: SharedStore, id: string): Promise<Map<string, string>> {
  const listed = await store.files(id);
  if (!listed.ok) throw new Error(listed.message);
  const files = new Map<string, string>();
  for (const file of listed.value) {
    const read = await store.read(id, file.path);
    if (!read.ok || read.value === null) throw new Error(`${file.path}: ${read.ok ? 'missing' : read.message}`);
    files.set(file.path, digest(read.value));
  }
  return files;
}

const pendingIn = (dir: string) => (existsSync(join(dir, PENDING_UPLOADS_DIR)) ? readdirSync(join(dir, PENDING_UPLOADS_DIR)) : []);

describe('an upload cut off half way', { timeout: 120_000 }, () => {
  it('the server killed mid-upload: the session stays local and pending, never whole in the store; mnemo sessions upload completes it, sending only what is missing, every file byte for byte; another data directory reads it', async () => {
    const where = 's3://sessions/cut';
    const { recorded, files } = await bigSession('cut', 40);
    const id = recorded.sessionId;
    const store = openSharedStore(s3Settings('cut'));
    const log: string[] = [];
    const uploads = new SessionUploads({ local: new SessionStore(recorded.dataDir), store, keepLocal: false, log: (line) => log.push(line) });
    let stopped: Promise<void> | null = null;
    const seen: UploadProgress[] = [];
    const outcome = await uploads.upload(id, {
      onProgress: (progress) => {
        seen.push(progress);
        // A third of the way: the server goes (SIGKILL), the writes under way with it.
        if (stopped === null && progress.files >= 12) stopped = s3.stop();
      },
    });
    await stopped;
    store.close();
    expect(seen.length).toBeGreaterThanOrEqual(12);
    expect(seen.at(-1)?.files).toBeLessThan(files.size);
    expect(outcome).toMatchObject({ status: 'local', id, store: where, directory: recorded.directory });
    if (outcome.status === 'local') expect(outcome.message).toMatch(/cannot reach the session store s3:\/\/sessions\/cut at .+ \((ECONNREFUSED|ECONNRESET|EPIPE)/);
    expect(log).toEqual([expect.stringMatching(new RegExp(`^session ${id} stays in .+, not uploaded: cannot reach the session store s3://sessions/cut .+; the upload is tried again at the next start$`))]);
    // Local, whole, and listed as pending.
    expect(await filesOf(recorded.directory)).toEqual(files);
    expect(pendingIn(recorded.dataDir)).toEqual([`${id}.json`]);
    const here = await cli(['sessions', '--json', '--data-dir', recorded.dataDir], {});
    expect(JSON.parse(here.stdout)).toEqual([expect.objectContaining({ id, waitingForUpload: true })]);

    // The server back: part of the session is there, but not its session.json, so no reader takes it as whole.
    await s3.restart();
    const check = openSharedStore(s3Settings('cut'));
    const partial = await storedFiles(check, id);
    expect(partial.size).toBeGreaterThan(0);
    expect(partial.has('session.json')).toBe(false);
    const reader = dataDir('reader');
    const before = await cli(['sessions', '--json', '--data-dir', reader, '--store', where], s3.env);
    expect(before.code, before.stderr).toBe(0);
    expect((JSON.parse(before.stdout) as Array<{ id: string }>).map((s) => s.id)).not.toContain(id);

    // Later, by hand: only what is missing is sent; then every file is there as it was here.
    const upload = await cli(['sessions', 'upload', '--json', '--data-dir', recorded.dataDir, '--store', where], s3.env);
    expect(upload.code, upload.stderr).toBe(0);
    const [done] = JSON.parse(upload.stdout) as Array<{ id: string; status: string; files: number; skipped: number; localCopy: string }>;
    expect(done).toMatchObject({ id, status: 'uploaded', files: files.size, localCopy: 'removed' });
    expect(done?.skipped).toBeGreaterThan(0);
    expect(done?.skipped).toBeLessThan(files.size);
    expect(upload.stderr).toMatch(new RegExp(`session ${id} uploaded to s3://sessions/cut \\(${files.size} files, .+, ${done?.skipped} of them there from an earlier attempt\\), its local copy removed`));
    expect(existsSync(recorded.directory)).toBe(false);
    expect(pendingIn(recorded.dataDir)).toEqual([]);
    expect(await storedFiles(check, id)).toEqual(files);
    check.close();

    // Another machine: listed, marked as stored, and shown.
    const listed = await cli(['sessions', '--json', '--data-dir', reader, '--store', where], s3.env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ id, status: 'finished', steps: FIXTURE_STEPS.length, store: where })]));
    const shown = await cli(['show', id, '--json', '--data-dir', reader, '--store', where], s3.env);
    expect(shown.code, shown.stderr).toBe(0);
    const session = JSON.parse(shown.stdout) as { id: string; store: string; steps: Array<{ screenshot: string | null }> };
    expect(session).toMatchObject({ id, store: where });
    expect(session.steps).toHaveLength(FIXTURE_STEPS.length);
    for (const [index, step] of session.steps.entries()) expect(digest(await readFile(step.screenshot as string))).toBe(digest(recorded.screenshots.get(index + 1) as Buffer));
  });

  it('a signal stops it between files: the session stays local and pending, and the store has no session.json', async () => {
    const mount = mkdtempSync(join(scratch, 'mount-'));
    const { recorded, files } = await bigSession('stopped', 12);
    const id = recorded.sessionId;
    const store = openSharedStore({ kind: 'folder', path: mount, keepLocal: false });
    const log: string[] = [];
    const uploads = new SessionUploads({ local: new SessionStore(recorded.dataDir), store, keepLocal: false, log: (line) => log.push(line) });
    const stop = new AbortController();
    const outcome = await uploads.upload(id, { signal: stop.signal, onProgress: (progress) => progress.files >= 3 && stop.abort() });
    expect(outcome).toMatchObject({ status: 'local', id, message: `the upload of session ${id} to ${mount} was stopped` });
    expect(existsSync(join(mount, id, 'session.json'))).toBe(false);
    expect(await filesOf(recorded.directory)).toEqual(files);
    expect(pendingIn(recorded.dataDir)).toEqual([`${id}.json`]);

    // Asked again (what the next start does): done, and the same files in the store as here.
    const again = await uploads.uploadPending();
    expect(again).toEqual([expect.objectContaining({ id, status: 'uploaded', files: files.size, localCopy: 'removed' })]);
    expect(await filesOf(join(mount, id))).toEqual(files);
  });

  it('a big session says how far it is at each quarter', async () => {
    const mount = mkdtempSync(join(scratch, 'mount-'));
    const { recorded, files } = await bigSession('big', 30);
    const id = recorded.sessionId;
    const store = openSharedStore({ kind: 'folder', path: mount, keepLocal: false });
    const log: string[] = [];
    // 6 MB here stands for the 50 MB of a real big session.
    const uploads = new SessionUploads({ local: new SessionStore(recorded.dataDir), store, keepLocal: true, log: (line) => log.push(line), progressFromBytes: 5_000_000 });
    expect(await uploads.upload(id)).toMatchObject({ status: 'uploaded', localCopy: 'kept' });
    const quarters = log.filter((line) => line.startsWith(`session ${id}: uploading to ${mount}, `));
    // Said as each quarter is passed: the file that passes it may carry it a little beyond.
    expect(quarters.map((line) => Math.floor(Number(/, (\d+)% \(/.exec(line)?.[1]) / 25))).toEqual([1, 2, 3]);
    expect(quarters[0]).toMatch(new RegExp(`^session ${id}: uploading to .+, \\d+% \\(\\d+ of ${files.size} files, .+ of .+\\)$`));
    expect(log.at(-1)).toMatch(new RegExp(`^session ${id} uploaded to `));
    // Asked after the fact (a batch, a worker): how it went, without sending it again.
    expect(await uploads.upload(id)).toMatchObject({ status: 'uploaded', files: files.size });
    expect(log.filter((line) => line.includes('uploaded to'))).toHaveLength(1);
  });
});

describe('mnemo sessions upload', { timeout: 60_000, concurrent: true }, () => {
  it('file:///FOLDER: a named session goes there; with nothing waiting it says so; no store set is exit 2 with the fix', async () => {
    const mount = mkdtempSync(join(scratch, 'mount-'));
    const recorded = await recordFixtureSession(dataDir('named'), { missingStep: null });
    const files = await filesOf(recorded.directory);
    const store = pathToFileURL(mount).href;
    const named = await cli(['sessions', 'upload', recorded.sessionId.slice(0, 15), '--data-dir', recorded.dataDir, '--store', store], {});
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).toContain(`session ${recorded.sessionId} uploaded to ${mount} (${files.size} files`);
    expect(named.stderr).toContain(`1 session uploaded to ${mount}`);
    expect(await filesOf(join(mount, recorded.sessionId))).toEqual(files);

    const none = await cli(['sessions', 'upload', '--data-dir', recorded.dataDir, '--store', store], {});
    expect(none.code, none.stderr).toBe(0);
    expect(none.stderr).toContain(`no session waits for its upload to ${mount}`);

    const noStore = await cli(['sessions', 'upload', '--data-dir', recorded.dataDir], { MNEMO_STORE: '' });
    expect(noStore.code).toBe(2);
    expect(noStore.stderr).toContain('no shared session store is set: name one with --store s3://BUCKET/PREFIX or --store FOLDER');

    const unknown = await cli(['sessions', 'upload', '20991231-000000', '--data-dir', recorded.dataDir, '--store', store], {});
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no session "20991231-000000"');
  });

  it('an unreachable store: the session stays, exit 1, the store named with where it was looked for and the fix', async () => {
    const recorded = await recordFixtureSession(dataDir('unreachable'), { missingStep: null });
    const gone = await startS3([]);
    const endpoint = gone.endpoint;
    await gone.close();
    const env = { ...s3.env, AWS_ENDPOINT_URL_S3: endpoint };
    const tried = await cli(['sessions', 'upload', 'last', '--data-dir', recorded.dataDir, '--store', 's3://sessions/offline'], env);
    expect(tried.code).toBe(1);
    expect(tried.stderr).toContain(`session ${recorded.sessionId} stays in `);
    expect(tried.stderr).toContain(`cannot reach the session store s3://sessions/offline at ${endpoint} (AWS_ENDPOINT_URL_S3) (ECONNREFUSED`);
    expect(tried.stderr).toContain('is the server running there? Otherwise set AWS_ENDPOINT_URL_S3');
    expect(existsSync(join(recorded.directory, 'session.json'))).toBe(true);
    expect(pendingIn(recorded.dataDir)).toEqual([`${recorded.sessionId}.json`]);
  });
});
