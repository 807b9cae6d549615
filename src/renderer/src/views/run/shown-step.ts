/** Which step the screen shows: the scrubber's, else the latest with a screenshot. */
import type { StepView } from '../../../../shared/steps';
import { useSession } from '../../app-context';
import { stepAt } from '../../store/session-fold';

export function useShownStep(): StepView | null {
  return useSession((s) => {
    const session = s.session;
    if (!session) return null;
    if (s.cursor !== null) return stepAt(session, s.cursor) ?? null;
    for (let index = session.steps.length - 1; index >= 0; index--) {
      const step = session.steps[index] as StepView;
      if (step.screenshot) return step;
    }
    return null;
  });
}
