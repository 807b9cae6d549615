/**
 * What a DeviceAgent run streams and records: `seq` without gaps, thought deltas coalesced, a
 * typed password masked everywhere it could leak, the screenshots the model is sent (few, and read
 * back from the record), and pausing at a step boundary.
 */
import { describe, expect, it } from 'vitest';
import { parseAgentEvent } from '../../../src/shared/events';
import { MASK } from '../../../src/main/run/masking';
import { failure, FakeOperator, gate, MemoryRecorder, ofType, oneToN, reply, screenNumber, streamed, textOf } from '../../fixtures/fakes';
import { limits, runAgent, startAgent } from './agent-harness';

const click = (x: number, y = 50) => ({ type: 'click' as const, x, y });
const done = reply([{ type: 'finished', summary: 'done' }]);

describe('seq', () => {
  it('runs 1..n without a gap in the live stream and in the record, and every recorded event fits the schema', async () => {
    const run = await runAgent({
      turns: [
        streamed(['Open ', 'the ', 'menu.'], reply([click(5)], { thought: 'Open the menu.' })),
        reply([{ type: 'ask_user', question: 'Which entry?' }]),
        failure('timeout', 'no answer within 60 s'),
        streamed(['Done.'], done),
      ],
      answers: ['the second'],
    });
    expect(run.end.status).toBe('finished');
    expect(run.events.map((event) => event.seq)).toEqual(oneToN(run.events.length));
    expect(run.recorder.events.map((event) => event.seq)).toEqual(oneToN(run.events.length));
    expect(run.recorder.events.map((event) => event.type)).toEqual(run.events.map((event) => event.type));
    expect(run.recorder.writtenSeq).toBe(run.events.length);
    expect(run.recorder.closed).toBe(true);
    expect(run.recorder.events.map((event) => parseAgentEvent(event).ok)).not.toContain(false);
    expect(new Set(run.events.map((event) => event.type))).toEqual(
      new Set(['run-started', 'step-started', 'observation', 'thought-delta', 'prediction', 'action', 'action-result', 'step-finished', 'ask-user', 'user-answer', 'model-error', 'memory', 'run-finished']),
    );
  });
});

describe('thoughts and secrets', () => {
  it('coalesces the deltas that stream together into one event', async () => {
    const deltas = ['I ', 'will ', 'click ', 'the ', 'Save ', 'button.'];
    const run = await runAgent({ turns: [streamed(deltas, reply([click(5)], { thought: deltas.join('') })), done] });
    const live = ofType(run.events, 'thought-delta');
    expect(live.map((event) => [event.step, event.delta, event.attempt])).toEqual([[1, deltas.join(''), 1]]);
    expect(ofType(run.recorder.events, 'thought-delta').map((event) => event.delta)).toEqual([deltas.join('')]);
  });

  it('starts a new event when a retry restarts the stream, with its attempt number', async () => {
    const run = await runAgent({
      turns: [
        ({ onThought }) => {
          onThought?.('I will cl', 1);
          onThought?.('I will ', 2);
          onThought?.('click.', 2);
          return reply([click(5)], { thought: 'I will click.' });
        },
        done,
      ],
    });
    expect(ofType(run.events, 'thought-delta').map((event) => [event.delta, event.attempt])).toEqual([
      ['I will cl', 1],
      ['I will click.', 2],
    ]);
  });

  it('masks a password typed into a field (the thought says so) in the record, the recorded deltas and the history sent to the model', async () => {
    // A quote, so the raw reply holds the secret escaped, and twice in the tool call's arguments.
    const secret = 'hunter"2-xyzzy';
    const thought = `The password field is focused; I type ${secret} and log in.`;
    const deltas = thought.match(/.{1,7}/g) ?? [];
    const deltaSeen = gate();
    const run = await runAgent({
      turns: [streamed(deltas, reply([click(40, 40), { type: 'type', text: secret }], { thought }), () => deltaSeen.opened), done],
      onEvent: (event) => {
        if (event.type === 'thought-delta') deltaSeen.open();
      },
    });
    expect(run.end.status).toBe('finished');
    // The desktop gets the real text.
    expect(run.operator.executed.map((entry) => entry.action)).toContainEqual({ type: 'type', text: secret });

    // The scenario: the delta went out live before the action revealed the secret (so it could not
    // be masked there); its record was written once the secret was known.
    expect(ofType(run.events, 'thought-delta').map((event) => event.delta).join('')).toBe(thought);

    const masked = thought.replace(secret, MASK);
    const recorded = run.recorder.events;
    expect(textOf(recorded)).not.toContain('hunter');
    expect(ofType(recorded, 'thought-delta').map((event) => event.delta).join('')).toBe(masked);
    expect(ofType(recorded, 'prediction')[0]).toMatchObject({ thought: masked, actions: [{ type: 'click' }, { type: 'type', text: MASK }] });
    expect(ofType(recorded, 'action').map((event) => event.action)).toContainEqual({ type: 'type', text: MASK });
    expect(ofType(recorded, 'action-result').map((event) => event.action)).toContainEqual({ type: 'type', text: MASK });
    expect(run.recorder.replies.get(1)).not.toContain('hunter');

    const next = run.model.calls[1]?.input;
    expect(next?.history[0]).toMatchObject({ thought: masked, actions: [{ type: 'click' }, { type: 'type', text: MASK }] });
    expect(textOf(next)).not.toContain('hunter');
    // Everything streamed after the secret became known is masked too.
    expect(textOf(ofType(run.events, 'prediction'))).not.toContain('hunter');
    expect(textOf(ofType(run.events, 'action'))).not.toContain('hunter');
  });

  it('masks the password where an error message quotes it: the record and the feedback to the model', async () => {
    const secret = 'pässwörd-42';
    const operator = new FakeOperator().scriptResults({ ok: false, type: 'type', error: { kind: 'unsupported', message: `cannot type "${secret}": no key for ä` } });
    const run = await runAgent({ operator, turns: [reply([{ type: 'type', text: secret }], { thought: 'Type the password.' }), done] });
    expect(run.end.status).toBe('finished');
    expect(ofType(run.recorder.events, 'action-result')[0]?.result).toEqual({ ok: false, type: 'type', error: { kind: 'unsupported', message: `cannot type "${MASK}": no key for ä` } });
    expect(textOf(run.recorder.events)).not.toContain(secret);
    expect(run.model.calls[1]?.input.feedback).toBe(`Your action type failed: cannot type "${MASK}": no key for ä`);
    expect(textOf(run.model.calls[1]?.input)).not.toContain(secret);
  });

  it('masks text the model marks secret even when its thought does not say so', async () => {
    const run = await runAgent({ turns: [reply([{ type: 'type', text: '4711-0815', secret: true }], { thought: 'Enter the code.' }), done] });
    expect(run.operator.executed[0]?.action).toMatchObject({ type: 'type', text: '4711-0815' });
    expect(textOf(run.recorder.events)).not.toContain('4711-0815');
    expect(textOf(run.model.calls[1]?.input)).not.toContain('4711-0815');
  });
});

