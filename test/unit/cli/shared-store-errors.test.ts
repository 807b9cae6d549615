/**
 * A shared session store that cannot be used, as the reading commands say it: the real CLI, a
 * real s3rver process (and a port where it no longer listens), the AWS SDK's own credential chain.
 * Each message names the store and the fix; the local sessions are still listed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { startS3, type TestS3 } from '../../fixtures/s3-server';
import { recordFixtureSession, type RecordedFixture } from '../../fixtures/session-fixture';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-store-errors-'));
let s3: TestS3;
let closedEndpoint: string;
let local: RecordedFixture;

/** No credentials of this machine leak in, and the SDK never asks an instance's metadata service. */
const ISOLATED = { AWS_EC2_METADATA_DISABLED: 'true', AWS_SHARED_CREDENTIALS_FILE: join(scratch, 'no-credentials'), AWS_CONFIG_FILE: join(scratch, 'no-config'), AWS_PROFILE: '', MNEMO_STORE: '' };

beforeAll(async () => {
  s3 = await startS3(['sessions']);
  const closed = await startS3([]);
  closedEndpoint = closed.endpoint;
  await closed.close();
  local = await recordFixtureSession(mkdtempSync(join(scratch, 'data-')), { missingStep: null });
});
afterAll(async () => {
  await s3?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const mnemo = (args: string[], env: Record<string, string>) => runMnemo([...args, '--data-dir', local.dataDir], { env: { ...ISOLATED, ...env } });

describe('a shared store that cannot be used', { timeout: 60_000, concurrent: true }, () => {
  it('unreachable: sessions lists the local ones and exits 1 naming the store, where it was looked for, and the variable to set', async () => {
    const run = await mnemo(['sessions', '--json', '--store', 's3://sessions/team'], { ...s3.env, AWS_ENDPOINT_URL_S3: closedEndpoint });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).map((s: { id: string }) => s.id)).toEqual([local.sessionId]);
    expect(run.stderr).toContain(`mnemo: cannot reach the session store s3://sessions/team at ${closedEndpoint} (AWS_ENDPOINT_URL_S3) (ECONNREFUSED`);
    expect(run.stderr).toContain('is the server running there? Otherwise set AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL, or store.s3.endpoint in config.json) to where it is');
  });

  it('unreachable: show of a session only the store could have says the same; a local one still shows', async () => {
    const env = { ...s3.env, AWS_ENDPOINT_URL_S3: '', AWS_ENDPOINT_URL: closedEndpoint };
    const missing = await mnemo(['show', '20990101-000000-abcdef', '--store', 's3://sessions/team'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`cannot reach the session store s3://sessions/team at ${closedEndpoint} (AWS_ENDPOINT_URL)`);
    const here = await mnemo(['show', local.sessionId, '--json', '--store', 's3://sessions/team'], env);
    expect(here.code, here.stderr).toBe(0);
    expect(JSON.parse(here.stdout)).toMatchObject({ id: local.sessionId });
  });

  it('a bucket that does not exist', async () => {
    const run = await mnemo(['sessions', '--store', 's3://no-such-bucket/team'], s3.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`mnemo: the session store s3://no-such-bucket/team: the bucket "no-such-bucket" does not exist at ${s3.endpoint} (AWS_ENDPOINT_URL_S3): create it, or name another with --store s3://BUCKET/PREFIX`);
  });

  it('no credentials anywhere, and credentials the store refuses', async () => {
    const none = await mnemo(['sessions', '--store', 's3://sessions/team'], { ...s3.env, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('mnemo: no AWS credentials for the session store s3://sessions/team: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)');
    const wrong = await mnemo(['sessions', '--store', 's3://sessions/team'], { ...s3.env, AWS_ACCESS_KEY_ID: 'NOT-A-KEY', AWS_SECRET_ACCESS_KEY: 'not-the-secret' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('mnemo: the session store s3://sessions/team refused the credentials');
    expect(wrong.stderr).not.toContain('not-the-secret');
  });

  it('bad input is exit 2: a store that is neither S3 nor a folder, half a key pair, a bad endpoint', async () => {
    const scheme = await mnemo(['sessions', '--store', 'ftp://host/sessions'], {});
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toContain('--store: a session store is s3://BUCKET/PREFIX or a folder, got "ftp://host/sessions" (ftp:// is not supported)');
    const bucket = await mnemo(['show', 'last', '--store', 's3://Bad_Bucket/x'], {});
    expect(bucket.code).toBe(2);
    expect(bucket.stderr).toContain('"Bad_Bucket" is not an S3 bucket name');
    const half = await mnemo(['sessions', '--store', 's3://sessions/team'], { ...s3.env, AWS_SECRET_ACCESS_KEY: '' });
    expect(half.code).toBe(2);
    expect(half.stderr).toContain('AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not: set both for the session store s3://sessions/team');
    const endpoint = await mnemo(['sessions', '--store', 's3://sessions/team'], { ...s3.env, AWS_ENDPOINT_URL_S3: 'localhost:9000' });
    expect(endpoint.code).toBe(2);
    expect(endpoint.stderr).toContain('AWS_ENDPOINT_URL_S3: "localhost:9000" is not an http(s) URL of an S3 endpoint');
  });
});
