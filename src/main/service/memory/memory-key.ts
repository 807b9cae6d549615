/**
 * The memory key in the app: a random key made on first use, kept in
 * `<data-dir>/memory/keychain-key.bin` sealed by the OS keychain (Electron's safeStorage), so the
 * memory files are encrypted without the user handling a key. The keychain is passed in: this file
 * does not import electron (src/main/app/memory-key.ts passes safeStorage).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { makePrivateDir } from '../../disk/files';
import { join } from 'node:path';
import { writeFileAtomically } from '../../disk/files';

/** What the app needs of Electron's safeStorage. */
export interface Keychain {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(sealed: Buffer): string;
}

export const KEYCHAIN_KEY_FILE = 'keychain-key.bin';

/**
 * For `RunServiceDeps.memoryKey`: the key, or null when the OS offers no keychain (the memory is
 * then kept unencrypted, as in the CLI without a key). A sealed key the keychain cannot open is an
 * error: making a new one would lock the user out of what is stored.
 */
export function keychainMemoryKey(dataDir: string, keychain: Keychain): () => Promise<string | null> {
  const path = join(dataDir, 'memory', KEYCHAIN_KEY_FILE);
  return async () => {
    if (!keychain.isEncryptionAvailable()) return null;
    let sealed: Buffer | null = null;
    try {
      sealed = await readFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (sealed !== null) {
      try {
        return keychain.decryptString(sealed);
      } catch (error) {
        throw new Error(`the memory key in ${path} cannot be opened by this user's keychain: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const key = randomBytes(32).toString('base64');
    await makePrivateDir(join(dataDir, 'memory'));
    await writeFileAtomically(path, keychain.encryptString(key), { sync: true });
    return key;
  };
}
