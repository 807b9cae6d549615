/**
 * What the app asks of the run service, whichever shell it runs in: the payloads of the IPC
 * commands (src/shared/contract.ts) and of the browser API (`mnemo serve`, src/main/server/),
 * declared once with zod. The renderer speaks only these shapes (src/renderer/src/api/).
 */
import { z } from 'zod';
import { AskKindSchema } from './events';
import { ConfigFileSchema } from './config';
import { parseAction, type Action } from './actions';
import { DesktopRequestSchema, RunDesktopSchema } from './desktop';
import { COORDINATE_SPACES } from './model-families';
import { ParamNameSchema, ProposedParamSchema, WorkflowListingSchema, WorkflowNameSchema, WorkflowSummarySchema } from './workflow';

export const StartRunSchema = z.object({
  task: z.string().trim().min(1, 'the task is empty'),
  /** Continue this conversation (a follow-up task). */
  conversationId: z.string().min(1).optional(),
  /** A private desktop for the run (`{"private": true, "size": "WxH", "apps": [...]}`); absent: the user's display. */
  desktop: DesktopRequestSchema.optional(),
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
  /** Where to replay; absent: the desktop the session recorded (a private one is started the same again). */
  desktop: DesktopRequestSchema.optional(),
});

/** What a workflow run does at a step no evidence found (src/main/replay/policy.ts, WORKFLOW_POLICIES). */
export const WorkflowPolicySchema = ReplayPolicySchema.extract(['stop', 'reground']);
export type WorkflowPolicy = z.infer<typeof WorkflowPolicySchema>;

/** Runs a saved workflow with new values: every parameter's value (a secret's too: it is typed, never recorded). */
export const StartWorkflowRunSchema = z.object({
  name: WorkflowNameSchema,
  values: z.record(z.string(), z.string()).default({}),
  policy: WorkflowPolicySchema.default('stop'),
  /** Recorded waits divided by this; 0: none. */
  speed: z.number().min(0).max(100).default(1),
});
export type StartWorkflowRun = z.infer<typeof StartWorkflowRunSchema>;

/**
 * Saves a session as a workflow (`mnemo workflow save`): each parameter's value, wherever it was
 * typed, becomes `{{name}}`; a secret given without a value takes the next text the recording
 * masked. No parameters and no `autoParams`: the values stay as recorded (and are proposed).
 */
export const SaveWorkflowSchema = z.object({
  session: z.string().min(1),
  name: WorkflowNameSchema,
  params: z.array(z.object({ name: ParamNameSchema, value: z.string().optional(), secret: z.boolean().default(false) })).default([]),
  autoParams: z.boolean().default(false),
});
export type SaveWorkflow = z.infer<typeof SaveWorkflowSchema>;

export const SavedWorkflowSchema = z.object({
  workflow: WorkflowSummarySchema,
  /** An existing workflow of that name was replaced. */
  replaced: z.boolean(),
  /** The values typed, as parameters (what `autoParams` takes). */
  proposed: z.array(ProposedParamSchema),
});

/** A file made by `mnemo workflow export` (or the export command), imported under its name or `name`. */
export const ImportWorkflowSchema = z.object({
  file: z.record(z.string(), z.unknown()),
  name: WorkflowNameSchema.optional(),
  /** Replace a workflow of the same name (else the name taken is a conflict). */
  replace: z.boolean().default(false),
});

/** Starts a demonstration (`mnemo teach`): the user does the task by hand on the display, recorded as a session. */
export const StartTeachSchema = z.object({
  /** What the user will do, in words: the session's task (and the workflow's description once saved). */
  task: z.string().trim().min(1, 'say what you will do'),
  /** The display (an index, as runs take it) whose screen the steps show; absent: the primary. */
  display: z.number().int().nonnegative().optional(),
});
export type StartTeach = z.infer<typeof StartTeachSchema>;

export const WorkflowsListSchema = z.object({
  workflows: z.array(WorkflowListingSchema),
  /** Folders under workflows/ that do not read as a workflow, with why. */
  damaged: z.array(z.object({ name: z.string(), message: z.string() })),
});

export const PendingQuestionSchema = z.object({ id: z.number(), kind: AskKindSchema, question: z.string() });

/** What a live run is doing: `taken over` while the user has it (between takeover and hand-back). */
export const LiveStatusSchema = z.enum(['running', 'paused', 'taken over', 'asking']);
export type LiveStatus = z.infer<typeof LiveStatusSchema>;
/** What a run is: a task for the model, a replay of a session, a saved workflow run with new values. */
/** What a live run is: a task, a replay, a workflow run, or a demonstration the user gives (`mnemo teach`). */
export const RunKindSchema = z.enum(['run', 'replay', 'workflow', 'teach']);
export type RunKind = z.infer<typeof RunKindSchema>;

/** The run going on, as a window that opens needs it. */
export const RunStateSchema = z.object({
  id: z.string(),
  kind: RunKindSchema,
  task: z.string(),
  paused: z.boolean(),
  conversationId: z.string().nullable(),
  pendingQuestion: PendingQuestionSchema.nullable(),
  status: LiveStatusSchema,
  desktop: RunDesktopSchema,
});
export type RunState = z.infer<typeof RunStateSchema>;

