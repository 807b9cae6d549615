/**
 * The app's memory key from the OS keychain: pass `appMemoryKey(dataDir)` as `memoryKey` when the
 * app composes its RunService, and the memory files under the data directory are encrypted.
 */
import { safeStorage } from 'electron';
import { keychainMemoryKey } from '../service/memory/memory-key';

export function appMemoryKey(dataDir: string): () => Promise<string | null> {
  return keychainMemoryKey(dataDir, safeStorage);
}
