/**
 * The grounding check's pure part and its run against a model: targets placed within the image,
 * the scoring that finds the space of a model's answers (each of the four), the tie between
 * pixels of the image and of a near-identical smart resize, errors in screen pixels on a screen
 * larger than the image, and the failures of a provider said as check-model says them.
 */
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { COORDINATE_SPACES, imageToModel, pixelFrame, frameFor, type CoordinateFrame, type CoordinateSpace } from '../../../src/main/model/families/coordinates';
import { detectSpace, GROUNDING_LABELS, inside, placeTargets, scoreGrounding, seededRandom, targetSvg, type SpaceScore } from '../../../src/main/model/grounding';
import { answerPoint, runGroundingCheck } from '../../../src/main/model/grounding-check';
import type { PredictInput, Prediction, VisionModel } from '../../../src/main/model/types';
import { groundingPassed } from '../../../src/shared/grounding';
import { locateButton } from '../../fixtures/grounding-model';

const image = { width: 1280, height: 800 };
const uiVenus = { factor: 28, minPixels: 2_000_000, maxPixels: 4_800_000 };

describe('targets', () => {
  it('lie within the image, labelled, the same for the same seed', () => {
    for (const size of [image, { width: 640, height: 400 }, { width: 1080, height: 1920 }]) {
      const targets = placeTargets(size, 50, seededRandom(7));
      for (const target of targets) {
        expect(target.x).toBeGreaterThanOrEqual(0);
        expect(target.y).toBeGreaterThanOrEqual(0);
        expect(target.x + target.width).toBeLessThanOrEqual(size.width);
        expect(target.y + target.height).toBeLessThanOrEqual(size.height);
        expect(GROUNDING_LABELS).toContain(target.label);
      }
      expect(placeTargets(size, 5, seededRandom(7))).toEqual(targets.slice(0, 5));
    }
  });

  it('are drawn where they are placed: the button found on the rendered picture is the target', async () => {
    const [target] = placeTargets(image, 1, seededRandom(3));
    const png = await sharp(Buffer.from(targetSvg(image, target!))).png().toBuffer();
    const located = await locateButton(`data:image/png;base64,${png.toString('base64')}`);
    expect(located.image).toEqual(image);
    expect(located.target).toEqual({ x: target!.x, y: target!.y, width: target!.width, height: target!.height });
  });
});

/** The answers a model of `space` writes for the targets' centres. */
function answersIn(space: CoordinateSpace, targets: ReturnType<typeof placeTargets>, smartResize?: CoordinateFrame['smartResize']) {
  const frame = { space, image, ...(smartResize ? { smartResize } : {}) };
  return targets.map((target) => imageToModel({ x: target.x + target.width / 2, y: target.y + target.height / 2 }, frame));
}

describe('scoring', () => {
  const targets = placeTargets(image, 5, seededRandom(11));

  it.each(COORDINATE_SPACES.map((space) => [space]))('finds a model answering in %s, configured as image', (space) => {
    const smartResize = space === 'smart-resize' ? uiVenus : undefined;
    const { report } = scoreGrounding(targets, answersIn(space, targets, smartResize), 'image', { image, screen: image, ...(smartResize ? { smartResize } : {}) });
    expect(report.detected).toBe(space);
    expect(report.hits[space]).toBe(5);
    expect(report.meanErrorPx).toBeLessThan(2);
    for (const sample of report.samples) expect(inside(sample.answer!, sample.target)).toBe(true);
    expect(groundingPassed(report)).toBe(space === 'image');
  });

  it('with the default resize, image and smart-resize both hit: a tie goes to the configured space unless the other is clearly nearer', () => {
    const resized = scoreGrounding(targets, answersIn('smart-resize', targets), 'image', { image, screen: image });
    expect(resized.report.hits.image).toBe(5);
    expect(resized.report.hits['smart-resize']).toBe(5);
    // Exact answers in the resize: read as image pixels they are several pixels off, clearly worse.
    expect(resized.report.detected).toBe('smart-resize');
    // A model answering in image pixels, configured as smart-resize, a little noisy: kept as configured.
    const noisy = answersIn('image', targets).map((point, index) => ({ x: point.x + (index % 2 ? 3 : -3), y: point.y + 2 }));
    expect(scoreGrounding(targets, noisy, 'smart-resize', { image, screen: image }).report.detected).toBe('smart-resize');
  });

  it('measures the error in screen pixels', () => {
    const off = answersIn('image', targets).map((point) => ({ x: point.x + 10, y: point.y }));
    const onImage = scoreGrounding(targets, off, 'image', { image, screen: image }).report;
    expect(onImage.meanErrorPx).toBe(10);
    const onScreen = scoreGrounding(targets, off, 'image', { image, screen: { width: 1920, height: 1200 } }).report;
    expect(onScreen.meanErrorPx).toBe(15);
  });

  it('a target with no answer is a miss; without any answer the configured space stays', () => {
    const answers = answersIn('relative-1000', targets);
    answers[2] = null as never;
    const { report } = scoreGrounding(targets, answers, 'image', { image, screen: image });
    expect(report).toMatchObject({ detected: 'relative-1000', hits: { 'relative-1000': 4 } });
    expect(report.samples[2]!.answer).toBeNull();
    const none: SpaceScore = { hits: 0, meanErrorPx: null };
    expect(detectSpace({ image: none, 'smart-resize': none, 'relative-1000': none, 'relative-1': none }, 'relative-1')).toBe('relative-1');
  });

  it('answers that no space explains detect none but the configured one, however near another space misses', () => {
    const miss = (meanErrorPx: number): SpaceScore => ({ hits: 0, meanErrorPx });
    expect(detectSpace({ image: miss(700), 'smart-resize': miss(690), 'relative-1000': miss(40), 'relative-1': miss(300) }, 'image')).toBe('image');
  });
});

