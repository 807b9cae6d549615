/**
 * Every way a DeviceAgent run ends, on the fakes: what the run-finished event says, and what
 * the operator was made to do (and, where it matters, what it was not).
 */
import { describe, expect, it } from 'vitest';
import { Blackboard } from '../../../src/main/memory';
import { ofType, actionFailed, failure, FakeOperator, MemoryRecorder, reply, untilStopped, waitFor } from '../../fixtures/fakes';
import { limits, runAgent, startAgent, UNTIL_STOPPED } from './agent-harness';

const click = (x: number, y = 50) => ({ type: 'click' as const, x, y });

describe('finished', () => {
  it('ends with the model’s summary after the actions ran, mapped through the frame they were chosen on', async () => {
    const run = await runAgent({ turns: [reply([click(10, 20)], { thought: 'Click the button.' }), reply([{ type: 'finished', summary: 'The form is sent.' }])] });
    expect(run.end).toMatchObject({ status: 'finished', reason: 'the model reported the task done', summary: 'The form is sent.', steps: 2 });
    const observation = ofType(run.events, 'observation')[0];
    expect(run.operator.executed).toEqual([{ action: { type: 'click', x: 10, y: 20, button: 'left' }, frame: observation?.frame }]);
  });
});

describe('failed', () => {
  it('when the model gives up', async () => {
    const run = await runAgent({ turns: [reply([{ type: 'fail', reason: 'there is no Save button' }])] });
    expect(run.end).toMatchObject({ status: 'failed', reason: 'the model gave up: there is no Save button', steps: 1 });
  });

  it('when the model refuses', async () => {
    const run = await runAgent({ turns: [reply([{ type: 'fail', reason: 'refused' }], { refusal: 'I can’t help with that.' })] });
    expect(run.end).toMatchObject({ status: 'failed', reason: 'the model refused: I can’t help with that.' });
  });

  it('when the reply cannot be parsed more often than allowed, each sent back and saved', async () => {
    const run = await runAgent({ then: failure('parse', 'no action in the reply', 'I think I should click somewhere'), options: { limits: limits({ maxParseRetries: 2 }) } });
    expect(run.end).toMatchObject({ status: 'failed', steps: 3 });
    expect(run.end.reason).toBe("the model's reply could not be parsed 3 times in a row; last error: no action in the reply");
    expect(ofType(run.events, 'model-error').map((e) => [e.kind, e.consecutive, e.limit])).toEqual([
      ['parse', 1, 2],
      ['parse', 2, 2],
      ['parse', 3, 2],
    ]);
    expect([...run.recorder.replies.values()]).toEqual(Array(3).fill('I think I should click somewhere'));
    expect(run.operator.executed).toEqual([]);
  });

  it('after capture errors in a row, without asking the model', async () => {
    const grabFailed = { ok: false as const, message: 'XGetImage failed' };
    const operator = new FakeOperator().scriptObservations(grabFailed, grabFailed, grabFailed);
    const run = await runAgent({ operator });
    expect(run.end).toMatchObject({ status: 'failed', reason: '3 errors in a row; last: could not capture the screen: XGetImage failed', steps: 3 });
    expect(ofType(run.events, 'model-error').map((e) => [e.kind, e.consecutive, e.limit])).toEqual([
      ['capture', 1, 3],
      ['capture', 2, 3],
      ['capture', 3, 3],
    ]);
    expect(run.model.calls).toHaveLength(0);
  });

  it('after network errors in a row', async () => {
    const run = await runAgent({ then: failure('network', 'ECONNRESET') });
    expect(run.end).toMatchObject({ status: 'failed', reason: '3 errors in a row; last: ECONNRESET' });
    expect(run.model.calls).toHaveLength(3);
  });

  it('counts errors in a row only: a step that works starts the count again', async () => {
    const network = failure('network', 'ECONNRESET');
    const run = await runAgent({ turns: [network, network, reply([click(5)]), network, network, reply([{ type: 'finished', summary: '' }])] });
    expect(run.end.status).toBe('finished');
    expect(ofType(run.events, 'model-error').map((e) => e.consecutive)).toEqual([1, 2, 1, 2]);
  });

  it.each([
    ['auth', '401 Unauthorized: invalid API key'],
    ['not_found', '404: the model gpt-9 does not exist'],
  ] as const)('at once when the endpoint refuses (%s)', async (kind, message) => {
    const run = await runAgent({ then: failure(kind, message) });
    expect(run.end).toMatchObject({ status: 'failed', reason: `the model endpoint refused the request: ${message}`, steps: 1 });
    expect(run.model.calls).toHaveLength(1);
  });

  it('when the model asks a question nobody answers', async () => {
    const run = await runAgent({ turns: [reply([{ type: 'ask_user', question: 'Which file?' }, click(5)])] });
    expect(run.end).toMatchObject({ status: 'failed', reason: 'the model asked "Which file?" and no answer came' });
    expect(ofType(run.events, 'user-answer')).toMatchObject([{ kind: 'question', answer: null }]);
    expect(run.operator.executed).toEqual([]);
  });

  it('before step 1 when the provider check fails for good', async () => {
    const run = await runAgent({
      then: reply([click(5)]),
      preflight: async () => ({ ok: false, fatal: true, message: '401 from http://127.0.0.1/v1/models: the provider refused the API key' }),
    });
    expect(run.end).toMatchObject({ status: 'failed', reason: 'the model provider cannot be used: 401 from http://127.0.0.1/v1/models: the provider refused the API key', steps: 0 });
    expect(run.events.map((e) => e.type)).toEqual(['run-started', 'run-finished']);
    expect(run.operator.observed).toHaveLength(0);
    expect(run.model.calls).toHaveLength(0);
  });

  it('ending at the provider check, lets go of the shared blackboard: later changes to it reach nothing of the ended run', async () => {
    const blackboard = new Blackboard();
    const run = await runAgent({ memory: { blackboard }, preflight: async () => ({ ok: false, fatal: true, message: 'connection refused' }) });
    expect(run.end.status).toBe('failed');
    // Another agent of the process uses the board afterwards.
    blackboard.addRequests({ request: 'a later task' });
    await run.recorder.written();
    expect(run.recorder.failure).toBeNull();
    expect(run.recorder.events.map((event) => event.type)).toEqual(['run-started', 'run-finished']);
  });

  it('goes on, with a note, when the provider check fails in a way retries may fix', async () => {
    const run = await runAgent({
      turns: [reply([{ type: 'finished', summary: 'ok' }])],
      preflight: async () => ({ ok: false, fatal: false, message: 'HTTP 503 from the model list' }),
    });
    expect(run.end.status).toBe('finished');
    expect(ofType(run.events, 'note')[0]?.message).toBe('provider check: HTTP 503 from the model list; going on');
  });

  it('when the display is gone at capture, at once', async () => {
    const operator = new FakeOperator().scriptObservations({ ok: false, kind: 'no_display', message: 'cannot open display :99' });
    const run = await runAgent({ operator, then: reply([click(5)]) });
    expect(run.end).toMatchObject({ status: 'failed', reason: 'the display is gone: cannot open display :99', steps: 1 });
    expect(run.model.calls).toHaveLength(0);
  });

  it('when the display is gone during an action; the step’s later actions do not run', async () => {
    const operator = new FakeOperator().scriptResults(actionFailed('no_display', 'the X server went away', 'click'));
    const run = await runAgent({ operator, turns: [reply([click(5), { type: 'type', text: 'abc' }])] });
    expect(run.end).toMatchObject({ status: 'failed', reason: 'the display is gone: the X server went away' });
    expect(run.operator.executedTypes).toEqual(['click']);
  });

  it('before acting when the record of the step could not be written: nothing is executed', async () => {
    const recorder = new MemoryRecorder({ failFrom: (write) => write.kind === 'event' && write.event.type === 'prediction' });
    const run = await runAgent({ recorder, then: reply([click(5)]) });
    expect(run.end.status).toBe('failed');
    expect(run.end.reason).toMatch(/^the session could not be recorded, so the run stopped before acting: could not write events\.jsonl \(prediction\)/);
    expect(run.model.calls).toHaveLength(1);
    expect(run.operator.executed).toEqual([]);
  });

  it('between two actions of a step when the first one’s record could not be written: the second is not executed', async () => {
    const recorder = new MemoryRecorder({ failFrom: (write) => write.kind === 'event' && write.event.type === 'action-result' });
    const run = await runAgent({ recorder, turns: [reply([click(5), { type: 'type', text: 'abc' }])] });
    expect(run.end).toMatchObject({ status: 'failed', steps: 1 });
    expect(run.end.reason).toMatch(/^the session could not be recorded, so the run stopped before acting: could not write events\.jsonl \(action-result\)/);
    expect(run.operator.executedTypes).toEqual(['click']);
  });

  it('before the next step’s model call when that step’s screenshot could not be written', async () => {
    const recorder = new MemoryRecorder({ failFrom: (write) => write.kind === 'screenshot' && write.step === 2 });
    const run = await runAgent({ recorder, then: reply([click(5)]) });
    expect(run.end).toMatchObject({ status: 'failed', steps: 2 });
    expect(run.end.reason).toContain('could not write screenshot screenshots/step-0002.jpg');
    expect(run.model.calls).toHaveLength(1);
    expect(run.operator.executedTypes).toEqual(['click']);
  });
});

