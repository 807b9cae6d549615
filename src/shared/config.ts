/**
 * `config.json`, the one settings file the CLI, `mnemo serve` and the app read and write: the
 * model, prices, the image sent, the memory model and budgets, the agent's limits and
 * confirmation rules, and the session store. One zod schema, here in `shared/` so the app's
 * Settings view validates what it saves with the same rules the CLI reads it with.
 */
import { z } from 'zod';
import { DesktopSettingsSchema } from './desktop';
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
    /**
     * A shared session store: `s3://BUCKET/PREFIX` or a folder on a shared mount (`--store`,
     * env MNEMO_STORE win). Sessions go there after their run and are read from there.
     */
    shared: z.string().min(1).nullable().optional(),
    /** Keep a session's local copy after the store has all of it (default: removed once verified). */
    keepLocal: z.boolean().optional(),
    /** The S3 client for `s3://` stores; the AWS variables win (AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, AWS_REGION). */
    s3: z
      .object({
        /** An S3-compatible server, e.g. http://127.0.0.1:9000. */
        endpoint: z.url().optional(),
        region: z.string().min(1).optional(),
        /** Bucket in the path (http://host/bucket/key); default: on when an endpoint is set. */
        pathStyle: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type StoreSettings = z.output<typeof StoreSettingsSchema>;

/** A custom memory subject (besides user, machine and everything); lower priority = more specific. */
export const MemorySubjectConfigSchema = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_-]{0,40}$/, 'lower-case letters, digits, - and _, starting with a letter'),
  promptDescription: z.string().min(1),
  priorityLevel: z.number().int().min(0),
});

/** Facts (seed 001): the scopes profile, the prompt budget, auto-detection, custom subjects. */
export const FactsConfigSchema = z
  .object({
    /** Keep facts at all (default true). */
    enabled: z.boolean().optional(),
    /** Estimated tokens the facts may take in a task's prompt (default 600). */
    promptBudgetTokens: z.number().int().positive().optional(),
    /** Pick facts out of each run with the memory model (default true). */
    autoDetect: z.boolean().optional(),
    /** The subjects auto-detection looks for (default ["user", "machine"]). */
    detectSubjects: z.array(z.string()).optional(),
    subjects: z.array(MemorySubjectConfigSchema).optional(),
    /** The names scopes are made of (the seed's profile): agent (default mnemo@<host>), feature, organisation, product. */
    scopes: z
      .object({ agent: z.string().min(1), feature: z.string().min(1), organisation: z.string().min(1), product: z.string().min(1) })
      .partial()
      .strict()
      .optional(),
  })
  .strict();

/** Working memory (seed 002): one summary per conversation, rewritten after each task. */
export const WorkingMemoryConfigSchema = z
  .object({
    enabled: z.boolean().optional(),
    /** A system prompt instead of the default one. */
    prompt: z.string().min(1).optional(),
  })
  .strict();

export const MemoryConfigSchema = z.object({
  /** The memory model (defaults to the main one; a cheaper one is a good choice). */
  model: ModelSettingsSchema.partial().optional(),
  /** Keep the blackboard, facts, working memory and conversations in Redis (shared by machines). */
  redisUrl: z.string().optional(),
  /** Redis unreachable at start: `error` (default) refuses, `local` uses the data directory with a warning. */
  redisFallback: z.enum(['error', 'local']).optional(),
  /** The first part of every Redis key (default "mnemo"). */
  redisPrefix: z.string().regex(/^[\w.-]+$/).optional(),
  /**
   * Encryption at rest of the local memory files: the key file (or MNEMO_MEMORY_KEY,
   * --memory-key-file); `keychain: true` lets the app keep a key of its own in the OS keychain
   * (the CLI then needs that key given another way to read the same memory).
   */
  encryption: z.object({ keyFile: z.string().min(1).optional(), keychain: z.boolean().optional() }).strict().optional(),
  facts: FactsConfigSchema.optional(),
  working: WorkingMemoryConfigSchema.optional(),
  /**
   * Estimated tokens each memory section may take in the system prompt (defaults: blackboard
   * 600, conversation 300, workingMemory 300, facts 600). What does not fit stays in memory: the
   * section shows the most recent and the most relevant entries and says how many it left out.
   */
  budgets: z
    .object({
      blackboard: z.number().int().min(100),
      conversation: z.number().int().min(100),
      workingMemory: z.number().int().min(50),
      facts: z.number().int().min(50),
    })
    .partial()
    .strict()
    .optional(),
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

/** A provider's share of requests, one limit for every worker of the queue: at most `max` requests in any `durationMs`. */
export const ProviderRateLimitSchema = z.object({ max: z.number().int().positive(), durationMs: z.number().int().positive() }).strict();
export type ProviderRateLimit = z.infer<typeof ProviderRateLimitSchema>;

/** Batches on a BullMQ queue (docs/batch.md, "Many machines"): where it is and what every worker of it shares. */
export const QueueSettingsSchema = z
  .object({
    /** redis://HOST:PORT (`--queue` wins). */
    url: z.string().min(1).optional(),
    /** Model requests per provider (the base URL's host, e.g. `api.openai.com`), shared by every worker of the queue. */
    rateLimit: z.record(z.string().min(1), ProviderRateLimitSchema).optional(),
    /** A worker that holds a job this long without a word has stalled: the job goes to another worker (BullMQ's lock; default 30000). */
    stalledAfterMs: z.number().int().min(1000).optional(),
    /** The first retry's wait; each next one doubles it (default 5000). */
    backoffMs: z.number().int().nonnegative().optional(),
  })
  .strict();
export type QueueSettings = z.infer<typeof QueueSettingsSchema>;

export const ConfigFileSchema = z.object({
  model: ModelSettingsSchema.partial().optional(),
  prices: PriceTableSchema.optional(),
  image: ImageSettingsSchema.partial().optional(),
  memory: MemoryConfigSchema.optional(),
  agent: AgentConfigSchema.optional(),
  store: StoreSettingsSchema.optional(),
  /** Private desktops: the Run form's defaults, how they start, the live view's pace. */
  desktop: DesktopSettingsSchema.partial().optional(),
  /** Batches on a BullMQ queue: its URL, the rate limits per provider, the stall time. */
  queue: QueueSettingsSchema.optional(),
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
