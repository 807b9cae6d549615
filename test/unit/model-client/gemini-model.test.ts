/**
 * The `gemini` family end to end through the official `@google/genai` SDK against the scripted
 * Gemini server (real HTTP, real SSE): what the request carries, the streamed thought, the reply
 * read into actions on the image, the usage and its cost, the next request answering every call,
 * and each way a call fails (a bad key, an unknown model, 429 with its retry delay, 5xx, a stream
 * cut or an error mid-stream, a timeout, nothing listening, a stop), with the messages the other
 * families give. The server is thereby checked against the SDK too.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createVisionModel, type PredictInput, type VisionModelDeps } from '../../../src/main/model';
import { createTextModel } from '../../../src/main/memory';
import { probeProvider } from '../../../src/main/model/provider-check';
import { GEMINI_DESKTOP_URL, geminiTools } from '../../../src/main/model/families';
import { type ModelSettingsInput } from '../../../src/shared/settings';
import { decodeDataUrl } from '../../fixtures/openai-server';
import { contentsOf, declaredFunctions, functionResponsesIn, geminiImagesIn, startGeminiServer, type GeminiReplies, type GeminiServer } from '../../fixtures/gemini-server';
import { predictOk, recordingSleep, screenshot, settingsFor, thoughtLog } from './helpers';

const MODEL = 'gemini-2.5-computer-use-preview-10-2025';
let server: GeminiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(replies: GeminiReplies, options: Omit<Parameters<typeof startGeminiServer>[0], 'replies'> = {}): Promise<GeminiServer> {
  server = await startGeminiServer({ replies, ...options });
  return server;
}

function gemini(url: string, overrides: Partial<ModelSettingsInput> = {}, deps: VisionModelDeps = {}) {
  const recorder = recordingSleep();
  const model = createVisionModel(settingsFor(url, { family: 'gemini', model: MODEL, apiKey: 'AIza-test-key', ...overrides }), { sleep: recorder.sleep, random: () => 0.5, ...deps });
  return { model, delays: recorder.delays };
}

async function input(overrides: Partial<PredictInput> = {}): Promise<PredictInput> {
  return { task: 'Fill in the form', history: [], observation: await screenshot(1280, 800), ...overrides };
}

const click = { thought: 'The name field is at the top right.', text: 'I type the name.', calls: [{ name: 'type_text_at', args: { x: 727, y: 107, text: 'Ada', press_enter: false } }] };

describe('gemini family through the SDK', () => {
  for (const stream of [true, false]) {
    it(`${stream ? 'streams' : 'asks for'} one reply: request, thought, actions on the image, usage`, async () => {
      const { url, requests } = await serve([click], { apiKey: 'AIza-test-key' });
      const thoughts = thoughtLog();
      const prediction = await predictOk(gemini(url, { stream }).model, await input({ system: 'Facts: the user is Ada.' }), undefined, thoughts.listener);

      expect(prediction.thought).toBe('The name field is at the top right.\n\nI type the name.');
      expect(thoughts.text()).toBe(prediction.thought);
      if (stream) expect(thoughts.deltas.length).toBeGreaterThan(3);
      expect(prediction.actions).toEqual([
        { type: 'click', x: 930.56, y: 85.6, button: 'left' },
        { type: 'hotkey', keys: ['cmd', 'a'] },
        { type: 'hotkey', keys: ['delete'] },
        { type: 'type', text: 'Ada' },
      ]);
      expect(prediction.extras).toEqual({ family: 'gemini', finishReason: 'STOP', calls: [{ name: 'type_text_at', id: null, kind: 'computer', actionIndex: 0, actionCount: 4, safety: null }] });
      // 1500 prompt tokens; 40 answer + 20 thinking tokens, both billed as output.
      expect(prediction.usage).toEqual({ inputTokens: 1500, outputTokens: 60, costUsd: (1500 * 1.25 + 60 * 10) / 1e6, priced: true, reported: true });

      const [request] = requests;
      expect(request).toMatchObject({ model: MODEL, stream, operation: stream ? 'streamGenerateContent' : 'generateContent' });
      expect(request?.headers['x-goog-api-key']).toBe('AIza-test-key');
      expect(request?.body.tools).toEqual(geminiTools('browser'));
      expect(declaredFunctions(request!)).toEqual(['ask_user', 'save_fact', 'query_long_term_memory']);
      expect(request?.body.systemInstruction.parts[0].text).toContain('Facts: the user is Ada.');
      expect(request?.body.generationConfig.thinkingConfig).toEqual({ includeThoughts: true });
      const images = geminiImagesIn(request?.body);
      expect(images).toHaveLength(1);
      expect(await decodeDataUrl(images[0]!)).toMatchObject({ width: 1280, height: 800 });
    });
  }

  it('the next request passes the reply back unchanged and answers each call in order with its screenshot', async () => {
    const two = { text: 'Two things.', calls: [{ name: 'click_at', args: { x: 500, y: 500 }, id: 'call-1' }, { name: 'key_combination', args: { keys: 'ctrl+a' }, id: 'call-2' }] };
    const { url, requests } = await serve([two, { text: 'Done: the form is sent.' }]);
    const { model } = gemini(url);
    const first = await predictOk(model, await input());
    const after = await screenshot(1280, 800, 'image/png');
    const second = await predictOk(model, await input({ history: [{ step: 1, thought: first.thought, actions: first.actions, results: 'clicked; pressed', screenshot: (await input()).observation, reply: first.raw }], observation: after }));
    expect(second.actions).toEqual([{ type: 'finished', summary: 'Done: the form is sent.' }]);

    const contents = contentsOf(requests[1]!);
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    // The model's turn as it came, its thought signature included.
    expect(contents[1]?.parts?.[0]).toMatchObject({ text: 'Two things.', thoughtSignature: 'sig-0' });
    const responses = functionResponsesIn(contents[2]);
    expect(responses.map(({ name, id, response }) => ({ name, id, response }))).toEqual([
      { name: 'click_at', id: 'call-1', response: { url: GEMINI_DESKTOP_URL } },
      { name: 'key_combination', id: 'call-2', response: { url: GEMINI_DESKTOP_URL } },
    ]);
    for (const response of responses) {
      expect(response.images).toEqual([`data:image/png;base64,${after.image.toString('base64')}`]);
    }
  });

  it('a safety decision becomes a pending check; the accepted call is acknowledged in the next request', async () => {
    const decision = { decision: 'require_confirmation', explanation: 'The button sends a payment.' };
    const { url, requests } = await serve([{ calls: [{ name: 'click_at', args: { x: 100, y: 100, safety_decision: decision } }] }, { text: 'Paid.' }]);
    const { model } = gemini(url);
    const first = await predictOk(model, await input());
    expect(first.actions).toEqual([{ type: 'click', x: 128, y: 80, button: 'left', confirm: true }]);
    expect(first.pendingSafetyChecks).toEqual([{ id: 'click_at#1', code: 'require_confirmation', message: 'The button sends a payment.' }]);
    await predictOk(model, await input({ history: [{ step: 1, thought: null, actions: first.actions, results: 'clicked', reply: first.raw }], acknowledgedSafetyChecks: first.pendingSafetyChecks }));
    expect(functionResponsesIn(contentsOf(requests[1]!)[2])[0]?.response).toEqual({ url: GEMINI_DESKTOP_URL, safety_acknowledgement: 'true' });
  });

  it('a reply that does not parse is a parse error with the raw reply and its usage', async () => {
    const { url } = await serve([{ calls: [{ name: 'open_web_browser' }] }]);
    const prediction = await gemini(url).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'parse', message: expect.stringMatching(/^"open_web_browser" is not available/) }, usage: { inputTokens: 1500 } });
    if (!prediction.ok) expect(JSON.parse(prediction.error.raw ?? '{}').content.parts[0].functionCall.name).toBe('open_web_browser');
  });
});

describe('gemini faults, with the messages of the other families', () => {
  const url = (path = '') => `${server!.url}/v1beta/models/${MODEL}${path}`;

  it('a key the API does not take: 400 API_KEY_INVALID is auth, never retried', async () => {
    const { requests } = await serve([click], { apiKey: 'the-right-key' });
    const { model, delays } = gemini(server!.url, { apiKey: 'wrong' });
    const prediction = await model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, attempts: 1, error: { kind: 'auth', status: 400, message: `400 from ${url(':streamGenerateContent')}: API key not valid. Please pass a valid API key. (check the API key)` } });
    expect(delays).toEqual([]);
    expect(requests).toHaveLength(1);
  });

  it.each([401, 403])('%i is auth', async (status) => {
    await serve([{ status, message: 'Method doesn\'t allow unregistered callers.' }]);
    const prediction = await gemini(server!.url, { stream: false }).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'auth', status, message: expect.stringContaining('(check the API key)') } });
  });

  it('an unknown model is not_found naming it', async () => {
    await serve([click], { models: ['gemini-2.5-flash'] });
    const prediction = await gemini(server!.url).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, attempts: 1, error: { kind: 'not_found', status: 404 } });
    if (!prediction.ok) expect(prediction.error.message).toBe(`404 from ${url(':streamGenerateContent')}: models/${MODEL} is not found for API version v1beta, or is not supported for streamGenerateContent. Call ListModels to see the list of available models and their supported methods.`);
  });

  it('a base URL that is not the API root says so', async () => {
    await serve([click]);
    const prediction = await gemini(`${server!.url}/api`).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    if (!prediction.ok) expect(prediction.error.message).toContain('the API root');
  });

  it('429 RESOURCE_EXHAUSTED waits the retry delay it names, then succeeds; 500 and 503 are retried with backoff', async () => {
    const { requests } = await serve([{ status: 429, message: 'Resource has been exhausted (e.g. check quota).', retryDelay: '2s' }, { status: 500 }, { status: 503 }, click]);
    const { model, delays } = gemini(server!.url, { retryBaseDelayMs: 400 });
    const prediction = await predictOk(model, await input());
    // 2 s as asked; then full jitter at random() = 0.5: half of 800, half of 1600.
    expect(delays).toEqual([2000, 400, 800]);
    expect(prediction.attempts).toBe(4);
    expect(requests).toHaveLength(4);
  });

  it('gives up after maxRetries with the last error in words', async () => {
    await serve([{ status: 429, message: 'Quota exceeded.' }, { status: 429, message: 'Quota exceeded.' }]);
    const prediction = await gemini(server!.url, { maxRetries: 1 }).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, attempts: 2, error: { kind: 'http', status: 429, message: `rate limited from ${url(':streamGenerateContent')}: Quota exceeded.` } });
  });

  it('a stream cut midway is retried and the thought starts over', async () => {
    const { requests } = await serve([{ ...click, dropAfterChunks: 3 }, click]);
    const thoughts = thoughtLog();
    const prediction = await predictOk(gemini(server!.url).model, await input(), undefined, thoughts.listener);
    expect(prediction.attempts).toBe(2);
    expect(requests).toHaveLength(2);
    expect(thoughts.deltas.some((delta) => delta.attempt === 1)).toBe(true);
    expect(thoughts.text()).toBe(prediction.thought);
  });

  it('an error chunk mid-stream (503 overloaded) is retried', async () => {
    await serve([{ ...click, errorAfterChunks: { chunks: 2, status: 503 } }, click]);
    const prediction = await predictOk(gemini(server!.url).model, await input());
    expect(prediction.attempts).toBe(2);
  });

  it('a timeout covers the whole stream', async () => {
    await serve([{ ...click, chunkDelayMs: 400 }, click]);
    const prediction = await gemini(server!.url, { timeoutMs: 300, maxRetries: 0 }).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'timeout', message: `the model did not answer within 300 ms (${url(':streamGenerateContent')})` } });
  });

  it('nothing listening is a network error naming the URL', async () => {
    const closed = await serve([]);
    const root = closed.url;
    await closed.close();
    server = undefined;
    const prediction = await gemini(root, { maxRetries: 0 }).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'network', message: expect.stringMatching(new RegExp(`^cannot reach ${root}/v1beta/models/.*ECONNREFUSED`)) } });
  });

  it('a stop during the call ends it at once as aborted', async () => {
    await serve([{ ...click, delayMs: 5000 }]);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const prediction = await gemini(server!.url).model.predict(await input(), stop.signal);
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'aborted' } });
  });
});

describe('gemini provider check and memory model', () => {
  it('probes with models.get: fine, a bad key and an unknown model are fatal', async () => {
    const { probes } = await serve([], { apiKey: 'good', models: [MODEL] });
    const settings = { baseUrl: server!.url, family: 'gemini' as const, model: MODEL };
    expect(await probeProvider({ ...settings, apiKey: 'good' })).toMatchObject({ ok: true });
    expect(probes.at(-1)).toMatchObject({ operation: 'get', model: MODEL });
    expect(await probeProvider({ ...settings, apiKey: 'bad' })).toMatchObject({ ok: false, fatal: true, message: expect.stringMatching(/API key not valid.*check the key/) });
    expect(await probeProvider({ ...settings, apiKey: 'good', model: 'gemini-9' })).toMatchObject({ ok: false, fatal: true, message: expect.stringMatching(/^the model "gemini-9" is not known at http/) });
    const gone = await startGeminiServer({ replies: [] });
    await gone.close();
    expect(await probeProvider({ ...settings, baseUrl: gone.url, apiKey: 'good' })).toMatchObject({ ok: false, fatal: true, message: expect.stringContaining('ECONNREFUSED') });
  });

  it('the memory model speaks Gemini too: messages as contents, a required function as mode ANY', async () => {
    const { requests } = await serve([{ calls: [{ name: 'rewrite_memory', args: { memory: 'The user is Ada.' } }] }]);
    const memory = createTextModel(settingsFor(server!.url, { family: 'gemini', model: 'gemini-2.5-flash', apiKey: 'k' }));
    const reply = await memory.complete({
      system: 'Keep the memory short.',
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi' },
        { role: 'user', content: 'Remember me.' },
      ],
      tools: [{ name: 'rewrite_memory', description: 'Rewrite', parameters: { type: 'object', properties: { memory: { type: 'string' } } } }],
      toolChoice: { name: 'rewrite_memory' },
    });
    expect(reply).toMatchObject({ ok: true, toolCalls: [{ name: 'rewrite_memory', arguments: JSON.stringify({ memory: 'The user is Ada.' }) }], usage: { inputTokens: 1500, priced: true } });
    const body = requests[0]?.body;
    expect(requests[0]).toMatchObject({ model: 'gemini-2.5-flash', stream: false });
    expect(body.contents.map((content: { role: string }) => content.role)).toEqual(['user', 'model', 'user']);
    expect(body.systemInstruction.parts[0].text).toBe('Keep the memory short.');
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['rewrite_memory'] } });
  });
});
