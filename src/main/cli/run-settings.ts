/**
 * Where `mnemo run` gets its settings: flags, then environment variables (OPENAI_BASE_URL,
 * OPENAI_API_KEY or the one --api-key-env names, MNEMO_MODEL), then a config file (--config, or
 * config.json in the data directory), then defaults. Every problem is a message naming the source.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { ModelSettingsSchema, PriceTableSchema, ImageSettingsSchema, DEFAULT_PRICES, type ModelSettings, type PriceTable, type ImageSettings } from '../../shared/settings';
import { ConfirmationRuleSchema, type ConfirmationRule } from '../agent/confirmation';

export const ConfigFileSchema = z.object({
  model: ModelSettingsSchema.partial().optional(),
  prices: PriceTableSchema.optional(),
  image: ImageSettingsSchema.partial().optional(),
  /** The memory model (defaults to the main one; a cheaper one is a good choice) and budgets. */
  memory: z
    .object({
      model: ModelSettingsSchema.partial().optional(),
      recentBudget: z.number().int().positive().optional(),
      summaryBudget: z.number().int().positive().optional(),
      budgetUnit: z.enum(['chars', 'tokens']).optional(),
      cacheFriendly: z.boolean().optional(),
      maxContextTokens: z.number().int().positive().optional(),
    })
    .optional(),
  agent: z
    .object({
      maxSteps: z.number().int().positive().optional(),
      maxCostUsd: z.number().positive().nullable().optional(),
      maxConsecutiveErrors: z.number().int().positive().optional(),
      keepScreenshots: z.number().int().positive().optional(),
      confirmationRules: z.array(ConfirmationRuleSchema).optional(),
    })
    .optional(),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

export interface RunFlags {
  baseUrl?: string;
  model?: string;
  family?: string;
  modelVersion?: string;
  apiKeyEnv?: string;
  maxSteps?: number;
  maxCost?: number;
  dataDir?: string;
  config?: string;
  display?: number;
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
  };
}

export type SettingsResult = { ok: true; settings: RunSettings } | { ok: false; message: string };

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MNEMO_DATA_DIR ?? join(homedir(), '.mnemo');
}

async function readConfig(path: string, required: boolean): Promise<{ ok: true; config: ConfigFile } | { ok: false; message: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, config: {} };
    return { ok: false, message: `cannot read the config file ${path}: ${(error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `the config file ${path} is not valid JSON: ${(error as Error).message}` };
  }
  const parsed = ConfigFileSchema.safeParse(json);
  if (!parsed.success) return { ok: false, message: `the config file ${path}: ${describeIssues(parsed.error.issues)}` };
  return { ok: true, config: parsed.data };
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
}

export async function resolveRunSettings(flags: RunFlags, env: NodeJS.ProcessEnv = process.env): Promise<SettingsResult> {
  const dataDir = resolve(flags.dataDir ?? defaultDataDir(env));
  const config = await readConfig(flags.config ? resolve(flags.config) : join(dataDir, 'config.json'), flags.config !== undefined);
  if (!config.ok) return config;
  const file = config.config;

  if (flags.apiKeyEnv !== undefined && env[flags.apiKeyEnv] === undefined) {
    return { ok: false, message: `--api-key-env ${flags.apiKeyEnv}: that environment variable is not set` };
  }
  const apiKey = flags.apiKeyEnv !== undefined ? env[flags.apiKeyEnv] : (env.OPENAI_API_KEY ?? file.model?.apiKey);
  const candidate = {
    ...file.model,
    baseUrl: flags.baseUrl ?? env.OPENAI_BASE_URL ?? file.model?.baseUrl,
    model: flags.model ?? env.MNEMO_MODEL ?? file.model?.model,
    family: flags.family ?? file.model?.family,
    ...(flags.modelVersion !== undefined ? { modelVersion: flags.modelVersion } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
  };
  const missing = [
    candidate.baseUrl === undefined ? '--base-url (or OPENAI_BASE_URL)' : null,
    candidate.model === undefined ? '--model (or MNEMO_MODEL)' : null,
    candidate.family === undefined ? '--family' : null,
  ].filter((name): name is string => name !== null);
  if (missing.length > 0) return { ok: false, message: `missing ${missing.join(', ')}; set them as flags, environment variables or in ${join(dataDir, 'config.json')}` };
  const model = ModelSettingsSchema.safeParse(candidate);
  if (!model.success) return { ok: false, message: `model settings: ${describeIssues(model.error.issues)}` };

  const agent = file.agent ?? {};
  const memory = file.memory ?? {};
  const memoryModel = ModelSettingsSchema.safeParse({ ...model.data, ...memory.model });
  if (!memoryModel.success) return { ok: false, message: `memory.model settings: ${describeIssues(memoryModel.error.issues)}` };
  const defined = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
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
        pruning: defined({ cacheFriendly: memory.cacheFriendly, maxContextTokens: memory.maxContextTokens }),
      },
    },
  };
}
