/**
 * The one fold from events to a run's totals (src/shared/run-totals.ts): a step's own usage on
 * step-finished, the run's cost so far beside it, and the same totals wherever they are computed:
 * the run lifecycle (step-finished, run-finished), the terminal view and the window's session
 * store. Records made before step-finished carried its usage fold to what they said then.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sumUsage, ZERO_USAGE, type AgentEvent, type UsageSummary } from '../../../src/shared/events';
import { addEventsToTotals, addToTotals, NO_TOTALS, totalsOf, type RunTotals } from '../../../src/shared/run-totals';
import { stepsOf } from '../../../src/shared/steps';
import { TerminalView } from '../../../src/main/cli/terminal-view';
import type { PredictionFailure } from '../../../src/main/model/types';
import { emptySession, withEvents } from '../../../src/renderer/src/store/session-fold';
import { startAgent } from '../run/agent-harness';
import { ofType, reply } from '../../fixtures/fakes';

/** A reply that did not parse, with the tokens it still cost. */
const unparsed = (costUsd: number): PredictionFailure => ({
  ok: false,
  error: { kind: 'parse', message: 'not JSON', raw: '{"actions": [' },
  usage: { inputTokens: 700, outputTokens: 9, costUsd, priced: true, reported: true },
  attempts: 1,
});

/** The terminal view's closing line, for these events. */
function terminalSummary(events: readonly AgentEvent[]): string {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const view = new TerminalView(out);
  for (const event of events) view.show(event);
  return text.trim().split('\n').at(-1) ?? '';
}

