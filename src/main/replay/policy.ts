import { ReplayPolicySchema, WorkflowPolicySchema, type ReplayPolicy, type WorkflowPolicy } from '../../shared/app-api';

export type { ReplayPolicy, WorkflowPolicy };

/** What a replay does where the screen no longer matches the recording (see replayer.ts); the contract's. */
export const REPLAY_POLICIES: readonly ReplayPolicy[] = ReplayPolicySchema.options;

/**
 * What a workflow run does at a step that neither the recording nor a search of the screen found
 * (src/main/workflow/decide.ts): stop before acting, or have the model ground that step alone.
 */
export const WORKFLOW_POLICIES: readonly WorkflowPolicy[] = WorkflowPolicySchema.options;
