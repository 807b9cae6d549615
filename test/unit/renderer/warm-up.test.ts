/**
 * The window's warm-up runs the open's quick path: its made-up session is one the quick check
 * takes as it is (so the code warmed is the code a real session meets) and that folds into steps.
 */
import { describe, expect, it } from 'vitest';
import { AgentEventListSchema } from '../../../src/shared/events';
import { fitsAsIs } from '../../../src/shared/quick-check';
import { emptySession, withEvents } from '../../../src/renderer/src/store/session-fold';
import { warmUpEvents, warmUpSessionOpen } from '../../../src/renderer/src/store/warm-up';

describe('the warm-up of a session open', () => {
  it('is a valid session the quick check takes as it is, folding into its steps', () => {
    const events = JSON.parse(JSON.stringify(warmUpEvents(5))) as unknown[];
    expect(AgentEventListSchema.safeParse(events).success).toBe(true);
    expect(fitsAsIs(AgentEventListSchema, events)).toBe(true);
    const session = withEvents(emptySession('warm-up'), AgentEventListSchema.parse(events));
    expect(session.steps.map((step) => step.step)).toEqual([1, 2, 3, 4, 5]);
    expect(session.run.status).toBe('finished');
    expect(() => warmUpSessionOpen()).not.toThrow();
  });
});
