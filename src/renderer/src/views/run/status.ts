/** The status the window shows: a session without an ending that is not the live run was interrupted. */
import { useSession } from '../../app-context';

export type ShownStatus = 'running' | 'paused' | 'finished' | 'failed' | 'stuck' | 'limit' | 'aborted' | 'refused' | 'interrupted';

export function useShownStatus(): ShownStatus {
  return useSession((s) => {
    const session = s.session;
    if (!session) return 'finished';
    if (session.run.status !== 'running') return session.run.status;
    if (s.loading || s.liveRunId === session.id || s.followLive) return session.run.paused ? 'paused' : 'running';
    return 'interrupted';
  });
}
