/**
 * The `tools` family end to end: the real `openai` client against the scripted server.
 */
import { describe, expect, it } from 'vitest';
import { createVisionModel, type ModelImage, type PredictInput } from '../../../src/main/model';
import { computerToolDefinition } from '../../../src/main/model/families';
import { visibleToolsThought } from '../../../src/main/model/tools-model';
import { decodeDataUrl, imagesIn, type ScriptedReply } from '../../fixtures/openai-server';
import { predictOk, screenshot, settingsFor, step, thoughtLog, scriptedServerPerTest } from './helpers';

const serve = scriptedServerPerTest();

async function input(overrides: Partial<PredictInput> = {}, image?: ModelImage): Promise<PredictInput> {
  return { task: 'Save the document', history: [], observation: image ?? (await screenshot(1280, 800)), ...overrides };
}

describe('tools family, tool calling', () => {
  it('streams the thought, assembles tool-call arguments split across chunks, and prices the usage', async () => {
    const { url, requests } = await serve({
      text: 'I see the Save button at the bottom right.',
      toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'click', x: 1130, y: 742 }, { type: 'hotkey', keys: 'ctrl+s' }] } }],
      argumentChunkSize: 5,
      chunkSize: 3,
    });
    const model = createVisionModel(settingsFor(url));
    const thoughts = thoughtLog();
    let resolved = false;
    const deltasBeforeResolve: number[] = [];
    const pending = model.predict(await input(), undefined, (delta, attempt) => {
      deltasBeforeResolve.push(resolved ? -1 : 1);
      thoughts.listener(delta, attempt);
    });
    const prediction = await pending;
    resolved = true;
    if (!prediction.ok) throw new Error(prediction.error.message);

    expect(prediction.thought).toBe('I see the Save button at the bottom right.');
    expect(prediction.actions).toEqual([
      { type: 'click', x: 1130, y: 742, button: 'left' },
      { type: 'hotkey', keys: ['ctrl', 's'] },
    ]);
    expect(prediction.extras).toEqual({ family: 'tools', toolCallIds: ['call_0_0'], finishReason: 'tool_calls' });
    expect(prediction.usage).toEqual({ inputTokens: 1200, outputTokens: 40, costUsd: (1200 * 2 + 40 * 8) / 1e6, priced: true, reported: true });
    expect(prediction.attempts).toBe(1);
    expect(JSON.parse(prediction.raw)).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'computer' } }] });

    // Deltas arrived one piece at a time, in order, all before predict resolved.
    expect(thoughts.deltas.length).toBeGreaterThan(3);
    expect(thoughts.text()).toBe(prediction.thought);
    expect(deltasBeforeResolve.every((mark) => mark === 1)).toBe(true);

    expect(requests).toHaveLength(1);
    const body = requests[0]?.body;
    expect(requests[0]?.path).toBe('/v1/chat/completions');
    expect(body.model).toBe('gpt-4.1');
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    expect(body.tools).toEqual([computerToolDefinition({ width: 1280, height: 800 })]);
    // No key set: the client still sends a placeholder.
    expect(requests[0]?.headers.authorization).toBe('Bearer sk-no-key');
    const images = imagesIn(body);
    expect(images).toHaveLength(1);
    expect(await decodeDataUrl(images[0] as string)).toEqual({ mime: 'image/jpeg', width: 1280, height: 800, format: 'jpeg' });
    expect(body.messages[0].role).toBe('system');
    expect(body.messages[0].content).toContain('1280x800');
    expect(body.messages.at(-1).role).toBe('user');
  });

  it('sends the API key, extra headers, temperature and the output limit', async () => {
    const { url, requests } = await serve({ toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'wait', ms: 500 }] } }] });
    const model = createVisionModel(
      settingsFor(url, { apiKey: 'sk-test-123', headers: { 'X-Title': 'Mnemo' }, temperature: 0, maxOutputTokens: 300 }),
    );
    const prediction = await predictOk(model, await input());
    expect(prediction.actions).toEqual([{ type: 'wait', ms: 500 }]);
    expect(prediction.thought).toBeNull();
    expect(requests[0]?.headers.authorization).toBe('Bearer sk-test-123');
    expect(requests[0]?.headers['x-title']).toBe('Mnemo');
    expect(requests[0]?.body.temperature).toBe(0);
    expect(requests[0]?.body.max_tokens).toBe(300);
  });

  it('takes the thought from the tool arguments when the message has no text, and still emits it', async () => {
    const { url } = await serve({
      toolCalls: [{ name: 'computer', arguments: { thought: 'The dialog is open.', actions: [{ type: 'type', text: 'report\n' }] } }],
    });
    const thoughts = thoughtLog();
    const prediction = await predictOk(createVisionModel(settingsFor(url)), await input(), undefined, thoughts.listener);
    expect(prediction.thought).toBe('The dialog is open.');
    expect(thoughts.text()).toBe('The dialog is open.');
    expect(prediction.actions).toEqual([{ type: 'type', text: 'report\n' }]);
  });

  it('renders history as tool calls and tool results, screenshots or their placeholders, never two user turns in a row', async () => {
    const { url, requests } = await serve({ toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'finished', summary: 'saved' }] } }] });
    const history = [
      step({ step: 1, thought: 'Open the menu.', actions: [{ type: 'click', x: 10, y: 10, button: 'left' }], results: 'clicked (10, 10)' }),
      step({
        step: 2,
        thought: 'Click Save.',
        actions: [{ type: 'click', x: 50, y: 60, button: 'left' }],
        results: 'clicked (50, 60)',
        screenshot: await screenshot(640, 400, 'image/png'),
      }),
    ];
    const prediction = await predictOk(createVisionModel(settingsFor(url)), await input({ history, feedback: 'Note: the user is watching.' }));
    expect(prediction.actions).toEqual([{ type: 'finished', summary: 'saved' }]);

    const body = requests[0]?.body;
    const roles = (body.messages as { role: string }[]).map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'user', 'assistant', 'tool', 'user']);
    expect(body.messages[1].content).toContain('[Screenshot removed - Step 1]');
    expect(body.messages[2].tool_calls[0].function).toEqual({
      name: 'computer',
      arguments: JSON.stringify({ actions: [{ type: 'click', x: 10, y: 10, button: 'left' }] }),
    });
    expect(body.messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_step_1', content: 'clicked (10, 10)' });
    const images = imagesIn(body);
    expect(images).toHaveLength(2);
    expect(await decodeDataUrl(images[0] as string)).toMatchObject({ mime: 'image/png', width: 640, height: 400, format: 'png' });
    expect(await decodeDataUrl(images[1] as string)).toMatchObject({ width: 1280, height: 800 });
    const last = JSON.stringify(body.messages.at(-1));
    expect(last).toContain('Note: the user is watching.');
  });

  it('reads a complete reply when streaming is off, and emits the thought once', async () => {
    const { url, requests } = await serve({
      text: 'Scrolling to the footer.',
      toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'scroll', direction: 'down', amount: 5 }] } }],
    });
    const thoughts = thoughtLog();
    const prediction = await predictOk(createVisionModel(settingsFor(url, { stream: false })), await input(), undefined, thoughts.listener);
    expect(requests[0]?.body.stream).toBe(false);
    expect(prediction.actions).toEqual([{ type: 'scroll', direction: 'down', amount: 5 }]);
    expect(thoughts.deltas).toEqual([{ delta: 'Scrolling to the footer.', attempt: 1 }]);
    expect(prediction.usage.reported).toBe(true);
  });

  it('turns a refusal into a fail action', async () => {
    const { url } = await serve({ refusal: "I can't help with that." });
    const prediction = await predictOk(createVisionModel(settingsFor(url)), await input());
    expect(prediction.refusal).toBe("I can't help with that.");
    expect(prediction.actions).toEqual([{ type: 'fail', reason: "I can't help with that." }]);
  });

  it('prices an unknown model at 0 and says so; a server without usage reports none', async () => {
    const { url } = await serve({ toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'wait' }] } }], usage: null });
    const prediction = await predictOk(createVisionModel(settingsFor(url, { model: 'qwen2.5vl:7b' })), await input());
    expect(prediction.usage).toEqual({ inputTokens: 0, outputTokens: 0, costUsd: 0, priced: false, reported: false });
  });
});