describe('stuck', () => {
  it('notes the 3rd identical action on an unchanged screen and ends at the 4th, before it runs', async () => {
    const run = await runAgent({ then: reply([click(100, 100)]) });
    expect(run.end.status).toBe('stuck');
    expect(run.end.reason).toMatch(/^the model asked for the same action 4 times in a row on an unchanged screen/);
    expect(run.operator.executed).toHaveLength(3);
    const notes = ofType(run.events, 'note');
    expect(notes.map((note) => note.step)).toEqual([3, 4]);
    expect(notes[0]?.message).toMatch(/^Note: you have done the same action 3 times in a row and the screen did not change/);
  });

  it('is not stuck when the same action changes the screen each time', async () => {
    const operator = new FakeOperator();
    let shown = 0;
    operator.afterExecute = () => ({ background: { r: (shown += 40) % 256, g: 30, b: 30 } });
    const same = reply([click(100, 100)]);
    const run = await runAgent({ operator, turns: [same, same, same, same, same, reply([{ type: 'finished', summary: '' }])] });
    expect(run.end.status).toBe('finished');
    expect(run.operator.executed).toHaveLength(5);
    expect(ofType(run.events, 'note')).toEqual([]);
  });
});

describe('limit', () => {
  it('at the step limit', async () => {
    let x = 0;
    const run = await runAgent({ then: () => reply([click((x += 10))]), options: { limits: limits({ maxSteps: 2 }) } });
    expect(run.end).toMatchObject({ status: 'limit', reason: 'reached the limit of 2 steps', steps: 2 });
    expect(run.model.calls).toHaveLength(2);
  });

  it('at the cost limit, naming the limit and what was spent', async () => {
    let x = 0;
    const run = await runAgent({ then: () => reply([click((x += 10))], { costUsd: 0.01 }), options: { limits: limits({ maxCostUsd: 0.025 }) } });
    expect(run.end).toMatchObject({ status: 'limit', reason: 'reached the cost limit of $0.025 (spent $0.0300)', steps: 3 });
    expect(run.end.usage.costUsd).toBeCloseTo(0.03, 10);
  });
});

