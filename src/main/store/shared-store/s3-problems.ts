/**
 * What went wrong with an S3 store, in one line that names the store and says the fix: the AWS
 * SDK's errors (its service exceptions by name and HTTP status, the socket's errors by code, its
 * credential chain's) sorted into the kinds of `StoreProblem`.
 */
import { storeLocationName } from '../../../shared/store-location';
import type { S3StoreOptions, StoreProblem } from './types';

/** Socket errors: nothing answers at the endpoint (or the way there is broken). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED']);
const UNREACHABLE_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'NetworkingError']);
const REFUSED_CREDENTIALS = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied', 'Forbidden', 'InvalidToken', 'ExpiredToken', 'InvalidClientTokenId']);

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  cause?: unknown;
}

/** The socket error's code, wherever the SDK put it (on the error, or on its cause). */
function socketCode(error: SdkError): string | undefined {
  if (error.code && UNREACHABLE_CODES.has(error.code)) return error.code;
  const cause = error.cause as SdkError | undefined;
  return cause?.code && UNREACHABLE_CODES.has(cause.code) ? cause.code : undefined;
}

export function storeName(options: Pick<S3StoreOptions, 'bucket' | 'prefix'>): string {
  return storeLocationName({ kind: 's3', bucket: options.bucket, prefix: options.prefix });
}

/** Where the client connects, as a person would check it. */
function where(options: S3StoreOptions): string {
  return options.endpoint ? `at ${options.endpoint}${options.endpointFrom ? ` (${options.endpointFrom})` : ''}` : `at AWS in ${options.region}`;
}

/** `bucketLevel`: the call addressed the bucket itself (a 404 then means the bucket, not an object, is missing). */
export function s3Problem(error: unknown, options: S3StoreOptions, bucketLevel = false): StoreProblem {
  const name = storeName(options);
  const e = (error ?? {}) as SdkError;
  const status = e.$metadata?.httpStatusCode;
  const said = (e.message ?? String(error)).replace(/\s+/g, ' ').trim();
  const problem = (kind: StoreProblem['kind'], message: string): StoreProblem => ({ ok: false, kind, message });

  if (e.name === 'CredentialsProviderError') {
    return problem('credentials', `no AWS credentials for the session store ${name}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)`);
  }
  if (/region is missing/i.test(said)) return problem('failed', `the session store ${name} needs a region: set AWS_REGION (or store.s3.region in config.json)`);
  const code = socketCode(e);
  if (code !== undefined || (e.name !== undefined && UNREACHABLE_NAMES.has(e.name))) {
    const endpointFix = options.endpoint
      ? `is the server running there? Otherwise set AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL, or store.s3.endpoint in config.json) to where it is`
      : 'check the network, or set AWS_ENDPOINT_URL_S3 to the address of an S3-compatible server';
    return problem('unreachable', `cannot reach the session store ${name} ${where(options)} (${code ?? e.name}: ${said}): ${endpointFix}`);
  }
  if (e.name === 'NoSuchBucket' || (bucketLevel && status === 404)) {
    return problem('missing', `the session store ${name}: the bucket "${options.bucket}" does not exist ${where(options)}: create it, or name another with --store s3://BUCKET/PREFIX`);
  }
  if ((e.name !== undefined && REFUSED_CREDENTIALS.has(e.name)) || status === 403) {
    return problem('credentials', `the session store ${name} refused the credentials (${e.name ?? status}: ${said}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and that they may use the bucket "${options.bucket}"`);
  }
  return problem('failed', `the session store ${name} ${where(options)}: ${e.name && !said.startsWith(e.name) ? `${e.name}: ` : ''}${said}${status ? ` (HTTP ${status})` : ''}`);
}
