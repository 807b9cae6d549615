/**
 * Shared by the model-client tests: real encoded screenshots, settings, a sleep that records.
 */
import sharp from 'sharp';
import { afterEach } from 'vitest';
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from '../../fixtures/openai-server';
import { type ModelImage, type StepRecord, type VisionModel } from '../../../src/main/model';
import { type Sleep } from '../../../src/main/model/retry';
import { type ModelSettings, type ModelSettingsInput, ModelSettingsSchema } from '../../../src/shared/settings';

/** A real JPEG (or PNG) of the given size, with a little structure so it is not trivially small. */
export async function screenshot(width: number, height: number, mime: ModelImage['mime'] = 'image/jpeg'): Promise<ModelImage> {
  const pipeline = sharp({ create: { width, height, channels: 3, background: { r: 40, g: 90, b: 160 } } }).composite([
    {
      input: { create: { width: Math.max(1, Math.floor(width / 4)), height: Math.max(1, Math.floor(height / 4)), channels: 3, background: { r: 240, g: 240, b: 240 } } },
      left: Math.floor(width / 8),
      top: Math.floor(height / 8),
    },
  ]);
  const image = mime === 'image/png' ? await pipeline.png().toBuffer() : await pipeline.jpeg({ quality: 80 }).toBuffer();
  return { image, mime, width, height };
}

export function settingsFor(baseUrl: string, overrides: Partial<ModelSettingsInput> = {}): ModelSettings {
  return ModelSettingsSchema.parse({ baseUrl, model: 'gpt-4.1', family: 'tools', ...overrides });
}

/** A sleep that returns at once and records each requested delay. */
export function recordingSleep(): { sleep: Sleep; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: (ms) => {
      delays.push(ms);
      return Promise.resolve();
    },
  };
}

export interface ThoughtLog {
  deltas: { delta: string; attempt: number }[];
  listener: (delta: string, attempt: number) => void;
  /** The text of the last attempt's deltas. */
  text(): string;
}

export function thoughtLog(): ThoughtLog {
  const deltas: { delta: string; attempt: number }[] = [];
  return {
    deltas,
    listener: (delta, attempt) => {
      deltas.push({ delta, attempt });
    },
    text() {
      const last = deltas.at(-1)?.attempt;
      return deltas
        .filter((entry) => entry.attempt === last)
        .map((entry) => entry.delta)
        .join('');
    },
  };
}

export function step(overrides: Partial<StepRecord> & { step: number }): StepRecord {
  return { thought: null, actions: [], results: '', ...overrides };
}

/** Predict and fail the test with the error when it does not succeed. */
export async function predictOk(model: VisionModel, ...args: Parameters<VisionModel['predict']>) {
  const prediction = await model.predict(...args);
  if (!prediction.ok) throw new Error(`expected a prediction, got ${prediction.error.kind}: ${prediction.error.message}`);
  return prediction;
}

/** A scripted server per test, closed after it: `const serve = scriptedServerPerTest()` at file level. */
export function scriptedServerPerTest(): (...replies: ScriptedReply[]) => Promise<ScriptedServer> {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (...replies) => {
    server = await startScriptedServer({ replies });
    return server;
  };
}