describe('aborted', () => {
  it('when stopped during a model call', async () => {
    const run = startAgent({ turns: [untilStopped] });
    await waitFor(() => run.model.calls.length === 1, 'the model call');
    run.stop();
    const { end } = await run.done;
    expect(end).toMatchObject({ status: 'aborted', reason: 'stopped by the user during a model call', steps: 1 });
    expect(run.operator.executed).toEqual([]);
  });

  it('when the fail-safe trips', async () => {
    const operator = new FakeOperator().scriptResults(actionFailed('user_abort', 'the pointer is in the fail-safe corner (0, 0)', 'click'));
    const run = await runAgent({ operator, turns: [reply([click(5), click(6)])] });
    expect(run.end).toMatchObject({ status: 'aborted', reason: 'fail-safe: the pointer is in the fail-safe corner (0, 0)' });
    expect(run.operator.executed).toHaveLength(1);
  });

  it('when stopped between the model’s reply and its action: the action does not run', async () => {
    const run = startAgent({
      turns: [
        () => {
          run.stop();
          return reply([click(5)]);
        },
      ],
    });
    const { end } = await run.done;
    expect(end).toMatchObject({ status: 'aborted', reason: 'stopped by the user during an action' });
    expect(run.operator.executed).toEqual([]);
  });

  it('when stopped while the model’s question waits for an answer', async () => {
    const run = await runAgent({
      turns: [reply([{ type: 'ask_user', question: 'Which file?' }])],
      answers: UNTIL_STOPPED,
      onEvent: (event, { stop }) => {
        if (event.type === 'ask-user') stop();
      },
    });
    expect(run.end).toMatchObject({ status: 'aborted' });
  });

  it('when stopped while a confirmation waits for an answer: aborted, not refused', async () => {
    const run = await runAgent({
      turns: [reply([{ ...click(5), confirm: true }])],
      answers: UNTIL_STOPPED,
      onEvent: (event, { stop }) => {
        if (event.type === 'ask-user') stop();
      },
    });
    expect(run.end).toMatchObject({ status: 'aborted' });
    expect(run.operator.executed).toEqual([]);
  });

  it('when stopped while paused', async () => {
    const run = await runAgent({
      then: reply([click(5)]),
      onEvent: (event, { gate, stop }) => {
        if (event.type === 'step-finished' && event.step === 1) gate.pause();
        if (event.type === 'paused') stop();
      },
    });
    expect(run.end).toMatchObject({ status: 'aborted', reason: 'stopped by the user', steps: 1 });
    expect(ofType(run.events, 'resumed')).toEqual([]);
    expect(run.model.calls).toHaveLength(1);
  });
});

