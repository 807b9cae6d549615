/**
 * A workflow run, as its events say it: what the recording cost, how each step was done (its
 * decision), and which workflow a run runs. Schemas only, so the events (events.ts) and the
 * workflows (workflow.ts) both build on them without importing each other.
 */
import { z } from 'zod';

/** What the recorded run cost the model, to compare a rerun with. */
export const RecordingCostSchema = z.object({ modelCalls: z.number().int().nonnegative(), tokens: z.number().int().nonnegative(), costUsd: z.number().nonnegative() });
export type RecordingCost = z.infer<typeof RecordingCostSchema>;

export const WORKFLOW_DECISIONS = ['replayed', 'refound', 'grounded', 'stopped'] as const;
export const WorkflowDecisionSchema = z.enum(WORKFLOW_DECISIONS);
export type WorkflowDecisionKind = z.infer<typeof WorkflowDecisionSchema>;

export const WorkflowRunInfoSchema = z.object({ name: z.string(), recording: RecordingCostSchema });
export type WorkflowRunInfo = z.infer<typeof WorkflowRunInfoSchema>;
