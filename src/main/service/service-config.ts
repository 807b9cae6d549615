/**
 * The one owner of the settings in a run service: the config as read (config.json, where it and
 * the data directory are), the command line's flags, the environment and the API key kept outside
 * config.json (the app's keychain). Every other part of the service asks it; none keeps a copy, so
 * settings saved after the service started (`use`) reach the next run, the memory opened next, and
 * the redaction policy at once.
 *
 * It also owns the data directory's privacy: `dataDirReady()` checks it once, before anything
 * reads or writes it (a directory open to other accounts is tightened with its contents, and said
 * in one line: disk/private-dir.ts).
 */
import { describeConfigIssues, type StoreSettings } from '../../shared/config';
import type { DesktopSettings } from '../../shared/desktop';
import type { Redactor, SecretMask } from '../../shared/secret-mask';
import { apiKeyFromEnv, endpointOf, ImageSettingsSchema, ModelSettingsSchema, type ImageSettings, type ModelSettings, type ModelSettingsInput } from '../../shared/settings';
import { computerToolProblem, coordinatesProblem, modelSettingsProblem } from '../../shared/model-families';
import { keepDataDirPrivate } from '../disk/private-dir';
import { StoreWriter } from '../disk/store-writer';
import { LiveRedaction, redactionOf } from '../settings/redaction';
import { desktopSettingsOf, memoryStoreSettingsOf, runSettingsOf, storeSettingsOf, type LoadedConfig, type MemoryStoreSettings, type RunFlags, type RunSettings } from '../settings/settings';
import { sharedStoreSettingsOf } from '../settings/shared-store-settings';
import { openSharedStore } from '../store/shared-store/open-store';
import type { SharedStore } from '../store/shared-store/types';
import type { ServiceResult } from './service-result';

export interface ServiceConfigDeps {
  config: LoadedConfig;
  env?: NodeJS.ProcessEnv;
  /** Flags given on the command line (they win over the environment and the file). */
  flags?: RunFlags;
  /** The API key kept outside config.json (the app's keychain), when neither flags nor environment give one. */
  storedApiKey?: () => string | undefined;
  /** Where the line about a data directory made private goes. */
  log?: (message: string) => void;
}

/** The mask of one set of flags, and what it was built from (it is rebuilt when either changes). */
interface BuiltMask {
  generation: number;
  storedApiKey: string | undefined;
  mask: SecretMask;
}

export class ServiceConfig {
  readonly env: NodeJS.ProcessEnv;
  readonly flags: RunFlags;
  private current: LoadedConfig;
  /** +1 at each `use`: the masks built before are stale. */
  private generation = 0;
  private readonly masks = new Map<string, BuiltMask>();
  private readonly policy: LiveRedaction;
  private readonly writer: StoreWriter;
  private privateDataDir: Promise<void> | null = null;
  /** The shared session store, opened once per settings (one S3 client for every read and upload). */
  private opened: { key: string; store: SharedStore } | null = null;

  constructor(private readonly deps: ServiceConfigDeps) {
    this.current = deps.config;
    this.env = deps.env ?? process.env;
    this.flags = deps.flags ?? {};
    this.policy = new LiveRedaction(() => this.maskFor({}));
    this.writer = new StoreWriter(this.policy);
  }

  /** The config as read (the settings file's content, where it lives, the data directory). */
  get loaded(): LoadedConfig {
    return this.current;
  }

  get dataDir(): string {
    return this.current.dataDir;
  }

  /** Uses this config from now on (after the settings were saved); runs in progress keep their settings. */
  use(config: LoadedConfig): void {
    this.current = config;
    this.generation += 1;
    this.masks.clear();
  }

  /** The settings a run would use now: the model from flags, environment, file or keychain; a run's own flags over them. */
  runSettings(overrides: RunFlags = {}): ServiceResult<RunSettings> {
    const resolved = runSettingsOf(this.current, { ...this.flags, ...overrides }, this.env, this.deps.storedApiKey?.());
    // A settings message may quote a value it refused (a key in the wrong place): masked before anyone shows it.
    return resolved.ok ? { ok: true, value: resolved.settings } : this.redacted({ ok: false, error: { kind: 'settings', message: resolved.message } });
  }

  /** Where the long-lived memory is kept (the data directory or Redis, the memory key). */
  memoryStoreSettings(overrides: Pick<RunFlags, 'redisUrl' | 'memoryKeyFile'> = {}): ServiceResult<MemoryStoreSettings> {
    const settings = memoryStoreSettingsOf(this.current, { ...this.flags, ...overrides }, this.env);
    return settings.ok ? { ok: true, value: settings.settings } : { ok: false, error: { kind: 'settings', message: settings.message } };
  }

  /** How screenshots are made for a model (size, format): what a demonstration records, with no model to resolve. */
  imageSettings(): ImageSettings {
    return ImageSettingsSchema.parse(this.current.file.image ?? {});
  }

