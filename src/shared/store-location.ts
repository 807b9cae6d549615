/**
 * Where a shared session store is, as a person writes it (`--store`, `MNEMO_STORE`,
 * `store.shared` in config.json): `s3://BUCKET/PREFIX` for S3 or an S3-compatible server,
 * `file:///PATH` or anything without a scheme a folder (on a shared mount). Plain TypeScript: the CLI's flag parser checks it at start,
 * before anything is loaded.
 */

export type StoreLocation =
  | { kind: 's3'; bucket: string; /** Without slashes at either end; '' for the bucket's root. */ prefix: string }
  | { kind: 'folder'; /** As written: the settings make it absolute. */ path: string };

export type StoreLocationRead = { ok: true; location: StoreLocation } | { ok: false; message: string };

/** S3's rules for a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens, a letter or digit at each end. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** A prefix segment: what a key may hold without surprises on every S3-compatible server. */
const SEGMENT = /^[\w.=+-]+$/;

const FORM = 's3://BUCKET/PREFIX or a folder';

export function parseStoreLocation(value: string): StoreLocationRead {
  const text = value.trim();
  if (text === '') return { ok: false, message: `a session store is ${FORM}, got an empty value` };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1];
  if (scheme === undefined) return { ok: true, location: { kind: 'folder', path: text } };
  if (scheme.toLowerCase() === 'file') return folderOfFileUrl(text);
  if (scheme.toLowerCase() !== 's3') return { ok: false, message: `a session store is ${FORM}, got "${text}" (${scheme}:// is not supported)` };
  const [bucket = '', ...rest] = text.slice('s3://'.length).split('/');
  if (!BUCKET.test(bucket)) return { ok: false, message: `"${text}": "${bucket}" is not an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens)` };
  const segments = rest.filter((segment) => segment !== '');
  const bad = segments.find((segment) => segment === '.' || segment === '..' || !SEGMENT.test(segment));
  if (bad !== undefined) return { ok: false, message: `"${text}": the prefix part "${bad}" is not allowed (letters, digits and . _ = + - between slashes)` };
  return { ok: true, location: { kind: 's3', bucket, prefix: segments.join('/') } };
}

/** `file:///mnt/sessions` (or `file://localhost/...`): the folder, its %-escapes decoded. */
function folderOfFileUrl(text: string): StoreLocationRead {
  const rest = text.slice('file://'.length);
  const path = rest.startsWith('localhost/') ? rest.slice('localhost'.length) : rest;
  if (!path.startsWith('/')) return { ok: false, message: `"${text}": a file:// store names a folder of this machine, file:///PATH (a shared mount is reached through its mount point)` };
  try {
    return { ok: true, location: { kind: 'folder', path: decodeURIComponent(path) } };
  } catch {
    return { ok: false, message: `"${text}": a %-escape of the path does not read` };
  }
}

/** How a location is named in messages and listings: `s3://bucket/prefix`, or the folder's path. */
export function storeLocationName(location: StoreLocation): string {
  return location.kind === 's3' ? `s3://${location.bucket}${location.prefix ? `/${location.prefix}` : ''}` : location.path;
}