describe('tools family, JSON in the text (no tool calling)', () => {
  it('sends no tools, streams only the prose, and reads the fenced JSON', async () => {
    const text = 'The search field is empty.\n```json\n{"actions": [{"type": "click", "x": 300, "y": 40}, {"type": "type", "text": "mnemo"}]}\n```';
    const { url, requests } = await serve({ text, chunkSize: 2 });
    const thoughts = thoughtLog();
    const prediction = await predictOk(createVisionModel(settingsFor(url, { toolCalling: false })), await input(), undefined, thoughts.listener);
    expect(requests[0]?.body.tools).toBeUndefined();
    expect(requests[0]?.body.messages[0].content).toContain('```json');
    expect(prediction.thought).toBe('The search field is empty.');
    expect(prediction.actions).toEqual([
      { type: 'click', x: 300, y: 40, button: 'left' },
      { type: 'type', text: 'mnemo' },
    ]);
    expect(thoughts.text()).toBe('The search field is empty.');
    expect(thoughts.deltas.some((entry) => entry.delta.includes('`') || entry.delta.includes('{'))).toBe(false);
  });

  it('reads a bare JSON object followed by trailing prose', async () => {
    const { url } = await serve({ text: 'Thought: press enter\n{"type": "hotkey", "keys": ["Return"]}\nThat should submit the form.' });
    const prediction = await predictOk(createVisionModel(settingsFor(url, { toolCalling: false })), await input());
    expect(prediction.actions).toEqual([{ type: 'hotkey', keys: ['enter'] }]);
    expect(prediction.thought).toBe('press enter\nThat should submit the form.');
  });

  it('renders history as text turns with the results in the next user turn', async () => {
    const { url, requests } = await serve({ text: '{"type": "finished", "summary": "done"}' });
    const history = [step({ step: 1, thought: 'Typing.', actions: [{ type: 'type', text: 'x' }], results: 'typed 1 character' })];
    await predictOk(createVisionModel(settingsFor(url, { toolCalling: false })), await input({ history }));
    const messages = requests[0]?.body.messages as { role: string; content: unknown }[];
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[2]?.content).toBe('Typing.\n```json\n{"actions":[{"type":"type","text":"x"}]}\n```');
    expect(JSON.stringify(messages[3]?.content)).toContain('Result of step 1: typed 1 character');
  });
});

