/**
 * Encryption at rest for the memory's local files (facts, working memory): AES-256-GCM, a fresh
 * random 12-byte nonce for every write, the 16-byte tag checked on every read.
 *
 * The key is derived from a secret (the OS keychain's in the app, `MNEMO_MEMORY_KEY` or a key file
 * in the CLI) with scrypt and a salt kept in `<dir>/keycheck.json`, beside a known text sealed
 * with the key. Opening checks that text first, so a wrong key is a clear error before anything
 * is read, and nothing is ever written with it.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCallback } from 'node:crypto';
import { link, readFile, rm } from 'node:fs/promises';
import { makePrivateDir } from '../disk/files';
import { join } from 'node:path';
import { writeFileAtomically } from '../disk/files';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'v1:';
const CHECK_TEXT = 'mnemo memory key check';
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

export const KEYCHECK_FILE = 'keycheck.json';

/** A sealed text could not be opened: the wrong key, or damaged data. */
export class MemoryKeyError extends Error {
  override readonly name = 'MemoryKeyError';
}

export class MemoryCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new RangeError('an AES-256 key is 32 bytes');
  }

  /** `v1:` + base64(nonce ‖ ciphertext ‖ tag); a new nonce every call. */
  seal(plain: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
  }

  open(sealed: string): string {
    if (!sealed.startsWith(PREFIX)) throw new MemoryKeyError('not an encrypted memory record');
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new MemoryKeyError('an encrypted memory record is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new MemoryKeyError('an encrypted memory record does not open with this key (a wrong key, or the record is damaged)');
    }
  }
}

export function isSealed(text: string): boolean {
  return text.startsWith(PREFIX);
}

function deriveKey(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCallback(secret, salt, 32, SCRYPT, (error, key) => (error ? reject(error) : resolve(key))));
}

/** Where the key came from, for messages (never the key itself). */
export interface MemoryKey {
  secret: string;
  origin: string;
}

export type CipherOpen = { ok: true; cipher: MemoryCipher; created: boolean } | { ok: false; message: string };

/**
 * The cipher for the memory files under `dir`: the salt and check are read from
 * `dir/keycheck.json`, or made on first use. A key that does not open the check is refused.
 */
export async function openMemoryCipher(dir: string, key: MemoryKey): Promise<CipherOpen> {
  if (key.secret.trim() === '') return { ok: false, message: `the memory key from ${key.origin} is empty` };
  const path = join(dir, KEYCHECK_FILE);
  const existing = await checkExisting(path, dir, key);
  if (existing !== null) return existing;
  const salt = randomBytes(16);
  const cipher = new MemoryCipher(await deriveKey(key.secret, salt));
  await makePrivateDir(dir);
  // Two processes may start encrypting at once: the check file is made whole aside, then linked
  // into place, which fails if another got there first; then theirs is the one to use.
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFileAtomically(aside, `${JSON.stringify({ version: 1, kdf: 'scrypt', salt: salt.toString('base64'), check: cipher.seal(CHECK_TEXT) })}\n`, { sync: true });
  try {
    await link(aside, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return (await checkExisting(path, dir, key)) ?? { ok: false, message: `${path} vanished while it was read` };
  } finally {
    await rm(aside, { force: true });
  }
  return { ok: true, cipher, created: true };
}

async function checkExisting(path: string, dir: string, key: MemoryKey): Promise<CipherOpen | null> {
  let text: string | null = null;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return { ok: false, message: `cannot read ${path}: ${(error as Error).message}` };
  }
  if (text !== null) {
    let stored: { salt?: unknown; check?: unknown };
    try {
      stored = JSON.parse(text) as { salt?: unknown; check?: unknown };
    } catch {
      return { ok: false, message: `${path} is damaged: the encrypted memory cannot be checked against the key` };
    }
    if (typeof stored.salt !== 'string' || typeof stored.check !== 'string') return { ok: false, message: `${path} is damaged: no salt or check` };
    const cipher = new MemoryCipher(await deriveKey(key.secret, Buffer.from(stored.salt, 'base64')));
    try {
      if (cipher.open(stored.check) !== CHECK_TEXT) throw new MemoryKeyError('check text differs');
    } catch {
      return { ok: false, message: `the memory key from ${key.origin} is not the key the memory in ${dir} was encrypted with; nothing was read or written` };
    }
    return { ok: true, cipher, created: false };
  }
  return null;
}

/** Whether memory under `dir` was ever encrypted (a key check exists). */
export async function isEncryptedMemory(dir: string): Promise<boolean> {
  try {
    await readFile(join(dir, KEYCHECK_FILE));
    return true;
  } catch {
    return false;
  }
}