describe('refused', () => {
  it('when the user says no to an action a confirmation rule matches', async () => {
    const run = await runAgent({
      turns: [reply([click(5)])],
      confirmationRules: [{ types: ['click'], reason: 'clicks need a yes' }],
      answers: ['no'],
    });
    expect(run.end).toMatchObject({ status: 'refused', reason: 'the user refused the action (clicks need a yes)' });
    expect(ofType(run.events, 'ask-user')).toMatchObject([{ kind: 'confirmation', action: { type: 'click', x: 5 } }]);
    expect(run.operator.executed).toEqual([]);
  });

  it('when the user does not acknowledge the provider’s safety check', async () => {
    const checks = [{ id: 'sc_1', code: 'malicious_instructions', message: 'The page may be trying to trick the agent' }];
    const run = await runAgent({ turns: [reply([{ ...click(5), confirm: true }], { safetyChecks: checks })], answers: ['no thanks'] });
    expect(run.end.status).toBe('refused');
    expect(run.end.reason).toMatch(/^the user did not acknowledge the safety check \(The model's provider flagged this action: The page may be trying to trick the agent/);
    expect(ofType(run.events, 'ask-user')).toMatchObject([{ kind: 'safety_check' }]);
    expect(run.operator.executed).toEqual([]);
  });
});