  storeSettings(): StoreSettings {
    return storeSettingsOf(this.current);
  }

  /**
   * The shared session store sessions go to and are read from (`--store`, MNEMO_STORE,
   * `store.shared`), or null: the data directory alone.
   */
  sharedStore(): ServiceResult<{ store: SharedStore; keepLocal: boolean } | null> {
    const resolved = sharedStoreSettingsOf(this.current, this.flags, this.env);
    if (!resolved.ok) return { ok: false, error: { kind: 'settings', message: resolved.message } };
    if (resolved.settings === null) return { ok: true, value: null };
    const key = JSON.stringify(resolved.settings);
    if (this.opened?.key !== key) {
      this.opened?.store.close();
      this.opened = { key, store: openSharedStore(resolved.settings) };
    }
    return { ok: true, value: { store: this.opened.store, keepLocal: resolved.settings.keepLocal } };
  }

  /** Lets go of the shared store's connections (at the service's close). */
  closeSharedStore(): void {
    this.opened?.store.close();
    this.opened = null;
  }

  /** Private desktops (the defaults of a run's desktop, how they start) and the live view's pace (`--live-fps` wins). */
  desktopSettings(): DesktopSettings {
    return desktopSettingsOf(this.current, this.flags);
  }

  /** "Test connection": the model settings as a form holds them, over the saved ones. */
  candidateModel(model: Partial<ModelSettingsInput>, apiKey?: string): ServiceResult<ModelSettings> {
    const candidate = { ...(this.current.file.model ?? {}), ...model, ...(apiKey !== undefined ? { apiKey } : {}) };
    // What the saved file sets for the family it was written for (a coordinate space, a vendor
    // tool) is not carried over to another family the form chose; what the form itself says stays.
    const family = candidate.family ?? '';
    if (model.coordinates === undefined && coordinatesProblem({ family, coordinates: candidate.coordinates }) !== null) delete candidate.coordinates;
    if (model.computerTool === undefined && computerToolProblem({ family, computerTool: candidate.computerTool }) !== null) delete candidate.computerTool;
    // The family's own key variables and default root (ANTHROPIC_API_KEY, https://api.anthropic.com; GOOGLE_API_KEY or GEMINI_API_KEY, ...).
    const endpoint = endpointOf(candidate.family);
    const settings = ModelSettingsSchema.safeParse({ apiKey: apiKeyFromEnv(endpoint, this.env), baseUrl: endpoint.defaultBaseUrl, ...candidate });
    const problem = settings.success ? modelSettingsProblem(settings.data) : null;
    if (problem !== null) return { ok: false, error: { kind: 'settings', message: `model settings: ${problem}` } };
    return settings.success ? { ok: true, value: settings.data } : { ok: false, error: { kind: 'settings', message: `model settings: ${describeConfigIssues(settings.error.issues)}` } };
  }

  /**
   * The redaction policy of the settings as they are at each use (src/main/settings/redaction.ts),
   * with a run's own flags (another key variable, another URL) over the command line's.
   */
  redaction(overrides: RunFlags = {}): Redactor {
    return Object.keys(overrides).length === 0 ? this.policy : new LiveRedaction(() => this.maskFor(overrides));
  }

  /** A text with the redaction policy applied, for a front end to print (an error message, a path). */
  redact(text: string): string {
    return this.policy.text(text);
  }

  /** A failure with its message masked (what every recipe hands a front end); a success as it is. */
  redacted<T>(result: ServiceResult<T>): ServiceResult<T> {
    return result.ok ? result : { ok: false, error: { ...result.error, message: this.redact(result.error.message) } };
  }

  /** The writer every long-lived store writes through: the process's redaction policy applied. */
  get storeWriter(): StoreWriter {
    return this.writer;
  }

  /**
   * The data directory owner-only before anything reads or writes it: checked once per service; a
   * wide one is tightened, with its contents, and said in one line.
   */
  dataDirReady(): Promise<void> {
    this.privateDataDir ??= keepDataDirPrivate(this.dataDir).then(
      (line) => {
        if (line) this.deps.log?.(line);
      },
      () => undefined,
    );
    return this.privateDataDir;
  }

  private maskFor(overrides: RunFlags): SecretMask {
    const key = JSON.stringify(overrides);
    const storedApiKey = this.deps.storedApiKey?.();
    const built = this.masks.get(key);
    if (built && built.generation === this.generation && built.storedApiKey === storedApiKey) return built.mask;
    const flags = { ...this.flags, ...overrides };
    const settings = runSettingsOf(this.current, flags, this.env, storedApiKey);
    const mask = redactionOf({ file: this.current.file, flags, env: this.env, storedApiKey, settings: settings.ok ? settings.settings : null });
    this.masks.set(key, { generation: this.generation, storedApiKey, mask });
    return mask;
  }
}