describe('screenshots in the history', () => {
  it('sends at most keepScreenshots images, the current one included, read back from the record', async () => {
    const keepScreenshots = 3;
    const operator = new FakeOperator().scriptObservations(screenNumber(1), screenNumber(2), screenNumber(3), screenNumber(4), screenNumber(5));
    let x = 0;
    const run = await runAgent({ operator, then: () => reply([click((x += 10))]), options: { keepScreenshots, limits: limits({ maxSteps: 5 }) } });
    expect(run.end).toMatchObject({ status: 'limit', steps: 5 });

    const refs = new Map(ofType(run.events, 'observation').map((event) => [event.step, event.screenshot]));
    for (const call of run.model.calls) {
      const withImage = call.input.history.filter((step) => step.screenshot);
      expect(withImage.length).toBeLessThanOrEqual(keepScreenshots - 1);
      for (const step of withImage) {
        const saved = run.recorder.screenshots.get(refs.get(step.step)?.path ?? '');
        expect(saved, `step ${step.step}`).toBeDefined();
        expect(step.screenshot?.image.equals(saved as Buffer), `step ${step.step}`).toBe(true);
      }
    }
    const last = run.model.calls[4]?.input.history ?? [];
    expect(last.map((step) => [step.step, step.screenshot ? 'image' : step.screenshotPlaceholder])).toEqual([
      [1, '[Screenshot removed - Step 1]'],
      [2, '[Screenshot removed - Step 2]'],
      [3, 'image'],
      [4, 'image'],
    ]);
    // Each step's image is that step's screen, not the same bytes over and over.
    const step3 = await operator.render(screenNumber(3), { width: 640, height: 400 });
    expect(last[2]?.screenshot?.image.equals(step3)).toBe(true);
    expect(last[3]?.screenshot?.image.equals(step3)).toBe(false);
  });

  it('a screenshot gone from the record reaches the model as a placeholder', async () => {
    const recorder = new MemoryRecorder();
    const run = await runAgent({
      recorder,
      turns: [
        reply([click(10)]),
        reply([click(20)]),
        () => {
          // Step 2's screenshot was written before step 3 was observed; now its file is gone.
          recorder.loseScreenshot('screenshots/step-0002.jpg');
          return reply([click(30)]);
        },
        done,
      ],
    });
    expect(run.end.status).toBe('finished');
    expect(run.model.calls[3]?.input.history.map((step) => [step.step, step.screenshot ? 'image' : step.screenshotPlaceholder])).toEqual([
      [1, '[Screenshot removed - Step 1]'],
      [2, '[Screenshot unavailable - Step 2]'],
      [3, 'image'],
    ]);
  });
});

describe('pause', () => {
  it('takes effect at the step boundary and the run goes on after resume', async () => {
    let callsWhenPaused = -1;
    const run = startAgent({
      turns: [reply([click(10)]), reply([click(20)]), done],
      onEvent: (event, { gate }) => {
        if (event.type === 'step-finished' && event.step === 1) gate.pause();
        if (event.type === 'paused') {
          callsWhenPaused = run.model.calls.length;
          expect(gate.paused).toBe(true);
          gate.resume();
        }
      },
    });
    const { events, end } = await run.done;
    expect(end).toMatchObject({ status: 'finished', steps: 3 });
    expect(callsWhenPaused).toBe(1);
    const order = events.filter((event) => ['step-finished', 'paused', 'resumed', 'step-started'].includes(event.type)).map((event) => `${event.type} ${'step' in event ? event.step : ''}`);
    expect(order.slice(0, 5)).toEqual(['step-started 1', 'step-finished 1', 'paused 1', 'resumed 1', 'step-started 2']);
    expect(run.operator.executedTypes).toEqual(['click', 'click']);
  });
});
