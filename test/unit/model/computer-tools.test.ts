/**
 * The vendors' current computer tools, pure parts: which tool `auto` picks for a model name and
 * where it is served, the setting's checks, the fix said for a refused tool; Claude's toolset
 * member calls and OpenAI's `actions` batches parsed (keys held, the shape a `--computer-tool`
 * expects); the requests carrying the chosen tool; and the tools family's zoom.
 */
import { describe, expect, it } from 'vitest';
import { autoClaudeTool, computerToolOf, servedWithoutToolset, toolRejectionFix } from '../../../src/shared/computer-tool';
import { computerToolProblem, modelSettingsProblem } from '../../../src/shared/model-families';
import { buildAnthropicRequest } from '../../../src/main/model/families/anthropic-request';
import { buildOpenAiCuaRequest } from '../../../src/main/model/openai-cua-model';
import { buildToolsRequest, zoomShowsMore } from '../../../src/main/model/tools-model';
import { parseAnthropicMessage, parseOpenAiCuaResponse, parseReply, parseToolsMessage, type AnthropicParse, type CuaParse } from '../../../src/main/model/families';
import { withToolFix } from '../../../src/main/model/tool-rejection';
import type { ModelImage, StepRecord } from '../../../src/main/model/types';

const IMAGE = { width: 1280, height: 800 };
const observation: ModelImage = { image: Buffer.from([0xff, 0xd8, 0xff]), mime: 'image/jpeg', width: 1280, height: 800 };

function ok<T extends AnthropicParse | CuaParse>(result: T): Extract<T, { ok: true }> {
  if (!result.ok) throw new Error(`expected a parse, got: ${result.reason}`);
  return result as Extract<T, { ok: true }>;
}

const member = (name: string, input: Record<string, unknown> = {}, id = `toolu_${name}`) => ({ type: 'tool_use', id, name, input, toolset_name: 'computer' });