describe('tools family, malformed replies are parse failures with the raw reply', () => {
  const cases: { name: string; reply: ScriptedReply; reason: RegExp }[] = [
    { name: 'an empty reply', reply: { text: '' }, reason: /no action in the reply/ },
    { name: 'prose without an action', reply: { text: 'I am not sure what to do.' }, reason: /no action in the reply/ },
    {
      name: 'coordinates outside the image',
      reply: { toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'click', x: 1500, y: 90 }] } }] },
      reason: /\(1500, 90\) outside the 1280x800 image/,
    },
    {
      name: 'an unknown action',
      reply: { toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'teleport', x: 1, y: 1 }] } }] },
      reason: /unknown action "teleport"/,
    },
    {
      name: 'arguments that are not JSON',
      reply: { toolCalls: [{ name: 'computer', arguments: '{"actions": [{"type": "click", "x": 1' }], finishReason: 'length' },
      reason: /not JSON.*cut off at the output token limit/,
    },
    {
      name: 'an unknown tool',
      reply: { toolCalls: [{ name: 'browser', arguments: { url: 'x' } }] },
      reason: /unknown tool "browser"/,
    },
  ];
  for (const { name, reply, reason } of cases) {
    it(name, async () => {
      const { url } = await serve(reply);
      const prediction = await createVisionModel(settingsFor(url)).predict(await input());
      if (prediction.ok) throw new Error(`expected a parse failure, got ${JSON.stringify(prediction.actions)}`);
      expect(prediction.error.kind).toBe('parse');
      expect(prediction.error.message).toMatch(reason);
      expect(typeof prediction.error.raw).toBe('string');
      expect(JSON.parse(prediction.error.raw as string)).toMatchObject({ role: 'assistant' });
      expect(prediction.usage?.inputTokens).toBe(1200);
      expect(prediction.attempts).toBe(1);
    });
  }
});

describe('visibleToolsThought', () => {
  it('shows the prose before JSON, holding back what may become a fence or a label', () => {
    expect(visibleToolsThought('Tho')).toBe('');
    expect(visibleToolsThought('Thought: the menu')).toBe('the menu');
    expect(visibleToolsThought('The menu is open.\n`')).toBe('The menu is open.');
    expect(visibleToolsThought('The menu is open.\n```json\n{"a"')).toBe('The menu is open.');
    expect(visibleToolsThought('Clicking. {"type"')).toBe('Clicking.');
  });
});
