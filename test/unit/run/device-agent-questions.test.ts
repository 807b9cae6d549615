/**
 * The DeviceAgent's guards and questions, seen where they take effect: the next request the model
 * gets (its feedback, its acknowledged safety checks) and what the operator was made to do.
 */
import { describe, expect, it } from 'vitest';
import { failure, FakeOperator, ofType, reply } from '../../fixtures/fakes';
import { runAgent } from './agent-harness';

const click = (x: number, y = 50) => ({ type: 'click' as const, x, y });
const done = reply([{ type: 'finished', summary: 'done' }]);

describe('guards', () => {
  it('sends a parse error back to the model with its next request', async () => {
    const run = await runAgent({ turns: [failure('parse', 'unknown action type "tap"', '{"type":"tap"}'), done] });
    expect(run.end.status).toBe('finished');
    expect(run.model.calls[0]?.input.feedback).toBeUndefined();
    expect(run.model.calls[1]?.input.feedback).toBe('Your last reply could not be used: unknown action type "tap". Answer again in the required format, with exactly one valid action.');
  });

  it('sends the repetition note to the model with its next request', async () => {
    const same = reply([click(100, 100)]);
    const run = await runAgent({ turns: [same, same, same, done] });
    expect(run.end.status).toBe('finished');
    expect(run.model.calls[2]?.input.feedback).toBeUndefined();
    expect(run.model.calls[3]?.input.feedback).toMatch(/^Note: you have done the same action 3 times in a row and the screen did not change\./);
  });

  it('sends a failed action back to the model and skips the rest of that step', async () => {
    const operator = new FakeOperator().scriptResults({ ok: false, type: 'click', error: { kind: 'input_failed', message: 'XTEST refused the event' } });
    const run = await runAgent({ operator, turns: [reply([click(5), { type: 'type', text: 'abc' }]), done] });
    expect(run.end.status).toBe('finished');
    expect(run.operator.executedTypes).toEqual(['click']);
    expect(run.model.calls[1]?.input.feedback).toBe('Your action click failed: XTEST refused the event');
    expect(run.model.calls[1]?.input.history[0]?.results).toBe('click failed (input_failed): XTEST refused the event');
  });
});

describe('questions', () => {
  it('the model’s question, answered: the answer reaches the next request; the id is the ask-user event’s seq', async () => {
    const run = await runAgent({ turns: [reply([{ type: 'ask_user', question: 'Which report?' }]), done], answers: ['the March one'] });
    expect(run.end.status).toBe('finished');
    const [asked] = ofType(run.events, 'ask-user');
    expect(run.questions).toEqual([{ id: asked?.seq, kind: 'question', question: 'Which report?' }]);
    expect(ofType(run.events, 'user-answer')).toMatchObject([{ kind: 'question', answer: 'the March one' }]);
    expect(run.model.calls[1]?.input.feedback).toBe('The user answered your question "Which report?": the March one');
  });

  it('a confirmation answered yes runs the action', async () => {
    const run = await runAgent({
      turns: [reply([click(5)]), done],
      confirmationRules: [{ windowTitleContains: 'delete', reason: 'the window in front deletes things' }],
      operator: new FakeOperator({ windowTitle: 'Delete 3 files?' }),
      answers: ['Yes.'],
    });
    expect(run.end.status).toBe('finished');
    expect(run.questions).toMatchObject([{ kind: 'confirmation', action: { type: 'click', x: 5 } }]);
    expect(run.questions[0]?.question).toMatch(/^the window in front deletes things\. Allow click /);
    expect(run.operator.executedTypes).toEqual(['click']);
  });

  it('an action the model marks confirm asks even without rules', async () => {
    const run = await runAgent({ turns: [reply([{ ...click(5), confirm: true }]), done], answers: ['ok'] });
    expect(run.questions).toMatchObject([{ kind: 'confirmation', question: expect.stringMatching(/^the model asked for confirmation before this action/) }]);
    expect(run.operator.executedTypes).toEqual(['click']);
  });

  it('a safety check answered yes runs the action and acknowledges the checks in the next request only', async () => {
    const checks = [{ id: 'sc_1', code: 'irrelevant_domain', message: 'The page is not the one the task names' }];
    const run = await runAgent({
      turns: [reply([{ ...click(5), confirm: true }], { safetyChecks: checks }), reply([click(9)]), done],
      answers: ['yes'],
    });
    expect(run.end.status).toBe('finished');
    expect(run.questions).toMatchObject([{ kind: 'safety_check', action: { type: 'click', x: 5, confirm: true } }]);
    expect(run.operator.executedTypes).toEqual(['click', 'click']);
    expect(run.model.calls[0]?.input.acknowledgedSafetyChecks).toBeUndefined();
    expect(run.model.calls[1]?.input.acknowledgedSafetyChecks).toEqual(checks);
    expect(run.model.calls[2]?.input.acknowledgedSafetyChecks).toBeUndefined();
  });

  it('acknowledged safety checks go again with the request after a failed call, until a reply comes', async () => {
    const checks = [{ id: 'sc_2', code: null, message: 'Sensitive page' }];
    const run = await runAgent({
      turns: [reply([{ ...click(5), confirm: true }], { safetyChecks: checks }), failure('timeout', 'no answer within 60 s'), done],
      answers: ['yes'],
    });
    expect(run.end.status).toBe('finished');
    expect(run.model.calls[1]?.input.acknowledgedSafetyChecks).toEqual(checks);
    expect(run.model.calls[2]?.input.acknowledgedSafetyChecks).toEqual(checks);
  });
});
