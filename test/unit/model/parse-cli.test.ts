/**
 * `mnemo parse` end to end: the real CLI in a child process, the reply on stdin.
 */
import { describe, expect, it } from 'vitest';
import { runMnemo } from '../../fixtures/mnemo-cli';


interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function mnemoParse(args: string[], stdin: string): Promise<Run> {
  return runMnemo(['parse', ...args], { input: stdin });
}

function json(run: Run): unknown {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout.endsWith('\n')).toBe(true);
  expect(run.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout);
}

describe('mnemo parse', { timeout: 30_000, concurrent: true }, () => {
  it('tools: an assistant message with a tool call', async () => {
    const message = {
      role: 'assistant',
      content: 'Open the search box.',
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'computer', arguments: JSON.stringify({ actions: [{ type: 'click', x: 640, y: 40 }] }) },
        },
      ],
    };
    const run = await mnemoParse(['--family', 'tools', '--image', '1280x800'], JSON.stringify(message));
    expect(json(run)).toEqual({
      thought: 'Open the search box.',
      actions: [{ type: 'click', x: 640, y: 40, button: 'left' }],
    });
  });

  it('tools: JSON in prose', async () => {
    const run = await mnemoParse(['--family', 'tools'], 'Press save.\n```json\n{"type":"hotkey","keys":["Control","S"]}\n```\n');
    expect(json(run)).toEqual({ thought: 'Press save.', actions: [{ type: 'hotkey', keys: ['ctrl', 's'] }] });
  });

  it('ui-tars 1.0: 0–1000 mapped onto --image', async () => {
    const reply = "Thought: Click the middle.\nAction: click(start_box='(500,500)')\n\ntype(content='hi\\n')";
    const run = await mnemoParse(['--family', 'ui-tars', '--model-version', '1.0', '--image', '1920x1080'], reply);
    expect(json(run)).toEqual({
      thought: 'Click the middle.',
      actions: [
        { type: 'click', x: 960, y: 540, button: 'left' },
        { type: 'type', text: 'hi\n' },
      ],
    });
  });

  it('ui-tars without --image: version 1.0, output in the 0–1000 space', async () => {
    const run = await mnemoParse(['--family', 'ui-tars'], "Action: left_double(start_box='<point>250 750</point>')");
    expect(json(run)).toEqual({ thought: null, actions: [{ type: 'double_click', x: 250, y: 750, button: 'left' }] });
  });

  it('ui-tars with --image: version 1.5, pixels of that image as written', async () => {
    const run = await mnemoParse(['--family', 'ui-tars', '--image', '1932x1092'], "Action: click(start_box='(1500,700)')");
    expect(json(run)).toEqual({ thought: null, actions: [{ type: 'click', x: 1500, y: 700, button: 'left' }] });
  });

  it('ui-tars 1.5: coordinates outside --image exit 2', async () => {
    const run = await mnemoParse(
      ['--family', 'ui-tars', '--model-version', '1.5', '--image', '1000x500'],
      "Action: click(start_box='(1500,700)')",
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('mnemo parse: coordinates (1500, 700) outside the 1000x500 image\n');
  });

  it('openai-cua: a whole response', async () => {
    const response = {
      id: 'resp_1',
      output: [
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Scrolling to the results.' }] },
        {
          type: 'computer_call',
          call_id: 'call_1',
          action: { type: 'scroll', x: 500, y: 400, scroll_x: 0, scroll_y: 600 },
          pending_safety_checks: [],
        },
      ],
    };
    const run = await mnemoParse(['--family', 'openai-cua', '--image', '1024x768'], JSON.stringify(response));
    expect(json(run)).toEqual({
      thought: 'Scrolling to the results.',
      actions: [{ type: 'scroll', x: 500, y: 400, direction: 'down', amount: 6 }],
    });
  });

  it('openai-cua: one output item', async () => {
    const item = { type: 'computer_call', call_id: 'c', action: { type: 'keypress', keys: ['CTRL', 'C'] }, pending_safety_checks: [] };
    const run = await mnemoParse(['--family', 'openai-cua'], JSON.stringify(item));
    expect(json(run)).toEqual({ thought: null, actions: [{ type: 'hotkey', keys: ['ctrl', 'c'] }] });
  });

  it("anthropic: a Claude turn as its content array, several computer toolset member calls", async () => {
    const turn = [
      { type: 'thinking', thinking: 'The name field first.', signature: 'sig' },
      { type: 'text', text: 'I fill in the name.' },
      { type: 'tool_use', id: 'toolu_1', name: 'left_click', input: { coordinate: [640, 86], text: 'shift' }, toolset_name: 'computer' },
      { type: 'tool_use', id: 'toolu_2', name: 'type', input: { text: 'Ada' }, toolset_name: 'computer' },
      { type: 'tool_use', id: 'toolu_3', name: 'key', input: { text: 'Return' }, toolset_name: 'computer' },
    ];
    const run = await mnemoParse(['--family', 'anthropic', '--image', '1280x800'], JSON.stringify(turn));
    expect(json(run)).toEqual({
      thought: 'The name field first.\n\nI fill in the name.',
      actions: [
        { type: 'click', x: 640, y: 86, button: 'left', modifiers: ['shift'] },
        { type: 'type', text: 'Ada' },
        { type: 'hotkey', keys: ['enter'] },
      ],
    });
    // Written for the toolset, it is refused as the older tool's reply.
    const older = await mnemoParse(['--family', 'anthropic', '--computer-tool', 'computer_20251124'], JSON.stringify(turn));
    expect(older.code).toBe(2);
    expect(older.stderr).toBe('mnemo parse: "left_click" is a computer toolset member call; computer_20251124 calls are "computer" with an action\n');
  });

  it('openai-cua: a computer_call with an actions batch (the GA computer tool)', async () => {
    const item = { type: 'computer_call', id: 'cu_1', call_id: 'call_1', actions: [{ type: 'click', button: 'left', x: 10, y: 20, keys: ['SHIFT'] }, { type: 'type', text: 'Ada' }, { type: 'keypress', keys: ['ENTER'] }], pending_safety_checks: [], status: 'completed' };
    const run = await mnemoParse(['--family', 'openai-cua', '--computer-tool', 'computer'], JSON.stringify({ id: 'resp_1', output: [item] }));
    expect(json(run)).toEqual({
      thought: null,
      actions: [
        { type: 'click', x: 10, y: 20, button: 'left', modifiers: ['shift'] },
        { type: 'type', text: 'Ada' },
        { type: 'hotkey', keys: ['enter'] },
      ],
    });
    const wrongFamily = await mnemoParse(['--family', 'tools', '--computer-tool', 'computer'], '{"type":"wait"}');
    expect(wrongFamily.code).toBe(2);
    expect(wrongFamily.stderr).toMatch(/^mnemo parse: --computer-tool: computerTool applies to the families anthropic, openai-cua/);
  });

  it("gemini: a function_call part in the Python SDK's snake_case is the click", async () => {
    const response = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'I open the File menu.', function_call: null, inline_data: null, thought: null },
              { text: null, function_call: { id: null, name: 'click_at', args: { x: 25, y: 40 } }, inline_data: null, thought_signature: 'c2ln' },
            ],
          },
          finish_reason: 'STOP',
        },
      ],
      usage_metadata: { prompt_token_count: 1200, candidates_token_count: 30 },
    };
    const run = await mnemoParse(['--family', 'gemini', '--image', '1920x1080'], JSON.stringify(response));
    expect(json(run)).toEqual({ thought: 'I open the File menu.', actions: [{ type: 'click', x: 48, y: 43.2, button: 'left' }] });
  });

  it.each([
    [['--family', 'ui-tars'], 'Thought: nothing to do', 'mnemo parse: no action in the reply\n'],
    [['--family', 'ui-tars'], 'Action: foo()', 'mnemo parse: unknown action "foo"\n'],
    [['--family', 'ui-tars'], 'Action: click()', 'mnemo parse: click without a point\n'],
    [['--family', 'ui-tars'], "Action: click(start_box='(1500,20)')", 'mnemo parse: coordinates (1500, 20) outside the 1000x1000 relative range\n'],
    [['--family', 'tools'], 'I cannot see anything.', 'mnemo parse: no action in the reply\n'],
    [['--family', 'tools'], '{"type":"click"}', 'mnemo parse: click without a point\n'],
    [['--family', 'tools', '--image', '100x100'], '{"type":"click","x":150,"y":1}', 'mnemo parse: coordinates (150, 1) outside the 100x100 image\n'],
    [
      ['--family', 'openai-cua'],
      '{"type":"computer_call","call_id":"c","action":{"type":"click","x":1,"y":2,"button":"back"}}',
      'mnemo parse: click with button "back" is not supported\n',
    ],
    [['--family', 'openai-cua'], '', /^mnemo parse: the reply is not JSON: /],
    [
      ['--family', 'gemini'],
      '{"candidates":[{"content":{"role":"model","parts":[{"text":"Clicking."},{"functionCal":{"name":"click_at","args":{"x":1,"y":2}}}]},"finish_reason":"STOP"}]}',
      /^mnemo parse: part 2 of the reply cannot be read: it has "functionCal"/,
    ],
    [['--family', 'tools', '--model-version', '1.5'], '{"type":"wait"}', 'mnemo parse: --model-version applies to --family ui-tars only\n'],
    [['--family', 'pyautogui'], "Clicking.\n```python\npyautogui.click(1, 2)\nos.system('rm -rf /')\n```", /^mnemo parse: line 4: os\.system\(\) is not a call Mnemo reads/],
    [['--family', 'pyautogui', '--image', '100x100'], 'pyautogui.click(150, 1)', 'mnemo parse: line 1: coordinates (150, 1) outside the 100x100 image\n'],
    [['--family', 'pyautogui'], 'I am not sure.', /^mnemo parse: no code in the reply/],
    [['--family', 'anthropic', '--coordinates', 'relative-1000'], '{"content":[]}', /^mnemo parse: --coordinates: coordinates apply to the families tools, ui-tars, pyautogui/],
  ])('%j with %j exits 2', async (args, stdin, stderr) => {
    const run = await mnemoParse(args, stdin);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(stderr);
  });

  it.each([
    [[], /^mnemo parse: required option '--family <family>' not specified/],
    [['--family', 'claude'], /^mnemo parse: option '--family <family>' argument 'claude' is invalid/],
    [['--family', 'ui-tars', '--model-version', '2.0'], /^mnemo parse: option '--model-version <version>' argument '2.0' is invalid/],
    [['--family', 'ui-tars', '--image', '1920'], /--image must be WIDTHxHEIGHT in positive pixels/],
    [['--family', 'ui-tars', '--image', '0x100'], /--image must be WIDTHxHEIGHT in positive pixels/],
    [['--family', 'ui-tars', '--image', '-5x100'], /--image must be WIDTHxHEIGHT in positive pixels/],
    [['--family', 'ui-tars', '--image', '10.5x100'], /--image must be WIDTHxHEIGHT in positive pixels/],
    [['--family', 'pyautogui', '--coordinates', 'percent'], /^mnemo parse: option '--coordinates <space>' argument 'percent' is invalid/],
  ])('bad flags %j exit 2', async (args, stderr) => {
    const run = await mnemoParse(args, "Action: click(start_box='(1,2)')");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(stderr);
  });

  it('--help documents the defaults and exits 0', async () => {
    const run = await mnemoParse(['--help'], '');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--model-version defaults to 1.5 when --image is given and to 1.0 without it');
    expect(run.stdout).toContain("the Python SDK's snake_case");
  });
});
