/**
 * Where Mnemo's settings come from: flags, then environment variables (the family's base URL and
 * key variables — OPENAI_BASE_URL and OPENAI_API_KEY for the OpenAI-compatible families,
 * GOOGLE_GEMINI_BASE_URL and GOOGLE_API_KEY or GEMINI_API_KEY for `gemini`, ANTHROPIC_BASE_URL and
 * ANTHROPIC_API_KEY for `anthropic` — or the key variable --api-key-env names, MNEMO_MODEL,
 * MNEMO_DATA_DIR), then the config file (--config, or config.json in the data directory; schema in
 * src/shared/config.ts), then defaults (the family's base URL, if it has one). The file is read
 * once (`loadConfig`); everything else is derived from what was read.
 * A model name the table of known models knows (src/shared/known-models.ts) brings its family,
 * coordinate space and resize when they are not given.
 * Every problem is a message naming its source.
 */
import { DesktopSettingsSchema, type DesktopSettings } from '../../shared/desktop';
import { readFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ConfigFileSchema, describeConfigIssues, type ConfigFile, type ConfirmationRule, type StoreSettings } from '../../shared/config';
import { ModelSettingsSchema, ImageSettingsSchema, DEFAULT_PRICES, apiKeyFromEnv, endpointOf, type ElementsAidMode, type ModelSettings, type PriceTable, type ImageSettings } from '../../shared/settings';
import { knownModel, settingsOfKnownModel } from '../../shared/known-models';
import { MODEL_FAMILIES, modelSettingsProblem, type ComputerToolChoice, type CoordinateSpaceName } from '../../shared/model-families';
import { makePrivateDir, writeJsonAtomically } from '../disk/files';
import { DEFAULT_STORE_SETTINGS } from '../store/store-settings';

export interface RunFlags {
  baseUrl?: string;
  model?: string;
  family?: string;
  modelVersion?: string;
  /** The space the model writes points in (`tools`, `ui-tars`, `pyautogui`). */
  coordinates?: string;
  /** The vendor's computer tool (`anthropic`, `openai-cua`), or `auto`. */
  computerTool?: string;
  /** The elements aid: `off`, `list` or `marks` (model.elements). */
  elements?: string;
  apiKeyEnv?: string;
  maxSteps?: number;
  maxCost?: number;
  dataDir?: string;
  config?: string;
  display?: number;
  /** Keep the shared memory in Redis (env MNEMO_REDIS_URL, memory.redisUrl). */
  redisUrl?: string;
  /** The memory encryption key, read from this file (env MNEMO_MEMORY_KEY, memory.encryption.keyFile). */
  memoryKeyFile?: string;
  /** Frames a second of the live view at most (desktop.liveFps). */
  liveFps?: number;
  /** The shared session store: s3://BUCKET/PREFIX or a folder (env MNEMO_STORE, store.shared; shared-store-settings.ts). */
  store?: string;
}

/** Where the memory key comes from; null: the memory files are not encrypted. */
export type MemoryKeySource = { kind: 'env'; name: string; secret: string } | { kind: 'file'; path: string; from: string } | null;

/** Where the long-lived memory is kept and how it is used (facts, working memory, Redis, the key). */
export interface MemoryStoreSettings {
  dataDir: string;
  redisUrl: string | null;
  redisFallback: 'error' | 'local';
  redisPrefix: string;
  key: MemoryKeySource;
  facts: {
    enabled: boolean;
    promptBudgetTokens: number;
    autoDetect: boolean;
    detectSubjects: string[];
    subjects: Array<{ name: string; promptDescription: string; priorityLevel: number }>;
    profile: { agentName: string; featureName: string; organizationName: string; productName: string };
  };
  working: { enabled: boolean; prompt: string | null };
}

/** The config file as read, and where it and the data directory are. */
export interface LoadedConfig {
  dataDir: string;
  /** The file read (or that would be read: it may not exist). */
  path: string;
  file: ConfigFile;
}

