/** The status the window shows: a session without an ending that is not the live run was interrupted. */
import { useSession } from '../../app-context';

export type ShownStatus = 'running' | 'paused' | 'takenOver' | 'finished' | 'failed' | 'stuck' | 'limit' | 'aborted' | 'refused' | 'interrupted';

/** A run still going, in any of its live states. */
export function isLive(status: ShownStatus): boolean {
  return status === 'running' || status === 'paused' || status === 'takenOver';
}

export function useShownStatus(): ShownStatus {
  return useSession((s) => {
    const session = s.session;
    if (!session) return 'finished';
    if (session.run.status !== 'running') return session.run.status;
    const live = s.loading || s.liveRunId === session.id || s.liveRuns.some((run) => run.id === session.id) || s.followLive;
    if (live) return session.run.takenOver ? 'takenOver' : session.run.paused ? 'paused' : 'running';
    return 'interrupted';
  });
}