/** One of the runs going on (`GET /api/runs`). */
export const LiveRunSchema = z.object({
  id: z.string(),
  kind: RunKindSchema,
  task: z.string(),
  status: LiveStatusSchema,
  desktop: RunDesktopSchema,
});
export type LiveRunItem = z.infer<typeof LiveRunSchema>;

/** One action of the user's during a takeover, in the shared wire format, in pixels of the run's display. */
export const InputSchema = z.object({
  action: z.unknown().transform((value, ctx): Action => {
    const parsed = parseAction(value);
    if (parsed.ok) return parsed.action;
    ctx.addIssue({ code: 'custom', message: parsed.message });
    return z.NEVER;
  }),
});

/** Handing a run back, with a note for the agent. */
export const HandbackSchema = z.object({ note: z.string().max(4000).optional() });

/** What an input did: the user's step and its result. */
export const InputResultSchema = z.object({ step: z.number().int().positive(), result: z.unknown() });

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
  /** The shared session store it is read from (`s3://bucket/prefix`, a folder); absent: this machine's data directory. */
  store: z.string().optional(),
  /** In this machine's data directory, waiting for its upload to the shared store (one that could not be reached, an upload cut off). */
  waitingForUpload: z.literal(true).optional(),
  /** The desktop it ran on, as session.json records it; absent for a session recorded before that was kept. */
  desktop: RunDesktopSchema.optional(),
  /** The batch it is a row of (`mnemo batch`): the batch's id and the row's number, from 1. */
  batch: z.object({ id: z.string(), row: z.number().int() }).optional(),
});
export type SessionListItem = z.infer<typeof SessionListItemSchema>;

/** The settings as saved, as the Settings view edits them: the config file without the API key itself. */
export const SavedSettingsSchema = z.object({
  config: ConfigFileSchema,
  /** An API key is stored (in the OS keychain, or in the config file where no keychain can keep it). */
  hasApiKey: z.boolean(),
  dataDir: z.string(),
  configPath: z.string(),
  /** Where a key saved here is kept, in words (the doctor's `key store` line): the OS keychain, or config.json and why. */
  keyStore: z.object({ status: z.enum(['ok', 'warn']), detail: z.string(), fix: z.string() }).optional(),
  /** What a save did that the user should know: a key moved out of config.json, or kept there for want of a keychain. */
  notice: z.string().optional(),
});
export type SavedSettings = z.infer<typeof SavedSettingsSchema>;

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

/** "Check grounding": the grounding check with the model settings as they are in the form. */
export const CheckGroundingSchema = CheckProviderSchema.extend({
  /** How many targets (model calls); default 5. */
  targets: z.number().int().min(1).max(20).optional(),
});

const CoordinateSpaceSchema = z.enum(COORDINATE_SPACES);
const PointSchema = z.object({ x: z.number(), y: z.number() });
const SizeSchema = z.object({ width: z.number(), height: z.number() });

/** What `mnemo check-model --grounding --json` prints. */
export const GroundingReportSchema = z.object({
  configured: CoordinateSpaceSchema,
  detected: CoordinateSpaceSchema,
  targets: z.number().int(),
  hits: z.object(Object.fromEntries(COORDINATE_SPACES.map((space) => [space, z.number().int()])) as Record<(typeof COORDINATE_SPACES)[number], z.ZodNumber>),
  meanErrorPx: z.number().nullable(),
  samples: z.array(z.object({ target: PointSchema.extend(SizeSchema.shape), answer: PointSchema.nullable() })),
});
export type GroundingReportView = z.infer<typeof GroundingReportSchema>;

export const GroundingCheckResultSchema = z.union([
  z.object({
    ok: z.literal(true),
    report: GroundingReportSchema,
    configuredMeanErrorPx: z.number().nullable(),
    image: SizeSchema,
    screen: SizeSchema,
    fix: z.object({ flag: z.string(), config: z.string() }).nullable(),
    note: z.string().optional(),
  }),
  z.object({ ok: z.literal(false), message: z.string(), status: z.number().optional() }),
]);
export type GroundingCheckResult = z.infer<typeof GroundingCheckResultSchema>;

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
export const FactJsonSchema = z.object({
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
export type FactJson = z.infer<typeof FactJsonSchema>;

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
export const FactToSaveSchema = z.object({
  subject: z.string().min(1),
  scope: z.string().min(1),
  keyword: z.string().trim().min(1, 'the keyword is empty'),
  description: z.string().default(''),
  values: z.array(z.string()).min(1, 'a fact needs a value'),
  multiple: z.boolean().optional(),
});
export type FactToSave = z.input<typeof FactToSaveSchema>;

/** A conversation's working memory (one summary the model rewrites after each task). */
export const WorkingMemorySchema = z.object({
  conversationId: z.string(),
  memory: z.string(),
  /** Milliseconds since the epoch. */
  updatedAt: z.number(),
});
export type WorkingMemory = z.infer<typeof WorkingMemorySchema>;
