/**
 * The `anthropic` family end to end over HTTP: the official `@anthropic-ai/sdk` against the
 * scripted Anthropic server (streamed and not), the request Claude is sent at each step (tool
 * version and beta header, the image as the display, tool results for every call, thinking passed
 * back unchanged, cache breakpoints), the cost with cache tokens, and every fault as a value.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createVisionModel, type PredictInput, type StepRecord, type VisionModelDeps } from '../../../src/main/model';
import { probeProvider } from '../../../src/main/model/provider-check';
import { createTextModel } from '../../../src/main/memory/text-model-factory';
import { ModelSettingsSchema, type ModelSettingsInput } from '../../../src/shared/settings';
import {
  anthropicImagesIn,
  computer,
  decodeImage,
  lastToolResults,
  reply,
  resultText,
  startAnthropicServer,
  type AnthropicServer,
  type ScriptedReply,
} from '../../fixtures/anthropic-server';
import { predictOk, recordingSleep, screenshot, thoughtLog } from './helpers';

let server: AnthropicServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(...replies: ScriptedReply[]): Promise<AnthropicServer> {
  server = await startAnthropicServer({ replies });
  return server;
}

function settings(url: string, overrides: Partial<ModelSettingsInput> = {}) {
  return ModelSettingsSchema.parse({ baseUrl: url, model: 'claude-sonnet-4-6', family: 'anthropic', apiKey: 'sk-ant-test-key', maxRetries: 0, ...overrides });
}

function claude(url: string, overrides: Partial<ModelSettingsInput> = {}, deps: VisionModelDeps = {}) {
  const sleeps = recordingSleep();
  return { model: createVisionModel(settings(url, overrides), { sleep: sleeps.sleep, random: () => 0.5, ...deps }), delays: sleeps.delays };
}

async function input(overrides: Partial<PredictInput> = {}): Promise<PredictInput> {
  return { task: 'Fill in the form', history: [], observation: await screenshot(1280, 720), ...overrides };
}

describe('the scripted server, checked against the official SDK', () => {
  it('a streamed message assembles into the same message as the unstreamed one', async () => {
    const script = {
      content: [
        { type: 'thinking' as const, thinking: 'Let me look at the form first.', signature: 'sig-abc' },
        { type: 'text' as const, text: 'I click the name field.' },
        { type: 'tool_use' as const, id: 'toolu_1', name: 'computer', input: { action: 'left_click', coordinate: [900, 86] } },
      ],
      usage: { input_tokens: 2000, output_tokens: 80, cache_creation_input_tokens: 300, cache_read_input_tokens: 1200 },
    };
    const { url, requests } = await serve(script, script);
    const sdk = new Anthropic({ baseURL: url, apiKey: 'sk-ant-test-key', maxRetries: 0 });
    const params = { model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };
    const stream = sdk.beta.messages.stream(params);
    const texts: string[] = [];
    stream.on('text', (delta) => texts.push(delta));
    const streamed = await stream.finalMessage();
    const whole = await sdk.beta.messages.create(params);
    expect(texts.join('')).toBe('I click the name field.');
    for (const message of [streamed, whole]) {
      expect(message.content).toEqual([
        { type: 'thinking', thinking: 'Let me look at the form first.', signature: 'sig-abc' },
        { type: 'text', text: 'I click the name field.' },
        { type: 'tool_use', id: 'toolu_1', name: 'computer', input: { action: 'left_click', coordinate: [900, 86] } },
      ]);
      expect(message.stop_reason).toBe('tool_use');
      expect(message.usage).toMatchObject({ input_tokens: 2000, output_tokens: 80, cache_creation_input_tokens: 300, cache_read_input_tokens: 1200 });
    }
    expect(requests.map((request) => request.path)).toEqual(['/v1/messages', '/v1/messages']);
    expect(requests[0]?.body.stream).toBe(true);
    expect(JSON.stringify(requests[0]?.headers)).toContain('sk-ant-test-key');
  });
});

describe('anthropic family: requests and replies', () => {
  it('sends the computer tool of the model, the image as the display, the beta header; streams the thought', async () => {
    const { url, requests } = await serve(reply('I click the name field.', computer('left_click', { coordinate: [900, 86] })));
    const { model } = claude(url);
    const thoughts = thoughtLog();
    const prediction = await predictOk(model, await input({ system: 'Facts: the user is Ada.' }), undefined, thoughts.listener);
    expect(prediction.actions).toEqual([{ type: 'click', x: 900, y: 86, button: 'left' }]);
    expect(prediction.thought).toBe('I click the name field.');
    expect(thoughts.text()).toBe('I click the name field.');
    expect(thoughts.deltas.length).toBeGreaterThan(1);
    expect(prediction.extras).toEqual({ family: 'anthropic', messageId: 'msg_0', stopReason: 'tool_use', calls: [{ id: 'toolu_0_1', name: 'computer', action: 'left_click', firstAction: 0, actionCount: 1 }] });
    expect(prediction.captures).toBeUndefined();

    const [request] = requests;
    expect(request?.headers['anthropic-beta']).toBe('computer-use-2025-11-24');
    expect(request?.body.model).toBe('claude-sonnet-4-6');
    expect(request?.body.stream).toBe(true);
    expect(request?.body.max_tokens).toBe(4096);
    expect(request?.body.tools[0]).toEqual({ type: 'computer_20251124', name: 'computer', display_width_px: 1280, display_height_px: 720, enable_zoom: true });
    expect(request?.body.tools.slice(1).map((tool: { name: string }) => tool.name)).toEqual(['ask_user', 'save_fact', 'query_long_term_memory']);
    expect(request?.body.system).toEqual([{ type: 'text', text: expect.stringContaining('computer tool'), cache_control: { type: 'ephemeral' } }]);
    const [first] = request?.body.messages ?? [];
    expect(first.role).toBe('user');
    expect(first.content[0]).toEqual({ type: 'text', text: 'Task: Fill in the form' });
    expect(first.content[1].type).toBe('image');
    // The memory notes come after the breakpoint: they change at every step.
    expect(first.content[1].cache_control).toEqual({ type: 'ephemeral' });
    expect(first.content[2]).toEqual({ type: 'text', text: 'Notes from memory for this task:\nFacts: the user is Ada.' });
    expect(await decodeImage(anthropicImagesIn(request?.body)[0]!)).toMatchObject({ width: 1280, height: 720 });
  });

  it('computer_20250124 for the models before it, with its beta; model.anthropic.toolVersion overrides', async () => {
    const { url, requests } = await serve(reply('', computer('screenshot')), reply('', computer('screenshot')));
    await predictOk(claude(url, { model: 'claude-sonnet-4-5-20250929' }).model, await input());
    await predictOk(claude(url, { model: 'claude-sonnet-4-5-20250929', anthropic: { toolVersion: 'computer_20251124', zoom: false } }).model, await input());
    expect(requests[0]?.headers['anthropic-beta']).toBe('computer-use-2025-01-24');
    expect(requests[0]?.body.tools[0]).toEqual({ type: 'computer_20250124', name: 'computer', display_width_px: 1280, display_height_px: 720 });
    expect(requests[1]?.headers['anthropic-beta']).toBe('computer-use-2025-11-24');
    expect(requests[1]?.body.tools[0]).toEqual({ type: 'computer_20251124', name: 'computer', display_width_px: 1280, display_height_px: 720 });
  });

  it('answers every tool call of the last reply with its result: screenshots after each, the error, the calls not run', async () => {
    const first = reply(
      'Name, notes, then submit.',
      computer('left_click', { coordinate: [900, 86] }, 'toolu_a'),
      computer('type', { text: 'Ada' }, 'toolu_b'),
      computer('zoom', { region: [700, 60, 1100, 120] }, 'toolu_c'),
      computer('left_click', { coordinate: [640, 400] }, 'toolu_d'),
      computer('key', { text: 'Return' }, 'toolu_e'),
    );
    const { url, requests } = await serve(first, reply('Done: the form is sent.'));
    const { model } = claude(url);
    const before = await screenshot(1280, 720);
    const prediction = await predictOk(model, await input({ observation: before }));
    expect(prediction.captures).toEqual([
      { afterAction: 0, kind: 'screen' },
      { afterAction: 1, kind: 'screen' },
      { afterAction: 2, kind: 'region', region: { x: 700, y: 60, width: 400, height: 60 } },
      { afterAction: 3, kind: 'screen' },
    ]);

    // What the loop made of it: two actions ran with their screenshots, the zoom captured its
    // region at full resolution, the fourth failed, the fifth was not run.
    const afterA = await screenshot(1280, 720, 'image/png');
    const afterB = await screenshot(1280, 720, 'image/png');
    const zoomed = await screenshot(600, 90, 'image/png');
    const history: StepRecord[] = [
      {
        step: 1,
        thought: prediction.thought,
        actions: prediction.actions,
        results: 'click done; type done; screenshot done; click failed (input_failed): the X server refused',
        screenshot: before,
        reply: prediction.raw,
        reports: [{ ok: true }, { ok: true, detail: 'typed 3 characters' }, { ok: true }, { ok: false, error: 'click failed: the X server refused' }],
        captures: [
          { afterAction: 0, kind: 'screen', image: afterA },
          { afterAction: 1, kind: 'screen', image: afterB },
          { afterAction: 2, kind: 'region', image: zoomed },
        ],
      },
    ];
    const now = await screenshot(1280, 720);
    const done = await predictOk(model, await input({ history, observation: now, feedback: 'Your action click failed: click failed: the X server refused' }));
    expect(done.actions).toEqual([{ type: 'finished', summary: 'Done: the form is sent.' }]);

    const body = requests[1]?.body;
    // The reply goes back as it came.
    expect(body.messages[1]).toEqual({ role: 'assistant', content: JSON.parse(prediction.raw).content });
    const results = lastToolResults(body);
    expect(results.map((result) => result.tool_use_id)).toEqual(['toolu_a', 'toolu_b', 'toolu_c', 'toolu_d', 'toolu_e']);
    expect(results.map((result) => result.is_error ?? false)).toEqual([false, false, false, true, true]);
    expect(resultText(results[1]!)).toBe('typed 3 characters');
    expect(resultText(results[3]!)).toBe('click failed: the X server refused');
    expect(resultText(results[4]!)).toBe('not run: an earlier action of this reply failed');
    const imagesOf = (index: number) => anthropicImagesIn(results[index]).map((image) => image.data);
    expect(imagesOf(0)).toEqual([afterA.image.toString('base64')]);
    expect(imagesOf(1)).toEqual([afterB.image.toString('base64')]);
    expect(imagesOf(2)).toEqual([zoomed.image.toString('base64')]);
    expect(await decodeImage(anthropicImagesIn(results[2])[0]!)).toMatchObject({ width: 600, height: 90 });
    // The screen now follows the results, since the last call that ran failed.
    const last = body.messages.at(-1).content as Array<{ type: string; text?: string }>;
    expect(last.slice(5).map((block) => block.type)).toEqual(['text', 'image', 'text']);
    expect(anthropicImagesIn(last.slice(5))[0]?.data).toBe(now.image.toString('base64'));
    expect(last.at(-1)?.text).toBe('Your action click failed: click failed: the X server refused');
  });

  it('cursor_position answers with the pointer; a memory tool with its answer; the screenshot rides on the last computer result', async () => {
    const first = reply('', computer('cursor_position', {}, 'toolu_p'), { type: 'tool_use', id: 'toolu_m', name: 'query_long_term_memory', input: { hint: 'name' } }, computer('left_click', { coordinate: [5, 5] }, 'toolu_c'));
    const { url, requests } = await serve(first, reply('Done.'));
    const { model } = claude(url);
    const prediction = await predictOk(model, await input());
    expect(prediction.actions.map((action) => action.type)).toEqual(['screenshot', 'query_long_term_memory', 'click']);
    expect(prediction.captures).toEqual([{ afterAction: 0, kind: 'pointer' }]);
    const now = await screenshot(1280, 720);
    const answer = 'Long-term memory on "name": Ada Lovelace';
    await predictOk(
      model,
      await input({
        observation: now,
        feedback: answer,
        history: [
          {
            step: 1,
            thought: null,
            actions: prediction.actions,
            results: '',
            screenshot: await screenshot(1280, 720),
            reply: prediction.raw,
            reports: [{ ok: true }, { ok: true, detail: answer }, { ok: true }],
            captures: [{ afterAction: 0, kind: 'pointer', pointer: { x: 321, y: 123 } }],
          },
        ],
      }),
    );
    const results = lastToolResults(requests[1]?.body);
    expect(results.map(resultText)).toEqual(['X=321,Y=123', answer, 'done']);
    expect(anthropicImagesIn(results[2])[0]?.data).toBe(now.image.toString('base64'));
    // The answer is in its tool result: not said twice.
    const last = requests[1]?.body.messages.at(-1).content as Array<{ type: string }>;
    expect(last.map((block) => block.type)).toEqual(['tool_result', 'tool_result', 'tool_result']);
  });

  it('with thinking set: the budget, the thinking streamed, and the thinking blocks passed back unchanged', async () => {
    const thinking = { type: 'thinking' as const, thinking: 'The Submit button is below the notes.', signature: 'EqQBCkgIARABGAIiQ...signed' };
    const redacted = { type: 'redacted_thinking' as const, data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' };
    const { url, requests } = await serve({ content: [thinking, redacted, { type: 'text', text: 'Submitting.' }, computer('left_click', { coordinate: [640, 400] }, 'toolu_s')] }, reply('Sent.'));
    const { model } = claude(url, { anthropic: { thinking: { budgetTokens: 2048 } }, temperature: 0.2 });
    const thoughts = thoughtLog();
    const prediction = await predictOk(model, await input(), undefined, thoughts.listener);
    expect(thoughts.text()).toBe('The Submit button is below the notes.\n\nSubmitting.');
    expect(prediction.thought).toBe('The Submit button is below the notes.\n\nSubmitting.');
    expect(requests[0]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(requests[0]?.body.max_tokens).toBe(4096 + 2048);
    expect(requests[0]?.body.temperature).toBeUndefined();

    await predictOk(
      model,
      await input({
        history: [{ step: 1, thought: prediction.thought, actions: prediction.actions, results: 'click done', screenshot: await screenshot(1280, 720), reply: prediction.raw, reports: [{ ok: true }] }],
      }),
    );
    const assistant = requests[1]?.body.messages[1];
    expect(assistant.role).toBe('assistant');
    expect(assistant.content[0]).toEqual(thinking);
    expect(assistant.content[1]).toEqual(redacted);
  });

  it('cache breakpoints on the system prompt and the newest three user turns; the cost counts cache writes and reads', async () => {
    const usage = { input_tokens: 100, output_tokens: 50, cache_creation_input_tokens: 2000, cache_read_input_tokens: 10_000 };
    const { url, requests } = await serve({ ...reply('', computer('key', { text: 'Tab' })), usage });
    const { model } = claude(url);
    const step = (n: number, raw: string): StepRecord => ({ step: n, thought: null, actions: [{ type: 'hotkey', keys: ['tab'] }], results: 'hotkey done', reply: raw, reports: [{ ok: true }] });
    const raw = (n: number) => JSON.stringify({ id: `msg_${n}`, content: [{ type: 'tool_use', id: `toolu_${n}`, name: 'computer', input: { action: 'key', text: 'Tab' } }], stop_reason: 'tool_use' });
    const history = [1, 2, 3, 4].map((n) => ({ ...step(n, raw(n)), ...(n >= 3 ? {} : { screenshotPlaceholder: `[Screenshot removed - Step ${n}]` }) }));
    history[2] = { ...history[2]!, screenshot: await screenshot(1280, 720) };
    history[3] = { ...history[3]!, screenshot: await screenshot(1280, 720) };
    const prediction = await predictOk(model, await input({ history, system: 'Recent: pressed Tab four times.' }));

    const messages = requests[0]?.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    const marked = messages.flatMap((message, turn) => message.content.flatMap((block, index) => (block.cache_control ? [[turn, index, block.type]] : [])));
    // Turns 4, 6 and 8: on the last tool result; the notes of this step after it, unmarked.
    expect(marked).toEqual([
      [4, 0, 'tool_result'],
      [6, 0, 'tool_result'],
      [8, 0, 'tool_result'],
    ]);
    expect(messages[8]?.content.at(-1)).toEqual({ type: 'text', text: 'Notes from memory for this task:\nRecent: pressed Tab four times.' });
    expect(messages[0]?.content[1]).toEqual({ type: 'text', text: '[Screenshot removed - Step 1]' });

    // claude-sonnet-4-6: $3 input, $3.75 cache write, $0.30 cache read, $15 output per MTok.
    expect(prediction.usage).toEqual({
      inputTokens: 12_100,
      outputTokens: 50,
      cacheWriteTokens: 2000,
      cacheReadTokens: 10_000,
      costUsd: (100 * 3 + 2000 * 3.75 + 10_000 * 0.3 + 50 * 15) / 1e6,
      priced: true,
      reported: true,
    });
  });

  it('the same request, unstreamed, when stream is off', async () => {
    const { url, requests } = await serve(reply('Typing.', computer('type', { text: 'hello' })));
    const prediction = await predictOk(claude(url, { stream: false }).model, await input());
    expect(prediction.actions).toEqual([{ type: 'type', text: 'hello' }]);
    expect(requests[0]?.body.stream).toBe(false);
  });

  it('an unknown action is a parse failure carrying the raw reply, to show the model', async () => {
    const { url } = await serve(reply('Hmm.', computer('teleport', { coordinate: [1, 1] })));
    const prediction = await claude(url).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'parse', message: 'unknown computer action "teleport"' } });
    if (!prediction.ok) expect(JSON.parse(prediction.error.raw ?? '{}').content[1].input.action).toBe('teleport');
  });
});

describe('anthropic family: faults, worded as the other families word them', () => {
  it('401 and 403: auth, never retried', async () => {
    for (const status of [401, 403]) {
      const { url, requests } = await serve({ status, message: 'invalid x-api-key' });
      const prediction = await claude(url, { maxRetries: 3 }).model.predict(await input());
      expect(prediction).toMatchObject({ ok: false, attempts: 1, error: { kind: 'auth', status } });
      if (!prediction.ok) expect(prediction.error.message).toBe(`${status} from ${url}/v1/messages: invalid x-api-key (check the API key)`);
      expect(requests).toHaveLength(1);
      await server?.close();
    }
  });

  it('an unknown model: not_found naming the model', async () => {
    const { url } = await serve({ status: 404, message: 'model: claude-nonexistent' });
    const prediction = await claude(url, { model: 'claude-nonexistent' }).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'not_found', status: 404 } });
    if (!prediction.ok) expect(prediction.error.message).toBe(`404 from ${url}/v1/messages: the model "claude-nonexistent" was not found (model: claude-nonexistent); check --model`);
  });

  it('a base URL ending in /v1: the 404 says the root is meant', async () => {
    const { url } = await serve();
    const prediction = await claude(`${url}/v1`).model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    if (!prediction.ok) expect(prediction.error.message).toBe(`404 Not Found at ${url}/v1/v1/messages: the base URL is the API root, without /v1 — did you mean ${url}?`);
  });

  it('429 waits the retry-after seconds, then succeeds', async () => {
    const { url, requests } = await serve({ status: 429, headers: { 'retry-after': '2' }, message: 'Number of request tokens has exceeded your rate limit' }, reply('', computer('screenshot')));
    const { model, delays } = claude(url, { maxRetries: 3 });
    const prediction = await predictOk(model, await input());
    expect(delays).toEqual([2000]);
    expect(prediction.attempts).toBe(2);
    expect(requests).toHaveLength(2);
  });

  it('529 overloaded is retried, then a clear failure', async () => {
    const overloaded = { status: 529, message: 'Overloaded' };
    const { url, requests } = await serve(overloaded, overloaded, overloaded);
    const { model, delays } = claude(url, { maxRetries: 2, retryBaseDelayMs: 400 });
    const prediction = await model.predict(await input());
    expect(prediction).toMatchObject({ ok: false, attempts: 3, error: { kind: 'http', status: 529 } });
    if (!prediction.ok) expect(prediction.error.message).toBe(`overloaded (HTTP 529) from ${url}/v1/messages: Overloaded`);
    expect(delays).toEqual([200, 400]);
    expect(requests).toHaveLength(3);
  });

  it('an overload reported mid-stream is retried; the thought starts over', async () => {
    const { url } = await serve({ ...reply('I will click the field now.', computer('screenshot')), errorAfterEvents: { events: 4, type: 'overloaded_error', message: 'Overloaded' } }, reply('Second try.', computer('screenshot')));
    const { model, delays } = claude(url, { maxRetries: 1 });
    const thoughts = thoughtLog();
    const prediction = await predictOk(model, await input(), undefined, thoughts.listener);
    expect(delays).toHaveLength(1);
    expect(thoughts.deltas.some((delta) => delta.attempt === 1)).toBe(true);
    expect(thoughts.text()).toBe('Second try.');
    expect(prediction.thought).toBe('Second try.');
  });

  it('a timeout and a refused connection are values', async () => {
    const { url } = await serve({ ...reply('', computer('screenshot')), delayMs: 2000 });
    const slow = await claude(url, { timeoutMs: 200 }).model.predict(await input());
    expect(slow).toMatchObject({ ok: false, error: { kind: 'timeout', message: `the model did not answer within 200 ms (${url})` } });
    const closed = await claude('http://127.0.0.1:9').model.predict(await input());
    expect(closed).toMatchObject({ ok: false, error: { kind: 'network', message: expect.stringContaining('cannot reach http://127.0.0.1:9/v1/messages') } });
  });

  it('a stop during the call is aborted', async () => {
    const { url } = await serve({ ...reply('', computer('screenshot')), delayMs: 5000 });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const prediction = await claude(url).model.predict(await input(), stop.signal);
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'aborted' } });
  });
});

describe('anthropic family: the provider check and the memory model', () => {
  it('probes <root>/v1/models with the key; a root ending in /v1 is fatal with the fix; a refused key too', async () => {
    const { url, probes } = await serve();
    expect(await probeProvider({ baseUrl: url, apiKey: 'sk-ant-test-key', family: 'anthropic' })).toMatchObject({ ok: true });
    expect(probes[0]?.path).toBe('/v1/models');
    expect(probes[0]?.headers['x-api-key']).toBe('sk-ant-test-key');
    expect(probes[0]?.headers['anthropic-version']).toBeDefined();
    expect(await probeProvider({ baseUrl: `${url}/v1`, family: 'anthropic' })).toEqual({
      ok: false,
      fatal: true,
      message: `404 Not Found at ${url}/v1/v1/models: the base URL is the API root, without /v1 — did you mean ${url}?`,
    });
    await server?.close();
    server = await startAnthropicServer({ replies: [], models: { status: 401, message: 'invalid x-api-key' } });
    expect(await probeProvider({ baseUrl: server.url, apiKey: 'bad', family: 'anthropic' })).toEqual({
      ok: false,
      fatal: true,
      message: `401 from ${server.url}/v1/models: the provider refused the API key (invalid x-api-key); check the key`,
    });
  });

  it('the memory model of an anthropic run speaks the Messages API too', async () => {
    const { url, requests } = await serve({ content: [{ type: 'tool_use', name: 'rewrite_memory', input: { text: 'Ada likes Vim.' } }] });
    const text = createTextModel(settings(url));
    const result = await text.complete({
      system: 'Keep the memory short.',
      messages: [
        { role: 'user', content: 'Ada said she likes Vim.' },
        { role: 'user', content: 'Rewrite the memory.' },
      ],
      tools: [{ name: 'rewrite_memory', description: 'Rewrite it', parameters: { type: 'object', properties: { text: { type: 'string' } } } }],
      toolChoice: { name: 'rewrite_memory' },
    });
    expect(result).toMatchObject({ ok: true, toolCalls: [{ name: 'rewrite_memory', arguments: '{"text":"Ada likes Vim."}' }] });
    const body = requests[0]?.body;
    expect(body.system).toBe('Keep the memory short.');
    expect(body.messages).toEqual([{ role: 'user', content: 'Ada said she likes Vim.\n\nRewrite the memory.' }]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'rewrite_memory' });
  });
});
