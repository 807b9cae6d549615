/**
 * The shared session store a process uses: `--store`, else MNEMO_STORE, else `store.shared` in
 * config.json; none of them: sessions stay in the data directory. For `s3://` the S3 client's
 * endpoint, region and credentials come from the usual AWS variables over `store.s3`:
 *
 *   endpoint      AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, store.s3.endpoint (none: AWS itself)
 *   region        AWS_REGION, AWS_DEFAULT_REGION, store.s3.region, us-east-1
 *   path style    store.s3.pathStyle; default on when an endpoint is set (S3-compatible servers)
 *   credentials   AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN); neither set:
 *                 the AWS SDK's own chain (AWS_PROFILE and ~/.aws, SSO, an instance's role)
 *
 * A folder named on the command line or in MNEMO_STORE is taken from the working directory, one
 * in config.json from the config file's folder.
 */
import { dirname, resolve } from 'node:path';
import { parseStoreLocation } from '../../shared/store-location';
import type { SharedStoreSettings } from '../store/shared-store/types';
import { storeSettingsOf, type LoadedConfig, type RunFlags } from './settings';

export type SharedStoreSettingsResult = { ok: true; settings: SharedStoreSettings | null } | { ok: false; message: string };

const set = (env: NodeJS.ProcessEnv, name: string): string | undefined => (env[name]?.trim() ? env[name]?.trim() : undefined);

export function sharedStoreSettingsOf(config: LoadedConfig, flags: Pick<RunFlags, 'store'>, env: NodeJS.ProcessEnv = process.env): SharedStoreSettingsResult {
  const store = storeSettingsOf(config);
  const chosen =
    flags.store !== undefined
      ? { value: flags.store, from: '--store', base: process.cwd() }
      : set(env, 'MNEMO_STORE') !== undefined
        ? { value: set(env, 'MNEMO_STORE') as string, from: 'MNEMO_STORE', base: process.cwd() }
        : store.shared
          ? { value: store.shared, from: `store.shared in ${config.path}`, base: dirname(config.path) }
          : null;
  if (chosen === null) return { ok: true, settings: null };
  const parsed = parseStoreLocation(chosen.value);
  if (!parsed.ok) return { ok: false, message: `${chosen.from}: ${parsed.message}` };
  const { location } = parsed;
  const keepLocal = store.keepLocal ?? false;
  if (location.kind === 'folder') return { ok: true, settings: { kind: 'folder', path: resolve(chosen.base, location.path), keepLocal } };

  const s3 = store.s3 ?? {};
  const endpointFrom = set(env, 'AWS_ENDPOINT_URL_S3') ? 'AWS_ENDPOINT_URL_S3' : set(env, 'AWS_ENDPOINT_URL') ? 'AWS_ENDPOINT_URL' : s3.endpoint ? 'store.s3.endpoint' : null;
  const endpoint = endpointFrom === null ? null : endpointFrom === 'store.s3.endpoint' ? (s3.endpoint as string) : (set(env, endpointFrom) as string);
  if (endpoint !== null && !/^https?:\/\/[^\s/]+/.test(endpoint)) return { ok: false, message: `${endpointFrom}: "${endpoint}" is not an http(s) URL of an S3 endpoint (e.g. http://127.0.0.1:9000)` };
  const accessKeyId = set(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = set(env, 'AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    return { ok: false, message: `${accessKeyId === undefined ? 'AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not' : 'AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not'}: set both for the session store ${chosen.value}` };
  }
  const sessionToken = set(env, 'AWS_SESSION_TOKEN');
  return {
    ok: true,
    settings: {
      kind: 's3',
      bucket: location.bucket,
      prefix: location.prefix,
      endpoint,
      endpointFrom,
      region: set(env, 'AWS_REGION') ?? set(env, 'AWS_DEFAULT_REGION') ?? s3.region ?? 'us-east-1',
      pathStyle: s3.pathStyle ?? endpoint !== null,
      credentials: accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } : null,
      keepLocal,
    },
  };
}
