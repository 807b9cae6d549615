/**
 * Batches that cannot click blind, and the zoom, on the fakes: a reply of several actions runs in
 * order; after an action that can change the screen, a later pointed action runs only where the
 * screen still looks as the model saw it; what did not run is recorded (`actions-not-run`) and said
 * to the model; a refused tool ends the run at once. The pure verdict is tested on fingerprints.
 */
import { describe, expect, it } from 'vitest';
import { aimsAtPoint, changesScreen, describeCut, judgeNextAction } from '../../../src/main/run/batch-guard';
import type { ScreenFingerprint } from '../../../src/main/operator/screen-diff';
import { act, failure, FakeOperator, ofType, reply, screenNumber } from '../../fixtures/fakes';
import { runAgent } from './agent-harness';

/** A 96x60 fingerprint of one grey, with `paint` applied (cells x0..x1, y0..y1 set to `grey`). */
function fingerprint(base: number, ...paint: Array<{ x0: number; x1: number; y0: number; y1: number; grey: number }>): ScreenFingerprint {
  const pixels = new Uint8Array(96 * 60).fill(base);
  for (const { x0, x1, y0, y1, grey } of paint) for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) pixels[y * 96 + x] = grey;
  return { width: 96, height: 60, pixels };
}

describe('the verdict', () => {
  const page = fingerprint(244, { x0: 50, x1: 80, y0: 5, y1: 7, grey: 255 });

  it('goes on where the screen is unchanged, and where it changed only away from the target', () => {
    expect(judgeNextAction(page, page, { x: 0.7, y: 0.1 })).toEqual({ go: true });
    const typedElsewhere = fingerprint(244, { x0: 50, x1: 80, y0: 5, y1: 7, grey: 255 }, { x0: 51, x1: 60, y0: 6, y1: 6, grey: 120 });
    expect(judgeNextAction(page, typedElsewhere, { x: 0.7, y: 0.5 })).toEqual({ go: true });
    // A blinking caret right at the target is one cell of 25.
    const caret = fingerprint(244, { x0: 50, x1: 80, y0: 5, y1: 7, grey: 255 }, { x0: 67, x1: 67, y0: 6, y1: 6, grey: 40 });
    expect(judgeNextAction(page, caret, { x: 67 / 96, y: 6 / 60 })).toEqual({ go: true });
  });

  it('stops where a light field slid off a light page under the target, and on a wholesale change', () => {
    const moved = fingerprint(244, { x0: 50, x1: 80, y0: 25, y1: 27, grey: 255 });
    expect(judgeNextAction(page, moved, { x: 65 / 96, y: 6 / 60 })).toEqual({ go: false, why: 'the screen changed where it aims' });
    const dimmed = fingerprint(150);
    expect(judgeNextAction(page, dimmed, null)).toEqual({ go: false, why: 'the screen changed' });
    // Without both screens there is nothing to judge.
    expect(judgeNextAction(undefined, moved, { x: 0.5, y: 0.1 })).toEqual({ go: true });
  });

  it('names what ran and what did not, as a person counts', () => {
    expect(describeCut(1, 4, 'the screen changed where it aims')).toBe('the screen changed after action 1 of 4 where action 2 aims; 2, 3 and 4 were not run: look at the new screen before acting on it');
    expect(describeCut(3, 4, 'the screen changed')).toBe('the screen changed after action 3 of 4; 4 was not run: look at the new screen before acting on it');
    expect(changesScreen(act({ type: 'wait', ms: 10 }))).toBe(false);
    expect(changesScreen(act({ type: 'type', text: 'x' }))).toBe(true);
    expect(aimsAtPoint(act({ type: 'type', text: 'x' }))).toBe(false);
    expect(aimsAtPoint(act({ type: 'scroll', direction: 'down' }))).toBe(false);
    expect(aimsAtPoint(act({ type: 'scroll', x: 1, y: 2, direction: 'down' }))).toBe(true);
    expect(aimsAtPoint(act({ type: 'zoom', x: 1, y: 2, toX: 5, toY: 6 }))).toBe(false);
  });
});

const click = (x: number, y = 50) => ({ type: 'click' as const, x, y });

