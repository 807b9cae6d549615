/**
 * The models in their own coordinates, against the scripted OpenAI-compatible server with the real
 * `openai` client: the pyautogui model's request (its action space, the space it writes in, the
 * history as it came or written back in its coordinates) and its reply read into image pixels; a
 * `tools` and a `ui-tars` model set up with another space; the frame each model gives for an image;
 * and cached prompt tokens priced at the cached price.
 */
import { describe, expect, it } from 'vitest';
import { createVisionModel, type PredictInput } from '../../../src/main/model';
import { smartResize } from '../../../src/main/model/families/coordinates';
import { imagesIn } from '../../fixtures/openai-server';
import { predictOk, screenshot, settingsFor, step, thoughtLog, scriptedServerPerTest } from './helpers';

const serve = scriptedServerPerTest();

async function input(overrides: Partial<PredictInput> = {}): Promise<PredictInput> {
  return { task: 'Submit the form', history: [], observation: await screenshot(1280, 800), ...overrides };
}

describe('the pyautogui model', () => {
  it('tells the model its action space and coordinates, streams the thought, and reads the code into image pixels', async () => {
    const server = await serve({ text: "## Thought:\nThe Submit button is at the bottom.\n```python\npyautogui.click(500, 750)\npyautogui.press('enter')\n```" });
    const model = createVisionModel(settingsFor(server.url, { family: 'pyautogui', model: 'opencua-7b', coordinates: 'relative-1000' }));
    const thoughts = thoughtLog();
    const prediction = await predictOk(model, await input(), undefined, thoughts.listener);
    expect(prediction.actions).toEqual([
      { type: 'click', x: 640, y: 600, button: 'left' },
      { type: 'hotkey', keys: ['enter'] },
    ]);
    expect(prediction.thought).toBe('The Submit button is at the bottom.');
    expect(thoughts.text()).toBe('The Submit button is at the bottom.');
    expect(prediction.extras).toEqual({ family: 'pyautogui', finishReason: 'stop' });
    const system = server.requests[0]!.body.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('Coordinates are thousandths of the current screenshot');
    expect(system.content).toContain('pyautogui.hotkey(');
    expect(system.content).toContain('WAIT');
    expect(system.content).toContain('pyautogui.click(883, 928)');
  });

  it('a reply that does not parse is a parse failure naming the line, sent back as it came', async () => {
    const server = await serve({ text: "```python\npyautogui.click(10, 10)\nsubprocess.run(['ls'])\n```" });
    const prediction = await createVisionModel(settingsFor(server.url, { family: 'pyautogui' })).predict(await input());
    expect(prediction).toMatchObject({ ok: false, error: { kind: 'parse', message: expect.stringMatching(/^line 3: subprocess\.run\(\) is not a call Mnemo reads/) } });
  });

  it('earlier steps: the reply as it came, else the actions written back as code in the model\'s coordinates, and what happened', async () => {
    const server = await serve({ text: 'DONE' });
    const model = createVisionModel(settingsFor(server.url, { family: 'pyautogui', coordinates: 'relative-1000' }));
    const kept = '```python\npyautogui.click(100, 100)\n```';
    await predictOk(
      model,
      await input({
        history: [
          step({ step: 1, thought: 'First.', actions: [{ type: 'click', x: 128, y: 80, button: 'left' }], reply: kept, results: 'clicked', screenshot: await screenshot(1280, 800) }),
          step({ step: 2, thought: 'Second.', actions: [{ type: 'click', x: 640, y: 400, button: 'left' }, { type: 'type', text: "it's" }], results: 'clicked; typed', screenshotPlaceholder: '[Screenshot removed - Step 2]' }),
        ],
      }),
    );
    const { messages } = server.requests[0]!.body;
    const assistant = messages.filter((message: { role: string }) => message.role === 'assistant').map((message: { content: string }) => message.content);
    expect(assistant).toEqual([kept, "Second.\n```python\npyautogui.click(500, 500)\npyautogui.write('it\\'s')\n```"]);
    expect(JSON.stringify(messages)).toContain('Result of step 2: clicked; typed');
    expect(JSON.stringify(messages)).toContain('[Screenshot removed - Step 2]');
    expect(imagesIn(server.requests[0]!.body)).toHaveLength(2);
  });
});

