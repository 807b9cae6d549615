/**
 * Runs what opening a session runs (the answer's check, the fold) once on a small made-up session
 * while the window waits for the user. A freshly loaded page otherwise meets that code cold, when
 * a long session is opened: V8 interprets a function for a while before it compiles it, and a
 * 2,000-step session's 22,000 events through cold code took about twice as long to fold.
 */
import { AgentEventListSchema, type AgentEvent } from '../../../shared/events';
import { quickParse } from '../../../shared/quick-check';
import { emptySession, withEvents } from './session-fold';

const RUN_ID = 'warm-up';
const STEPS = 60;

/** A session's events of the usual kinds, as a run records them (valid: the check's quick path is the one warmed). */
export function warmUpEvents(steps = STEPS): AgentEvent[] {
  const events: Array<Record<string, unknown>> = [];
  const add = (event: Record<string, unknown>) => events.push({ ...event, runId: RUN_ID, at: 1_000 + events.length * 100, seq: events.length + 1 });
  const frame = { displayId: '0', bounds: { x: 0, y: 0, width: 1280, height: 800 }, scaleFactor: 1, captured: { width: 1280, height: 800 }, image: { width: 960, height: 600, format: 'jpeg' } };
  const usage = { inputTokens: 1000, outputTokens: 50, costUsd: 0.001 };
  add({ type: 'run-started', task: 'warm up', model: 'model', family: 'tools', limits: { maxSteps: steps + 1, maxCostUsd: null } });
  for (let step = 1; step <= steps; step++) {
    const action = { type: 'click', x: step, y: step, button: 'left' };
    const thought = `Step ${step}: click.`;
    add({ type: 'step-started', step });
    add({ type: 'observation', step, screenshot: { id: `step-${step}`, path: `screenshots/step-${step}.jpg`, width: 960, height: 600, mime: 'image/jpeg' }, frame });
    add({ type: 'thought-delta', step, delta: thought, attempt: 1 });
    add({ type: 'prediction', step, thought, actions: [action], usage, attempts: 1 });
    add({ type: 'action', step, index: 0, action });
    add({ type: 'action-result', step, index: 0, action, result: { ok: true, type: 'click', points: [{ x: step, y: step }], durationMs: 10 } });
    add({ type: 'memory', step, change: { kind: 'trace', op: 'add', step, item: { step, action: 'click' }, length: step, dropped: 0 } });
    add({ type: 'memory', step, change: { kind: 'layers-delta', recent: thought, compressing: false, lastError: null } });
    add({ type: 'memory', step, change: { kind: 'blackboard-delta', sections: { trajectories: { drop: 0, add: [{ step, subtask: 'click', action: 'click', status: 'success' }] } } } });
    add({ type: 'step-finished', step, durationMs: 1000, costUsd: step * usage.costUsd, usage, timings: { observe: 100, model: 800, act: 50, settle: 50 } });
  }
  add({ type: 'run-finished', status: 'finished', reason: 'done', summary: null, steps, usage: { inputTokens: 1000 * steps, outputTokens: 50 * steps, costUsd: steps * usage.costUsd } });
  return events as unknown as AgentEvent[];
}

/** Checks and folds the made-up session, as opening one does; nothing is kept. */
export function warmUpSessionOpen(): void {
  // Through JSON, as an answer arrives: fresh objects, as the check and the fold will meet them.
  const checked = quickParse(AgentEventListSchema, JSON.parse(JSON.stringify(warmUpEvents())));
  if (checked.success) withEvents(emptySession(RUN_ID), checked.data);
}
