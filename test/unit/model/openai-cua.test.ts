import { describe, expect, it } from 'vitest';
import {
  computerCallOutput,
  computerUsePreviewTool,
  CUA_WAIT_MS,
  parseOpenAiCuaReply,
  parseOpenAiCuaResponse,
  type CuaOptions,
  type CuaParse,
} from '../../../src/main/model/families/openai-cua';

function ok(result: CuaParse) {
  if (!result.ok) throw new Error(`expected a parse, got: ${result.reason}`);
  return result;
}
function call(action: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { type: 'computer_call', id: 'cu_1', call_id: 'call_1', action, pending_safety_checks: [], status: 'completed', ...extra };
}
function actionsOf(action: Record<string, unknown>, options: CuaOptions = {}) {
  return ok(parseOpenAiCuaResponse(call(action), options)).actions;
}
function reasonOf(value: unknown, options: CuaOptions = {}): string {
  const result = parseOpenAiCuaResponse(value, options);
  if (result.ok) throw new Error(`expected a failure, got: ${JSON.stringify(result.actions)}`);
  return result.reason;
}

describe('openai-cua: request helpers', () => {
  it('builds the computer_use_preview tool with the display size', () => {
    expect(computerUsePreviewTool({ width: 1024, height: 768 })).toEqual({
      type: 'computer_use_preview',
      display_width: 1024,
      display_height: 768,
      environment: 'linux',
    });
    expect(computerUsePreviewTool({ width: 1, height: 2 }, 'browser').environment).toBe('browser');
  });

  it('builds the computer_call_output with the screenshot and acknowledged checks', () => {
    expect(computerCallOutput('call_1', 'data:image/png;base64,AAA')).toEqual({
      type: 'computer_call_output',
      call_id: 'call_1',
      output: { type: 'computer_screenshot', image_url: 'data:image/png;base64,AAA' },
    });
    const check = { id: 'cu_sc_1', code: 'malicious_instructions', message: 'Check the page.' };
    expect(computerCallOutput('call_1', 'url', [check]).acknowledged_safety_checks).toEqual([check]);
  });
});

describe('openai-cua: actions', () => {
  it.each([
    [{ type: 'click', x: 10, y: 20, button: 'left' }, { type: 'click', x: 10, y: 20, button: 'left' }],
    [{ type: 'click', x: 10, y: 20 }, { type: 'click', x: 10, y: 20, button: 'left' }],
    [{ type: 'click', x: 10, y: 20, button: 'right' }, { type: 'click', x: 10, y: 20, button: 'right' }],
    [{ type: 'click', x: 10, y: 20, button: 'wheel' }, { type: 'click', x: 10, y: 20, button: 'middle' }],
    [{ type: 'double_click', x: 10, y: 20 }, { type: 'double_click', x: 10, y: 20, button: 'left' }],
    [{ type: 'move', x: 10, y: 20 }, { type: 'mouse_move', x: 10, y: 20 }],
    [
      { type: 'drag', path: [{ x: 1, y: 2 }, { x: 3, y: 4 }, { x: 5, y: 6 }] },
      { type: 'drag', path: [{ x: 1, y: 2 }, { x: 3, y: 4 }, { x: 5, y: 6 }], button: 'left' },
    ],
    [{ type: 'keypress', keys: ['CTRL', 'L'] }, { type: 'hotkey', keys: ['ctrl', 'l'] }],
    [{ type: 'keypress', keys: ['ENTER'] }, { type: 'hotkey', keys: ['enter'] }],
    [{ type: 'keypress', keys: ['ArrowDown'] }, { type: 'hotkey', keys: ['down'] }],
    [{ type: 'type', text: 'hello\n' }, { type: 'type', text: 'hello\n' }],
    [{ type: 'wait' }, { type: 'wait', ms: CUA_WAIT_MS }],
    [{ type: 'screenshot' }, { type: 'screenshot' }],
  ])('%j', (action, expected) => {
    expect(actionsOf(action)).toEqual([expected]);
  });

  it('waits 2 s by default', () => {
    expect(CUA_WAIT_MS).toBe(2000);
  });

  it.each([
    [{ scroll_x: 0, scroll_y: 300 }, 'down', 3],
    [{ scroll_x: 0, scroll_y: -300 }, 'up', 3],
    [{ scroll_x: 500, scroll_y: 0 }, 'right', 5],
    [{ scroll_x: -500, scroll_y: 0 }, 'left', 5],
    [{ scroll_x: 200, scroll_y: -700 }, 'up', 7],
    [{ scroll_x: -800, scroll_y: 100 }, 'left', 8],
    [{ scroll_x: 0, scroll_y: 30 }, 'down', 1],
    [{ scroll_x: 0, scroll_y: 149 }, 'down', 1],
    [{ scroll_x: 0, scroll_y: 150 }, 'down', 2],
    [{ scroll_x: 0, scroll_y: 1_000_000 }, 'down', 100],
    [{ scroll_x: 300, scroll_y: 300 }, 'down', 3],
  ])('scroll %j → %s %d', (movement, direction, amount) => {
    expect(actionsOf({ type: 'scroll', x: 100, y: 200, ...movement })).toEqual([
      { type: 'scroll', x: 100, y: 200, direction, amount },
    ]);
  });

  it('scrolls where the pointer is when there is no point', () => {
    expect(actionsOf({ type: 'scroll', scroll_x: 0, scroll_y: 100 })).toEqual([{ type: 'scroll', direction: 'down', amount: 1 }]);
  });
});

