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
import { MemoryChangeSchema, type MemoryChange } from './memory';

/** A screenshot saved by the recorder: where it is, never its bytes. */
export const ScreenshotRefSchema = z.object({
  /** Stable id within the session, e.g. `step-0003`. */
  id: z.string(),
  /** Path relative to the session folder: no `..`, not absolute. */
  path: z
    .string()
    .min(1)
    .refine((path) => !/^([\\/]|[A-Za-z]:)/.test(path) && !path.split(/[\\/]/).includes('..'), 'the screenshot path must stay inside the session folder'),
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

// Memory changes are typed by their own module; the schema checks the same shape.
const MemoryChangeValueSchema = MemoryChangeSchema as unknown as z.ZodType<MemoryChange>;

const base = {
  runId: z.string(),
  /** Milliseconds since the epoch. */
  at: z.number(),
  /** 1 for the session's first event, +1 per event. */
  seq: z.number().int().positive(),
};
const stepNumber = z.number().int().nonnegative();
const inStep = { ...base, step: stepNumber };

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
  }),
  z.object({ ...inStep, type: z.literal('step-started') }),
  z.object({ ...inStep, type: z.literal('observation'), screenshot: ScreenshotRefSchema, frame: FrameSchema }),
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
    kind: z.string(),
    message: z.string(),
    /** How many in a row, and how many are allowed before the run ends. */
    consecutive: z.number().int(),
    limit: z.number().int(),
  }),
  z.object({ ...inStep, type: z.literal('action'), index: z.number().int().nonnegative(), action: ActionSchema }),
  z.object({ ...inStep, type: z.literal('action-result'), index: z.number().int().nonnegative(), action: ActionSchema, result: ActionResultSchema }),
  z.object({ ...inStep, type: z.literal('note'), message: z.string() }),
  /** A question for the user; its `seq` is the question's id (answer it with that id). */
  z.object({ ...inStep, type: z.literal('ask-user'), kind: AskKindSchema, question: z.string(), action: ActionSchema.optional() }),
  z.object({ ...inStep, type: z.literal('user-answer'), kind: AskKindSchema, answer: z.string().nullable() }),
  /** A memory part changed: the step trace, the layers, pruning, the blackboard, the conversation. */
  z.object({ ...inStep, type: z.literal('memory'), change: MemoryChangeValueSchema }),
  z.object({ ...inStep, type: z.literal('paused') }),
  z.object({ ...inStep, type: z.literal('resumed') }),
  z.object({
    ...inStep,
    type: z.literal('step-finished'),
    durationMs: z.number(),
    /** Cost of the run so far. */
    costUsd: z.number(),
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

export type AgentEvent = z.output<typeof AgentEventSchema>;
export type AgentEventType = AgentEvent['type'];
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;
export const AGENT_EVENT_TYPES = AgentEventSchema.options.map((option) => option.shape.type.value) as AgentEventType[];

/** An event as its producer writes it; the run id, the time and `seq` are added when it is emitted. */
export type AgentEventInput = AgentEvent extends infer E ? (E extends unknown ? Omit<E, 'runId' | 'at' | 'seq'> : never) : never;

export type EventParse = { ok: true; event: AgentEvent } | { ok: false; message: string };

/** Checks a value read from a record or a wire; the message names the first problem. */
export function parseAgentEvent(value: unknown): EventParse {
  const parsed = AgentEventSchema.safeParse(value);
  if (parsed.success) return { ok: true, event: parsed.data };
  const type = typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string' ? (value as { type: string }).type : null;
  const [issue] = parsed.error.issues;
  const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  if (type === null) return { ok: false, message: 'not an event (no "type")' };
  if (!(AGENT_EVENT_TYPES as string[]).includes(type)) return { ok: false, message: `unknown event type "${type}"` };
  return { ok: false, message: `invalid ${type} event: ${where}${issue?.message ?? 'does not match the schema'}` };
}

/** Two usages added up. */
export function sumUsage(a: UsageSummary, b: UsageSummary): UsageSummary {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd };
}

export const ZERO_USAGE: UsageSummary = Object.freeze({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
