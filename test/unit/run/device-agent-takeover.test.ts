/**
 * Taking a run over and handing it back, on the fakes: the agent stops at the next moment it
 * would act (a model call in flight cancelled, the rest of a step's actions dropped), the user's
 * actions become steps of their own (`actor: "user"`) carried out through the run's execute path,
 * recorded in pixels of the model's image, and the agent's next request says what the user did
 * and their note. Input outside a takeover is refused with a reason.
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import { Takeover } from '../../../src/main/run/takeover';
import { startAgent } from './agent-harness';
import { act, FakeOperator, ofType, reply, untilStopped, waitFor } from '../../fixtures/fakes';

/** A screen larger than the model's image (1280 wide): the user's pixels are not the model's. */
const BIG = { x: 0, y: 0, width: 1920, height: 1200 };

function userEvents(events: readonly AgentEvent[]): AgentEvent[] {
  return events.filter((event) => 'actor' in event && event.actor === 'user');
}

describe('takeover', () => {
  it('cancels the model call in flight, runs the user\'s actions as user steps, and tells the model what they did', async () => {
    const takeover = new Takeover();
    const run = startAgent({
      takeover,
      operator: new FakeOperator({ bounds: BIG }),
      turns: [untilStopped, reply([{ type: 'finished', summary: 'done' }])],
      onEvent: (event) => {
        if (event.type === 'observation' && event.step === 1) expect(takeover.take()).toEqual({ ok: true });
      },
    });
    await waitFor(() => run.recorder.events.some((event) => event.type === 'taken-over'), 'the agent to stop for the user');
    // The model call of step 1 was cancelled, not the run.
    expect(run.model.calls[0]?.signal?.aborted).toBe(true);

    const clicked = await takeover.input(act({ type: 'click', x: 960, y: 600 }));
    expect(clicked).toEqual({ ok: true, step: 2, result: expect.objectContaining({ ok: true, type: 'click' }) });
    const typed = await takeover.input(act({ type: 'type', text: 'Ada' }));
    expect(typed).toMatchObject({ ok: true, step: 3 });
    // Carried out in screen pixels, exactly where the user clicked.
    const [click] = run.operator.executed;
    expect(click?.action).toMatchObject({ type: 'click', x: 960, y: 600 });
    expect(click?.frame.image).toMatchObject({ width: 1920, height: 1200 });

    expect(takeover.handBack('  Filled in the name for you  ')).toEqual({ ok: true });
    const { events, end } = await run.done;
    expect(end).toMatchObject({ status: 'finished' });

    // The second request tells the model, in its own image's pixels (1280x800 of 1920x1200).
    const told = run.model.calls[1]?.input.feedback ?? '';
    expect(told).toContain('The user took over the desktop and did, in pixels of the current screenshot (1280x800), origin at its top-left corner: 1. click at (640, 400); 2. type "Ada".');
    expect(told).toContain('Their note: "Filled in the name for you".');

    // The record: the step the user interrupted, the takeover, two user steps, the hand-back, the agent again.
    expect(ofType(events, 'note').map((note) => note.message)).toContain("the user took over: the model's reply was dropped");
    expect(ofType(events, 'taken-over')).toEqual([expect.objectContaining({ step: 1 })]);
    expect(ofType(events, 'handed-back')).toEqual([expect.objectContaining({ step: 3, note: 'Filled in the name for you' })]);
    const user = userEvents(events);
    expect(user.map((event) => `${event.type}@${'step' in event ? event.step : ''}`)).toEqual([
      'step-started@2',
      'observation@2',
      'action@2',
      'action-result@2',
      'step-finished@2',
      'step-started@3',
      'observation@3',
      'action@3',
      'action-result@3',
      'step-finished@3',
    ]);
    expect(ofType(user, 'action')[0]?.action).toMatchObject({ type: 'click', x: 640, y: 400 });
    expect(ofType(events, 'step-started').filter((event) => event.actor !== 'user').map((event) => event.step)).toEqual([1, 4]);
  });

  it("tells a model that writes 0-1000 coordinates the user's points on its own grid", async () => {
    const takeover = new Takeover();
    const run = startAgent({
      takeover,
      coordinates: 'relative-1000',
      operator: new FakeOperator({ bounds: BIG }),
      turns: [untilStopped, reply([{ type: 'finished', summary: 'done' }])],
      onEvent: (event) => {
        if (event.type === 'observation' && event.step === 1) takeover.take();
      },
    });
    await waitFor(() => run.recorder.events.some((event) => event.type === 'taken-over'), 'the agent to stop for the user');
    // A quarter across and three quarters down the 1920x1200 screen.
    expect(await takeover.input(act({ type: 'click', x: 480, y: 900 }))).toMatchObject({ ok: true, step: 2 });
    takeover.handBack('there');
    await run.done;
    const told = run.model.calls[1]?.input.feedback ?? '';
    expect(told).toContain('The user took over the desktop and did, in thousandths of the current screenshot (0-1000): x from 0 (left edge) to 1000 (right edge), y from 0 (top) to 1000 (bottom): 1. click at (250, 750).');
    // The record keeps the image's pixels, as it keeps the agent's actions.
    expect(ofType(userEvents(run.recorder.events), 'action')[0]?.action).toMatchObject({ type: 'click', x: 320, y: 600 });
  });

  it('after the action in progress: the rest of the step is dropped', async () => {
    const takeover = new Takeover();
    const run = startAgent({
      takeover,
      turns: [
        reply([
          { type: 'click', x: 10, y: 10 },
          { type: 'click', x: 20, y: 20 },
          { type: 'click', x: 30, y: 30 },
        ]),
        reply([{ type: 'finished' }]),
      ],
      onEvent: (event) => {
        if (event.type === 'action-result' && event.index === 0) takeover.take();
      },
    });
    await waitFor(() => run.recorder.events.some((event) => event.type === 'taken-over'), 'the takeover');
    expect(run.operator.executed.map((entry) => entry.action)).toEqual([expect.objectContaining({ x: 10, y: 10 })]);
    takeover.handBack();
    const { events } = await run.done;
    expect(ofType(events, 'note').map((note) => note.message)).toContain('the user took over: 2 planned actions were not carried out');
    expect(run.model.calls[1]?.input.feedback).toContain('The user took over the desktop and did nothing on the screen. They left no note.');
  });

  it('input and hand-back outside a takeover are refused with a reason; stopping ends a takeover', async () => {
    const takeover = new Takeover();
    expect(await takeover.input(act({ type: 'click', x: 1, y: 1 }))).toEqual({ ok: false, reason: expect.stringMatching(/not taken over/) });
    expect(takeover.handBack('x')).toEqual({ ok: false, reason: expect.stringMatching(/not taken over/) });
    const run = startAgent({ takeover, turns: [untilStopped], onEvent: (event) => event.type === 'observation' && takeover.take() });
    await waitFor(() => run.recorder.events.some((event) => event.type === 'taken-over'), 'the takeover');
    run.stop();
    const { end } = await run.done;
    expect(end.status).toBe('aborted');
    takeover.end('the run has ended');
    expect(await takeover.input(act({ type: 'click', x: 1, y: 1 }))).toEqual({ ok: false, reason: 'the run has ended' });
    expect(run.operator.executed).toEqual([]);
  });
});
