/**
 * Where the model's API key saved in Settings is kept, outside config.json where it can be: the
 * same interface for the desktop app (Electron's safeStorage, src/main/app/key-store.ts) and for
 * `mnemo serve` and the CLI (the OS keychain of the data directory, with config.json as the
 * fallback: data-dir-key-store.ts). The window never receives the key; it is told where it is
 * kept (`status`).
 */

/** What Save does to the key: keep the one kept (and move one config.json holds, where it can), keep a new one, or remove it. */
export type KeyChange = { kind: 'keep' } | { kind: 'set'; key: string } | { kind: 'remove' };

/**
 * A change kept: what config.json's `model.apiKey` must hold now (a key only where config.json is
 * where keys are kept), and one line for the user when something moved or fell back. A failure
 * says why; nothing was changed then.
 */
export type KeySave = { ok: true; inFile: string | undefined; note: string | null } | { ok: false; message: string };

/** Where keys are kept now, as the doctor's `key store` line and the Settings view say it. */
export interface KeyStoreStatus {
  status: 'ok' | 'warn';
  detail: string;
  /** What to do about it, in one line; empty when all is well. */
  fix: string;
}

export interface KeyStore {
  /** The key kept outside config.json, or undefined (none, or it cannot be read now). */
  get(): string | undefined;
  /** Applies a change before config.json is written; `inFile` is the key config.json holds now. */
  save(change: KeyChange, inFile: string | undefined): Promise<KeySave>;
  /** Where keys are kept, given the key config.json holds now (a key still in clear is a warning). */
  status(inFile: string | undefined): KeyStoreStatus;
  /** Looks again, without prompting: a keyring unlocked or started since. */
  refresh(): Promise<void>;
}
