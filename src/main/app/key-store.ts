/**
 * The API key in the app: encrypted with the OS keychain (Electron's safeStorage) in a file of the
 * user data folder, never in config.json and never sent to the window. Where the keychain is not
 * available (a Linux session without a secret service), nothing is stored and the window says so.
 */
import { safeStorage } from 'electron';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makePrivateDir, writeFileAtomically } from '../disk/files';
import type { KeyStore } from '../service/app-backend';

export function keychainKeyStore(file: string, log: (line: string) => void): KeyStore {
  let cached: string | undefined;
  let loaded = false;
  return {
    inConfigFile: false,
    get() {
      if (!loaded) {
        loaded = true;
        try {
          cached = safeStorage.isEncryptionAvailable() ? safeStorage.decryptString(readFileSync(file)) : undefined;
        } catch {
          cached = undefined;
        }
      }
      return cached;
    },
    async set(key) {
      if (key === undefined) {
        cached = undefined;
        await rm(file, { force: true });
        return;
      }
      if (!safeStorage.isEncryptionAvailable()) {
        log('the OS keychain is not available: the API key is not stored (set OPENAI_API_KEY instead)');
        return;
      }
      await makePrivateDir(dirname(file));
      await writeFileAtomically(file, safeStorage.encryptString(key));
      cached = key;
      loaded = true;
    },
  };
}
