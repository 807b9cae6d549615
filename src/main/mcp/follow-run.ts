/**
 * Follows a run (a task, or one action) for a tool call: each event goes to `onEvent`, the run's
 * questions (what the model asks, the confirmation rules) go to the client through elicitation and
 * their answers back to the run, and the client's cancellation stops the run, which then ends
 * `aborted` in its record. Resolves with the run's outcome and its last event.
 */
import type { AgentEvent, AgentEventOf } from '../../shared/events';
import type { RunHandle, RunOutcome } from '../service/run-service';
import type { ToolCall } from './connection';

export interface Followed {
  outcome: RunOutcome;
  finished: AgentEventOf<'run-finished'> | null;
}

export async function followRun(handle: RunHandle, call: Pick<ToolCall, 'signal' | 'ask'>, onEvent: (event: AgentEvent) => void = () => undefined): Promise<Followed> {
  const stop = () => handle.stop();
  if (call.signal.aborted) stop();
  else call.signal.addEventListener('abort', stop, { once: true });
  let finished: Followed['finished'] = null;
  try {
    for await (const event of handle.events()) {
      onEvent(event);
      if (event.type === 'run-finished') finished = event;
      const { ask } = call;
      if (event.type === 'ask-user' && ask) {
        // Not awaited here: the events go on (a stop, the run's end) while the client's user thinks.
        void ask({ kind: event.kind, question: event.question, ...(event.action ? { action: event.action } : {}) }).then((answer) => handle.answer(event.seq, answer));
      }
    }
    return { outcome: await handle.done, finished };
  } finally {
    call.signal.removeEventListener('abort', stop);
  }
}