describe('auto: the tool a model is asked with', () => {
  it.each([
    ['claude-sonnet-5-5', 'computer_toolset_20260801'],
    ['claude-opus-5-5', 'computer_toolset_20260801'],
    ['claude-haiku-5-5-20261001', 'computer_toolset_20260801'],
    ['claude-opus-5', 'computer_toolset_20260801'],
    ['anthropic/claude-sonnet-5.5', 'computer_toolset_20260801'],
    ['my-proxy-alias', 'computer_toolset_20260801'],
    ['claude-sonnet-4-6', 'computer_20251124'],
    ['claude-opus-4-7', 'computer_20251124'],
    ['claude-haiku-4-5-20251001', 'computer_20250124'],
    ['claude-3-7-sonnet-latest', 'computer_20250124'],
    // Bedrock serves the older tool, Claude 5 included.
    ['anthropic.claude-sonnet-5-5-20260901-v1:0', 'computer_20251124'],
    ['us.anthropic.claude-opus-5-5-v1:0', 'computer_20251124'],
  ])('anthropic %s → %s', (model, tool) => {
    expect(computerToolOf({ family: 'anthropic', model })).toBe(tool);
  });

  it('Bedrock and Foundry endpoints keep the older tool; the Claude API and Google Cloud take the toolset', () => {
    expect(autoClaudeTool('claude-sonnet-5-5', 'https://bedrock-runtime.us-east-1.amazonaws.com')).toBe('computer_20251124');
    expect(autoClaudeTool('claude-sonnet-5-5', 'https://my-resource.services.ai.azure.com/anthropic')).toBe('computer_20251124');
    expect(autoClaudeTool('claude-sonnet-5-5', 'https://api.anthropic.com')).toBe('computer_toolset_20260801');
    expect(autoClaudeTool('claude-sonnet-5-5', 'https://us-east5-aiplatform.googleapis.com')).toBe('computer_toolset_20260801');
    expect(servedWithoutToolset('claude-sonnet-5-5', 'not a url')).toBe(false);
  });

  it.each([
    ['gpt-5.4', 'computer'],
    ['gpt-5.5', 'computer'],
    ['gpt-5.6-2026-11-01', 'computer'],
    ['computer-use-preview', 'computer_use_preview'],
    ['computer-use-preview-2025-03-11', 'computer_use_preview'],
  ])('openai-cua %s → %s', (model, tool) => {
    expect(computerToolOf({ family: 'openai-cua', model })).toBe(tool);
  });

  it('the setting wins over auto; an older Claude tool pinned by anthropic.toolVersion holds under auto; other families have none', () => {
    expect(computerToolOf({ family: 'anthropic', model: 'claude-sonnet-5-5', computerTool: 'computer_20251124' })).toBe('computer_20251124');
    expect(computerToolOf({ family: 'anthropic', model: 'claude-sonnet-4-5', computerTool: 'computer_toolset_20260801' })).toBe('computer_toolset_20260801');
    expect(computerToolOf({ family: 'anthropic', model: 'claude-sonnet-5-5', anthropic: { toolVersion: 'computer_20250124' } })).toBe('computer_20250124');
    expect(computerToolOf({ family: 'anthropic', model: 'claude-sonnet-5-5', computerTool: 'auto' })).toBe('computer_toolset_20260801');
    expect(computerToolOf({ family: 'openai-cua', model: 'gpt-5.5', computerTool: 'computer_use_preview' })).toBe('computer_use_preview');
    expect(computerToolOf({ family: 'tools', model: 'gpt-5.5' })).toBeNull();
  });

  it('refuses a tool of another family, and any tool for a family without one, naming the choices', () => {
    expect(computerToolProblem({ family: 'anthropic', computerTool: 'computer' })).toBe('computerTool computer is not a anthropic tool: choose auto, computer_toolset_20260801, computer_20251124, computer_20250124');
    expect(computerToolProblem({ family: 'openai-cua', computerTool: 'computer_20251124' })).toBe('computerTool computer_20251124 is not a openai-cua tool: choose auto, computer, computer_use_preview');
    expect(computerToolProblem({ family: 'tools', computerTool: 'computer' })).toMatch(/^computerTool applies to the families anthropic, openai-cua; tools is asked in its own format/);
    expect(computerToolProblem({ family: 'tools', computerTool: 'auto' })).toBeNull();
    expect(modelSettingsProblem({ family: 'gemini', coordinates: 'image' })).toMatch(/^coordinates apply to/);
  });

  it('a 400 that names the tool is said with the fix, the other tool and its flag, and is fatal', () => {
    const claude = withToolFix('anthropic', 'computer_20251124', { kind: 'http', status: 400, message: 'tools.0: the computer_20251124 tool is not supported for claude-sonnet-5-5' });
    expect(claude).toMatchObject({ fatal: true });
    expect(claude.message).toBe(
      'tools.0: the computer_20251124 tool is not supported for claude-sonnet-5-5; the model refused the computer_20251124 tool; try the computer_toolset_20260801 tool: --computer-tool computer_toolset_20260801 (or "computerTool": "computer_toolset_20260801" in config.json\'s model)',
    );
    expect(withToolFix('openai-cua', 'computer', { kind: 'http', status: 400, message: "Tool 'computer' is not supported with computer-use-preview." }).message).toMatch(/--computer-tool computer_use_preview/);
    // Other 400s, and other statuses, are left as they are.
    expect(withToolFix('anthropic', 'computer_20251124', { kind: 'http', status: 400, message: 'max_tokens: must be positive' })).toEqual({ kind: 'http', status: 400, message: 'max_tokens: must be positive' });
    expect(withToolFix('anthropic', 'computer_20251124', { kind: 'http', status: 500, message: 'computer_20251124 overloaded' }).fatal).toBeUndefined();
    expect(toolRejectionFix('openai-cua', 'computer_use_preview', 'context_length_exceeded')).toBeNull();
  });
});

