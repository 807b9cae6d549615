/**
 * The OS keychain as Mnemo uses it outside Electron (`mnemo serve`, the CLI): one secret per data
 * directory, read, written and removed through the platform's own tool (os-keychain.ts picks it).
 * Every answer is a value; a problem says which kind it is, because the callers treat them
 * differently: `unavailable` (no keychain to keep a key in: config.json is the fallback),
 * `locked` and `failed` (a keychain is there but cannot be used now: refuse, with the reason).
 */

/** Where one secret is kept: `service` and `account` find it, `label` is what a person sees in their keyring tool. */
export interface KeychainEntry {
  service: string;
  account: string;
  label: string;
}

export interface KeychainProblem {
  kind: 'unavailable' | 'locked' | 'failed';
  /** What is wrong, in one line (never the secret). */
  message: string;
  /** What to do about it, in one line. */
  fix: string;
}

export type KeychainRead = { ok: true; secret: string | null } | { ok: false; problem: KeychainProblem };
export type KeychainWrite = { ok: true } | { ok: false; problem: KeychainProblem };

export interface OsKeychain {
  /** The store in words: "the Secret Service", "the macOS Keychain", "the Windows Credential Manager". */
  readonly name: string;
  /**
   * The secret, or null when none is kept. `interactive`: the keychain may ask its user to unlock
   * it (a prompt on the desktop); otherwise a locked one is a `locked` problem at once.
   */
  read(entry: KeychainEntry, options: { interactive: boolean }): Promise<KeychainRead>;
  /** Keeps the secret, replacing one kept before; the keychain may ask to be unlocked. */
  write(entry: KeychainEntry, secret: string): Promise<KeychainWrite>;
  /** Removes the secret; none kept is fine. */
  remove(entry: KeychainEntry): Promise<KeychainWrite>;
}

/** The model's API key of one data directory: two data directories never share a key by accident. */
export function apiKeyEntryOf(dataDir: string): KeychainEntry {
  return { service: 'mnemo', account: dataDir, label: `Mnemo API key (${dataDir})` };
}
