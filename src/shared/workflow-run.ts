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

export const WorkflowRunInfoSchema = z.object({
  name: z.string(),
  recording: RecordingCostSchema,
  /** The run read the display's accessibility tree: its steps' targets were looked for as elements first. */
  elements: z.boolean().optional(),
});
export type WorkflowRunInfo = z.infer<typeof WorkflowRunInfoSchema>;

/**
 * What found a step's target: the accessibility tree (`element`), the recorded patch compared or
 * searched for (`template`), the words read near it (`ocr`), or the model (`model`).
 */
export const WORKFLOW_FINDERS = ['element', 'template', 'ocr', 'model'] as const;
export const WorkflowFinderSchema = z.enum(WORKFLOW_FINDERS);
export type WorkflowFinder = z.infer<typeof WorkflowFinderSchema>;
