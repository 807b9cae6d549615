/**
 * A workflow run as the window folds it: each step's decision on its timeline row, and the report
 * counted as the events come, equal at every point to the CLI's fold over the events so far
 * (`workflowReport`, what `mnemo workflow run --json` prints last), including when the events
 * arrive in batches of any size. A run that is not a workflow's has no report.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import { stepsOf } from '../../../src/shared/steps';
import { workflowReport } from '../../../src/shared/workflow-report';
import { emptySession, withEvents } from '../../../src/renderer/src/store/session-fold';

const runId = 'run-wf';
let seq = 0;
const event = (fields: Record<string, unknown>): AgentEvent => ({ runId, at: 1000 + seq, seq: ++seq, ...fields }) as AgentEvent;
const usage = (input: number, output: number, cost: number) => ({ inputTokens: input, outputTokens: output, costUsd: cost });

function workflowRun(): AgentEvent[] {
  seq = 0;
  const events: AgentEvent[] = [
    event({ type: 'run-started', task: 'Fill in the form for Grace', model: 'gpt', family: 'tools', limits: { maxSteps: 5, maxCostUsd: null }, workflow: { name: 'form', recording: { modelCalls: 5, tokens: 12000, costUsd: 0.05 } } }),
  ];
  const decisions = [
    ['replayed', 'the target region agrees with the recording', 0],
    ['refound', 'the patch found 150 px left', 0],
    ['grounded', 'the model grounded it', 1],
    ['stopped', 'the button is gone', 0],
  ] as const;
  for (const [i, [decision, how, modelCalls]] of decisions.entries()) {
    const step = i + 1;
    events.push(event({ type: 'step-started', step }));
    events.push(event({ type: 'workflow-step', step, decision, how, modelCalls }));
    if (decision !== 'stopped') events.push(event({ type: 'step-finished', step, durationMs: 40, costUsd: 0, usage: usage(0, 0, 0) }));
  }
  events.push(event({ type: 'run-finished', status: 'failed', reason: 'step 4 stopped', summary: null, steps: 4, usage: usage(900, 40, 0.002) }));
  return events;
}

describe('a workflow run in the window', () => {
  it('shows each step’s decision, how, and its model calls on its row', () => {
    const session = withEvents(emptySession(runId), workflowRun());
    expect(session.steps.map((step) => step.workflow)).toEqual([
      { decision: 'replayed', how: 'the target region agrees with the recording', modelCalls: 0 },
      { decision: 'refound', how: 'the patch found 150 px left', modelCalls: 0 },
      { decision: 'grounded', how: 'the model grounded it', modelCalls: 1 },
      { decision: 'stopped', how: 'the button is gone', modelCalls: 0 },
    ]);
    // The CLI's fold of the steps says the same.
    expect(stepsOf(workflowRun()).map((step) => step.workflow?.decision)).toEqual(['replayed', 'refound', 'grounded', 'stopped']);
  });

  it('counts the report as the events come, equal to the CLI’s figures at every point, whatever the batches', () => {
    const events = workflowRun();
    for (const batch of [1, 3, events.length]) {
      let session = emptySession(runId);
      for (let at = 0; at < events.length; at += batch) {
        session = withEvents(session, events.slice(at, at + batch));
        expect(session.run.workflow?.report, `after ${at + batch} events in batches of ${batch}`).toEqual(workflowReport(events.slice(0, at + batch)));
      }
      expect(session.run.workflow).toEqual({
        name: 'form',
        report: { type: 'workflow-report', status: 'failed', steps: 4, replayed: 1, refound: 1, grounded: 1, stopped: 1, modelCalls: 1, tokens: 940, costUsd: 0.002, recording: { modelCalls: 5, tokens: 12000, costUsd: 0.05 } },
      });
    }
  });

  it('has no report for a run that is not a workflow’s', () => {
    seq = 0;
    const events = [
      event({ type: 'run-started', task: 'Write a note', model: 'gpt', family: 'tools', limits: { maxSteps: 5, maxCostUsd: null } }),
      event({ type: 'run-finished', status: 'finished', reason: 'done', summary: null, steps: 0, usage: usage(1, 1, 0) }),
    ];
    expect(withEvents(emptySession(runId), events).run.workflow).toBeNull();
    expect(workflowReport(events)).toBeNull();
  });
});
