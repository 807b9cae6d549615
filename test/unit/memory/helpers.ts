/**
 * Shared by the memory tests: the scripted OpenAI-compatible server (real HTTP, the real `openai`
 * client) and the memory model pointed at it, with retries that do not wait.
 */
import sharp from 'sharp';
import { afterEach } from 'vitest';
import { type ModelImage, type StepRecord } from '../../../src/main/model';
import { ClientTextModel, type TextModelSettings } from '../../../src/main/memory';
import { type ReplyScript, type ScriptedServer, startScriptedServer } from '../../fixtures/openai-server';

const open: ScriptedServer[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** A scripted server, closed after the test. */
export async function serve(replies: ReplyScript): Promise<ScriptedServer> {
  const server = await startScriptedServer({ replies });
  open.push(server);
  return server;
}

/** The memory model at the server: no retries unless asked, and retries do not wait. */
export function memoryModel(url: string, overrides: Partial<TextModelSettings> = {}): ClientTextModel {
  return new ClientTextModel(
    { baseUrl: url, model: 'gpt-4.1-mini', timeoutMs: 5_000, maxRetries: 0, ...overrides },
    { sleep: () => Promise.resolve(), random: () => 0 },
  );
}

export { systemText, toolNames, userText } from '../../fixtures/openai-server/request-text';

/** A real JPEG of the given size. */
export async function jpeg(width = 320, height = 200): Promise<ModelImage> {
  const image = await sharp({ create: { width, height, channels: 3, background: { r: 30, g: 80, b: 150 } } })
    .jpeg({ quality: 70 })
    .toBuffer();
  return { image, mime: 'image/jpeg', width, height };
}

/** A step of history with a screenshot and the given result text. */
export function record(step: number, screenshot: ModelImage | undefined, results = `clicked at step ${step}`): StepRecord {
  return { step, thought: null, actions: [], results, screenshot };
}
