/**
 * The sessions the reading commands see (`sessions`, `show`, `export`): the data directory's and,
 * when a shared store is set (`--store`, MNEMO_STORE, `store.shared`), the store's, through one
 * SessionLibrary (src/main/store/session-library.ts). A config.json that does not read does not
 * stop a reader: it is said in one line, and the store of the flag or the environment still counts.
 */
import { loadConfig, type LoadedConfig } from '../settings/settings';
import { sharedStoreSettingsOf } from '../settings/shared-store-settings';
import { SessionLibrary } from '../store/session-library';
import { SessionStore } from '../store/session-store';
import { openSharedStore } from '../store/shared-store/open-store';
import { StoreCache } from '../store/store-cache';
import { InvalidInputError } from './exit-codes';

export interface LibraryFlags {
  store?: string;
  config?: string;
}

export interface OpenedLibrary {
  library: SessionLibrary;
  /** Lets go of the store's connections. */
  close(): void;
}

export async function openSessionLibrary(dataDir: string, flags: LibraryFlags, env: NodeJS.ProcessEnv = process.env): Promise<OpenedLibrary> {
  const read = await loadConfig({ dataDir, ...(flags.config !== undefined ? { config: flags.config } : {}) }, env);
  if (!read.ok) process.stderr.write(`mnemo: warning: ${read.message}; its store.shared is not read\n`);
  const config: LoadedConfig = read.ok ? read.config : { dataDir, path: '', file: {} };
  const shared = sharedStoreSettingsOf(config, flags, env);
  if (!shared.ok) throw new InvalidInputError(shared.message);
  const local = new SessionStore(dataDir);
  if (shared.settings === null) return { library: new SessionLibrary(local, null), close: () => undefined };
  const store = openSharedStore(shared.settings);
  return { library: new SessionLibrary(local, { store, cache: StoreCache.of(dataDir, store.name) }), close: () => store.close() };
}
