/**
 * The `anthropic` family's pure parts: the tool version and image limits a model name calls for,
 * the tools, and every action of both computer tool versions mapped into the wire format (with
 * the captures their results need), each bad input a reason.
 */
import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_BETA,
  claudeNameOf,
  computerTool,
  imageLimitsFor,
  mnemoTools,
  parseAnthropicMessage,
  parseReply,
  toolVersionFor,
  type AnthropicParse,
} from '../../../src/main/model/families';

const IMAGE = { width: 1280, height: 720 };

function ok(result: AnthropicParse) {
  if (!result.ok) throw new Error(`expected a parse, got: ${result.reason}`);
  return result;
}

function computer(input: Record<string, unknown>, id = 'toolu_1') {
  return { type: 'tool_use', id, name: 'computer', input };
}

/** The actions one computer call becomes. */
function actionsOf(input: Record<string, unknown>) {
  return ok(parseAnthropicMessage({ content: [computer(input)], stop_reason: 'tool_use' }, { image: IMAGE })).actions;
}

function reasonOf(value: unknown): string {
  const result = parseAnthropicMessage(value, { image: IMAGE });
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.actions)}`);
  return result.reason;
}

describe('anthropic: model names', () => {
  it.each([
    ['claude-opus-4-5-20251101', 'computer_20251124'],
    ['claude-opus-4-6', 'computer_20251124'],
    ['claude-opus-4-7', 'computer_20251124'],
    ['claude-sonnet-4-6', 'computer_20251124'],
    ['anthropic/claude-sonnet-4.6', 'computer_20251124'],
    ['claude-sonnet-5', 'computer_20251124'],
    ['claude-opus-5', 'computer_20251124'],
    ['claude-sonnet-4-5-20250929', 'computer_20250124'],
    ['claude-haiku-4-5-20251001', 'computer_20250124'],
    ['anthropic.claude-haiku-4-5-20251001-v1:0', 'computer_20250124'],
    ['claude-opus-4-1-20250805', 'computer_20250124'],
    ['claude-sonnet-4-20250514', 'computer_20250124'],
    ['claude-opus-4-20250514', 'computer_20250124'],
    ['claude-3-7-sonnet-latest', 'computer_20250124'],
    ['my-proxy-alias', 'computer_20251124'],
  ])('%s speaks %s', (model, version) => {
    expect(toolVersionFor(model)).toBe(version);
  });

  it('reads the generation, never the date, as the minor version', () => {
    expect(claudeNameOf('claude-sonnet-4-20250514')).toEqual({ tier: 'sonnet', major: 4, minor: 0 });
    expect(claudeNameOf('claude-3-7-sonnet-20250219')).toEqual({ tier: 'sonnet', major: 3, minor: 7 });
    expect(claudeNameOf('gpt-4.1')).toBeNull();
  });

  it('keeps images within 1568 px and 1.15 MP, 2576 px and 3.75 MP for Opus 4.7 and later', () => {
    expect(imageLimitsFor('claude-sonnet-4-6')).toEqual({ maxWidth: 1568, maxHeight: 1568, maxPixels: 1_150_000 });
    expect(imageLimitsFor('claude-opus-4-6')).toEqual({ maxWidth: 1568, maxHeight: 1568, maxPixels: 1_150_000 });
    expect(imageLimitsFor('claude-opus-4-7')).toEqual({ maxWidth: 2576, maxHeight: 2576, maxPixels: 3_750_000 });
    expect(imageLimitsFor('unknown')).toEqual({ maxWidth: 1568, maxHeight: 1568, maxPixels: 1_150_000 });
  });
});

describe('anthropic: tools', () => {
  it('declares the image as the display, zoom only where the version has it, with the matching beta', () => {
    expect(computerTool('computer_20251124', IMAGE, true)).toEqual({ type: 'computer_20251124', name: 'computer', display_width_px: 1280, display_height_px: 720, enable_zoom: true });
    expect(computerTool('computer_20251124', IMAGE, false)).toEqual({ type: 'computer_20251124', name: 'computer', display_width_px: 1280, display_height_px: 720 });
    expect(computerTool('computer_20250124', IMAGE, true)).toEqual({ type: 'computer_20250124', name: 'computer', display_width_px: 1280, display_height_px: 720 });
    expect(ANTHROPIC_BETA).toEqual({ computer_20250124: 'computer-use-2025-01-24', computer_20251124: 'computer-use-2025-11-24' });
  });

  it("declares Mnemo's own tools beside it", () => {
    const tools = mnemoTools();
    expect(tools.map((tool) => tool.name)).toEqual(['ask_user', 'save_fact', 'query_long_term_memory']);
    for (const tool of tools) expect(tool.input_schema.type).toBe('object');
  });
});

describe('anthropic: every computer action', () => {
  it.each([
    [{ action: 'left_click', coordinate: [100, 200] }, [{ type: 'click', x: 100, y: 200, button: 'left' }]],
    [{ action: 'right_click', coordinate: [100, 200] }, [{ type: 'click', x: 100, y: 200, button: 'right' }]],
    [{ action: 'middle_click', coordinate: [100, 200] }, [{ type: 'click', x: 100, y: 200, button: 'middle' }]],
    [{ action: 'double_click', coordinate: [100, 200] }, [{ type: 'double_click', x: 100, y: 200, button: 'left' }]],
    [{ action: 'triple_click', coordinate: [100, 200] }, [{ type: 'triple_click', x: 100, y: 200, button: 'left' }]],
    [{ action: 'left_click', coordinate: [100, 200], text: 'shift' }, [{ type: 'click', x: 100, y: 200, button: 'left', modifiers: ['shift'] }]],
    [{ action: 'left_click', coordinate: [100, 200], text: 'ctrl+shift' }, [{ type: 'click', x: 100, y: 200, button: 'left', modifiers: ['ctrl', 'shift'] }]],
    [{ action: 'left_click', coordinate: [100, 200], text: 'super' }, [{ type: 'click', x: 100, y: 200, button: 'left', modifiers: ['meta'] }]],
    [
      { action: 'left_click' },
      [
        { type: 'mouse_down', button: 'left' },
        { type: 'mouse_up', button: 'left' },
      ],
    ],
    [
      { action: 'double_click', text: 'ctrl' },
      [
        { type: 'key_down', keys: ['ctrl'] },
        { type: 'mouse_down', button: 'left' },
        { type: 'mouse_up', button: 'left' },
        { type: 'mouse_down', button: 'left' },
        { type: 'mouse_up', button: 'left' },
        { type: 'key_up', keys: ['ctrl'] },
      ],
    ],
    [{ action: 'mouse_move', coordinate: [5, 6] }, [{ type: 'mouse_move', x: 5, y: 6 }]],
    [{ action: 'left_click_drag', start_coordinate: [10, 20], coordinate: [300, 20] }, [{ type: 'drag', x: 10, y: 20, toX: 300, toY: 20, button: 'left' }]],
    [
      { action: 'left_click_drag', coordinate: [300, 20] },
      [
        { type: 'mouse_down', button: 'left' },
        { type: 'mouse_move', x: 300, y: 20 },
        { type: 'mouse_up', x: 300, y: 20, button: 'left' },
      ],
    ],
    [{ action: 'left_mouse_down' }, [{ type: 'mouse_down', button: 'left' }]],
    [{ action: 'left_mouse_up', coordinate: [7, 8] }, [{ type: 'mouse_up', x: 7, y: 8, button: 'left' }]],
    [{ action: 'scroll', coordinate: [640, 360], scroll_direction: 'down', scroll_amount: 5 }, [{ type: 'scroll', x: 640, y: 360, direction: 'down', amount: 5 }]],
    [{ action: 'scroll', scroll_direction: 'left', scroll_amount: 2 }, [{ type: 'scroll', direction: 'left', amount: 2 }]],
    [
      { action: 'scroll', coordinate: [640, 360], scroll_direction: 'down', scroll_amount: 3, text: 'shift' },
      [
        { type: 'key_down', keys: ['shift'] },
        { type: 'scroll', x: 640, y: 360, direction: 'down', amount: 3 },
        { type: 'key_up', keys: ['shift'] },
      ],
    ],
    [{ action: 'key', text: 'Return' }, [{ type: 'hotkey', keys: ['enter'] }]],
    [{ action: 'key', text: 'ctrl+s' }, [{ type: 'hotkey', keys: ['ctrl', 's'] }]],
    [{ action: 'key', text: 'Control_L+Shift_R+t' }, [{ type: 'hotkey', keys: ['ctrl', 'shift', 't'] }]],
    [
      { action: 'key', text: 'ctrl+a BackSpace' },
      [
        { type: 'hotkey', keys: ['ctrl', 'a'] },
        { type: 'hotkey', keys: ['backspace'] },
      ],
    ],
    [{ action: 'key', text: 'ctrl++' }, [{ type: 'hotkey', keys: ['ctrl', '+'] }]],
    [
      { action: 'hold_key', text: 'shift', duration: 1.5 },
      [
        { type: 'key_down', keys: ['shift'] },
        { type: 'wait', ms: 1500 },
        { type: 'key_up', keys: ['shift'] },
      ],
    ],
    [{ action: 'type', text: 'Ada Lovelace\n' }, [{ type: 'type', text: 'Ada Lovelace\n' }]],
    [{ action: 'wait', duration: 2 }, [{ type: 'wait', ms: 2000 }]],
    [{ action: 'wait' }, [{ type: 'wait', ms: 1000 }]],
    [{ action: 'screenshot' }, [{ type: 'screenshot' }]],
    [{ action: 'cursor_position' }, [{ type: 'screenshot' }]],
    [{ action: 'zoom', region: [100, 200, 400, 350] }, [{ type: 'screenshot' }]],
  ])('%j', (input, expected) => {
    expect(actionsOf(input)).toEqual(expected);
  });

  it.each([
    [{ action: 'fly' }, 'unknown computer action "fly"'],
    [{}, 'the computer tool was called without an "action"'],
    [{ action: 'mouse_move' }, 'mouse_move without a coordinate'],
    [{ action: 'left_click', coordinate: [1] }, 'left_click: coordinate must be [x, y] in pixels, got [1]'],
    [{ action: 'left_click_drag', start_coordinate: [1, 2] }, 'left_click_drag without a coordinate (the end of the drag)'],
    [{ action: 'scroll', scroll_direction: 'sideways' }, 'scroll needs a scroll_direction of up, down, left or right (got "sideways")'],
    [{ action: 'scroll', scroll_direction: 'up', scroll_amount: 0 }, 'scroll_amount must be a whole number of wheel notches from 1 to 100 (got 0)'],
    [{ action: 'key' }, 'key without text (the key or combination, e.g. "ctrl+s")'],
    [{ action: 'key', text: 'hyperdrive' }, 'key: invalid hotkey action: keys.0: unknown key "hyperdrive"'],
    [{ action: 'hold_key', text: 'shift' }, 'hold_key: duration must be a number of seconds, got null'],
    [{ action: 'hold_key', text: 'shift', duration: 500 }, 'hold_key: duration must be from 0 to 100 seconds, got 500'],
    [{ action: 'type' }, 'type without text'],
    [{ action: 'zoom' }, 'zoom needs a region [x1, y1, x2, y2]'],
    [{ action: 'zoom', region: [50, 50, 10, 60] }, 'zoom region [50, 50, 10, 60] is empty (x2 must exceed x1, y2 y1)'],
  ])('%j is refused: %s', (input, reason) => {
    expect(reasonOf({ content: [computer(input)] })).toBe(reason);
  });

  it('refuses coordinates and zoom regions outside the image', () => {
    expect(reasonOf({ content: [computer({ action: 'left_click', coordinate: [1300, 10] })] })).toBe('coordinates (1300, 10) outside the 1280x720 image');
    expect(reasonOf({ content: [computer({ action: 'zoom', region: [1000, 600, 1400, 700] })] })).toBe('zoom region [1000, 600, 1400, 700] outside the 1280x720 image');
  });
});

describe('anthropic: replies', () => {
  it('several tool calls run in order; the loop captures what each result needs', () => {
    const parsed = ok(
      parseAnthropicMessage(
        {
          id: 'msg_1',
          stop_reason: 'tool_use',
          content: [
            { type: 'thinking', thinking: 'The field is at the top.', signature: 'sig' },
            { type: 'text', text: 'I fill in the name.' },
            computer({ action: 'left_click', coordinate: [900, 80] }, 'toolu_a'),
            computer({ action: 'type', text: 'Ada' }, 'toolu_b'),
            computer({ action: 'zoom', region: [800, 60, 1000, 100] }, 'toolu_c'),
            computer({ action: 'cursor_position' }, 'toolu_d'),
            computer({ action: 'key', text: 'Tab' }, 'toolu_e'),
          ],
        },
        { image: IMAGE },
      ),
    );
    expect(parsed.thought).toBe('The field is at the top.\n\nI fill in the name.');
    expect(parsed.actions.map((action) => action.type)).toEqual(['click', 'type', 'screenshot', 'screenshot', 'hotkey']);
    expect(parsed.calls).toEqual([
      { id: 'toolu_a', name: 'computer', action: 'left_click', firstAction: 0, actionCount: 1 },
      { id: 'toolu_b', name: 'computer', action: 'type', firstAction: 1, actionCount: 1 },
      { id: 'toolu_c', name: 'computer', action: 'zoom', firstAction: 2, actionCount: 1 },
      { id: 'toolu_d', name: 'computer', action: 'cursor_position', firstAction: 3, actionCount: 1 },
      { id: 'toolu_e', name: 'computer', action: 'key', firstAction: 4, actionCount: 1 },
    ]);
    // The last call's screen is the next step's screenshot: no capture after it.
    expect(parsed.captures).toEqual([
      { afterAction: 0, kind: 'screen' },
      { afterAction: 1, kind: 'screen' },
      { afterAction: 2, kind: 'region', region: { x: 800, y: 60, width: 200, height: 40 } },
      { afterAction: 3, kind: 'pointer' },
    ]);
    expect(parsed.messageId).toBe('msg_1');
  });

  it("a multi-action call's capture comes after its last action", () => {
    const parsed = ok(
      parseAnthropicMessage({ content: [computer({ action: 'hold_key', text: 'alt', duration: 0.5 }, 'h'), computer({ action: 'screenshot' }, 's')] }, { image: IMAGE }),
    );
    expect(parsed.captures).toEqual([{ afterAction: 2, kind: 'screen' }]);
  });

  it("Mnemo's own tools become their actions", () => {
    const parsed = ok(
      parseAnthropicMessage(
        {
          content: [
            { type: 'tool_use', id: 'q', name: 'ask_user', input: { question: 'Which account?' } },
            { type: 'tool_use', id: 'f', name: 'save_fact', input: { keyword: 'editor', value: 'Vim' } },
            { type: 'tool_use', id: 'm', name: 'query_long_term_memory', input: { hint: 'the user name' } },
          ],
        },
        { image: IMAGE },
      ),
    );
    expect(parsed.actions).toEqual([
      { type: 'ask_user', question: 'Which account?' },
      { type: 'save_fact', subject: 'user', keyword: 'editor', description: '', value: 'Vim' },
      { type: 'query_long_term_memory', hint: 'the user name' },
    ]);
    expect(parsed.captures).toEqual([]);
  });

  it('a reply without a tool call finishes the run, its text the summary', () => {
    const parsed = ok(parseAnthropicMessage({ content: [{ type: 'text', text: 'The form is submitted.' }], stop_reason: 'end_turn' }, { image: IMAGE }));
    expect(parsed.actions).toEqual([{ type: 'finished', summary: 'The form is submitted.' }]);
  });

  it('a refusal fails the run; a cut-off reply, an unknown tool and an empty reply are refused', () => {
    const refused = ok(parseAnthropicMessage({ content: [{ type: 'text', text: 'I cannot help with that.' }], stop_reason: 'refusal' }, { image: IMAGE }));
    expect(refused.actions).toEqual([{ type: 'fail', reason: 'I cannot help with that.' }]);
    expect(refused.refusal).toBe('I cannot help with that.');
    expect(reasonOf({ content: [computer({ action: 'type', text: 'x' })], stop_reason: 'max_tokens' })).toMatch(/cut off at the output token limit/);
    expect(reasonOf({ content: [{ type: 'tool_use', id: 'x', name: 'bash', input: {} }] })).toBe('unknown tool "bash"');
    expect(reasonOf({ content: [] })).toBe('no action in the reply');
    expect(reasonOf('nothing')).toBe('expected a message ({"content": [...]}) or its content blocks');
  });

  it('parseReply reads a recorded message for mnemo parse', () => {
    const text = JSON.stringify({ content: [computer({ action: 'left_click', coordinate: [1, 2] })] });
    expect(parseReply('anthropic', text, { image: IMAGE })).toMatchObject({ ok: true, actions: [{ type: 'click', x: 1, y: 2 }] });
    expect(parseReply('anthropic', '{', { image: IMAGE })).toMatchObject({ ok: false, reason: expect.stringMatching(/^the reply is not JSON/) });
  });
});
