/**
 * What the loop captures after an action when a prediction asks (a family that answers every
 * call with what followed it): the screen, a region at up to full resolution, the pointer; the
 * model's next request gets them with a report of each action; and the image kept within the
 * size the model takes. On the fakes: the loop never learns which family asked.
 */
import { describe, expect, it } from 'vitest';
import type { PredictionSuccess } from '../../../src/main/model/types';
import { actionFailed, FakeOperator, ofType, reply } from '../../fixtures/fakes';
import { runAgent } from './agent-harness';

const finished = reply([{ type: 'finished', summary: 'done' }]);

function withCaptures(prediction: PredictionSuccess, captures: PredictionSuccess['captures']): PredictionSuccess {
  return { ...prediction, captures };
}

describe('captures after actions', () => {
  it('the screen after an action, a region at full resolution, the pointer in image pixels; all in the next request', async () => {
    // A 1280x800 display sent as 640x400 images.
    const operator = new FakeOperator({ bounds: { x: 0, y: 0, width: 1280, height: 800 } });
    operator.pointer = { x: 200, y: 100 };
    const first = withCaptures(reply([{ type: 'click', x: 100, y: 50 }, { type: 'type', text: 'Ada' }, { type: 'screenshot' }, { type: 'screenshot' }, { type: 'hotkey', keys: ['tab'] }]), [
      { afterAction: 0, kind: 'screen' },
      { afterAction: 2, kind: 'region', region: { x: 300, y: 100, width: 100, height: 50 } },
      { afterAction: 3, kind: 'pointer' },
    ]);
    const run = await runAgent({ operator, turns: [first, finished], options: { capture: { maxWidth: 640 } }, imageLimits: { maxWidth: 1568, maxHeight: 1568, maxPixels: 1_150_000 } });
    expect(run.end).toMatchObject({ status: 'finished' });

    // observe (step), screen, region, pointer, then the next step's observe.
    expect(run.operator.observed[1]).toMatchObject({ maxWidth: 640 });
    expect(run.operator.observed[2]).toMatchObject({ region: { x: 600, y: 200, width: 200, height: 100 }, maxWidth: 1568, maxHeight: 1568, maxPixels: 1_150_000 });
    expect(run.operator.observed[3]).toMatchObject({ pointer: true });

    const [step] = run.model.calls[1]!.input.history;
    expect(step?.reports).toEqual([{ ok: true }, { ok: true }, { ok: true }, { ok: true }, { ok: true }]);
    expect(step?.captures?.map(({ afterAction, kind, image, pointer }) => ({ afterAction, kind, size: image && [image.width, image.height], pointer }))).toEqual([
      { afterAction: 0, kind: 'screen', size: [640, 400], pointer: undefined },
      // The region at the display's own resolution: 200x100 screen pixels.
      { afterAction: 2, kind: 'region', size: [200, 100], pointer: undefined },
      { afterAction: 3, kind: 'pointer', size: undefined, pointer: { x: 100, y: 50 } },
    ]);
    // The images were read back from the record, where they sit beside the step's own.
    expect(step?.captures?.[0]?.image?.image.length).toBeGreaterThan(0);
    expect([...run.recorder.screenshots.keys()].sort()).toEqual(['screenshots/step-0001-after-1.jpg', 'screenshots/step-0001-after-3.jpg', 'screenshots/step-0001.jpg', 'screenshots/step-0002.jpg']);
  });

  it('nothing is captured after an action that failed, and the actions after it are not reported', async () => {
    const operator = new FakeOperator().scriptResults(actionFailed('input_failed', 'the X server refused', 'click'));
    const first = withCaptures(reply([{ type: 'click', x: 10, y: 10 }, { type: 'type', text: 'x' }]), [{ afterAction: 0, kind: 'screen' }]);
    const run = await runAgent({ operator, turns: [first, finished] });
    const [step] = run.model.calls[1]!.input.history;
    expect(step?.reports).toEqual([{ ok: false, error: 'the X server refused' }]);
    expect(step?.captures).toBeUndefined();
    expect(run.operator.observed).toHaveLength(2);
  });

  it("the step's image is kept within the model's image limits as well as the user's", async () => {
    // A portrait 1080x1920 display: the user's width limit alone would send 1080x1920.
    const operator = new FakeOperator({ bounds: { x: 0, y: 0, width: 1080, height: 1920 } });
    const run = await runAgent({ operator, turns: [finished], options: { capture: { maxWidth: 1280 } }, imageLimits: { maxWidth: 1568, maxHeight: 1568, maxPixels: 1_150_000 } });
    const [observation] = ofType(run.events, 'observation');
    expect(observation?.frame.image.height).toBeLessThanOrEqual(1568);
    expect(run.operator.observed[0]).toMatchObject({ maxWidth: 1280, maxHeight: 1568, maxPixels: 1_150_000 });
  });

  it('answers of memory and questions are reported for the model too', async () => {
    const run = await runAgent({ turns: [reply([{ type: 'ask_user', question: 'Which name?' }]), finished], answers: ['Ada'] });
    const [step] = run.model.calls[1]!.input.history;
    expect(step?.reports).toEqual([{ ok: true, detail: 'The user answered your question "Which name?": Ada' }]);
  });
});