describe('a batch in a run', () => {
  it('runs every action when the screen stays as the model saw it', async () => {
    const run = await runAgent({ turns: [reply([click(10), { type: 'type', text: 'Ada' }, click(200)]), reply([{ type: 'finished', summary: '' }])] });
    expect(run.operator.executedTypes).toEqual(['click', 'type', 'click']);
    expect(ofType(run.events, 'actions-not-run')).toEqual([]);
  });

  it('stops before a pointed action once the screen changed under it; typing after a click still runs', async () => {
    const operator = new FakeOperator();
    // The second click changes the whole screen (a page that loads).
    let clicks = 0;
    operator.afterExecute = (action) => (action.type === 'click' && ++clicks === 2 ? screenNumber(3) : undefined);
    const run = await runAgent({ operator, turns: [reply([click(10), { type: 'type', text: 'Ada' }, click(200), click(300), { type: 'type', text: 'more' }]), reply([{ type: 'finished', summary: '' }])] });
    expect(run.operator.executedTypes).toEqual(['click', 'type', 'click']);
    const [notRun] = ofType(run.events, 'actions-not-run');
    expect(notRun).toMatchObject({ step: 1, from: 3, count: 2 });
    expect(notRun?.reason).toBe('the screen changed after action 3 of 5; 4 and 5 were not run: look at the new screen before acting on it');
    // The model hears it with its next screenshot, and the step's history says where it stopped.
    const next = run.model.calls[1]!.input;
    expect(next.feedback).toContain('Not all of your actions ran: the screen changed after action 3 of 5; 4 and 5 were not run');
    expect(next.history[0]?.notRun).toEqual({ from: 3, reason: notRun?.reason });
    expect(run.end.status).toBe('finished');
  });

  it('records the actions after a failed one as not run, naming it', async () => {
    const operator = new FakeOperator().scriptResults({ ok: true, type: 'click', durationMs: 1 }, { ok: false, type: 'type', error: { kind: 'input_failed', message: 'the keyboard is gone' } });
    const run = await runAgent({ operator, turns: [reply([click(10), { type: 'type', text: 'Ada' }, click(200)]), reply([{ type: 'finished', summary: '' }])] });
    expect(ofType(run.events, 'actions-not-run')).toMatchObject([{ from: 2, count: 1, reason: 'action 2 (type) failed' }]);
  });

  it('a refused tool ends the run at once, with the fix in the reason', async () => {
    const refused = { ...failure('http', 'tools.0: computer_20251124 is not supported; the model refused the computer_20251124 tool; try the computer_toolset_20260801 tool: --computer-tool computer_toolset_20260801'), error: { kind: 'http' as const, status: 400, fatal: true, message: 'tools.0: computer_20251124 is not supported; try --computer-tool computer_toolset_20260801' } };
    const run = await runAgent({ then: refused });
    expect(run.end).toMatchObject({ status: 'failed', steps: 1, reason: 'the model endpoint refused the request: tools.0: computer_20251124 is not supported; try --computer-tool computer_toolset_20260801' });
    expect(run.model.calls).toHaveLength(1);
  });
});

describe('zoom in a run', () => {
  it('the next screenshot is the region at the screen’s resolution; points given on it map back through the region', async () => {
    // A 1280x800 display seen as a 640x400 image: the region is finer than the image.
    const operator = new FakeOperator({ bounds: { x: 0, y: 0, width: 1280, height: 800 } });
    const run = await runAgent({
      operator,
      options: { capture: { maxWidth: 640, format: 'jpeg', quality: 70 } },
      turns: [reply([{ type: 'zoom', x: 100, y: 50, toX: 200, toY: 100 }]), reply([click(100, 50)]), reply([{ type: 'finished', summary: '' }])],
    });
    expect(run.end.status).toBe('finished');
    // The second look is the region: 200x100 screen pixels (100x50 of the image, twice as fine).
    expect(operator.observed[1]?.region).toEqual({ x: 200, y: 100, width: 200, height: 100 });
    const second = run.model.calls[1]!.input;
    expect(second.observation).toMatchObject({ width: 200, height: 100 });
    expect(second.zoom).toEqual({ x: 100, y: 50, toX: 200, toY: 100 });
    expect(second.screen).toEqual({ width: 1280, height: 800 });
    // The click in the middle of the zoomed image lands in the middle of the region.
    const clicked = operator.executed.find((entry) => entry.action.type === 'click');
    expect(clicked?.frame.bounds).toEqual({ x: 200, y: 100, width: 200, height: 100 });
    const landed = ofType(run.events, 'action-result').find((event) => event.action.type === 'click')?.result;
    expect(landed).toMatchObject({ ok: true });
    // The third look is the whole screen again.
    expect(operator.observed[2]?.region).toBeUndefined();
    expect(run.model.calls[2]!.input.history.at(-1)?.zoom).toEqual({ x: 100, y: 50, toX: 200, toY: 100 });
  });
});
