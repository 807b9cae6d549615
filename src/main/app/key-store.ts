/**
 * The API key in the app: encrypted with the OS keychain (Electron's safeStorage) in a file of the
 * user data folder, never in config.json and never sent to the window. Where the keychain is not
 * available (a Linux session without a secret service), a new key is refused with the reason (the
 * window shows it) and a key config.json holds stays there.
 */
import { safeStorage } from 'electron';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makePrivateDir, writeFileAtomically } from '../disk/files';
import type { KeySave, KeyStore } from '../settings/key-store';

const NAME = "the OS keychain (Electron's safeStorage)";
const UNAVAILABLE = 'the OS keychain is not available to the app (on Linux: no Secret Service in this session)';

export function keychainKeyStore(file: string, log: (line: string) => void): KeyStore {
  let cached: string | undefined;
  let loaded = false;
  const keep = async (key: string): Promise<KeySave | null> => {
    try {
      await makePrivateDir(dirname(file));
      await writeFileAtomically(file, safeStorage.encryptString(key));
    } catch (error) {
      return { ok: false, message: `the API key was not saved: ${file} cannot be written: ${(error as Error).message}` };
    }
    cached = key;
    loaded = true;
    return null;
  };
  return {
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
    async save(change, inFile) {
      if (change.kind === 'remove') {
        cached = undefined;
        loaded = true;
        await rm(file, { force: true });
        return { ok: true, inFile: undefined, note: null };
      }
      const key = change.kind === 'set' ? change.key : inFile;
      if (key === undefined) return { ok: true, inFile: undefined, note: null };
      if (!safeStorage.isEncryptionAvailable()) {
        if (change.kind === 'keep') return { ok: true, inFile, note: null };
        log(`${UNAVAILABLE}: the API key is not stored`);
        return { ok: false, message: `${UNAVAILABLE}: the API key was not saved; set OPENAI_API_KEY (or the family's key variable) before starting Mnemo instead` };
      }
      const failed = await keep(key);
      if (failed && !failed.ok) return change.kind === 'keep' ? { ok: true, inFile, note: `the API key stays in config.json: ${failed.message}` } : failed;
      const note = inFile !== undefined ? `the API key is kept in ${NAME}; config.json no longer holds one` : null;
      if (note) log(note);
      return { ok: true, inFile: undefined, note };
    },
    status(inFile) {
      if (!safeStorage.isEncryptionAvailable()) return { status: 'warn', detail: `${UNAVAILABLE}${inFile !== undefined ? '; config.json holds the API key' : ''}`, fix: 'set OPENAI_API_KEY (or the family\'s key variable) before starting Mnemo, or log in to a session with a keyring' };
      if (inFile !== undefined) return { status: 'warn', detail: `${NAME} can keep the API key, but config.json still holds it in clear`, fix: `save the settings once (Settings → Save) to move it to ${NAME}` };
      // On Linux without a keyring Chromium encrypts with a fixed password: obfuscated, not protected.
      if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') {
        return { status: 'warn', detail: `${NAME} found no keyring in this session and encrypts ${file} with a fixed password (basic_text)`, fix: 'log in to a session with a keyring (GNOME Keyring, KWallet) and save the key again' };
      }
      return { status: 'ok', detail: `${NAME} keeps the API key (${file})`, fix: '' };
    },
    async refresh() {
      loaded = false;
    },
  };
}
