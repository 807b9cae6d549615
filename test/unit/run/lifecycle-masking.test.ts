/**
 * The settings' secrets in the run lifecycle, the one place every event passes: masked in every
 * event, streamed and recorded, and in a thought streamed in pieces that cut the key in two.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import { MASK } from '../../../src/shared/describe-action';
import { SecretMask } from '../../../src/shared/secret-mask';
import { RunLifecycle } from '../../../src/main/run/lifecycle';
import { RunElements } from '../../../src/main/run/elements';
import type { Frame } from '../../../src/shared/frame';
import { piecesIn } from '../../fixtures/secrets';
import { FakeOperator, MemoryRecorder, waitFor } from '../../fixtures/fakes';

const KEY = 'sk-test-4f9Qz81LmWcXb27RtYu';

function lifecycle() {
  const recorder = new MemoryRecorder();
  const life = new RunLifecycle({ recorder, operator: new FakeOperator(), askUser: async () => null, redaction: new SecretMask([KEY, 'short']) }, new AbortController().signal);
  const streamed: AgentEvent[] = [];
  void (async () => {
    for await (const event of life.events) streamed.push(event);
  })();
  return { recorder, life, streamed };
}

describe('masking the settings’ secrets in the run lifecycle', () => {
  it('masks them in every event, streamed and recorded', async () => {
    const { recorder, life, streamed } = lifecycle();
    life.emit({ type: 'model-error', step: 1, kind: 'auth', message: `401 Incorrect API key provided: ${KEY.slice(0, 11)}**********${KEY.slice(-4)}`, consecutive: 1, limit: 1 });
    life.emit({ type: 'action', step: 1, index: 0, action: { type: 'type', text: `my key: ${KEY}` } });
    await life.finish({ status: 'failed', reason: `the model endpoint refused the request: ${KEY}` }, 1);
    await waitFor(() => streamed.some((e) => e.type === 'run-finished'), 'run-finished');
    for (const events of [streamed, recorder.events]) {
      expect(piecesIn(JSON.stringify(events), KEY)).toEqual([]);
      expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    }
    expect(streamed[1]).toMatchObject({ action: { type: 'type', text: `my key: ${MASK}` } });
  });

  it('a key cut between two streamed pieces of a thought is still masked whole', async () => {
    const { recorder, life, streamed } = lifecycle();
    life.thought(1, `The key is ${KEY.slice(0, 6)}`, 0);
    // The coalescing timer sends what is safe and holds the start of the key back.
    await waitFor(() => streamed.some((e) => e.type === 'thought-delta'), 'the first thought delta');
    life.thought(1, `${KEY.slice(6)}, I will not type it.`, 0);
    life.emit({ type: 'step-finished', step: 1, durationMs: 1, costUsd: 0 });
    await waitFor(() => streamed.some((e) => e.type === 'step-finished'), 'step-finished');
    const deltas = streamed.flatMap((e) => (e.type === 'thought-delta' ? [e.delta] : []));
    expect(deltas[0]).toBe('The key is ');
    expect(deltas.join('')).toBe(`The key is ${MASK}, I will not type it.`);
    await recorder.written();
    expect(recorder.events.flatMap((e) => (e.type === 'thought-delta' ? [e.delta] : [])).join('')).toBe(deltas.join(''));
  });
});

describe('a read-back of a field that holds a secret', () => {
  it('is masked in its value as in its message, streamed and recorded', async () => {
    const bounds = { x: 100, y: 100, width: 300, height: 30 };
    const field = { n: 1, ref: ':1.2/7', role: 'entry', name: 'Token', states: ['editable', 'focused'], bounds, interactive: true };
    const frame: Frame = { displayId: 'screen', bounds: { x: 0, y: 0, width: 1280, height: 800 }, scaleFactor: 1, captured: { width: 1280, height: 800 }, image: { width: 1280, height: 800, format: 'jpeg' } };
    let held = '';
    const elements = new RunElements(
      {
        snapshot: async () => ({ ok: true, snapshot: { display: ':9', takenAt: 0, elapsedMs: 1, method: 'collection', window: { app: 'form', role: 'frame', name: 'Form', bounds: frame.bounds, chosenBy: 'active' }, elements: [field] } }),
        resolve: async () => ({ ok: true, bounds, states: field.states }),
        readBack: async () => ({ ok: true, bounds, states: field.states, value: held }),
      },
      { stepBudgetMs: 100, queryBudgetMs: 100, readBackMs: 200, pollMs: 5 },
    );
    const operator = new FakeOperator();
    const typeInto = operator.execute.bind(operator);
    operator.execute = async (action, on, signal) => {
      if (action.type === 'type') held += action.text;
      return typeInto(action, on, signal);
    };
    const recorder = new MemoryRecorder();
    const life = new RunLifecycle({ recorder, operator, elements, askUser: async () => null, redaction: new SecretMask([KEY]) }, new AbortController().signal);
    const streamed: AgentEvent[] = [];
    void (async () => {
      for await (const event of life.events) streamed.push(event);
    })();
    // The field was read back (the model, which typed it, is told so); what is streamed and recorded has it masked.
    expect(await life.execute(1, 0, { type: 'type', text: KEY }, frame)).toMatchObject({ ok: true, check: { kind: 'value', ok: true } });
    await life.finish({ status: 'finished', reason: 'done' }, 1);
    await waitFor(() => streamed.some((e) => e.type === 'run-finished'), 'run-finished');
    for (const events of [streamed, recorder.events]) {
      const read = events.find((e) => e.type === 'action-result');
      expect(read).toMatchObject({ result: { check: { value: MASK } } });
      expect(piecesIn(JSON.stringify(events), KEY)).toEqual([]);
    }
  });
});
