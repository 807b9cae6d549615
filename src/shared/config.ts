/**
 * `config.json`, the one settings file the CLI, `mnemo serve` and the app read and write: the
 * model, prices, the image sent, the memory model and budgets, the agent's limits and
 * confirmation rules, and the session store. One zod schema, here in `shared/` so the app's
 * Settings view validates what it saves with the same rules the CLI reads it with.
 */
import { z } from 'zod';
import { ImageSettingsSchema, ModelSettingsSchema, PriceTableSchema } from './settings';

export const ConfirmationRuleSchema = z.object({
  /** Shown to the user: why this needs a yes. */
  reason: z.string().optional(),
  /** Action types the rule applies to; any when omitted. */
  types: z.array(z.string()).optional(),
  /** Matches a hotkey/key action that includes every one of these keys, or typed text ending in Enter for "enter". */
  keys: z.array(z.string()).optional(),
  /** A regular expression (case-insensitive) the typed text must match. */
  textMatches: z.string().optional(),
  /** The focused window's title must contain this (case-insensitive). */
  windowTitleContains: z.string().optional(),
});
export type ConfirmationRule = z.infer<typeof ConfirmationRuleSchema>;

/** How long sessions are kept and what is recorded. A GB is 10^9 bytes. */
export const StoreSettingsSchema = z
  .object({
    /** Delete sessions that started more than this many days ago; null or absent: keep them. */
    retentionDays: z.number().positive().nullable().default(null),
    /** Delete the oldest sessions while all of them together take more than this; null: no limit. */
    retentionGb: z.number().positive().nullable().default(null),
    /** Also save each capture at full resolution (PNG) next to the model-ready image. */
    keepFullResolution: z.boolean().default(false),
    /** Warn before a run when the disk holding the data directory has less free than this (MB, 10^6 bytes); 0: never. */
    minFreeMb: z.number().nonnegative().default(200),
  })
  .strict();
export type StoreSettings = z.output<typeof StoreSettingsSchema>;

export const MemoryConfigSchema = z.object({
  /** The memory model (defaults to the main one; a cheaper one is a good choice). */
  model: ModelSettingsSchema.partial().optional(),
  recentBudget: z.number().int().positive().optional(),
  summaryBudget: z.number().int().positive().optional(),
  budgetUnit: z.enum(['chars', 'tokens']).optional(),
  cacheFriendly: z.boolean().optional(),
  maxContextTokens: z.number().int().positive().optional(),
});

export const AgentConfigSchema = z.object({
  maxSteps: z.number().int().positive().optional(),
  maxCostUsd: z.number().positive().nullable().optional(),
  maxConsecutiveErrors: z.number().int().positive().optional(),
  keepScreenshots: z.number().int().positive().optional(),
  confirmationRules: z.array(ConfirmationRuleSchema).optional(),
});

export const ConfigFileSchema = z.object({
  model: ModelSettingsSchema.partial().optional(),
  prices: PriceTableSchema.optional(),
  image: ImageSettingsSchema.partial().optional(),
  memory: MemoryConfigSchema.optional(),
  agent: AgentConfigSchema.optional(),
  store: StoreSettingsSchema.optional(),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** Problems of a zod parse as one line: `agent.maxSteps: Too small...; model.baseUrl: ...`. */
export function describeConfigIssues(issues: readonly z.core.$ZodIssue[], prefix = ''): string {
  return issues
    .map((issue) => {
      const path = [...issue.path.map(String), ...(issue.code === 'unrecognized_keys' ? [issue.keys.join(', ')] : [])].join('.');
      return `${prefix}${path || '(root)'}: ${issue.message}`;
    })
    .join('; ');
}
