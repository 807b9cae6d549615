/**
 * What a run tells the world, step by step: one zod discriminated union, from which the types are
 * inferred. The loop and the replayer emit these events; the recorder appends them to the session
 * record; the terminal view, `mnemo run --json`, the IPC event channel and the browser's event
 * stream carry them unchanged; the session reader validates them with this same schema.
 *
 * Every event carries `seq`: 1 for a session's first event, then +1 per event, no gaps, so a
 * window opened mid-run can ask for "everything after seq N" and then follow the live events
 * without missing or repeating one. Screenshots travel by reference, never as pixels.
 */
import { z } from 'zod';
import { ActionSchema } from './actions';
import { ActionResultSchema } from './action-result';
import { FrameSchema } from './frame';
import { MemoryChangeSchema } from './memory';
import { fitsAsIs, quickParse } from './quick-check';
import { WorkflowDecisionSchema, WorkflowFinderSchema, WorkflowRunInfoSchema } from './workflow-run';

/** A screenshot saved by the recorder: where it is, never its bytes. */
export const ScreenshotRefSchema = z.object({
  /** Stable id within the session, e.g. `step-0003`. */
  id: z.string(),
  /** Path relative to the session folder: no `..`, not absolute. */
  path: z
    .string()
    .min(1)
    // Not absolute, and no `..` part (a test, not a split: a long session has thousands of these).
    .refine((path) => !/^([\\/]|[A-Za-z]:)/.test(path) && !/(^|[\\/])\.\.([\\/]|$)/.test(path), 'the screenshot path must stay inside the session folder'),
  width: z.number(),
  height: z.number(),
  mime: z.enum(['image/jpeg', 'image/png']),
});
export type ScreenshotRef = z.infer<typeof ScreenshotRefSchema>;

export const UsageSummarySchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number(),
});
export type UsageSummary = z.infer<typeof UsageSummarySchema>;

export const RUN_STATUSES = [
  /** The model said the task is done. */
  'finished',
  /** The model gave up, errors piled up, the provider or the display failed, the record could not be written. */
  'failed',
  /** The same action on an unchanged screen, again and again. */
  'stuck',
  /** Max steps or max cost reached. */
  'limit',
  /** The user stopped it: Ctrl+C, the stop button, the fail-safe corner. */
  'aborted',
  /** The user refused a sensitive action or a safety check. */
  'refused',
] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const AskKindSchema = z.enum(['question', 'confirmation', 'safety_check']);
export type AskKind = z.infer<typeof AskKindSchema>;

/** Where the time of a step went (milliseconds); absent parts did not happen. */
export const StepTimingsSchema = z.object({
  observe: z.number().optional(),
  model: z.number().optional(),
  act: z.number().optional(),
  settle: z.number().optional(),
});
export type StepTimings = z.infer<typeof StepTimingsSchema>;

/**
 * What went wrong in a step, as a `model-error` event says it (the name is the wire's: it carries
 * capture and replay errors too): the screen could not be captured (`capture`); the model's reply
 * could not be read as actions (`parse`); the provider answered with an HTTP error (`http`), did
 * not answer in time (`timeout`), could not be reached or dropped the connection (`network`),
 * refused the key (`auth`), has no such endpoint or model (`not_found`); the call was cancelled
 * (`aborted`); an action failed on the desktop (`action`); the session could not be recorded
 * (`record`); a replay could not find a diverged step's target again (`reground`). `other` is what
 * the reader makes of a kind it does not know (a record of another version), keeping the recorded
 * word in the message.
 */
export const STEP_ERROR_KINDS = ['capture', 'parse', 'http', 'timeout', 'network', 'auth', 'not_found', 'aborted', 'action', 'record', 'reground', 'other'] as const;
export const StepErrorKindSchema = z.enum(STEP_ERROR_KINDS);
export type StepErrorKind = z.infer<typeof StepErrorKindSchema>;

const base = {
  runId: z.string(),
  /** Milliseconds since the epoch. */
  at: z.number(),
  /** 1 for the session's first event, +1 per event. */
  seq: z.number().int().positive(),
};
const stepNumber = z.number().int().nonnegative();
/** Who did a step: the agent (absent: the agent), or the user, by hand, while the run was taken over or in a demonstration. */
export const ActorSchema = z.enum(['agent', 'user']);
export type Actor = z.infer<typeof ActorSchema>;
const inStep = { ...base, step: stepNumber, actor: ActorSchema.optional() };