describe("Claude's computer toolset: member calls", () => {
  it('reads a turn of several member calls as a batch, each call its own, the captures its results need', () => {
    const parsed = ok(
      parseAnthropicMessage(
        {
          content: [
            { type: 'text', text: 'Name, notes, a closer look.' },
            member('left_click', { coordinate: [900, 86], text: 'shift' }, 'a'),
            member('type', { text: 'Ada' }, 'b'),
            member('key', { text: 'Tab', repeat: 2 }, 'c'),
            member('screenshot', {}, 'd'),
            member('zoom', { region: [700, 60, 1100, 120] }, 'e'),
            member('cursor_position', {}, 'f'),
            member('left_click', { coordinate: [640, 400] }, 'g'),
          ],
          stop_reason: 'tool_use',
        },
        { image: IMAGE },
      ),
    );
    expect(parsed.actions).toEqual([
      { type: 'click', x: 900, y: 86, button: 'left', modifiers: ['shift'] },
      { type: 'type', text: 'Ada' },
      { type: 'hotkey', keys: ['tab'] },
      { type: 'hotkey', keys: ['tab'] },
      { type: 'screenshot' },
      { type: 'screenshot' },
      { type: 'screenshot' },
      { type: 'click', x: 640, y: 400, button: 'left' },
    ]);
    expect(parsed.calls.map((call) => [call.id, call.name, call.toolset, call.firstAction, call.actionCount])).toEqual([
      ['a', 'left_click', 'computer', 0, 1],
      ['b', 'type', 'computer', 1, 1],
      ['c', 'key', 'computer', 2, 2],
      ['d', 'screenshot', 'computer', 4, 1],
      ['e', 'zoom', 'computer', 5, 1],
      ['f', 'cursor_position', 'computer', 6, 1],
      ['g', 'left_click', 'computer', 7, 1],
    ]);
    // Only what a toolset answer shows: a screenshot's screen, the zoom's region, the pointer.
    expect(parsed.captures).toEqual([
      { afterAction: 4, kind: 'screen' },
      { afterAction: 5, kind: 'region', region: { x: 700, y: 60, width: 400, height: 60 } },
      { afterAction: 6, kind: 'pointer' },
    ]);
  });

  it('every member maps as the older tool\'s action of that name does; a member without toolset_name reads the same', () => {
    const members: Array<[string, Record<string, unknown>]> = [
      ['hold_key', { text: 'shift', duration: 0.5 }],
      ['mouse_move', { coordinate: [10, 20] }],
      ['left_mouse_down', {}],
      ['left_mouse_up', {}],
      ['left_click_drag', { start_coordinate: [1, 2], coordinate: [30, 40] }],
      ['right_click', { coordinate: [5, 5] }],
      ['middle_click', { coordinate: [5, 5] }],
      ['double_click', { coordinate: [5, 5], text: 'ctrl' }],
      ['triple_click', { coordinate: [5, 5] }],
      ['scroll', { coordinate: [5, 5], scroll_direction: 'down', scroll_amount: 3, text: 'ctrl' }],
      ['wait', { duration: 2 }],
    ];
    for (const [name, input] of members) {
      const asMember = ok(parseAnthropicMessage({ content: [member(name, input)] }, { image: IMAGE })).actions;
      const asOlder = ok(parseAnthropicMessage({ content: [{ type: 'tool_use', id: 'x', name: 'computer', input: { action: name, ...input } }] }, { image: IMAGE })).actions;
      expect(asMember, name).toEqual(asOlder);
      const { toolset_name: _toolset, ...bare } = member(name, input);
      expect(ok(parseAnthropicMessage({ content: [bare] }, { image: IMAGE })).actions, `${name} without toolset_name`).toEqual(asOlder);
    }
  });

  it('refuses what it cannot use, naming it', () => {
    const reason = (content: unknown[], tool?: 'computer_toolset_20260801' | 'computer_20251124') => {
      const result = parseAnthropicMessage({ content }, { image: IMAGE, tool });
      return result.ok ? null : result.reason;
    };
    expect(reason([{ ...member('navigate', { url: 'x' }), toolset_name: 'browser' }])).toBe('unknown toolset "browser" (Mnemo offers the computer toolset)');
    expect(reason([member('open_app')])).toBe('unknown computer toolset member "open_app"');
    expect(reason([member('key', { text: 'a', repeat: 0 })])).toBe('key: repeat must be a whole number from 1 to 100 (got 0)');
    expect(reason([member('left_click', { coordinate: [2000, 10] })])).toBe('coordinates (2000, 10) outside the 1280x800 image');
    // With the tool the reply must have been written for (`mnemo parse --computer-tool`).
    expect(reason([{ type: 'tool_use', id: 'x', name: 'computer', input: { action: 'left_click', coordinate: [1, 1] } }], 'computer_toolset_20260801')).toMatch(/^"computer" is a call of the older computer tool/);
    expect(reason([member('left_click', { coordinate: [1, 1] })], 'computer_20251124')).toMatch(/^"left_click" is a computer toolset member call; computer_20251124 calls are "computer" with an action/);
    expect(reason([member('left_click', { coordinate: [1, 1] })], 'computer_toolset_20260801')).toBeNull();
  });
});

