/**
 * Screenshot pruning: exactly N images reach the model (counted in the real request the scripted
 * server received), placeholders name the right steps, the record is never changed, the token
 * hard limit removes the oldest images first, and cache-friendly mode removes them in chunks.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PRUNING_OPTIONS,
  type MemoryChange,
  pruneScreenshots,
  ScreenshotPruner,
  applyTokenHardLimit,
} from '../../../src/main/memory';
import { createVisionModel, type StepRecord } from '../../../src/main/model';
import { ModelSettingsSchema } from '../../../src/shared/settings';
import { imagesIn } from '../../fixtures/openai-server';
import { jpeg, record, serve } from './helpers';

const click = { text: 'Next.', toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'click', x: 10, y: 10 }] } }] };

describe('keeping the last N screenshots', () => {
  it('sends exactly 3 images (the current one included) and names the pruned steps in placeholders', async () => {
    const image = await jpeg();
    // Steps 3 to 10: the placeholders must name these numbers, not positions.
    const history: StepRecord[] = [3, 4, 5, 6, 7, 8, 9, 10].map((n) => record(n, image));
    const result = pruneScreenshots({ history });
    expect(result.prunedSteps).toEqual([3, 4, 5, 6, 7, 8]);
    expect(result.imagesKept).toBe(3);
    expect(result.history.map((step) => step.screenshotPlaceholder ?? 'image')).toEqual([
      '[Screenshot removed - Step 3]',
      '[Screenshot removed - Step 4]',
      '[Screenshot removed - Step 5]',
      '[Screenshot removed - Step 6]',
      '[Screenshot removed - Step 7]',
      '[Screenshot removed - Step 8]',
      'image',
      'image',
    ]);

    const server = await serve([click]);
    const model = createVisionModel(ModelSettingsSchema.parse({ baseUrl: server.url, model: 'gpt-4.1', family: 'tools', stream: false }));
    const prediction = await model.predict({ task: 'Go on', history: result.history, observation: image });
    expect(prediction.ok).toBe(true);
    const body = server.requests[0]!.body;
    expect(imagesIn(body)).toHaveLength(3);
    const sent = JSON.stringify(body);
    for (const n of [3, 4, 5, 6, 7, 8]) expect(sent).toContain(`[Screenshot removed - Step ${n}]`);
    expect(sent).not.toContain('[Screenshot removed - Step 9]');
    expect(sent).not.toContain('[Screenshot removed - Step 10]');
  });

  it('changes only the copy: the history given keeps every screenshot', async () => {
    const image = await jpeg();
    const history = [1, 2, 3, 4, 5].map((n) => record(n, image));
    const before = history.map((step) => ({ ...step }));
    pruneScreenshots({ history }, { screenshotKeepCount: 1, maxContextTokens: 2_000 });
    expect(history).toEqual(before);
    expect(history.every((step) => step.screenshot === image && step.screenshotPlaceholder === undefined)).toBe(true);
  });

  it('keeps N history images when the request has no current screenshot, and prunes nothing below N', async () => {
    const image = await jpeg();
    const history = [1, 2, 3, 4, 5, 6].map((n) => record(n, image));
    const five = pruneScreenshots({ history, currentImage: false }, { screenshotKeepCount: 5 });
    expect(five.prunedSteps).toEqual([1]);
    expect(five.imagesKept).toBe(5);
    const none = pruneScreenshots({ history: history.slice(0, 2) });
    expect(none.prunedSteps).toEqual([]);
    expect(none.imagesKept).toBe(3);
  });

  it('counts steps already without a screenshot as no image', async () => {
    const image = await jpeg();
    const history = [record(1, image), record(2, undefined), record(3, image), record(4, undefined), record(5, image)];
    const result = pruneScreenshots({ history });
    // Three images in the history, two of which fit beside the current one.
    expect(result.prunedSteps).toEqual([1]);
    expect(result.history.filter((step) => step.screenshot).map((step) => step.step)).toEqual([3, 5]);
    expect(result.history[1]?.screenshotPlaceholder).toBeUndefined();
  });
});

describe('the token hard limit', () => {
  it('has the seed defaults: 800 tokens an image, characters / 3, 90% of a 128k window', () => {
    expect(DEFAULT_PRUNING_OPTIONS).toMatchObject({ screenshotKeepCount: 3, tokensPerImage: 800, charsPerToken: 3, tokenThresholdRatio: 0.9, maxContextTokens: 128_000 });
    expect(pruneScreenshots({ history: [] }).thresholdTokens).toBe(115_200);
  });

  it('removes the oldest images until the estimate is within 90% of the window', async () => {
    const image = await jpeg();
    // Each step: 299 characters = 100 tokens, and an 800-token image. Ten steps and the current
    // image: 1000 + 8000 + 800 = 9800 tokens, over a threshold of 9000.
    const history = Array.from({ length: 10 }, (_, i) => record(i + 1, image, 'r'.repeat(299)));
    const result = pruneScreenshots({ history }, { screenshotKeepCount: 20, maxContextTokens: 10_000 });
    expect(result.thresholdTokens).toBe(9_000);
    // One image out: 9800 − 800 + 15 (the placeholder's text) = 9015, still over; two: 8230.
    expect(result.prunedSteps).toEqual([1, 2]);
    expect(result.estimatedTokens).toBe(8_230);
    expect(result.hardLimitApplied).toBe(true);
    expect(result.imagesKept).toBe(9);
    expect(result.history[0]?.screenshotPlaceholder).toBe('[Screenshot removed - token limit - Step 1]');
    expect(result.history[2]?.screenshot).toBe(image);

    const under = pruneScreenshots({ history }, { screenshotKeepCount: 20, maxContextTokens: 11_000 });
    expect(under.hardLimitApplied).toBe(false);
    expect(under.estimatedTokens).toBe(9_800);
  });

  it('counts the other text of the request, and drops the oldest steps when images are not enough', async () => {
    const image = await jpeg();
    const history = Array.from({ length: 6 }, (_, i) => record(i + 1, image, 't'.repeat(6_000)));
    // 6 × 2000 text + 6 images + the current one + 1000 of system text = 18 600 > 9 000. Without
    // their images the steps still come to 13 890; three steps must go as well (2015 each).
    const result = applyTokenHardLimit({ history, extraText: 's'.repeat(3_000) }, { maxContextTokens: 10_000 });
    expect(result.hardLimitApplied).toBe(true);
    expect(result.droppedSteps).toEqual([1, 2, 3]);
    expect(result.prunedSteps).toEqual([4, 5, 6]);
    expect(result.estimatedTokens).toBe(7_845);
    expect(result.history.map((step) => step.step)).toEqual([4, 5, 6]);
    expect(result.imagesKept).toBe(1);
  });
});

describe('the history window and cache-friendly chunks', () => {
  it('leaves steps beyond the last 20 out of the input', async () => {
    const history = Array.from({ length: 30 }, (_, i) => record(i + 1, undefined));
    const result = pruneScreenshots({ history });
    expect(result.droppedSteps).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(result.history.map((step) => step.step)).toEqual(Array.from({ length: 20 }, (_, i) => i + 11));
    expect(pruneScreenshots({ history }, { maxHistorySteps: null }).history).toHaveLength(30);
  });

  it('drops images in chunks, so the start of the prompt changes only every few steps', async () => {
    const image = await jpeg();
    const history: StepRecord[] = [];
    const prefixChanges = { plain: 0, cacheFriendly: 0 };
    let last = { plain: '', cacheFriendly: '' };
    for (let n = 1; n <= 15; n++) {
      history.push(record(n, image));
      const plain = pruneScreenshots({ history });
      const cached = pruneScreenshots({ history }, { cacheFriendly: true });
      expect(plain.imagesKept).toBe(Math.min(3, n + 1));
      expect(cached.imagesKept).toBeGreaterThanOrEqual(Math.min(3, n + 1));
      expect(cached.imagesKept).toBeLessThanOrEqual(3 + 3 - 1);
      const now = { plain: plain.prunedSteps.join(','), cacheFriendly: cached.prunedSteps.join(',') };
      if (now.plain !== last.plain) prefixChanges.plain += 1;
      if (now.cacheFriendly !== last.cacheFriendly) prefixChanges.cacheFriendly += 1;
      last = now;
    }
    // Plain mode prunes one more step at every step from the third on; chunks of 3 every third step.
    expect(prefixChanges.plain).toBe(13);
    expect(prefixChanges.cacheFriendly).toBe(4);
  });
});

describe('ScreenshotPruner', () => {
  it('reports each result as a pruning change', async () => {
    const image = await jpeg();
    const changes: MemoryChange[] = [];
    const pruner = new ScreenshotPruner({}, { onChange: (change) => changes.push(change) });
    pruner.prune({ history: [1, 2, 3, 4].map((n) => record(n, image)), extraText: 'system' });
    expect(changes).toEqual([
      {
        kind: 'pruning',
        prunedSteps: [1, 2],
        droppedSteps: [],
        imagesKept: 3,
        estimatedTokens: pruner.lastResult?.estimatedTokens,
        thresholdTokens: 115_200,
        hardLimitApplied: false,
      },
    ]);
  });

  it('refuses options that make no sense', () => {
    expect(() => new ScreenshotPruner({ tokenThresholdRatio: 0 })).toThrow(RangeError);
    expect(() => new ScreenshotPruner({ screenshotKeepCount: -1 })).toThrow(RangeError);
    expect(() => new ScreenshotPruner({ removalChunk: 0 })).toThrow(RangeError);
  });
});
