/**
 * What the app asks of the run service, whichever shell it runs in: the payloads of the IPC
 * commands (src/shared/contract.ts) and of the browser API (`mnemo serve`, src/main/server/),
 * declared once with zod. The renderer speaks only these shapes (src/renderer/src/api/).
 */
import { z } from 'zod';
import { AskKindSchema } from './events';
import { ConfigFileSchema } from './config';

export const StartRunSchema = z.object({
  task: z.string().trim().min(1, 'the task is empty'),
  /** Continue this conversation (a follow-up task). */
  conversationId: z.string().min(1).optional(),
});
export type StartRun = z.infer<typeof StartRunSchema>;

export const StartedSchema = z.object({ id: z.string(), conversationId: z.string().nullable().optional() });

export const AnswerSchema = z.object({
  text: z.string(),
  /** The question's id (the `seq` of its ask-user event); absent: the question waiting now. */
  questionId: z.number().int().positive().optional(),
});

export const ReplayPolicySchema = z.enum(['stop', 'ask', 'reground']);
export type ReplayPolicy = z.infer<typeof ReplayPolicySchema>;
export const StartReplaySchema = z.object({
  session: z.string().min(1),
  policy: ReplayPolicySchema.default('stop'),
  /** Recorded pauses divided by this; 0: no pauses. */
  speed: z.number().min(0).max(100).default(1),
});

export const PendingQuestionSchema = z.object({ id: z.number(), kind: AskKindSchema, question: z.string() });

/** The run going on, as a window that opens needs it. */
export const RunStateSchema = z.object({
  id: z.string(),
  kind: z.enum(['run', 'replay']),
  task: z.string(),
  paused: z.boolean(),
  conversationId: z.string().nullable(),
  pendingQuestion: PendingQuestionSchema.nullable(),
});
export type RunState = z.infer<typeof RunStateSchema>;

/** One recorded session in a list (what `mnemo sessions --json` prints, plus a little). */
export const SessionListItemSchema = z.object({
  id: z.string(),
  task: z.string(),
  status: z.string(),
  /** ISO 8601. */
  startedAt: z.string(),
  steps: z.number(),
  /** US dollars. */
  cost: z.number(),
  /** The sample session Mnemo ships, to explore before configuring a provider. */
  sample: z.literal(true).optional(),
});
export type SessionListItem = z.infer<typeof SessionListItemSchema>;

/** The settings as the Settings view edits them: the config file without the API key itself. */
export const SettingsViewSchema = z.object({
  config: ConfigFileSchema,
  /** An API key is stored (in the keychain in the app, in the config file in browser mode). */
  hasApiKey: z.boolean(),
  dataDir: z.string(),
  configPath: z.string(),
});
export type SettingsView = z.infer<typeof SettingsViewSchema>;

export const SaveSettingsSchema = z.object({
  config: ConfigFileSchema,
  /** A new API key; absent keeps the stored one; empty removes it. */
  apiKey: z.string().optional(),
});
export type SaveSettings = z.infer<typeof SaveSettingsSchema>;

/** "Test connection": the provider check with the model settings as they are in the form. */
export const CheckProviderSchema = z.object({
  model: ConfigFileSchema.shape.model.optional(),
  apiKey: z.string().optional(),
});

/** One check of `mnemo doctor`, as the Settings view lists it. */
export const DoctorCheckSchema = z.object({ check: z.string(), status: z.enum(['ok', 'warn', 'fail']), detail: z.string(), fix: z.string() });
export type DoctorCheck = z.infer<typeof DoctorCheckSchema>;

export const ProviderCheckResultSchema = z.union([
  z.object({ ok: z.literal(true), latencyMs: z.number(), imageAccepted: z.boolean(), reply: z.string(), note: z.string().optional() }),
  z.object({ ok: z.literal(false), message: z.string(), status: z.number().optional() }),
]);
export type ProviderCheckResult = z.infer<typeof ProviderCheckResultSchema>;

// ── the long-lived memory: facts and working memory (the Memory view) ──────────────────────────

/** One version of a fact that a newer one superseded. */
export const FactVersionSchema = z.object({
  values: z.array(z.string()),
  description: z.string(),
  /** Milliseconds since the epoch. */
  timestamp: z.number(),
  /** The session of the run that taught this version; absent when a person saved it. */
  sessionId: z.string().optional(),
});

/** A fact as `mnemo facts list --json` prints it, with the versions it superseded. */
export const FactSchema = z.object({
  id: z.string(),
  subject: z.string(),
  scope: z.string(),
  keyword: z.string(),
  description: z.string(),
  factType: z.enum(['single', 'multiple']),
  values: z.array(z.string()),
  timestamp: z.number(),
  /** The session of the run that taught the current value; absent when a person saved it. */
  sessionId: z.string().optional(),
  /** How well it matches a search (BM25), in search answers only. */
  score: z.number().optional(),
  history: z.array(FactVersionSchema).optional(),
});
export type Fact = z.infer<typeof FactSchema>;

/** Which facts: any subject or scope when absent (an empty string counts as absent). */
export const FactQuerySchema = z.object({
  subject: z.string().optional(),
  scope: z.string().optional(),
});
export type FactQuery = z.infer<typeof FactQuerySchema>;

export const FactSearchSchema = FactQuerySchema.extend({
  text: z.string().trim().min(1, 'the search text is empty'),
  limit: z.number().int().positive().max(200).optional(),
});
export type FactSearch = z.infer<typeof FactSearchSchema>;

/**
 * A fact to save, as a person gives it. Its identity is (subject, scope, keyword): saving one that
 * exists with a new value supersedes a SINGLE fact's value (the old one stays in its history) and
 * adds to a MULTIPLE fact's values.
 */
export const SaveFactSchema = z.object({
  subject: z.string().min(1),
  scope: z.string().min(1),
  keyword: z.string().trim().min(1, 'the keyword is empty'),
  description: z.string().default(''),
  values: z.array(z.string()).min(1, 'a fact needs a value'),
  multiple: z.boolean().optional(),
});
export type SaveFact = z.input<typeof SaveFactSchema>;

/** A conversation's working memory (one summary the model rewrites after each task). */
export const WorkingMemorySchema = z.object({
  conversationId: z.string(),
  memory: z.string(),
  /** Milliseconds since the epoch. */
  updatedAt: z.number(),
});
export type WorkingMemory = z.infer<typeof WorkingMemorySchema>;
