/**
 * What a model is told about the points it acted on is in its own coordinates for the image it
 * saw, whatever the screen: on screens larger than the image (and a portrait one) the click lands
 * on the screen point under the image point, and the next request speaks of the image point in
 * the model's space; the screen point is in the record only.
 */
import { describe, expect, it } from 'vitest';
import type { Action } from '../../../src/shared/actions';
import type { ActionResult } from '../../../src/shared/action-result';
import type { Frame } from '../../../src/shared/frame';
import { actionPoints } from '../../../src/shared/actions';
import { imageToScreen } from '../../../src/main/operator/geometry';
import type { PredictInput } from '../../../src/main/model/types';
import type { CoordinateSpace } from '../../../src/main/model/families/coordinates';
import { regroundInput } from '../../../src/main/replay/reground';
import { FakeOperator, ofType, reply } from '../../fixtures/fakes';
import { runAgent } from './agent-harness';

/** The fake operator, answering as the real one does: with the screen points the action touched. */
class MappingOperator extends FakeOperator {
  override async execute(action: Action, frame: Frame, signal?: AbortSignal): Promise<ActionResult> {
    const result = await super.execute(action, frame, signal);
    if (!result.ok) return result;
    const points = actionPoints(action).map((point) => {
      const mapped = imageToScreen(point, frame);
      if (!mapped.ok) throw new Error(mapped.message);
      return mapped.point;
    });
    return points.length > 0 ? { ...result, points } : result;
  }
}

/** Everything the model was sent, as text (images left out). */
function requestText(input: PredictInput): string {
  return JSON.stringify({ ...input, observation: null, history: input.history.map((step) => ({ ...step, screenshot: null, captures: null })) });
}

const SCREENS = [
  { name: '1920x1080', width: 1920, height: 1080 },
  { name: '2560x1440', width: 2560, height: 1440 },
  { name: '3840x2160', width: 3840, height: 2160 },
  { name: 'portrait 1080x1920', width: 1080, height: 1920 },
];

/** The model's view of the image centre in each space. */
const CENTRE_IN: Record<CoordinateSpace, (image: { width: number; height: number }) => string> = {
  image: (image) => `(${image.width / 2}, ${image.height / 2})`,
  'smart-resize': () => '',
  'relative-1000': () => '(500, 500)',
  'relative-1': () => '(0.5, 0.5)',
};

describe('points told to the model', () => {
  for (const screen of SCREENS) {
    for (const space of ['image', 'relative-1000', 'relative-1'] as const) {
      it(`on a ${screen.name} screen, a ${space} model hears its own point, the screen gets the screen point`, async () => {
        const operator = new MappingOperator({ bounds: { x: 0, y: 0, width: screen.width, height: screen.height } });
        const run = await runAgent({
          operator,
          coordinates: space,
          options: { capture: { maxWidth: 1280, maxHeight: 800 } },
          // The model clicks the centre of the image it was sent (its parser has mapped its answer onto the image).
          turns: [
            (call) => reply([{ type: 'click', x: call.input.observation.width / 2, y: call.input.observation.height / 2 }]),
            reply([{ type: 'finished', summary: 'done' }]),
          ],
        });
        expect(run.end).toMatchObject({ status: 'finished' });
        const image = run.model.calls[0]!.input.observation;
        expect(image.width).toBeLessThan(screen.width);

        // The click went to the screen's centre (within the screen pixels one image pixel covers).
        const [result] = ofType(run.events, 'action-result');
        const landed = result?.result.ok ? result.result.points?.[0] : undefined;
        const pixel = screen.width / image.width;
        expect(Math.abs((landed?.x ?? 0) - screen.width / 2)).toBeLessThanOrEqual(pixel);
        expect(Math.abs((landed?.y ?? 0) - screen.height / 2)).toBeLessThanOrEqual(pixel);
        const screenCentre = landed ?? { x: -1, y: -1 };

        // The next request: the model's own point, and no screen point anywhere.
        const next = run.model.calls[1]!.input;
        const told = CENTRE_IN[space](image);
        expect(next.history[0]?.results).toBe(`click at ${told} done`);
        const text = requestText(next);
        expect(text).toContain(told);
        expect(text).not.toContain(`(${screenCentre.x}, ${screenCentre.y})`);
        expect(text).not.toContain(`${screenCentre.x}, ${screenCentre.y}`);
      });
    }
  }

  it('a smart-resize model hears the point of its resized view', async () => {
    const operator = new MappingOperator({ bounds: { x: 0, y: 0, width: 1920, height: 1080 } });
    const run = await runAgent({
      operator,
      coordinates: 'smart-resize',
      options: { capture: { maxWidth: 1280, maxHeight: 800 } },
      turns: [reply([{ type: 'click', x: 640, y: 360 }]), reply([{ type: 'finished', summary: 'done' }])],
    });
    // 1280x720 resized by factor 28: 1288x728; its centre is (644, 364).
    expect(run.model.calls[1]!.input.history[0]?.results).toBe('click at (644, 364) done');
  });

  it('the reground prompt speaks the model’s coordinates of the recorded screenshot and asks for them', () => {
    const recorded = { image: Buffer.alloc(0), mime: 'image/jpeg' as const, width: 1280, height: 720 };
    const request = { task: 'Save', step: 3, thought: null, actions: [{ type: 'click' as const, x: 640, y: 360, button: 'left' as const }], recorded, live: recorded, difference: 'the form moved' };
    const relative = regroundInput(request, { coordinateFrame: (image) => ({ space: 'relative-1000', image }) });
    expect(relative.feedback).toContain('you did click at (500, 500)');
    expect(relative.feedback).toContain('0-1000');
    const pixels = regroundInput(request);
    expect(pixels.feedback).toContain('you did click at (640, 360)');
    expect(pixels.feedback).toContain('pixels of the current screenshot (1280x720)');
  });
});