describe('openai-cua: responses', () => {
  const response = {
    id: 'resp_123',
    object: 'response',
    output: [
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Clicking the search box.' }] },
      call({ type: 'click', x: 156, y: 50, button: 'left' }, { call_id: 'call_abc' }),
    ],
  };

  it('reads the reasoning summary as thought, the response id and the call id', () => {
    const result = ok(parseOpenAiCuaResponse(response));
    expect(result.thought).toBe('Clicking the search box.');
    expect(result.actions).toEqual([{ type: 'click', x: 156, y: 50, button: 'left' }]);
    expect(result.responseId).toBe('resp_123');
    expect(result.calls).toEqual([{ callId: 'call_abc', actionIndex: 0, pendingSafetyChecks: [] }]);
    expect(result.refusal).toBeNull();
  });

  it('parses the same from text', () => {
    expect(parseOpenAiCuaReply(JSON.stringify(response))).toEqual(parseOpenAiCuaResponse(response));
  });

  it('reads one output item alone, and an array of items', () => {
    const single = ok(parseOpenAiCuaReply(JSON.stringify(call({ type: 'wait' }))));
    expect(single.responseId).toBeNull();
    expect(single.thought).toBeNull();
    expect(single.calls).toEqual([{ callId: 'call_1', actionIndex: 0, pendingSafetyChecks: [] }]);
    expect(ok(parseOpenAiCuaResponse(response.output)).actions).toHaveLength(1);
  });

  it('takes the message text as thought when there is no reasoning', () => {
    const result = ok(
      parseOpenAiCuaResponse({
        output: [
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Opening the menu.' }] },
          call({ type: 'click', x: 1, y: 2 }),
        ],
      }),
    );
    expect(result.thought).toBe('Opening the menu.');
  });

  it('joins several summary parts', () => {
    const result = ok(
      parseOpenAiCuaResponse({
        output: [
          { type: 'reasoning', summary: [{ type: 'summary_text', text: 'One.' }, { type: 'summary_text', text: 'Two.' }] },
          call({ type: 'wait' }),
        ],
      }),
    );
    expect(result.thought).toBe('One.\n\nTwo.');
  });

  it('marks an action with pending safety checks for confirmation and keeps the checks', () => {
    const checks = [{ id: 'cu_sc_1', code: 'malicious_instructions', message: 'The page may contain instructions.' }];
    const result = ok(parseOpenAiCuaResponse({ output: [call({ type: 'type', text: 'x' }, { pending_safety_checks: checks })] }));
    expect(result.actions).toEqual([{ type: 'type', confirm: true, text: 'x' }]);
    expect(result.calls[0]?.pendingSafetyChecks).toEqual(checks);
  });

  it('keeps several computer calls in order with their action index', () => {
    const result = ok(
      parseOpenAiCuaResponse({
        output: [call({ type: 'click', x: 1, y: 1 }, { call_id: 'a' }), call({ type: 'type', text: 'b' }, { call_id: 'b' })],
      }),
    );
    expect(result.calls.map((c) => [c.callId, c.actionIndex])).toEqual([
      ['a', 0],
      ['b', 1],
    ]);
  });

  it('ends the turn with a message and no computer call: finished with the message', () => {
    const result = ok(
      parseOpenAiCuaResponse({
        id: 'resp_9',
        output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'The file is saved.' }] }],
      }),
    );
    expect(result.actions).toEqual([{ type: 'finished', summary: 'The file is saved.' }]);
    expect(result.thought).toBe('The file is saved.');
    expect(result.calls).toEqual([]);
  });

  it('ends the run on a refusal', () => {
    const result = ok(
      parseOpenAiCuaResponse({
        output: [
          { type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: "I can't help with that." }] },
          call({ type: 'click', x: 1, y: 2 }),
        ],
      }),
    );
    expect(result.actions).toEqual([{ type: 'fail', reason: "I can't help with that." }]);
    expect(result.refusal).toBe("I can't help with that.");
    expect(result.calls).toEqual([]);
  });

  it('ignores items that carry no action', () => {
    const result = ok(
      parseOpenAiCuaResponse({ output: [{ type: 'web_search_call', id: 'ws' }, call({ type: 'screenshot' })] }),
    );
    expect(result.actions).toEqual([{ type: 'screenshot' }]);
  });
});

