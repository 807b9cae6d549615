/**
 * Which shared session store a process uses, and how its S3 client is set up: `--store` over
 * MNEMO_STORE over config.json's `store.shared`; the AWS variables over `store.s3`.
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../../src/shared/config';
import type { LoadedConfig } from '../../../src/main/settings/settings';
import { sharedStoreSettingsOf } from '../../../src/main/settings/shared-store-settings';

const configOf = (store: ConfigFile['store'] = undefined): LoadedConfig => ({ dataDir: '/data', path: '/etc/mnemo/config.json', file: store ? { store } : {} });
const base = { retentionDays: null, retentionGb: null, keepFullResolution: false, minFreeMb: 200 };

describe('the shared session store of the settings', () => {
  it('none: sessions stay in the data directory', () => {
    expect(sharedStoreSettingsOf(configOf(), {}, {})).toEqual({ ok: true, settings: null });
  });

  it('--store over MNEMO_STORE over store.shared; a folder from the working directory, or from the config file in config.json', () => {
    const config = configOf({ ...base, shared: 'shared/sessions' });
    expect(sharedStoreSettingsOf(config, {}, {})).toEqual({ ok: true, settings: { kind: 'folder', path: '/etc/mnemo/shared/sessions', keepLocal: false } });
    expect(sharedStoreSettingsOf(config, {}, { MNEMO_STORE: 'from-env' })).toEqual({ ok: true, settings: { kind: 'folder', path: resolve('from-env'), keepLocal: false } });
    expect(sharedStoreSettingsOf(config, { store: '/mnt/team' }, { MNEMO_STORE: 'from-env' })).toEqual({ ok: true, settings: { kind: 'folder', path: '/mnt/team', keepLocal: false } });
    expect(sharedStoreSettingsOf(configOf({ ...base, shared: '/mnt/x', keepLocal: true }), {}, {})).toMatchObject({ settings: { keepLocal: true } });
  });

  it('s3: the AWS variables over store.s3; path style when an endpoint is set; the SDK chain without a key pair', () => {
    const config = configOf({ ...base, shared: 's3://team-bucket/mnemo/runs/', s3: { endpoint: 'http://s3.internal:9000', region: 'eu-west-3' } });
    expect(sharedStoreSettingsOf(config, {}, {})).toEqual({
      ok: true,
      settings: { kind: 's3', bucket: 'team-bucket', prefix: 'mnemo/runs', endpoint: 'http://s3.internal:9000', endpointFrom: 'store.s3.endpoint', region: 'eu-west-3', pathStyle: true, credentials: null, keepLocal: false },
    });
    const env = { AWS_ENDPOINT_URL: 'http://127.0.0.1:9000', AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9100', AWS_REGION: 'us-west-2', AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' };
    expect(sharedStoreSettingsOf(config, {}, env)).toMatchObject({
      settings: { endpoint: 'http://127.0.0.1:9100', endpointFrom: 'AWS_ENDPOINT_URL_S3', region: 'us-west-2', credentials: { accessKeyId: 'id', secretAccessKey: 'secret', sessionToken: 'token' } },
    });
    expect(sharedStoreSettingsOf(configOf(), { store: 's3://b-1' }, {})).toMatchObject({ settings: { bucket: 'b-1', prefix: '', endpoint: null, region: 'us-east-1', pathStyle: false } });
    expect(sharedStoreSettingsOf(configOf({ ...base, s3: { pathStyle: false } }), { store: 's3://b-1' }, { AWS_ENDPOINT_URL: 'https://minio.example' })).toMatchObject({ settings: { pathStyle: false } });
  });

  it('file:///PATH names a folder as a path does (its %-escapes decoded); a file:// URL of another host is refused', () => {
    expect(sharedStoreSettingsOf(configOf(), { store: 'file:///mnt/team%20sessions' }, {})).toEqual({ ok: true, settings: { kind: 'folder', path: '/mnt/team sessions', keepLocal: false } });
    expect(sharedStoreSettingsOf(configOf({ ...base, shared: 'file://localhost/srv/mnemo' }), {}, {})).toEqual({ ok: true, settings: { kind: 'folder', path: '/srv/mnemo', keepLocal: false } });
    expect(sharedStoreSettingsOf(configOf(), { store: 'file://nas/sessions' }, {})).toEqual({ ok: false, message: '--store: "file://nas/sessions": a file:// store names a folder of this machine, file:///PATH (a shared mount is reached through its mount point)' });
  });

  it('bad settings say where they came from', () => {
    expect(sharedStoreSettingsOf(configOf({ ...base, shared: 'gs://bucket' }), {}, {})).toEqual({ ok: false, message: `store.shared in ${join('/etc/mnemo', 'config.json')}: a session store is s3://BUCKET/PREFIX or a folder, got "gs://bucket" (gs:// is not supported)` });
    expect(sharedStoreSettingsOf(configOf(), { store: 's3://bucket/../up' }, {})).toMatchObject({ ok: false, message: expect.stringContaining('--store: "s3://bucket/../up": the prefix part ".." is not allowed') });
    expect(sharedStoreSettingsOf(configOf(), { store: 's3://bucket' }, { AWS_ACCESS_KEY_ID: 'id' })).toEqual({ ok: false, message: 'AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not: set both for the session store s3://bucket' });
  });
});
