/** Checked once: a value a schema made passes the front ends' last check as it is; anything else is checked. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkOnce, knownToFit } from '../../../src/shared/checked-once';
import { AgentEventListSchema } from '../../../src/shared/events';
import { parseEventLines } from '../../../src/main/store/session-reader';

const line = (seq: number) => JSON.stringify({ type: 'step-started', step: 1, runId: 'r', at: 1, seq });

describe('checkOnce', () => {
  it('hands back the very list the reader made, without copying it; a copy of it is checked (and copied)', () => {
    const { events } = parseEventLines([line(1), line(2)].join('\n'));
    const passed = checkOnce(AgentEventListSchema, events);
    expect(passed).toEqual({ success: true, data: events });
    expect(passed.success && passed.data).toBe(events);
    const copy = checkOnce(AgentEventListSchema, [...events]);
    expect(copy.success && copy.data).not.toBe(events);
    expect(copy.success && copy.data).toEqual(events);
  });

  it('checks what it does not know: a wrong value fails, and a mark for another schema does not count', () => {
    expect(checkOnce(AgentEventListSchema, [{ type: 'step-started' }]).success).toBe(false);
    const other = knownToFit(z.array(z.unknown()), [{ type: 'step-started' }]);
    expect(checkOnce(AgentEventListSchema, other).success).toBe(false);
  });
});