describe("Claude's computer toolset: the request", () => {
  const batch = {
    id: 'msg_1',
    content: [member('left_click', { coordinate: [900, 86] }, 'a'), member('type', { text: 'Ada' }, 'b'), member('scroll', { coordinate: [5, 5], scroll_direction: 'down', scroll_amount: 2 }, 'c'), member('left_click', { coordinate: [640, 400] }, 'd')],
    stop_reason: 'tool_use',
  };
  const step = (extra: Partial<StepRecord>): StepRecord => ({ step: 1, thought: null, actions: [], results: '', screenshot: observation, reply: JSON.stringify(batch), ...extra });

  it('one toolset entry, no name, no display, no beta header; zoom turned off by configs', () => {
    const request = buildAnthropicRequest({ task: 't', history: [], observation }, { model: 'claude-sonnet-5-5' });
    expect(request.tools?.[0]).toEqual({ type: 'computer_toolset_20260801' });
    expect(request.betas).toBeUndefined();
    const noZoom = buildAnthropicRequest({ task: 't', history: [], observation }, { model: 'claude-sonnet-5-5', anthropic: { zoom: false } });
    expect(noZoom.tools?.[0]).toEqual({ type: 'computer_toolset_20260801', configs: { zoom: { enabled: false } } });
    // The older tools keep their display and beta header.
    const older = buildAnthropicRequest({ task: 't', history: [], observation }, { model: 'claude-sonnet-5-5', computerTool: 'computer_20251124' });
    expect(older.tools?.[0]).toMatchObject({ type: 'computer_20251124', name: 'computer', display_width_px: 1280 });
    expect(older.betas).toEqual(['computer-use-2025-11-24']);
  });

  it('answers each member call in order, with toolset_name, in words; the screen after the step follows', () => {
    const request = buildAnthropicRequest(
      { task: 't', history: [step({ reports: [{ ok: true }, { ok: true, detail: 'typed 3 characters' }, { ok: true }, { ok: true }] })], observation },
      { model: 'claude-sonnet-5-5' },
    );
    const last = request.messages.at(-1)!.content as unknown as Array<Record<string, unknown>>;
    const results = last.filter((block) => block.type === 'tool_result');
    expect(results.map((result) => [result.tool_use_id, result.toolset_name, result.is_error ?? false])).toEqual([
      ['a', 'computer', false],
      ['b', 'computer', false],
      ['c', 'computer', false],
      ['d', 'computer', false],
    ]);
    const words = results.map((result) => (result.content as Array<{ text?: string }>).map((block) => block.text).join(''));
    expect(words).toEqual(['Clicked.', 'Typed. typed 3 characters', 'Scrolled down.', 'Clicked.']);
    expect(last.slice(4).map((block) => block.type)).toEqual(['text', 'image']);
  });

  it('the calls a batch did not run are errors saying why', () => {
    const reason = 'the screen changed after action 2 of 4 where action 3 aims; 3 and 4 were not run: look at the new screen before acting on it';
    const request = buildAnthropicRequest({ task: 't', history: [step({ reports: [{ ok: true }, { ok: true }], notRun: { from: 2, reason } })], observation }, { model: 'claude-sonnet-5-5' });
    const results = (request.messages.at(-1)!.content as unknown as Array<Record<string, unknown>>).filter((block) => block.type === 'tool_result');
    expect(results.map((result) => result.is_error ?? false)).toEqual([false, false, true, true]);
    for (const result of results.slice(2)) {
      expect(result.toolset_name).toBe('computer');
      expect(result.content).toEqual([{ type: 'text', text: `Not executed: ${reason}` }]);
    }
  });
});

