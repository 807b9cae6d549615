/**
 * The elements aid reaches the model, for every family, as the real HTTP servers receive it: the
 * numbered list in the request body (by number for the families with element tools, with each
 * centre in the model's coordinates for UI-TARS and pyautogui), and with `marks` the screenshot
 * sent carries the marks where the elements are.
 */
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { createVisionModel, type PredictInput, type VisionModel } from '../../../src/main/model';
import { MARK_COLOURS } from '../../../src/main/model/element-marks';
import { ModelSettingsSchema, type ModelSettingsInput } from '../../../src/shared/settings';
import { imagesIn, startScriptedServer, type ScriptedReply } from '../../fixtures/openai-server';
import { anthropicImagesIn, computer, reply, startAnthropicServer } from '../../fixtures/anthropic-server';
import { geminiImagesIn, startGeminiServer } from '../../fixtures/gemini-server';
import { formSnapshot } from '../../fixtures/elements/form-snapshot';
import { predictOk } from './helpers';

interface Served {
  model: VisionModel;
  /** The body of the first request the server received. */
  body: () => unknown;
  /** The last image of that body, as bytes. */
  lastImage: () => Buffer;
  close: () => Promise<void>;
}

const settings = (overrides: Partial<ModelSettingsInput>) => ModelSettingsSchema.parse({ apiKey: 'test-key', maxRetries: 0, ...overrides });
const dataUrlBytes = (url: string) => Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');

async function openAiFamily(family: 'tools' | 'ui-tars' | 'pyautogui' | 'openai-cua', answer: ScriptedReply): Promise<Served> {
  const server = await startScriptedServer({ replies: [answer] });
  const model = createVisionModel(settings({ baseUrl: server.url, model: family === 'openai-cua' ? 'computer-use-preview' : 'scripted-model', family }), { platform: 'linux' });
  const body = () => server.requests[0]?.body;
  return { model, body, lastImage: () => dataUrlBytes(imagesIn(body()).at(-1) ?? ''), close: () => server.close() };
}

const FAMILIES: Record<string, () => Promise<Served>> = {
  tools: () => openAiFamily('tools', { toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'wait', ms: 500 }] } }] }),
  'ui-tars': () => openAiFamily('ui-tars', { text: 'Thought: I wait.\nAction: wait()' }),
  pyautogui: () => openAiFamily('pyautogui', { text: 'I wait.\n```python\nWAIT\n```' }),
  'openai-cua': () =>
    openAiFamily('openai-cua', { id: 'resp_1', responseOutput: [{ type: 'computer_call', id: 'cu_1', call_id: 'call_A', action: { type: 'wait' }, pending_safety_checks: [], status: 'completed' }] }),
  anthropic: async () => {
    const server = await startAnthropicServer({ replies: [reply('I click Submit.', computer('left_click', { coordinate: [590, 322] }))] });
    const model = createVisionModel(settings({ baseUrl: server.url, model: 'claude-sonnet-4-6', family: 'anthropic' }));
    const body = () => server.requests[0]?.body;
    return { model, body, lastImage: () => Buffer.from(anthropicImagesIn(body()).at(-1)?.data ?? '', 'base64'), close: () => server.close() };
  },
  gemini: async () => {
    const server = await startGeminiServer({ replies: [{ text: 'I click Submit.', calls: [{ name: 'click_at', args: { x: 460, y: 402 } }] }] });
    const model = createVisionModel(settings({ baseUrl: server.url, model: 'gemini-2.5-computer-use-preview-10-2025', family: 'gemini' }));
    const body = () => server.requests[0]?.body;
    return { model, body, lastImage: () => dataUrlBytes(geminiImagesIn(body()).at(-1) ?? ''), close: () => server.close() };
  },
};

const BY_POINT = new Set(['ui-tars', 'pyautogui']);

let open: Served | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

async function observation() {
  const image = await sharp({ create: { width: 1280, height: 800, channels: 3, background: { r: 255, g: 255, b: 255 } } }).jpeg({ quality: 90 }).toBuffer();
  return { image, mime: 'image/jpeg' as const, width: 1280, height: 800 };
}

async function pixelAt(image: Buffer, x: number, y: number) {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const offset = (y * info.width + x) * 3;
  return { r: data[offset] ?? 0, g: data[offset + 1] ?? 0, b: data[offset + 2] ?? 0 };
}

describe('the elements aid in each family’s request', () => {
  for (const [family, start] of Object.entries(FAMILIES)) {
    it(`${family}: the list in the body with list, and the marked screenshot with marks`, async () => {
      const snapshot = formSnapshot();
      const submit = snapshot.elements.find((element) => element.role === 'push button')?.imageBounds ?? { x: 0, y: 0, width: 0, height: 0 };

      open = await start();
      const plain = await observation();
      await predictOk(open.model, { task: 'Submit the form', history: [], observation: plain, elements: { mode: 'list', snapshot } } satisfies PredictInput);
      const listed = JSON.stringify(open.body());
      expect(listed).toContain('6. push button \\"Submit\\"');
      expect(listed).toContain('2. entry \\"User name\\" = \\"alice\\" (focused)');
      if (BY_POINT.has(family)) expect(listed).toMatch(/6\. push button \\"Submit\\" at \(\d+, \d+\)/);
      else expect(listed).toContain('click_element {n}');
      expect(open.lastImage().equals(plain.image)).toBe(true);
      await open.close();

      open = await start();
      await predictOk(open.model, { task: 'Submit the form', history: [], observation: await observation(), elements: { mode: 'marks', snapshot } });
      expect(JSON.stringify(open.body())).toContain('numbered on the screenshot');
      const edge = await pixelAt(open.lastImage(), Math.round(submit.x + submit.width / 2), submit.y + 1);
      const colour = MARK_COLOURS[5] ?? '';
      const expected = { r: parseInt(colour.slice(1, 3), 16), g: parseInt(colour.slice(3, 5), 16), b: parseInt(colour.slice(5, 7), 16) };
      expect(Math.abs(edge.r - expected.r) + Math.abs(edge.g - expected.g) + Math.abs(edge.b - expected.b)).toBeLessThan(90);
    });
  }

  it('says nothing of elements when the aid is off', async () => {
    open = await FAMILIES.tools?.();
    if (!open) throw new Error('no tools family');
    await predictOk(open.model, { task: 'Submit the form', history: [], observation: await observation() });
    expect(JSON.stringify(open.body())).not.toContain('push button');
  });
});