describe('one fold for the totals', () => {
  it('a live run: each step-finished carries its own usage (failed calls included) and the cost so far; recorder, CLI and window agree', async () => {
    const run = startAgent({
      turns: [unparsed(0.0007), reply([{ type: 'click', x: 10, y: 10 }], { costUsd: 0.0013 }), reply([{ type: 'click', x: 20, y: 10 }], { costUsd: 0.0021 }), reply([{ type: 'finished', summary: 'ok' }], { costUsd: 0.0005 })],
    });
    const { events, end } = await run.done;
    const finished = ofType(events, 'step-finished');
    expect(finished.map((event) => event.usage)).toEqual([
      { inputTokens: 700, outputTokens: 9, costUsd: 0.0007 },
      { inputTokens: 1000, outputTokens: 20, costUsd: 0.0013 },
      { inputTokens: 1000, outputTokens: 20, costUsd: 0.0021 },
      { inputTokens: 1000, outputTokens: 20, costUsd: 0.0005 },
    ]);
    // The run's cost so far, as before: the sum of the steps' own costs up to each.
    let sum: UsageSummary = ZERO_USAGE;
    for (const event of finished) {
      sum = sumUsage(sum, event.usage as UsageSummary);
      expect(event.costUsd).toBe(sum.costUsd);
    }
    expect(end.usage).toEqual(sum);
    expect(end.steps).toBe(4);

    // The same figures from every consumer of the events.
    const totals = totalsOf(events);
    expect(totals).toMatchObject({ steps: 4, usage: sum });
    expect(totalsOf(run.recorder.events).usage).toEqual(sum);
    const window = withEvents(emptySession(end.runId), events);
    expect(window.run.totals.usage).toEqual(sum);
    expect(terminalSummary(events)).toBe(`4 steps, ${sum.inputTokens} in / ${sum.outputTokens} out tokens, $${sum.costUsd.toFixed(4)}`);
    // A step's view: its own usage, the run's cost after it.
    const steps = stepsOf(events);
    expect(steps.map((step) => step.usage?.costUsd)).toEqual([0.0007, 0.0013, 0.0021, 0.0005]);
    expect(steps.map((step) => step.costUsd)).toEqual(finished.map((event) => event.costUsd));
  });

  it('folds a run step by step: the finished steps only, until the end', () => {
    const runId = 'r';
    let seq = 0;
    const event = (input: Record<string, unknown>) => ({ ...input, runId, at: 100 + seq, seq: ++seq }) as AgentEvent;
    const usage = { inputTokens: 10, outputTokens: 2, costUsd: 0.5 };
    let totals = addToTotals(NO_TOTALS, event({ type: 'step-started', step: 1 }));
    totals = addToTotals(totals, event({ type: 'prediction', step: 1, thought: null, actions: [], usage, attempts: 1 }));
    // A prediction counts once its step has finished.
    expect(totals).toMatchObject({ steps: 0, usage: ZERO_USAGE });
    totals = addToTotals(totals, event({ type: 'step-finished', step: 1, durationMs: 1, costUsd: 0.5, usage }));
    expect(totals).toMatchObject({ steps: 1, usage, lastEventAt: 102 });
    // Other events move only the time; the totals given are not changed.
    const later = addToTotals(totals, event({ type: 'note', step: 1, message: 'n' }));
    expect(later).toMatchObject({ steps: 1, usage, lastEventAt: 103 });
    expect(totals.lastEventAt).toBe(102);
  });

  it('records made before step-finished carried usage: tokens from the predictions, cost from step-finished, the run-finished usage whole', () => {
    const runId = 'r';
    let seq = 0;
    const event = (input: Record<string, unknown>) => ({ ...input, runId, at: seq, seq: ++seq }) as AgentEvent;
    const predicted = { inputTokens: 1200, outputTokens: 40, costUsd: 0.00272 };
    const events = [
      event({ type: 'step-started', step: 1 }),
      event({ type: 'model-error', step: 1, kind: 'parse', message: 'not JSON', consecutive: 1, limit: 3 }),
      event({ type: 'step-finished', step: 1, durationMs: 1, costUsd: 0.00224 }),
      event({ type: 'step-started', step: 2 }),
      event({ type: 'prediction', step: 2, thought: null, actions: [], usage: predicted, attempts: 1 }),
      event({ type: 'step-finished', step: 2, durationMs: 1, costUsd: 0.00496 }),
      event({ type: 'step-started', step: 3 }),
      event({ type: 'prediction', step: 3, thought: null, actions: [], usage: predicted, attempts: 1 }),
    ];
    // Cut off in step 3 (a crash): the finished steps.
    expect(totalsOf(events)).toMatchObject({ steps: 2, usage: { inputTokens: 1200, outputTokens: 40, costUsd: 0.00496 } });
    const end = event({ type: 'run-finished', status: 'finished', reason: 'done', summary: null, steps: 3, usage: { inputTokens: 3400, outputTokens: 110, costUsd: 0.00768 } });
    const withStep3 = [...events, event({ type: 'step-finished', step: 3, durationMs: 1, costUsd: 0.00768 }), end];
    expect(totalsOf(withStep3)).toMatchObject({ steps: 3, usage: { inputTokens: 3400, outputTokens: 110, costUsd: 0.00768 } });
    expect(withEvents(emptySession(runId), withStep3).run.totals.usage).toEqual(totalsOf(withStep3).usage);
  });

  it('a batch gives what the events give one by one, however it is cut, with times out of order and older records', () => {
    const runId = 'r';
    let seq = 0;
    // Times that go back now and then (two writers' clocks): the latest one seen is kept.
    const event = (input: Record<string, unknown>) => ({ ...input, runId, at: 1_000 + (seq % 4 === 3 ? -50 : 10 * seq), seq: ++seq }) as AgentEvent;
    const usage = { inputTokens: 10, outputTokens: 2, costUsd: 0.25 };
    const events: AgentEvent[] = [];
    for (let step = 1; step <= 5; step++) {
      events.push(event({ type: 'step-started', step }), event({ type: 'prediction', step, thought: null, actions: [], usage, attempts: 1 }), event({ type: 'note', step, message: 'n' }));
      // Steps 2 and 4 as older records wrote them: no usage on step-finished.
      events.push(event({ type: 'step-finished', step, durationMs: 1, costUsd: 0.25 * step, ...(step % 2 === 0 ? {} : { usage }) }), event({ type: 'note', step, message: 'after' }));
    }
    events.push(event({ type: 'run-finished', status: 'finished', reason: 'done', summary: null, steps: 5, usage: { inputTokens: 60, outputTokens: 12, costUsd: 1.3 } }), event({ type: 'note', step: 5, message: 'late' }));
    const oneByOne = (from: RunTotals, batch: readonly AgentEvent[]) => batch.reduce(addToTotals, from);
    for (let cut = 0; cut <= events.length; cut++) {
      const head = events.slice(0, cut);
      const tail = events.slice(cut);
      const expected = oneByOne(NO_TOTALS, head);
      expect(addEventsToTotals(NO_TOTALS, head)).toEqual(expected);
      expect(addEventsToTotals(expected, tail)).toEqual(oneByOne(expected, tail));
    }
    expect(totalsOf(events)).toEqual(oneByOne(NO_TOTALS, events));
    // The totals given are not changed, and a batch of nothing gives them back.
    const before = oneByOne(NO_TOTALS, events.slice(0, 7));
    const copy = structuredClone(before);
    addEventsToTotals(before, events.slice(7));
    expect(before).toEqual(copy);
    expect(addEventsToTotals(before, [])).toBe(before);
  });
});