export interface RunSettings {
  model: ModelSettings;
  prices: PriceTable;
  image: ImageSettings;
  dataDir: string;
  maxSteps: number;
  maxCostUsd: number | null;
  maxConsecutiveErrors: number;
  keepScreenshots: number;
  confirmationRules: ConfirmationRule[];
  memory: {
    model: ModelSettings;
    layers: { recentBudget?: number; summaryBudget?: number; budgetUnit?: 'chars' | 'tokens' };
    pruning: { cacheFriendly?: boolean; maxContextTokens?: number };
    /** Tokens per memory section of the system prompt (the facts' is memoryStore.facts.promptBudgetTokens). */
    budgets: { blackboard?: number; conversation?: number; workingMemory?: number };
  };
  store: StoreSettings;
  memoryStore: MemoryStoreSettings;
}

export type SettingsResult = { ok: true; settings: RunSettings } | { ok: false; message: string };
export type ConfigResult = { ok: true; config: LoadedConfig } | { ok: false; message: string };

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MNEMO_DATA_DIR ?? join(homedir(), '.mnemo');
}

export function configPathOf(dataDir: string, configFlag?: string): string {
  return configFlag ? resolve(configFlag) : join(dataDir, 'config.json');
}

/**
 * Reads the config file once. Absent is fine (defaults) unless it was named with --config;
 * unreadable, not JSON, or not matching the schema is a message naming the file.
 */
