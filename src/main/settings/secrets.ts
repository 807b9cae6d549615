/**
 * The secrets in Mnemo's settings, wherever they come from: the API key (the environment variable
 * --api-key-env names, any family's key variable such as OPENAI_API_KEY, ANTHROPIC_API_KEY or
 * GEMINI_API_KEY, or config.json), the memory model's key, authorisation headers, a user and
 * password written into a URL (an endpoint, a Redis URL), and any field of config.json named like
 * a key, token, password or secret (an encryption key). The redaction
 * policy (redaction.ts) is built on this walk, over config.json and over the resolved settings.
 *
 * Lenient on purpose: a config that does not validate, or a command that needs no model, still
 * has its secrets found, so that `mnemo show` or `mnemo export` mask them too.
 */
import { readFile } from 'node:fs/promises';
import type { ConfigFile } from '../../shared/config';
import { API_KEY_ENV_NAMES } from '../../shared/settings';
import { configPathOf, type RunFlags } from './settings';

/** Field names whose string values are secrets. */
const SECRET_FIELD = /(api[-_]?key|secret|password|passwd|token|encryption[-_]?key|credential)/i;
/** HTTP headers that carry credentials. */
const SECRET_HEADER = /(authorization|api[-_]?key|token|secret|cookie)/i;

/** The user and password of a URL with credentials (`redis://:pw@host`, `https://u:p@host/v1`). */
function urlCredentials(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/[a-z][a-z0-9+.-]*:\/\/([^/\s:@]*)(?::([^/\s@]*))?@/gi)) {
    for (const part of [match[1], match[2]]) {
      if (!part) continue;
      found.push(part);
      try {
        found.push(decodeURIComponent(part));
      } catch {
        // Not percent-encoded after all.
      }
    }
  }
  return found;
}

/** A bearer token is masked without its scheme: the scheme is a word, not a secret. */
function headerSecrets(value: string): string[] {
  const bare = value.replace(/^(bearer|basic|token)\s+/i, '');
  return bare === value ? [value] : [value, bare];
}

function collect(value: unknown, key: string, into: string[]): void {
  if (typeof value === 'string') {
    if (SECRET_FIELD.test(key)) into.push(value);
    into.push(...urlCredentials(value));
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collect(item, key, into);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  for (const [name, item] of Object.entries(value)) {
    if (name === 'headers' && typeof item === 'object' && item !== null) {
      for (const [header, text] of Object.entries(item)) if (typeof text === 'string' && SECRET_HEADER.test(header)) into.push(...headerSecrets(text));
    }
    collect(item, name, into);
  }
}

/** Every secret of the settings: the config file, the flags, and the environment they name. */
export function configuredSecrets(file: ConfigFile | unknown, flags: Pick<RunFlags, 'apiKeyEnv' | 'baseUrl'> = {}, env: NodeJS.ProcessEnv = process.env): string[] {
  const found: string[] = [];
  collect(file, '', found);
  for (const name of new Set([flags.apiKeyEnv ?? 'OPENAI_API_KEY', ...API_KEY_ENV_NAMES])) {
    const key = env[name];
    if (key) found.push(key, key.trim());
  }
  for (const url of [flags.baseUrl, env.OPENAI_BASE_URL]) if (url) found.push(...urlCredentials(url));
  return [...new Set(found.filter((secret) => secret.trim() !== ''))];
}

/** config.json as it is, valid or not; `{}` when there is none or it is not JSON (the environment alone). */
export async function readConfigLeniently(dataDir: string, configFlag?: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(configPathOf(dataDir, configFlag), 'utf8')) as unknown;
  } catch {
    return {};
  }
}