export const AgentEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('run-started'),
    task: z.string(),
    model: z.string(),
    family: z.string(),
    limits: z.object({ maxSteps: z.number(), maxCostUsd: z.number().nullable() }),
    /** The conversation the task belongs to (follow-up tasks continue it). */
    conversationId: z.string().optional(),
    /** The session this run replays. */
    replayOf: z.string().optional(),
    /** The workflow this run runs, and what its recording cost (for the report). */
    workflow: WorkflowRunInfoSchema.optional(),
  }),
  z.object({ ...inStep, type: z.literal('step-started') }),
  z.object({
    ...inStep,
    type: z.literal('observation'),
    screenshot: ScreenshotRefSchema,
    frame: FrameSchema,
    /**
     * A demonstration's screenshot begun before the previous step's action had ended (its captures
     * lag on a busy machine): it shows the screen from before that action's effect, so it records
     * neither what the previous step did nor what this one found.
     */
    predatesPreviousAction: z.literal(true).optional(),
  }),
  /** Part of the thought as the model writes it; the whole thought comes with the prediction. */
  z.object({ ...inStep, type: z.literal('thought-delta'), delta: z.string(), attempt: z.number().int() }),
  z.object({
    ...inStep,
    type: z.literal('prediction'),
    thought: z.string().nullable(),
    actions: z.array(ActionSchema),
    usage: UsageSummarySchema,
    attempts: z.number().int().nonnegative(),
  }),
  z.object({
    ...inStep,
    type: z.literal('model-error'),
    kind: StepErrorKindSchema,
    message: z.string(),
    /** How many in a row, and how many are allowed before the run ends. */
    consecutive: z.number().int(),
    limit: z.number().int(),
  }),
  z.object({ ...inStep, type: z.literal('action'), index: z.number().int().nonnegative(), action: ActionSchema }),
  z.object({ ...inStep, type: z.literal('action-result'), index: z.number().int().nonnegative(), action: ActionSchema, result: ActionResultSchema }),
  /**
   * The step's actions from `from` on (`count` of them) were not run, and why: a batch stopped
   * because the screen changed where a later action aimed, an action failed, the user took over.
   */
  z.object({ ...inStep, type: z.literal('actions-not-run'), from: z.number().int().nonnegative(), count: z.number().int().positive(), reason: z.string() }),
  z.object({ ...inStep, type: z.literal('note'), message: z.string() }),
  /** A question for the user; its `seq` is the question's id (answer it with that id). */
  z.object({ ...inStep, type: z.literal('ask-user'), kind: AskKindSchema, question: z.string(), action: ActionSchema.optional() }),
  z.object({
    ...inStep,
    type: z.literal('user-answer'),
    kind: AskKindSchema,
    answer: z.string().nullable(),
    /** The question answered: the `seq` of its ask-user event (absent in records made before it was kept). */
    questionId: z.number().int().positive().optional(),
  }),
  /** A memory part changed: the step trace, the layers, pruning, the blackboard, the conversation. */
  z.object({ ...inStep, type: z.literal('memory'), change: MemoryChangeSchema }),
  /** How a workflow step was done: as recorded, found again without the model, grounded by the model, or not at all. */
  z.object({
    ...inStep,
    type: z.literal('workflow-step'),
    decision: WorkflowDecisionSchema,
    how: z.string(),
    modelCalls: z.number().int().nonnegative(),
    /** What found its target; absent for a step with none to find, and one that stopped. */
    foundBy: WorkflowFinderSchema.optional(),
  }),
  z.object({ ...inStep, type: z.literal('paused') }),
  z.object({ ...inStep, type: z.literal('resumed') }),
  /** The user took the run over: the agent waits while the user's own steps follow. */
  z.object({ ...inStep, type: z.literal('taken-over') }),
  /** The user handed the run back, with a note for the agent (or none). */
  z.object({ ...inStep, type: z.literal('handed-back'), note: z.string().nullable() }),
  z.object({
    ...inStep,
    type: z.literal('step-finished'),
    durationMs: z.number(),
    /** Cost of the run so far, this step included (the sum of the steps' `usage`). */
    costUsd: z.number(),
    /** What this step spent: tokens and cost of every model call in it, failed ones included (absent in records made before it was kept). */
    usage: UsageSummarySchema.optional(),
    timings: StepTimingsSchema.optional(),
  }),
  z.object({
    ...base,
    type: z.literal('run-finished'),
    status: RunStatusSchema,
    /** Why it ended, in words a user understands. */
    reason: z.string(),
    summary: z.string().nullable(),
    steps: stepNumber,
    usage: UsageSummarySchema,
  }),
]);