export async function loadConfig(flags: Pick<RunFlags, 'dataDir' | 'config'>, env: NodeJS.ProcessEnv = process.env): Promise<ConfigResult> {
  const dataDir = resolve(flags.dataDir ?? defaultDataDir(env));
  const path = configPathOf(dataDir, flags.config);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (flags.config === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, config: { dataDir, path, file: {} } };
    return { ok: false, message: `cannot read the config file ${path}: ${(error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `the config file ${path} is not valid JSON: ${(error as Error).message}` };
  }
  const parsed = ConfigFileSchema.safeParse(json);
  if (!parsed.success) return { ok: false, message: `the config file ${path}: ${describeConfigIssues(parsed.error.issues)}` };
  return { ok: true, config: { dataDir, path, file: parsed.data } };
}

export function storeSettingsOf(config: LoadedConfig): StoreSettings {
  return config.file.store ?? DEFAULT_STORE_SETTINGS;
}

/** Private desktops as config.json sets them, the defaults filling the rest; `--live-fps` wins. */
export function desktopSettingsOf(config: LoadedConfig, flags: Pick<RunFlags, 'liveFps'> = {}): DesktopSettings {
  const settings = DesktopSettingsSchema.parse(config.file.desktop ?? {});
  return flags.liveFps !== undefined ? { ...settings, liveFps: flags.liveFps } : settings;
}

export type MemoryStoreResult = { ok: true; settings: MemoryStoreSettings } | { ok: false; message: string };

/**
 * The memory's storage settings: Redis from --redis-url, MNEMO_REDIS_URL or memory.redisUrl; the
 * key from --memory-key-file, MNEMO_MEMORY_KEY, MNEMO_MEMORY_KEY_FILE or memory.encryption.keyFile
 * (relative to the config file); the facts' scopes profile and budgets from the file.
 */
export function memoryStoreSettingsOf(config: LoadedConfig, flags: Pick<RunFlags, 'redisUrl' | 'memoryKeyFile'>, env: NodeJS.ProcessEnv = process.env): MemoryStoreResult {
  const memory = config.file.memory ?? {};
  const set = (name: string) => (env[name]?.trim() ? env[name] : undefined);
  const redisUrl = flags.redisUrl ?? set('MNEMO_REDIS_URL') ?? memory.redisUrl ?? null;
  if (redisUrl !== null && !/^rediss?:\/\/[^\s]+$/.test(redisUrl)) return { ok: false, message: `"${redisUrl}" is not a Redis URL (expected redis://host:port or rediss://host:port)` };
  let key: MemoryKeySource = null;
  if (flags.memoryKeyFile !== undefined) key = { kind: 'file', path: resolve(flags.memoryKeyFile), from: '--memory-key-file' };
  else if (env.MNEMO_MEMORY_KEY !== undefined) key = { kind: 'env', name: 'MNEMO_MEMORY_KEY', secret: env.MNEMO_MEMORY_KEY };
  else if (set('MNEMO_MEMORY_KEY_FILE')) key = { kind: 'file', path: resolve(set('MNEMO_MEMORY_KEY_FILE') as string), from: 'MNEMO_MEMORY_KEY_FILE' };
  else if (memory.encryption?.keyFile) key = { kind: 'file', path: resolve(dirname(config.path), memory.encryption.keyFile), from: `memory.encryption.keyFile in ${config.path}` };
  const facts = memory.facts ?? {};
  const scopes = facts.scopes ?? {};
  return {
    ok: true,
    settings: {
      dataDir: config.dataDir,
      redisUrl,
      redisFallback: memory.redisFallback ?? 'error',
      redisPrefix: memory.redisPrefix ?? 'mnemo',
      key,
      facts: {
        enabled: facts.enabled ?? true,
        promptBudgetTokens: memory.budgets?.facts ?? facts.promptBudgetTokens ?? 600,
        autoDetect: facts.autoDetect ?? true,
        detectSubjects: facts.detectSubjects ?? ['user', 'machine'],
        subjects: facts.subjects ?? [],
        profile: {
          agentName: scopes.agent ?? `mnemo@${hostname()}`,
          featureName: scopes.feature ?? 'desktop',
          organizationName: scopes.organisation ?? 'default',
          productName: scopes.product ?? 'mnemo',
        },
      },
      working: { enabled: memory.working?.enabled ?? true, prompt: memory.working?.prompt ?? null },
    },
  };
}

/**
 * The settings of a run: the model from flags, environment or file, and the rest from the file.
 * `storedApiKey` is the key kept outside the file (the app's keychain), used when no other is set.
 */
export function runSettingsOf(config: LoadedConfig, flags: RunFlags, env: NodeJS.ProcessEnv = process.env, storedApiKey?: string): SettingsResult {
  const { file, dataDir } = config;
  if (flags.apiKeyEnv !== undefined && env[flags.apiKeyEnv] === undefined) {
    return { ok: false, message: `--api-key-env ${flags.apiKeyEnv}: that environment variable is not set` };
  }
  // A variable set to nothing (`OPENAI_BASE_URL=`) counts as not set.
  const fromEnv = (name: string) => (env[name]?.trim() ? env[name] : undefined);
  const modelName = flags.model ?? fromEnv('MNEMO_MODEL') ?? file.model?.model;
  const given = flags.family ?? file.model?.family;
  // A model the table knows brings its family, and its space and resize where the family is its own.
  const known = modelName !== undefined ? knownModel(modelName) : undefined;
  const table = known && (given === undefined || given === known.family) ? settingsOfKnownModel(known) : undefined;
  const family = given ?? table?.family;
  const endpoint = endpointOf(family);
  // A family with an endpoint of its own (anthropic, gemini) does not take the endpoint and key of
  // a config file written for another family.
  const fileFits = endpoint.defaultBaseUrl === undefined || file.model?.family === family;
  const keyFromEnv = apiKeyFromEnv(endpoint, env);
  const apiKey = flags.apiKeyEnv !== undefined ? env[flags.apiKeyEnv] : (keyFromEnv ?? (fileFits ? file.model?.apiKey : undefined) ?? storedApiKey);
  const { baseUrl: fileBaseUrl, apiKey: _fileKey, ...fileModel } = file.model ?? {};
  const candidate = {
    ...(table?.modelVersion && file.model?.modelVersion === undefined ? { modelVersion: table.modelVersion } : {}),
    ...(table?.coordinates && file.model?.coordinates === undefined ? { coordinates: table.coordinates } : {}),
    ...(table?.smartResize && file.model?.smartResize === undefined ? { smartResize: table.smartResize } : {}),
    ...fileModel,
    baseUrl: flags.baseUrl ?? fromEnv(endpoint.baseUrlEnv) ?? (fileFits ? fileBaseUrl : undefined) ?? endpoint.defaultBaseUrl,
    model: modelName,
    family,
    ...(flags.modelVersion !== undefined ? { modelVersion: flags.modelVersion } : {}),
    ...(flags.coordinates !== undefined ? { coordinates: flags.coordinates as CoordinateSpaceName } : {}),
    ...(flags.computerTool !== undefined ? { computerTool: flags.computerTool as ComputerToolChoice } : {}),
    ...(flags.elements !== undefined ? { elements: flags.elements as ElementsAidMode } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
  };
  if (candidate.family === undefined && modelName !== undefined && candidate.baseUrl !== undefined) {
    return {
      ok: false,
      message: `Mnemo does not know the model "${modelName}" (docs/models.md lists the ones it does): give its family with --family (${MODEL_FAMILIES.join(', ')}), or model.family in ${config.path}`,
    };
  }
  const missing = [
    candidate.baseUrl === undefined ? `--base-url (or ${endpoint.baseUrlEnv})` : null,
    candidate.model === undefined ? '--model (or MNEMO_MODEL)' : null,
    candidate.family === undefined ? (modelName !== undefined ? `--family (Mnemo does not know the model "${modelName}")` : '--family') : null,
  ].filter((name): name is string => name !== null);
  if (missing.length > 0) return { ok: false, message: `missing ${missing.join(', ')}; set them as flags, environment variables or in ${config.path}` };
  const problem = modelSettingsProblem({ family: candidate.family as string, coordinates: candidate.coordinates, computerTool: candidate.computerTool });
  if (problem !== null) return { ok: false, message: `model settings: ${problem}` };
  const model = ModelSettingsSchema.safeParse(candidate);
  if (!model.success) return { ok: false, message: `model settings: ${describeConfigIssues(model.error.issues)}` };

  const agent = file.agent ?? {};
  const memory = file.memory ?? {};
  const memoryModel = ModelSettingsSchema.safeParse({ ...model.data, ...memory.model });
  if (!memoryModel.success) return { ok: false, message: `memory.model settings: ${describeConfigIssues(memoryModel.error.issues)}` };
  const defined = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
  const memoryStore = memoryStoreSettingsOf(config, flags, env);
  if (!memoryStore.ok) return memoryStore;
  return {
    ok: true,
    settings: {
      model: model.data,
      prices: { ...DEFAULT_PRICES, ...file.prices },
      image: ImageSettingsSchema.parse(file.image ?? {}),
      dataDir,
      maxSteps: flags.maxSteps ?? agent.maxSteps ?? 50,
      maxCostUsd: flags.maxCost ?? agent.maxCostUsd ?? null,
      maxConsecutiveErrors: agent.maxConsecutiveErrors ?? 3,
      keepScreenshots: agent.keepScreenshots ?? 3,
      confirmationRules: agent.confirmationRules ?? [],
      memory: {
        model: memoryModel.data,
        layers: defined({ recentBudget: memory.recentBudget, summaryBudget: memory.summaryBudget, budgetUnit: memory.budgetUnit }),
        // Anthropic's prompt cache keeps matching only when old screenshots go in chunks, not one a step.
        pruning: defined({ cacheFriendly: memory.cacheFriendly ?? (model.data.family === 'anthropic' ? true : undefined), maxContextTokens: memory.maxContextTokens }),
        budgets: defined({ blackboard: memory.budgets?.blackboard, conversation: memory.budgets?.conversation, workingMemory: memory.budgets?.workingMemory }),
      },
      store: storeSettingsOf(config),
      memoryStore: memoryStore.settings,
    },
  };
}

/** Reads the config file and resolves a run's settings from it, the flags and the environment. */
export async function resolveRunSettings(flags: RunFlags, env: NodeJS.ProcessEnv = process.env): Promise<SettingsResult> {
  const config = await loadConfig(flags, env);
  return config.ok ? runSettingsOf(config.config, flags, env) : config;
}

/**
 * Writes the settings file (the app's Settings view saves here, and the CLI reads the same file):
 * checked against the schema first, written atomically, and read back as the new config.
 */
export async function saveConfig(config: LoadedConfig, file: unknown): Promise<ConfigResult> {
  const parsed = ConfigFileSchema.safeParse(file);
  if (!parsed.success) return { ok: false, message: `the settings are not valid: ${describeConfigIssues(parsed.error.issues)}` };
  try {
    // Owner-only (it holds keys): a folder made for it is 0700, wherever the user keeps it; one that exists is theirs.
    await makePrivateDir(dirname(config.path), { recursive: true });
    await writeJsonAtomically(config.path, parsed.data);
  } catch (error) {
    return { ok: false, message: `cannot write the settings to ${config.path}: ${(error as Error).message}` };
  }
  return { ok: true, config: { ...config, file: parsed.data } };
}