describe('openai-cua: failures', () => {
  it.each([
    [{ output: [] }, 'no action in the reply'],
    [{ output: [{ type: 'reasoning', summary: [] }] }, 'no action in the reply'],
    [{ type: 'computer_call_output', call_id: 'c', output: {} }, 'no action in the reply'],
    ['just text', 'expected a response ({"output": [...]}) or an output item'],
    [call({ type: 'teleport', x: 1, y: 2 }), 'unknown action "teleport"'],
    [call({ type: 'click' }), 'click without a point'],
    [call({ type: 'click', x: 5 }), 'click without a point'],
    [call({ type: 'double_click', y: 5 }), 'double_click without a point'],
    [call({ type: 'move' }), 'move without a point'],
    [call({ type: 'click', x: 1, y: 2, button: 'back' }), 'click with button "back" is not supported'],
    [call({ type: 'click', x: 1, y: 2, button: 'forward' }), 'click with button "forward" is not supported'],
    [call({ type: 'click', x: 1, y: 2, button: 'thumb' }), 'click with unknown button "thumb"'],
    [call({ type: 'drag', path: [{ x: 1, y: 2 }] }), 'drag without a path of at least two points'],
    [call({ type: 'drag' }), 'drag without a path of at least two points'],
    [call({ type: 'keypress', keys: [] }), 'keypress without keys'],
    [call({ type: 'keypress', keys: ['HYPER'] }), 'invalid hotkey action: keys.0: unknown key "HYPER"'],
    [call({ type: 'scroll', x: 1, y: 2, scroll_x: 0, scroll_y: 0 }), 'scroll without a movement (scroll_x and scroll_y are 0)'],
    [call({ type: 'type' }), 'type without text'],
    [{ type: 'computer_call', call_id: 'c' }, 'computer_call without an action'],
  ])('%j → %s', (value, reason) => {
    expect(reasonOf(value)).toBe(reason);
  });

  it('refuses text that is not JSON', () => {
    const result = parseOpenAiCuaReply('click at 10, 20');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/^the reply is not JSON: /);
  });

  it('checks coordinates against the display', () => {
    const image = { width: 1024, height: 768 };
    expect(reasonOf(call({ type: 'click', x: 2000, y: 10 }), { image })).toBe('coordinates (2000, 10) outside the 1024x768 image');
    expect(reasonOf(call({ type: 'drag', path: [{ x: 1, y: 2 }, { x: 3, y: 800 }] }), { image })).toBe(
      'coordinates (3, 800) outside the 1024x768 image',
    );
    expect(actionsOf({ type: 'click', x: 1024, y: 768 }, { image })).toHaveLength(1);
  });
});
