/**
 * The memory model's calls over the real client: the request as the server receives it (system
 * text, tools, tool choice, output limit), the reply with tool calls and priced usage, and
 * failures as values.
 */
import { describe, expect, it } from 'vitest';
import { buildTextRequest, parseJsonObject } from '../../../src/main/memory';
import { memoryModel, serve } from './helpers';

describe('ClientTextModel', () => {
  it('sends system text, messages and function tools, and returns tool calls with priced usage', async () => {
    const server = await serve([
      { toolCalls: [{ id: 'call_1', name: 'remember', arguments: { memories: ['a'] } }], usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } },
    ]);
    const model = memoryModel(server.url, { temperature: 0, maxOutputTokens: 300 });
    const reply = await model.complete({
      system: 'You manage memory.',
      messages: [{ role: 'user', content: 'Store this.' }],
      tools: [{ name: 'remember', description: 'Stores memories.', parameters: { type: 'object', properties: {} } }],
      toolChoice: { name: 'remember' },
    });
    expect(reply).toMatchObject({
      ok: true,
      toolCalls: [{ id: 'call_1', name: 'remember', arguments: '{"memories":["a"]}' }],
      usage: { inputTokens: 1_000_000, costUsd: 0.4, priced: true },
      attempts: 1,
    });
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({
      model: 'gpt-4.1-mini',
      stream: false,
      temperature: 0,
      max_tokens: 300,
      messages: [
        { role: 'system', content: 'You manage memory.' },
        { role: 'user', content: 'Store this.' },
      ],
      tools: [{ type: 'function', function: { name: 'remember', description: 'Stores memories.' } }],
      tool_choice: { type: 'function', function: { name: 'remember' } },
    });
  });

  it('retries a 503 under the client policy and reports a final failure as a value', async () => {
    const server = await serve([{ status: 503 }, { text: 'ok' }, { status: 401 }]);
    const model = memoryModel(server.url, { maxRetries: 2 });
    expect(await model.complete({ messages: [{ role: 'user', content: 'x' }] })).toMatchObject({ ok: true, text: 'ok', attempts: 2 });
    expect(await model.complete({ messages: [{ role: 'user', content: 'x' }] })).toMatchObject({ ok: false, error: { kind: 'auth', status: 401 }, attempts: 1 });
  });

  it('uses max_completion_tokens for OpenAI itself', () => {
    const request = buildTextRequest({ messages: [] }, { model: 'gpt-5-mini', baseUrl: 'https://api.openai.com/v1', maxOutputTokens: 100, temperature: undefined });
    expect(request).toEqual({ model: 'gpt-5-mini', messages: [], max_completion_tokens: 100 });
  });

  it('reads a JSON object from a reply, fenced or not', () => {
    expect(parseJsonObject('{"summary": "x"}')).toEqual({ summary: 'x' });
    expect(parseJsonObject('```json\n{"summary": "y"}\n```')).toEqual({ summary: 'y' });
    expect(parseJsonObject('[1]')).toBeNull();
    expect(parseJsonObject('plain words')).toBeNull();
  });
});
