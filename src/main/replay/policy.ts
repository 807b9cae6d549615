/** What a replay does where the screen no longer matches the recording (see replayer.ts). */
export const REPLAY_POLICIES = ['stop', 'ask', 'reground'] as const;
export type ReplayPolicy = (typeof REPLAY_POLICIES)[number];

/**
 * What a workflow run does at a step that neither the recording nor a search of the screen found
 * (src/main/workflow/decide.ts): stop before acting, or have the model ground that step alone.
 */
export const WORKFLOW_POLICIES = ['stop', 'reground'] as const satisfies readonly ReplayPolicy[];
export type WorkflowPolicy = (typeof WORKFLOW_POLICIES)[number];
