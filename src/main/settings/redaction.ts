/**
 * The redaction policy: which secrets are kept out of everything Mnemo records, prints or exports,
 * and the `Redactor` that masks them (src/shared/secret-mask.ts: whole, or any piece of 8
 * characters or more, also JSON-escaped).
 *
 * Built from the settings as RESOLVED, not only from config.json: the model's API key wherever it
 * came from (the variable --api-key-env names, OPENAI_API_KEY, config.json, or the app's keychain),
 * the memory model's key, every other key, token, password or credential header config.json holds
 * (other providers included), a user and password in a URL (the endpoint, Redis), and the memory
 * key from the environment.
 *
 * The run service holds the one policy of a process (service-config.ts): a `LiveRedaction` that
 * asks for the current mask at each use, so a key saved in Settings after the service started is
 * masked from then on. It is applied where events are stamped (src/main/run/lifecycle.ts) and in
 * the writer every store writes through (src/main/disk/store-writer.ts). The commands that print
 * records made before masking existed (`show`, `sessions`, `export`, `memory show`) read with
 * `redactionOfDataDir`.
 */
import { SecretMask, type Redactor } from '../../shared/secret-mask';
import { configuredSecrets, readConfigLeniently } from './secrets';
import type { RunFlags, RunSettings } from './settings';

export interface RedactionSources {
  /** config.json as read (valid or not). */
  file: unknown;
  flags?: Pick<RunFlags, 'apiKeyEnv' | 'baseUrl' | 'redisUrl'>;
  env?: NodeJS.ProcessEnv;
  /** The API key kept outside config.json (the app's keychain). */
  storedApiKey?: string | undefined;
  /** The settings of a run as resolved from all of the above, when they resolve. */
  settings?: RunSettings | null;
  /** More secrets (a key typed into "Test connection" before it is saved). */
  extra?: readonly string[];
}

/** Every secret of the sources, each also trimmed (a key pasted with a newline is sent trimmed). */
export function policySecrets(sources: RedactionSources): string[] {
  const env = sources.env ?? process.env;
  const flags = sources.flags ?? {};
  // Walked like config.json: fields named like keys, credential headers, URLs with credentials.
  const resolved = {
    settings: sources.settings ?? null,
    keychain: { apiKey: sources.storedApiKey },
    environment: { memorySecret: env.MNEMO_MEMORY_KEY, redisUrl: flags.redisUrl ?? env.MNEMO_REDIS_URL },
  };
  // The shared session store's S3 secrets (the access key id alone opens nothing).
  const storeSecrets = [env.AWS_SECRET_ACCESS_KEY, env.AWS_SESSION_TOKEN].filter((secret): secret is string => secret !== undefined);
  const found = [...configuredSecrets(sources.file, flags, env), ...configuredSecrets(resolved, {}, {}), ...storeSecrets, ...(sources.extra ?? [])];
  return [...new Set(found.flatMap((secret) => [secret, secret.trim()]).filter((secret) => secret.trim() !== ''))];
}

export function redactionOf(sources: RedactionSources): SecretMask {
  return new SecretMask(policySecrets(sources));
}

/** A Redactor that takes the current mask at each use: it follows the settings as they change. */
export class LiveRedaction implements Redactor {
  constructor(private readonly current: () => Redactor) {}

  text(text: string): string {
    return this.current().text(text);
  }

  deep<T>(value: T): T {
    return this.current().deep(value);
  }

  heldTail(text: string): number {
    return this.current().heldTail(text);
  }
}

/**
 * For the commands that print or export what was recorded, also before masking existed:
 * config.json read as it is (valid or not), the environment, and the key the OS keychain keeps
 * for the data directory (`storedApiKey`: a key moved out of config.json since).
 */
export async function secretsOfDataDir(dataDir: string, configFlag?: string, env: NodeJS.ProcessEnv = process.env, storedApiKey?: string): Promise<string[]> {
  return policySecrets({ file: await readConfigLeniently(dataDir, configFlag), env, storedApiKey });
}

export async function redactionOfDataDir(dataDir: string, configFlag?: string, env: NodeJS.ProcessEnv = process.env, storedApiKey?: string): Promise<SecretMask> {
  return new SecretMask(await secretsOfDataDir(dataDir, configFlag, env, storedApiKey));
}
