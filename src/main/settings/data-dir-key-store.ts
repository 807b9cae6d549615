/**
 * The API key of `mnemo serve` and the CLI: kept in the OS keychain (keychain/), one entry per data
 * directory, when a keychain can keep it; in config.json (owner-only, 0600) when none can, as
 * before. Which one is decided at each save, by asking the keychain then: a keyring started since
 * is used from the next save on, and a key config.json still holds is moved into it at that save.
 *
 * A keychain that is there but locked or failing is never replaced by config.json behind the
 * user's back: a new key is refused with the reason (nothing changed), and a key config.json holds
 * stays there, with a line saying why. The key read at start stays in use while the keyring is
 * locked again.
 */
import { apiKeyEntryOf, type KeychainEntry, type KeychainProblem, type KeychainRead, type OsKeychain } from './keychain/keychain';
import { osKeychainOf } from './keychain/os-keychain';
import type { KeyChange, KeySave, KeyStore, KeyStoreStatus } from './key-store';
import type { LoadedConfig } from './settings';

export interface DataDirKeyStoreDeps {
  keychain: OsKeychain;
  dataDir: string;
  /** config.json (where the fallback keeps the key), as messages name it. */
  configPath: string;
  /** Where a line about a key moved or kept in config.json goes. */
  log?: (line: string) => void;
}

type State =
  | { kind: 'unchecked' }
  /** The keychain answers; the key it keeps, if any. */
  | { kind: 'keychain'; key: string | undefined }
  /** A keychain is there but cannot be used now (locked, failing). */
  | { kind: 'unusable'; problem: KeychainProblem }
  /** No keychain can keep a key: config.json does. */
  | { kind: 'fallback'; problem: KeychainProblem };

export class DataDirKeyStore implements KeyStore {
  readonly entry: KeychainEntry;
  private state: State = { kind: 'unchecked' };

  constructor(private readonly deps: DataDirKeyStoreDeps) {
    this.entry = apiKeyEntryOf(deps.dataDir);
  }

  /** The keychain's name ("the Secret Service", ...). */
  get keychainName(): string {
    return this.deps.keychain.name;
  }

  /**
   * Reads the key kept for the data directory. `interactive`: the keychain may ask its user to
   * unlock it. Answers the problem met, if any (`unavailable` means config.json keeps keys).
   */
  async load(options: { interactive: boolean }): Promise<KeychainProblem | null> {
    const read = await this.deps.keychain.read(this.entry, options);
    this.take(read);
    return read.ok ? null : read.problem;
  }

  get(): string | undefined {
    return this.state.kind === 'keychain' ? this.state.key : undefined;
  }

  async refresh(): Promise<void> {
    await this.load({ interactive: false });
  }

  async save(change: KeyChange, inFile: string | undefined): Promise<KeySave> {
    await this.refresh();
    if (this.state.kind === 'fallback') return this.inConfigFile(change, inFile, this.state.problem);
    const { keychain, configPath } = this.deps;
    const where = `${keychain.name} ("${this.entry.label}")`;
    if (change.kind === 'keep') {
      if (inFile === undefined) return { ok: true, inFile, note: null };
      const moved = await keychain.write(this.entry, inFile);
      if (moved.ok) {
        this.state = { kind: 'keychain', key: inFile };
        return this.noted({ ok: true, inFile: undefined, note: `the API key was moved from ${configPath} to ${where}` });
      }
      if (moved.problem.kind === 'unavailable') return this.inConfigFile(change, inFile, this.fallBack(moved.problem));
      return this.noted({ ok: true, inFile, note: `the API key stays in ${configPath}: ${moved.problem.message} (${moved.problem.fix})` });
    }
    if (change.kind === 'set') {
      const written = await keychain.write(this.entry, change.key);
      if (written.ok) {
        this.state = { kind: 'keychain', key: change.key };
        return this.noted({ ok: true, inFile: undefined, note: inFile !== undefined ? `the API key is kept in ${where}; ${configPath} no longer holds one` : null });
      }
      if (written.problem.kind === 'unavailable') return this.inConfigFile(change, inFile, this.fallBack(written.problem));
      return { ok: false, message: `the API key was not saved: ${written.problem.message}; ${written.problem.fix}` };
    }
    const removed = await keychain.remove(this.entry);
    if (removed.ok) {
      this.state = { kind: 'keychain', key: undefined };
      return { ok: true, inFile: undefined, note: null };
    }
    if (removed.problem.kind === 'unavailable') return this.inConfigFile(change, inFile, this.fallBack(removed.problem));
    return { ok: false, message: `the API key was not removed: ${removed.problem.message}; ${removed.problem.fix}` };
  }

  status(inFile: string | undefined): KeyStoreStatus {
    const { keychain, configPath } = this.deps;
    const state = this.state;
    switch (state.kind) {
      case 'unchecked':
        return { status: 'warn', detail: `${keychain.name}: not asked yet`, fix: 'run mnemo doctor again' };
      case 'fallback':
        return { status: 'warn', detail: `config.json (${configPath}, owner-only, 0600): ${state.problem.message}`, fix: state.problem.fix };
      case 'unusable':
        return { status: 'warn', detail: `${keychain.name}: ${state.problem.message}${inFile !== undefined ? `; config.json (${configPath}) holds the API key meanwhile` : ''}`, fix: state.problem.fix };
      case 'keychain':
        if (inFile !== undefined) {
          return {
            status: 'warn',
            detail: `${keychain.name} can keep the API key, but config.json (${configPath}) still holds it in clear`,
            fix: `save the settings once (Settings → Save, in mnemo serve) to move it to ${keychain.name}, or remove model.apiKey from ${configPath}`,
          };
        }
        return {
          status: 'ok',
          detail: state.key !== undefined ? `${keychain.name} keeps the API key ("${this.entry.label}")` : `${keychain.name} (no API key kept yet; Settings saves one there as "${this.entry.label}")`,
          fix: '',
        };
    }
  }

  private take(read: KeychainRead): void {
    if (read.ok) this.state = { kind: 'keychain', key: read.secret || undefined };
    else if (read.problem.kind === 'unavailable') this.state = { kind: 'fallback', problem: read.problem };
    // The key read before stays in use while the keyring is locked again.
    else if (!(this.state.kind === 'keychain' && this.state.key !== undefined)) this.state = { kind: 'unusable', problem: read.problem };
  }

  private fallBack(problem: KeychainProblem): KeychainProblem {
    this.state = { kind: 'fallback', problem };
    return problem;
  }

  /** No keychain can keep it: config.json does, as it always did, and a new key says so. */
  private inConfigFile(change: KeyChange, inFile: string | undefined, problem: KeychainProblem): KeySave {
    if (change.kind === 'keep') return { ok: true, inFile, note: null };
    if (change.kind === 'remove') return { ok: true, inFile: undefined, note: null };
    return this.noted({ ok: true, inFile: change.key, note: `${problem.message}: the API key is kept in ${this.deps.configPath} (owner-only, 0600)` });
  }

  private noted(saved: KeySave): KeySave {
    if (saved.ok && saved.note) this.deps.log?.(saved.note);
    return saved;
  }
}

/** The key store of a data directory, on this platform's keychain (the environment names the session bus). */
export function dataDirKeyStoreOf(config: LoadedConfig, options: { env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform; log?: (line: string) => void } = {}): DataDirKeyStore {
  return new DataDirKeyStore({
    keychain: osKeychainOf(options.platform ?? process.platform, options.env ?? process.env),
    dataDir: config.dataDir,
    configPath: config.path,
    ...(options.log ? { log: options.log } : {}),
  });
}
