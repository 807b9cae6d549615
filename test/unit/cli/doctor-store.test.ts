/**
 * `mnemo doctor` on a shared session store (the real CLI, a real s3rver process): a line that says
 * the store answers, warns while sessions of the data directory wait for their upload, and names
 * an unreachable store or a missing bucket with the fix. No store set: no line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markPending } from '../../../src/main/store/pending-uploads';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { startS3, type TestS3 } from '../../fixtures/s3-server';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-doctor-store-'));
let s3: TestS3;

beforeAll(async () => {
  s3 = await startS3(['sessions']);
});
afterAll(async () => {
  await s3?.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface Check {
  check: string;
  status: string;
  detail: string;
  fix: string;
}

/** The doctor's `session store` line (the other checks, of a display this test does not give it, are not looked at). */
async function storeLine(args: string[], env: Record<string, string>): Promise<Check | undefined> {
  const run = await runMnemo(['doctor', '--json', '--data-dir', mkdtempSync(join(scratch, 'data-')), ...args], { env: { DISPLAY: '', AWS_EC2_METADATA_DISABLED: 'true', MNEMO_STORE: '', ...env } });
  return (JSON.parse(run.stdout) as Check[]).find((check) => check.check === 'session store');
}

describe('mnemo doctor and the shared session store', { timeout: 60_000, concurrent: true }, () => {
  it('answers; sessions waiting for their upload are a warning with the command that sends them', async () => {
    expect(await storeLine(['--store', 's3://sessions/doctor'], s3.env)).toEqual({ check: 'session store', status: 'ok', detail: 's3://sessions/doctor answers; sessions go there as their runs end', fix: '' });
    const data = mkdtempSync(join(scratch, 'waiting-'));
    await markPending(data, { id: '20261206-120000-abcdef', store: 's3://sessions/doctor', since: 0, attempts: 1, lastError: null });
    const run = await runMnemo(['doctor', '--json', '--data-dir', data, '--store', 's3://sessions/doctor'], { env: { ...s3.env, DISPLAY: '', AWS_EC2_METADATA_DISABLED: 'true' } });
    expect((JSON.parse(run.stdout) as Check[]).find((check) => check.check === 'session store')).toEqual({
      check: 'session store',
      status: 'warn',
      detail: 's3://sessions/doctor answers; 1 session of this data directory waits for the upload',
      fix: 'mnemo sessions upload',
    });
  });

  it('an unreachable store and a missing bucket fail, named, with the fix; no store set, no line', async () => {
    const gone = await startS3([]);
    await gone.close();
    const unreachable = await storeLine(['--store', 's3://sessions/doctor'], { ...s3.env, AWS_ENDPOINT_URL_S3: gone.endpoint });
    expect(unreachable).toMatchObject({ check: 'session store', status: 'fail', fix: expect.stringContaining('AWS_ENDPOINT_URL_S3') });
    expect(unreachable?.detail).toContain(`cannot reach the session store s3://sessions/doctor at ${gone.endpoint} (AWS_ENDPOINT_URL_S3) (ECONNREFUSED`);
    const missing = await storeLine(['--store', 's3://no-such-bucket/x'], s3.env);
    expect(missing).toMatchObject({ status: 'fail', detail: `the session store s3://no-such-bucket/x: the bucket "no-such-bucket" does not exist at ${s3.endpoint} (AWS_ENDPOINT_URL_S3): create it, or name another with --store s3://BUCKET/PREFIX`, fix: 'create the bucket (or the folder), or name another with --store, MNEMO_STORE or store.shared' });
    expect(await storeLine([], {})).toBeUndefined();
  });
});