describe("OpenAI's GA computer tool: actions batches", () => {
  const call = (actions: unknown[], extra: Record<string, unknown> = {}) => ({ type: 'computer_call', id: 'cu_1', call_id: 'call_1', actions, pending_safety_checks: [], status: 'completed', ...extra });

  it('runs a batch in order, as one call of several actions', () => {
    const parsed = ok(parseOpenAiCuaResponse({ id: 'resp_1', output: [call([{ type: 'click', button: 'left', x: 10, y: 20 }, { type: 'type', text: 'Ada' }, { type: 'keypress', keys: ['ENTER'] }])] }, { image: IMAGE }));
    expect(parsed.actions).toEqual([{ type: 'click', x: 10, y: 20, button: 'left' }, { type: 'type', text: 'Ada' }, { type: 'hotkey', keys: ['enter'] }]);
    expect(parsed.calls).toEqual([{ callId: 'call_1', actionIndex: 0, actionCount: 3, pendingSafetyChecks: [] }]);
  });

  it('holds keys while a click, double click, scroll or drag happens (with either tool); a move gets them pressed around it', () => {
    const parsed = ok(
      parseOpenAiCuaResponse(
        call([
          { type: 'click', button: 'left', x: 1, y: 2, keys: ['SHIFT'] },
          { type: 'double_click', x: 1, y: 2, keys: ['CTRL'] },
          { type: 'scroll', x: 1, y: 2, scroll_x: 0, scroll_y: 300, keys: ['ctrl'] },
          { type: 'drag', path: [{ x: 1, y: 2 }, { x: 3, y: 4 }], keys: ['alt'] },
          { type: 'move', x: 5, y: 6, keys: ['shift'] },
        ]),
      ),
    );
    expect(parsed.actions).toEqual([
      { type: 'click', x: 1, y: 2, button: 'left', modifiers: ['shift'] },
      { type: 'double_click', x: 1, y: 2, button: 'left', modifiers: ['ctrl'] },
      { type: 'scroll', x: 1, y: 2, direction: 'down', amount: 3, modifiers: ['ctrl'] },
      { type: 'drag', path: [{ x: 1, y: 2 }, { x: 3, y: 4 }], button: 'left', modifiers: ['alt'] },
      { type: 'key_down', keys: ['shift'] },
      { type: 'mouse_move', x: 5, y: 6 },
      { type: 'key_up', keys: ['shift'] },
    ]);
    const preview = ok(parseOpenAiCuaResponse({ type: 'computer_call', call_id: 'c', action: { type: 'click', button: 'left', x: 1, y: 2, keys: ['SHIFT'] }, pending_safety_checks: [] }));
    expect(preview.actions).toEqual([{ type: 'click', x: 1, y: 2, button: 'left', modifiers: ['shift'] }]);
  });

  it('an empty batch is a look; a safety check asks once, before the call\'s first action; a bad action names its place', () => {
    expect(ok(parseOpenAiCuaResponse(call([]))).actions).toEqual([{ type: 'screenshot' }]);
    const checked = ok(parseOpenAiCuaResponse(call([{ type: 'click', button: 'left', x: 1, y: 2 }, { type: 'type', text: 'x' }], { pending_safety_checks: [{ id: 's1', code: 'malicious_instructions', message: 'Check.' }] })));
    expect(checked.actions.map((action) => action.confirm ?? false)).toEqual([true, false]);
    const bad = parseOpenAiCuaResponse(call([{ type: 'click', x: 1, y: 2 }, { type: 'fly' }]));
    expect(bad).toEqual({ ok: false, reason: 'action 2 of the batch: unknown action "fly"' });
  });

  it('with the tool a reply must have been written for, the other shape is refused', () => {
    expect(parseReply('openai-cua', JSON.stringify(call([{ type: 'wait' }])), { computerTool: 'computer_use_preview' })).toEqual({ ok: false, reason: "a computer_call with actions is the GA computer tool's; computer_use_preview calls carry one action" });
    expect(parseReply('openai-cua', JSON.stringify({ type: 'computer_call', call_id: 'c', action: { type: 'wait' } }), { computerTool: 'computer' })).toEqual({ ok: false, reason: "a computer_call with one action is the computer_use_preview tool's; computer calls carry actions" });
    expect(parseReply('openai-cua', JSON.stringify(call([{ type: 'wait' }])), { computerTool: 'auto' }).ok).toBe(true);
  });

  it('the request carries the GA tool (no display) and the screenshot at its original detail for GPT-5.4 and later', () => {
    const request = buildOpenAiCuaRequest({ task: 't', history: [], observation }, { model: 'gpt-5.5' }, 'linux');
    expect(request.tools?.[0]).toEqual({ type: 'computer' });
    expect(JSON.stringify(request.input)).toContain('"detail":"original"');
    const preview = buildOpenAiCuaRequest({ task: 't', history: [], observation }, { model: 'computer-use-preview' }, 'linux');
    expect(preview.tools?.[0]).toMatchObject({ type: 'computer_use_preview', display_width: 1280, display_height: 800 });
  });
});

