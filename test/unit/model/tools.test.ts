import { describe, expect, it } from 'vitest';
import { ACTION_TYPES, ELEMENT_ACTION_TYPES } from '../../../src/shared/actions';
import {
  computerToolDefinition,
  parseToolsMessage,
  parseToolsReply,
  type ToolsOptions,
  type ToolsParse,
} from '../../../src/main/model/families/tools';

function ok(result: ToolsParse) {
  if (!result.ok) throw new Error(`expected a parse, got: ${result.reason}`);
  return result;
}
function reasonOf(text: string, options: ToolsOptions = {}): string {
  const result = parseToolsReply(text, options);
  if (result.ok) throw new Error(`expected a failure, got: ${JSON.stringify(result.actions)}`);
  return result.reason;
}

function message(args: unknown, content: unknown = null, name = 'computer', id = 'call_1') {
  return {
    role: 'assistant',
    content,
    tool_calls: [
      { id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } },
    ],
  };
}

describe('computerToolDefinition', () => {
  const tool = computerToolDefinition({ width: 1280, height: 800 });

  it('is a chat-completions function tool named computer, with an object of actions', () => {
    expect(tool.type).toBe('function');
    expect(tool.function.name).toBe('computer');
    expect(tool.function.description).toContain('1280x800');
    const parameters = tool.function.parameters as {
      type: string;
      required: string[];
      properties: { actions: { type: string; items: { oneOf?: unknown[]; anyOf?: unknown[] } } };
    };
    expect(parameters.type).toBe('object');
    expect(parameters.required).toEqual(['actions']);
    expect(parameters.properties.actions.type).toBe('array');
  });

  it('is generated from the shared action schema: one variant per action type', () => {
    const items = (tool.function.parameters as { properties: { actions: { items: Record<string, unknown> } } }).properties
      .actions.items;
    const variants = (items.oneOf ?? items.anyOf) as { properties: { type: { const: string } } }[];
    // The element actions are declared only with the elements aid on (their numbers need the step's list).
    expect(variants.map((variant) => variant.properties.type.const)).toEqual(ACTION_TYPES.filter((type) => !(ELEMENT_ACTION_TYPES as readonly string[]).includes(type)));
    expect(items.$schema).toBeUndefined();
    const aided = (computerToolDefinition({ width: 1280, height: 800 }, undefined, { elements: true }).function.parameters as { properties: { actions: { items: Record<string, unknown> } } }).properties.actions.items;
    expect(((aided.oneOf ?? aided.anyOf) as { properties: { type: { const: string } } }[]).map((variant) => variant.properties.type.const)).toEqual(ACTION_TYPES);
  });

  it('says coordinates are pixels of the image sent', () => {
    const items = (tool.function.parameters as { properties: { actions: { items: Record<string, unknown> } } }).properties
      .actions.items;
    const variants = (items.oneOf ?? items.anyOf) as { properties: Record<string, { description?: string }> }[];
    const click = variants[0] as { properties: Record<string, { description?: string }> };
    expect(click.properties.x?.description).toMatch(/pixels of the 1280x800 image sent/);
    expect(click.properties.y?.description).toMatch(/pixels of the 1280x800 image sent/);
  });

  it('is plain JSON', () => {
    expect(JSON.parse(JSON.stringify(tool))).toEqual(tool);
  });
});