/** A VisionModel of the tools family that reads the button off its picture and answers in `space`. */
function lookingModel(space: CoordinateSpace, configured: CoordinateSpace = 'image'): VisionModel {
  return {
    family: 'tools',
    model: 'looking-model',
    coordinateFrame: (size) => frameFor({ space: configured }, size),
    async predict(input: PredictInput): Promise<Prediction> {
      const located = await locateButton(`data:image/png;base64,${input.observation.image.toString('base64')}`);
      const centre = { x: located.target.x + located.target.width / 2, y: located.target.y + located.target.height / 2 };
      const point = imageToModel(centre, { space, image: located.image });
      const raw = JSON.stringify({ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'computer', arguments: JSON.stringify({ actions: [{ type: 'click', ...point }] }) } }] });
      // What the configured parser says of it does not matter: the check reads the raw reply.
      return { ok: false, error: { kind: 'parse', message: 'outside the image', raw }, attempts: 1 };
    },
  };
}

describe('the check against a model', () => {
  it('shows the images at the size given, reads even a refused reply, and says the fix', async () => {
    const outcome = await runGroundingCheck({ model: lookingModel('relative-1000') }, { targets: 4, image: { width: 1280, height: 720 }, screen: { width: 1920, height: 1080 }, random: seededRandom(5) });
    expect(outcome).toMatchObject({
      ok: true,
      report: { configured: 'image', detected: 'relative-1000', targets: 4, hits: { 'relative-1000': 4 } },
      image: { width: 1280, height: 720 },
      screen: { width: 1920, height: 1080 },
      fix: { flag: '--coordinates relative-1000', config: '"model": { "coordinates": "relative-1000" }' },
    });
  });

  it('stops at a provider failure and says it as check-model does', async () => {
    const refusing: VisionModel = {
      family: 'tools',
      model: 'm',
      coordinateFrame: pixelFrame,
      predict: async () => ({ ok: false, error: { kind: 'auth', message: '401 Unauthorized: check the API key', status: 401 }, attempts: 1 }),
    };
    expect(await runGroundingCheck({ model: refusing }, { targets: 3, image, screen: image })).toEqual({ ok: false, message: '401 Unauthorized: check the API key', status: 401 });
  });

  it('reads the first point of a reply as written, in every family with points', () => {
    expect(answerPoint('ui-tars', "Thought: t\nAction: click(start_box='(1500,20)')")).toEqual({ x: 1500, y: 20 });
    expect(answerPoint('pyautogui', 'pyautogui.moveTo(0.5, 0.25)\npyautogui.click()')).toEqual({ x: 0.5, y: 0.25 });
    expect(answerPoint('tools', '{"type":"click","x":3000,"y":9}')).toEqual({ x: 3000, y: 9 });
    expect(answerPoint('anthropic', JSON.stringify({ content: [{ type: 'tool_use', id: 't', name: 'computer', input: { action: 'left_click', coordinate: [5, 6] } }] }))).toEqual({ x: 5, y: 6 });
    expect(answerPoint('tools', 'I do not see it.')).toBeNull();
    expect(answerPoint('tools', undefined)).toBeNull();
  });
});