describe('the tools family: zoom', () => {
  it('declares a zoom function beside the computer tool where the screen is larger than the screenshot', () => {
    const small = buildToolsRequest({ task: 't', history: [], observation, screen: { width: 1280, height: 800 } }, { model: 'm', baseUrl: 'http://x/v1', toolCalling: true, stream: true } as never);
    expect(small.tools?.map((tool) => (tool as { function: { name: string } }).function.name)).toEqual(['computer']);
    const large = buildToolsRequest({ task: 't', history: [], observation, screen: { width: 2560, height: 1600 } }, { model: 'm', baseUrl: 'http://x/v1', toolCalling: true, stream: true } as never);
    expect(large.tools?.map((tool) => (tool as { function: { name: string } }).function.name)).toEqual(['computer', 'zoom']);
    expect(zoomShowsMore({ observation, zoom: { x: 1, y: 2, toX: 3, toY: 4 } })).toBe(true);
  });

  it('reads a zoom call as a zoom action; the next image is told as the region', () => {
    const parsed = parseToolsMessage({ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'zoom', arguments: '{"x": 100, "y": 50, "toX": 300, "toY": 150}' } }] }, { image: IMAGE });
    expect(parsed).toMatchObject({ ok: true, actions: [{ type: 'zoom', x: 100, y: 50, toX: 300, toY: 150 }] });
    expect(parseToolsMessage({ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'zoom', arguments: '{"x": 300, "y": 50, "toX": 100, "toY": 150}' } }] }, { image: IMAGE })).toMatchObject({ ok: false });
    const request = buildToolsRequest({ task: 't', history: [], observation: { ...observation, width: 400, height: 200 }, zoom: { x: 100, y: 50, toX: 300, toY: 150 } }, { model: 'm', baseUrl: 'http://x/v1', toolCalling: true, stream: true } as never);
    expect(JSON.stringify(request.messages)).toContain('Current screenshot (400x200): the region from (100, 50) to (300, 150) of the screenshot before, zoomed in to the screen\'s own resolution; points you give now are in this image');
  });
});