describe('tools and ui-tars in another space', () => {
  it('tools with relative-1: the tool and the prompt say so, the reply maps onto the image, the history speaks 0-1', async () => {
    const server = await serve({ toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'click', x: 0.25, y: 0.5 }] } }] });
    const model = createVisionModel(settingsFor(server.url, { coordinates: 'relative-1' }));
    const prediction = await predictOk(model, await input({ history: [step({ step: 1, thought: 't', actions: [{ type: 'click', x: 640, y: 400, button: 'left' }], results: 'ok', screenshot: await screenshot(1280, 800) })] }));
    expect(prediction.actions).toEqual([{ type: 'click', x: 320, y: 400, button: 'left' }]);
    const body = server.requests[0]!.body;
    expect(body.tools[0].function.description).toContain('fractions of the current screenshot');
    expect(body.messages[0].content).toContain('Coordinates are fractions of the current screenshot');
    const call = body.messages.find((message: { tool_calls?: unknown }) => message.tool_calls);
    expect(JSON.parse(call.tool_calls[0].function.arguments)).toEqual({ actions: [{ type: 'click', x: 0.5, y: 0.5, button: 'left' }] });
    const off = await serve({ toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'click', x: 640, y: 400 }] } }] });
    expect(await createVisionModel(settingsFor(off.url, { coordinates: 'relative-1' })).predict(await input())).toMatchObject({
      ok: false,
      error: { kind: 'parse', message: 'coordinates (640, 400) outside the 0-1 relative range' },
    });
  });

  it('ui-tars set up in relative-1000 reads 0-1000 whatever its version', async () => {
    const server = await serve({ text: "Thought: t\nAction: click(start_box='(500,500)')" });
    const model = createVisionModel(settingsFor(server.url, { family: 'ui-tars', modelVersion: '1.5', coordinates: 'relative-1000' }));
    expect((await predictOk(model, await input())).actions).toEqual([{ type: 'click', x: 640, y: 400, button: 'left' }]);
  });

  it('every model gives the frame of its coordinates for an image', () => {
    const image = { width: 1920, height: 1080 };
    const frame = (overrides: Parameters<typeof settingsFor>[1]) => createVisionModel(settingsFor('http://127.0.0.1:9/v1', overrides)).coordinateFrame!(image);
    expect(frame({})).toEqual({ space: 'image', image });
    expect(frame({ family: 'ui-tars', modelVersion: '1.0' })).toEqual({ space: 'relative-1000', image });
    expect(frame({ family: 'ui-tars' })).toEqual({ space: 'smart-resize', image });
    expect(frame({ family: 'pyautogui', coordinates: 'smart-resize', smartResize: { factor: 32 } })).toEqual({ space: 'smart-resize', image, smartResize: { factor: 32 } });
    expect(frame({ family: 'openai-cua' })).toEqual({ space: 'image', image });
    expect(createVisionModel(settingsFor('http://127.0.0.1:9', { family: 'anthropic', model: 'claude-sonnet-4-6' })).coordinateFrame!(image)).toEqual({ space: 'image', image });
    expect(smartResize(1920, 1080)).toEqual({ width: 1932, height: 1092 });
  });
});

describe('cached prompt tokens', () => {
  it('are priced at the cached price (gpt-4.1: 2 $/M input, 0.5 $/M cached, 8 $/M output)', async () => {
    const server = await serve({
      toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'wait' }] } }],
      usage: { prompt_tokens: 1000, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 800 } } as never,
    });
    const prediction = await predictOk(createVisionModel(settingsFor(server.url, { stream: false })), await input());
    expect(prediction.usage).toMatchObject({ inputTokens: 1000, outputTokens: 10, cacheReadTokens: 800, priced: true });
    expect(prediction.usage.costUsd).toBeCloseTo((200 * 2 + 800 * 0.5 + 10 * 8) / 1_000_000, 12);
  });
});
