/**
 * The replay and workflow policies as plain lists, for the CLI's declarations (they load at every
 * start, and must not load zod); the contract's schemas (shared/app-api.ts) are the one
 * definition, and the checks below keep the two lists equal to them.
 */
import type { ReplayPolicy, WorkflowPolicy } from '../../shared/app-api';

export type { ReplayPolicy, WorkflowPolicy };

/** What a replay does where the screen no longer matches the recording (see replayer.ts). */
export const REPLAY_POLICIES = ['stop', 'ask', 'reground'] as const satisfies readonly ReplayPolicy[];

/**
 * What a workflow run does at a step that neither the recording nor a search of the screen found
 * (src/main/workflow/decide.ts): stop before acting, or have the model ground that step alone.
 */
export const WORKFLOW_POLICIES = ['stop', 'reground'] as const satisfies readonly WorkflowPolicy[];

// Every policy of the contract is in its list (the `satisfies` above check the other way).
const everyReplayPolicy: ReplayPolicy extends (typeof REPLAY_POLICIES)[number] ? true : never = true;
const everyWorkflowPolicy: WorkflowPolicy extends (typeof WORKFLOW_POLICIES)[number] ? true : never = true;
void everyReplayPolicy;
void everyWorkflowPolicy;