describe('tools: tool calls', () => {
  it('reads {"actions":[...]} arguments, with the content as thought', () => {
    const result = ok(
      parseToolsMessage(
        message({ actions: [{ type: 'click', x: 10, y: 20 }, { type: 'type', text: 'hi\n' }] }, 'Clicking the field.'),
      ),
    );
    expect(result.thought).toBe('Clicking the field.');
    expect(result.actions).toEqual([
      { type: 'click', x: 10, y: 20, button: 'left' },
      { type: 'type', text: 'hi\n' },
    ]);
    expect(result.toolCallIds).toEqual(['call_1']);
  });

  it('accepts a single action as arguments', () => {
    expect(ok(parseToolsMessage(message({ type: 'double_click', x: 1, y: 2 }))).actions).toEqual([
      { type: 'double_click', x: 1, y: 2, button: 'left' },
    ]);
  });

  it('accepts {"action": {...}} and takes the thought field when there is no content', () => {
    const result = ok(parseToolsMessage(message({ thought: 'Scroll down.', action: { type: 'scroll', direction: 'down' } })));
    expect(result.thought).toBe('Scroll down.');
    expect(result.actions).toEqual([{ type: 'scroll', direction: 'down', amount: 3 }]);
  });

  it('accepts arguments already decoded, content as parts, and several tool calls', () => {
    const result = ok(
      parseToolsMessage({
        role: 'assistant',
        content: [{ type: 'text', text: 'Two steps.' }],
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'computer', arguments: { type: 'hotkey', keys: ['Control', 'S'] } } },
          { id: 'b', type: 'function', function: { name: 'computer', arguments: '{"type":"wait","ms":500}' } },
        ],
      }),
    );
    expect(result.thought).toBe('Two steps.');
    expect(result.actions).toEqual([
      { type: 'hotkey', keys: ['ctrl', 's'] },
      { type: 'wait', ms: 500 },
    ]);
    expect(result.toolCallIds).toEqual(['a', 'b']);
  });

  it('reads the message from stdin JSON, and a whole chat completion', () => {
    const text = JSON.stringify(message({ actions: [{ type: 'finished', summary: 'ok' }] }));
    expect(ok(parseToolsReply(text)).actions).toEqual([{ type: 'finished', summary: 'ok' }]);
    const completion = JSON.stringify({ choices: [{ index: 0, message: message({ type: 'screenshot' }) }] });
    expect(ok(parseToolsReply(completion)).actions).toEqual([{ type: 'screenshot' }]);
  });

  it('falls back to the text of a message without tool calls', () => {
    const text = JSON.stringify({ role: 'assistant', content: 'Done: {"type":"finished","summary":"saved"}' });
    const result = ok(parseToolsReply(text));
    expect(result.actions).toEqual([{ type: 'finished', summary: 'saved' }]);
    expect(result.thought).toBe('Done:');
    expect(result.toolCallIds).toEqual([]);
  });

  it('reads the legacy function_call', () => {
    const text = JSON.stringify({
      role: 'assistant',
      content: null,
      function_call: { name: 'computer', arguments: '{"type":"mouse_move","x":3,"y":4}' },
    });
    expect(ok(parseToolsReply(text)).actions).toEqual([{ type: 'mouse_move', x: 3, y: 4 }]);
  });

  it('canonicalises keys and accepts "ctrl+c" strings and "coordinate": [x, y]', () => {
    expect(ok(parseToolsMessage(message({ type: 'hotkey', keys: 'ctrl+c' }))).actions).toEqual([
      { type: 'hotkey', keys: ['ctrl', 'c'] },
    ]);
    expect(ok(parseToolsMessage(message({ type: 'hotkey', key: 'Return' }))).actions).toEqual([
      { type: 'hotkey', keys: ['enter'] },
    ]);
    expect(ok(parseToolsMessage(message({ type: 'click', coordinate: [5, 6] }))).actions).toEqual([
      { type: 'click', x: 5, y: 6, button: 'left' },
    ]);
  });

  it.each([
    [message({ actions: [] }), 'no action in the reply'],
    [message({ type: 'click' }), 'click without a point'],
    [message({ type: 'click', x: 5 }), 'click without a point'],
    [message({ type: 'mouse_move' }), 'mouse_move without a point'],
    [message({ type: 'teleport' }), 'unknown action "teleport"'],
    [message({ type: 'hotkey', keys: ['hyper'] }), 'invalid hotkey action: keys.0: unknown key "hyper"'],
    [message({ foo: 1 }), 'no action in the reply'],
    [message('{not json'), /^the computer tool's arguments are not JSON: /],
    [message({ type: 'wait' }, null, 'browser'), 'unknown tool "browser" (expected "computer")'],
    [{ role: 'assistant', content: null }, 'no action in the reply'],
    [{ role: 'assistant', content: 'I am done thinking.' }, 'no action in the reply'],
  ])('%j → %s', (value, reason) => {
    const result = parseToolsReply(JSON.stringify(value));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('tools: JSON in text', () => {
  it('reads a bare action object', () => {
    const result = ok(parseToolsReply('{"type":"click","x":10,"y":20,"button":"right"}'));
    expect(result.actions).toEqual([{ type: 'click', x: 10, y: 20, button: 'right' }]);
    expect(result.thought).toBeNull();
  });

  it('reads a fenced json block with prose around it; the prose is the thought', () => {
    const text = 'I will press Save.\n```json\n{"type":"hotkey","keys":["ctrl","s"]}\n```\nThen check the title.';
    const result = ok(parseToolsReply(text));
    expect(result.actions).toEqual([{ type: 'hotkey', keys: ['ctrl', 's'] }]);
    expect(result.thought).toBe('I will press Save.\nThen check the title.');
  });

  it('reads an unlabelled fence', () => {
    expect(ok(parseToolsReply('```\n{"type":"wait"}\n```')).actions).toEqual([{ type: 'wait', ms: 1000 }]);
  });

  it('reads an object in prose, skipping braces that are not JSON', () => {
    const text = 'The field {name} is empty, so: {"type":"type","text":"Ada {Lovelace}"} and that is all.';
    const result = ok(parseToolsReply(text));
    expect(result.actions).toEqual([{ type: 'type', text: 'Ada {Lovelace}' }]);
    expect(result.thought).toBe('The field {name} is empty, so:\nand that is all.');
  });

  it('takes the thought field over the prose', () => {
    const text = 'Here: {"thought":"Open the menu.","action":{"type":"click","x":1,"y":2}}';
    const result = ok(parseToolsReply(text));
    expect(result.thought).toBe('Open the menu.');
    expect(result.actions).toEqual([{ type: 'click', x: 1, y: 2, button: 'left' }]);
  });

  it('reads {"actions":[...]} and a thought field next to an action type', () => {
    expect(
      ok(parseToolsReply('{"thought":"t","actions":[{"type":"key_down","keys":["shift"]},{"type":"key_up","keys":["shift"]}]}'))
        .actions,
    ).toEqual([
      { type: 'key_down', keys: ['shift'] },
      { type: 'key_up', keys: ['shift'] },
    ]);
    const single = ok(parseToolsReply('{"thought":"why","type":"ask_user","question":"Which file?"}'));
    expect(single.thought).toBe('why');
    expect(single.actions).toEqual([{ type: 'ask_user', question: 'Which file?' }]);
  });

  it('reads the first action object when there are several', () => {
    const text = 'First {"type":"click","x":1,"y":1} then {"type":"click","x":2,"y":2}';
    expect(ok(parseToolsReply(text)).actions).toEqual([{ type: 'click', x: 1, y: 1, button: 'left' }]);
  });

  it('strips a "Thought:" label from the prose', () => {
    expect(ok(parseToolsReply('Thought: go on\n{"type":"wait","ms":10}')).thought).toBe('go on');
  });

  it.each([
    ['', 'no action in the reply'],
    ['I think the task is complete.', 'no action in the reply'],
    ['{"foo":"bar"}', 'no action in the reply'],
    ['{"type":"click"}', 'click without a point'],
    ['Sure: {"type":"double_click","y":4}', 'double_click without a point'],
    ['{"type":"foo"}', 'unknown action "foo"'],
    ['{"type":"scroll","direction":"sideways"}', /^invalid scroll action: direction: /],
    ['{"type":"drag","x":1,"y":2}', 'invalid drag action: a drag needs x, y, toX and toY, or a path of points'],
  ])('%j → %s', (text, reason) => {
    expect(reasonOf(text)).toMatch(reason);
  });
});

describe('tools: coordinates against the image', () => {
  const image = { width: 1280, height: 800 };

  it('accepts points within the image, edges included', () => {
    expect(ok(parseToolsReply('{"type":"click","x":1280,"y":800}', { image })).actions).toHaveLength(1);
    expect(ok(parseToolsReply('{"type":"click","x":0,"y":0}', { image })).actions).toHaveLength(1);
  });

  it('refuses points outside the image', () => {
    expect(reasonOf('{"type":"click","x":1500,"y":20}', { image })).toBe('coordinates (1500, 20) outside the 1280x800 image');
    expect(reasonOf('{"type":"drag","path":[{"x":1,"y":1},{"x":5,"y":900}]}', { image })).toBe(
      'coordinates (5, 900) outside the 1280x800 image',
    );
    expect(reasonOf('{"type":"scroll","x":-1,"y":5,"direction":"up"}', { image })).toBe(
      'coordinates (-1, 5) outside the 1280x800 image',
    );
  });

  it('without an image refuses only negative points', () => {
    expect(ok(parseToolsReply('{"type":"click","x":99999,"y":1}')).actions).toHaveLength(1);
    expect(reasonOf('{"type":"click","x":-3,"y":1}')).toBe('coordinates (-3, 1) are negative');
  });
});
