/**
 * The API key `mnemo serve`'s Settings keep in the OS keychain for a data directory, for the
 * commands that call a model (run, replay, workflow, teach, check-model, mcp, memory compact,
 * doctor): the CLI and the browser window keep using one key. The keychain is asked only when the
 * flags, the environment and config.json give no key, since those win (as they always did); a
 * keychain that is there but cannot be read is said in one line.
 */
import { dataDirKeyStoreOf } from '../settings/data-dir-key-store';
import { configPathOf, runSettingsOf, type LoadedConfig, type RunFlags } from '../settings/settings';

export async function keychainApiKey(config: LoadedConfig, flags: RunFlags, log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<{ storedApiKey?: () => string | undefined }> {
  const resolved = runSettingsOf(config, flags, env);
  if (!resolved.ok || resolved.settings.model.apiKey !== undefined) return {};
  const store = dataDirKeyStoreOf(config, { env });
  // The keychain may show its unlock prompt on the desktop: the user asked for a run.
  const problem = await store.load({ interactive: true });
  if (problem && problem.kind !== 'unavailable') log(`the API key kept in ${store.keychainName} cannot be read: ${problem.message} (${problem.fix})`);
  const key = store.get();
  return key !== undefined ? { storedApiKey: () => key } : {};
}

/**
 * The key the keychain keeps for a data directory, asked without a prompt, for the commands that
 * print old records (`show`, `sessions`, `export`, `memory show`): a key moved out of config.json
 * since they were recorded is still masked. None when it cannot be read now.
 */
export async function keychainApiKeyQuietly(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const store = dataDirKeyStoreOf({ dataDir, path: configPathOf(dataDir), file: {} }, { env });
  await store.load({ interactive: false });
  return store.get();
}
