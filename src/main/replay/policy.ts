/** What a replay does where the screen no longer matches the recording (see replayer.ts). */
export const REPLAY_POLICIES = ['stop', 'ask', 'reground'] as const;
export type ReplayPolicy = (typeof REPLAY_POLICIES)[number];