/** A session's events as the window asks for them (`sessions:events`). */
export const AgentEventListSchema = z.array(AgentEventSchema);

export type AgentEvent = z.output<typeof AgentEventSchema>;
export type AgentEventType = AgentEvent['type'];
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;
export const AGENT_EVENT_TYPES = AgentEventSchema.options.map((option) => option.shape.type.value) as AgentEventType[];

/**
 * Makes the event schema ready for its first long list: zod builds its lookup tables (the
 * discriminated unions' maps, each schema's parser) at first use, which a freshly loaded window
 * otherwise pays while it opens a 2,000-step session. Each kind of event is checked once as an
 * empty shell with empty nested parts, which reaches every union and object; the results are
 * dropped. Call it when nothing else waits (the window, at idle after it starts).
 */
export function prepareEventChecks(): void {
  const nested = { change: { kind: '' }, action: { type: '' }, actions: [{ type: '' }], result: { ok: true }, screenshot: {}, frame: { bounds: {}, captured: {}, image: {} }, usage: {}, timings: {}, limits: {}, workflow: {}, decision: {} };
  for (const type of AGENT_EVENT_TYPES) AgentEventListSchema.safeParse([{ type, ...nested }]);
  // And the quick check's functions, built once from the same schema.
  fitsAsIs(AgentEventListSchema, []);
}

/** An event as its producer writes it; the run id, the time and `seq` are added when it is emitted. */
export type AgentEventInput = AgentEvent extends infer E ? (E extends unknown ? Omit<E, 'runId' | 'at' | 'seq'> : never) : never;

export type EventParse = { ok: true; event: AgentEvent } | { ok: false; message: string };

/**
 * Checks a value read from a record or a wire; the message names the first problem. What an
 * older or newer version wrote that this one can still understand is normalised first
 * (`normaliseRecordedEvent`), so such a line reads instead of being skipped.
 */
export function parseAgentEvent(value: unknown): EventParse {
  // A session's record is thousands of these: the quick check first, zod for anything it is not sure of.
  const parsed = quickParse(AgentEventSchema, normaliseRecordedEvent(value));
  if (parsed.success) return { ok: true, event: parsed.data };
  const type = typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string' ? (value as { type: string }).type : null;
  const [issue] = parsed.error.issues;
  const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  if (type === null) return { ok: false, message: 'not an event (no "type")' };
  if (!(AGENT_EVENT_TYPES as string[]).includes(type)) return { ok: false, message: `unknown event type "${type}"` };
  return { ok: false, message: `invalid ${type} event: ${where}${issue?.message ?? 'does not match the schema'}` };
}

const STEP_ERROR_KIND_SET: ReadonlySet<string> = new Set(STEP_ERROR_KINDS);

/**
 * A recorded value in today's shape where it can be: a step error's kind this version does not
 * know becomes `other`, the recorded word kept at the head of its message. Anything else is
 * returned as it is (the schema judges it).
 */
export function normaliseRecordedEvent(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const fields = value as Record<string, unknown>;
  if (fields.type !== 'model-error' || typeof fields.kind !== 'string' || STEP_ERROR_KIND_SET.has(fields.kind)) return value;
  const message = typeof fields.message === 'string' ? fields.message : '';
  return { ...fields, kind: 'other', message: fields.kind === '' ? message : `${fields.kind}: ${message}` };
}

/** Two usages added up. */
export function sumUsage(a: UsageSummary, b: UsageSummary): UsageSummary {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd };
}

export const ZERO_USAGE: UsageSummary = Object.freeze({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
