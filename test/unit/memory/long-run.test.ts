/**
 * A 200-step run, simulated: every step goes through the three layers (summarised by the scripted
 * memory model, which fails now and then) and screenshot pruning, and the request the agent's model
 * receives (a real `tools` request to a second scripted server) stays bounded: at most 3 images and
 * a text that stops growing once the history window is full. No step is lost on the way.
 */
import { describe, expect, it } from 'vitest';
import {
  buildMemorySnapshot,
  type MemoryChange,
  LayeredMemory,
  MemorySnapshotSchema,
  ScreenshotPruner,
} from '../../../src/main/memory';
import { createVisionModel, type StepRecord } from '../../../src/main/model';
import { ActionSchema } from '../../../src/shared/actions';
import { ModelSettingsSchema } from '../../../src/shared/settings';
import { imagesIn, type RecordedRequest } from '../../fixtures/openai-server';
import { jpeg, memoryModel, serve, userText } from './helpers';

const STEPS = 200;

function stepsIn(text: string): number[] {
  return [...text.matchAll(/^Step (\d+) \| Eval/gm)].map((match) => Number(match[1]));
}

/** The request's text without image data. */
function textSize(request: RecordedRequest): number {
  return JSON.stringify(request.body, (_key, value: unknown) => (typeof value === 'string' && value.startsWith('data:image/') ? '' : value)).length;
}

describe('a 200-step run', () => {
  it('keeps the prompt bounded and loses no step', { timeout: 60_000 }, async () => {
    const summarised: number[][] = [];
    let failuresServed = 0;
    const memoryServer = await serve((request) => {
      // Every fifth call fails: the text stays and goes with the next call.
      if (request.index % 5 === 4) {
        failuresServed += 1;
        return { status: 500 };
      }
      const text = userText(request);
      const steps = stepsIn(text);
      if (steps.length > 0) {
        summarised.push(steps);
        return { text: JSON.stringify({ summary: `Steps ${steps[0]}-${steps.at(-1)}: filled in ${steps.length} form fields; the form is open.` }) };
      }
      return { text: JSON.stringify({ summary: `Condensed ${text.split('\n').length} lines: the form is half filled in.` }) };
    });
    const agentServer = await serve(() => ({
      text: 'Next field.',
      toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'click', x: 100, y: 100 }] } }],
      usage: null,
    }));

    const changes: MemoryChange[] = [];
    const layers = new LayeredMemory({}, { model: memoryModel(memoryServer.url), onChange: (change) => changes.push(change) });
    const pruner = new ScreenshotPruner({}, { onChange: (change) => changes.push(change) });
    const agent = createVisionModel(ModelSettingsSchema.parse({ baseUrl: agentServer.url, model: 'gpt-4.1', family: 'tools', stream: false }));
    const image = await jpeg(640, 400);
    const task = 'Fill in every field of the long registration form';
    const history: StepRecord[] = [];
    const composedSizes: number[] = [];
    const estimates: number[] = [];

    for (let step = 1; step <= STEPS; step++) {
      layers.addPendingStep(step, `fill in field ${step} of the registration form`);
      const system = layers.compose();
      composedSizes.push(system.length);
      const pruned = pruner.prune({ history, extraText: [system, task] });
      estimates.push(pruned.estimatedTokens);
      const prediction = await agent.predict({ task, system, history: pruned.history, observation: image });
      expect(prediction.ok).toBe(true);

      history.push({
        step,
        thought: `Field ${step} is empty; I click it and type the value from the task.`,
        actions: [ActionSchema.parse({ type: 'click', x: 100 + step, y: 200 })],
        results: `click at (${100 + step}, 200) done`,
        screenshot: image,
      });
      await layers.finalizeStep(step, step % 10 === 0 ? 'failed' : 'success', { outcome: `field ${step} focused` });
    }

    // The agent's requests: never more than 3 images, and a text that stops growing.
    const requests = agentServer.requests;
    expect(requests).toHaveLength(STEPS);
    const images = requests.map((request) => imagesIn(request.body).length);
    expect(Math.max(...images)).toBe(3);
    expect(images.slice(2).every((count) => count === 3)).toBe(true);
    const sizes = requests.map(textSize);
    // About 21 000 characters from step 21 on: the tools system prompt and tool definition, the
    // composed layers, and 20 steps of history with placeholders.
    const ceiling = 24_000;
    expect(Math.max(...sizes)).toBeLessThanOrEqual(ceiling);
    // Once the 20-step window is full, the second half is no bigger than the first.
    const firstHalf = Math.max(...sizes.slice(25, 100));
    const secondHalf = Math.max(...sizes.slice(100));
    expect(secondHalf).toBeLessThanOrEqual(firstHalf * 1.05);

    // The layers stay within their budgets, give or take one entry and one summary.
    expect(Math.max(...composedSizes)).toBeLessThanOrEqual(3_000);
    expect(Math.max(...estimates)).toBeLessThanOrEqual(5_000);
    expect(layers.layers.summary.length).toBeLessThanOrEqual(2_000 + 200);

    // Failures happened, and every step reached a successful summary or is still in recent.
    expect(failuresServed).toBeGreaterThan(5);
    const covered = new Set([...summarised.flat(), ...stepsIn(layers.layers.recent)]);
    expect([...covered].sort((a, b) => a - b)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));

    // The memory the app shows at the end of the run, built from the changes alone.
    const snapshot = buildMemorySnapshot(changes);
    expect(MemorySnapshotSchema.safeParse(snapshot).success).toBe(true);
    expect(snapshot.layers).toEqual(layers.layers);
    expect(snapshot.prunedSteps).toEqual(pruner.lastResult?.prunedSteps);
    expect(snapshot.prunedSteps).toEqual(Array.from({ length: 18 }, (_, i) => i + 180));
  });
});
