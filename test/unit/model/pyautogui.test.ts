import { describe, expect, it } from 'vitest';
import { parseAction, type Action } from '../../../src/shared/actions';
import { formatPyautoguiAction, parsePyautoguiReply, PYAUTOGUI_WAIT_MS, type PyautoguiOptions, type PyautoguiParse } from '../../../src/main/model/families/pyautogui';
import { readStatements, tokenizePython } from '../../../src/main/model/families/python-calls';
import { imageToModel, smartResize } from '../../../src/main/model/families/coordinates';

const image = { width: 1280, height: 800 };

function ok(result: PyautoguiParse) {
  if (!result.ok) throw new Error(`expected a parse, got: ${result.reason}`);
  return result;
}
function actionsOf(text: string, options: PyautoguiOptions = { image }): Action[] {
  return ok(parsePyautoguiReply(text, options)).actions;
}
function reasonOf(text: string, options: PyautoguiOptions = { image }): string {
  const result = parsePyautoguiReply(text, options);
  if (result.ok) throw new Error(`expected a failure, got: ${JSON.stringify(result.actions)}`);
  return result.reason;
}
function parseActions(raws: unknown[]): { ok: true; actions: Action[] } | { ok: false; message: string } {
  const actions: Action[] = [];
  for (const raw of raws) {
    const parsed = parseAction(raw);
    if (!parsed.ok) return parsed;
    actions.push(parsed.action);
  }
  return { ok: true, actions };
}
const code = (lines: string) => `I act.\n\`\`\`python\n${lines}\n\`\`\``;

describe('pyautogui: every call', () => {
  it.each<[string, Action[]]>([
    ['pyautogui.click(100, 200)', [{ type: 'click', x: 100, y: 200, button: 'left' }]],
    ['pyautogui.click(x=100, y=200)', [{ type: 'click', x: 100, y: 200, button: 'left' }]],
    ['pyautogui.click((100, 200))', [{ type: 'click', x: 100, y: 200, button: 'left' }]],
    ["pyautogui.click(100, 200, button='right')", [{ type: 'click', x: 100, y: 200, button: 'right' }]],
    ["pyautogui.click(100, 200, button='secondary')", [{ type: 'click', x: 100, y: 200, button: 'right' }]],
    ['pyautogui.click(100, 200, clicks=2)', [{ type: 'double_click', x: 100, y: 200, button: 'left' }]],
    ['pyautogui.click(100, 200, 3, 0.1)', [{ type: 'triple_click', x: 100, y: 200, button: 'left' }]],
    [
      'pyautogui.click()',
      [
        { type: 'mouse_down', button: 'left' },
        { type: 'mouse_up', button: 'left' },
      ],
    ],
    ['pyautogui.doubleClick(10.5, 20)', [{ type: 'double_click', x: 10.5, y: 20, button: 'left' }]],
    ['pyautogui.tripleClick(x=10, y=20)', [{ type: 'triple_click', x: 10, y: 20, button: 'left' }]],
    ['pyautogui.rightClick(10, 20)', [{ type: 'click', x: 10, y: 20, button: 'right' }]],
    ['pyautogui.middleClick(10, 20)', [{ type: 'click', x: 10, y: 20, button: 'middle' }]],
    ['pyautogui.moveTo(300, 400, duration=0.5)', [{ type: 'mouse_move', x: 300, y: 400 }]],
    [
      "pyautogui.dragTo(500, 600, duration=1, button='left')",
      [
        { type: 'mouse_down', button: 'left' },
        { type: 'mouse_move', x: 500, y: 600 },
        { type: 'mouse_up', button: 'left' },
      ],
    ],
    ['pyautogui.mouseDown(10, 20)', [{ type: 'mouse_down', x: 10, y: 20, button: 'left' }]],
    ["pyautogui.mouseUp(button='right')", [{ type: 'mouse_up', button: 'right' }]],
    ['pyautogui.scroll(-5)', [{ type: 'scroll', direction: 'down', amount: 5 }]],
    ['pyautogui.scroll(3, x=640, y=400)', [{ type: 'scroll', x: 640, y: 400, direction: 'up', amount: 3 }]],
    ['pyautogui.vscroll(-2, 10, 20)', [{ type: 'scroll', x: 10, y: 20, direction: 'down', amount: 2 }]],
    ['pyautogui.hscroll(4)', [{ type: 'scroll', direction: 'right', amount: 4 }]],
    ['pyautogui.hscroll(-4, 10, 20)', [{ type: 'scroll', x: 10, y: 20, direction: 'left', amount: 4 }]],
    ['pyautogui.scroll(-500)', [{ type: 'scroll', direction: 'down', amount: 100 }]],
    ["pyautogui.write('Hello, world!\\n')", [{ type: 'type', text: 'Hello, world!\n' }]],
    ["pyautogui.write(message='x', interval=0.05)", [{ type: 'type', text: 'x' }]],
    ["pyautogui.typewrite('abc')", [{ type: 'type', text: 'abc' }]],
    [
      "pyautogui.typewrite(['a', 'b', 'enter', 'c'])",
      [
        { type: 'type', text: 'ab' },
        { type: 'hotkey', keys: ['enter'] },
        { type: 'type', text: 'c' },
      ],
    ],
    ["pyautogui.press('enter')", [{ type: 'hotkey', keys: ['enter'] }]],
    ["pyautogui.press('return')", [{ type: 'hotkey', keys: ['enter'] }]],
    [
      "pyautogui.press(['tab', 'tab'])",
      [
        { type: 'hotkey', keys: ['tab'] },
        { type: 'hotkey', keys: ['tab'] },
      ],
    ],
    [
      "pyautogui.press('down', presses=3)",
      [
        { type: 'hotkey', keys: ['down'] },
        { type: 'hotkey', keys: ['down'] },
        { type: 'hotkey', keys: ['down'] },
      ],
    ],
    ["pyautogui.hotkey('ctrl', 'c')", [{ type: 'hotkey', keys: ['ctrl', 'c'] }]],
    ["pyautogui.hotkey(['ctrlleft', 'shiftleft', 't'])", [{ type: 'hotkey', keys: ['ctrl', 'shift', 't'] }]],
    ["pyautogui.hotkey('win', 'd', interval=0.1)", [{ type: 'hotkey', keys: ['meta', 'd'] }]],
    ["pyautogui.keyDown('shift')", [{ type: 'key_down', keys: ['shift'] }]],
    ["pyautogui.keyUp(key='shift')", [{ type: 'key_up', keys: ['shift'] }]],
    ['time.sleep(1.5)', [{ type: 'wait', ms: 1500 }]],
    ['computer.wait()', [{ type: 'wait', ms: PYAUTOGUI_WAIT_MS }]],
    ['computer.triple_click(5, 6)', [{ type: 'triple_click', x: 5, y: 6, button: 'left' }]],
    ["mnemo.ask_user('Which account?')", [{ type: 'ask_user', question: 'Which account?' }]],
    ["mnemo.query_long_term_memory(hint='the editor')", [{ type: 'query_long_term_memory', hint: 'the editor' }]],
    [
      "mnemo.save_fact(keyword='preferred-editor', description='The editor', value='Vim')",
      [{ type: 'save_fact', subject: 'user', keyword: 'preferred-editor', description: 'The editor', value: 'Vim' }],
    ],
    [
      "mnemo.save_fact('languages', 'Languages spoken', values=['en', 'fr'], subject='user')",
      [{ type: 'save_fact', subject: 'user', keyword: 'languages', description: 'Languages spoken', values: ['en', 'fr'] }],
    ],
  ])('%s', (line, expected) => {
    expect(actionsOf(code(line))).toEqual(expected);
  });

  it('the markers WAIT, DONE and FAIL, with the thought as the summary or the reason', () => {
    expect(actionsOf('WAIT')).toEqual([{ type: 'wait', ms: PYAUTOGUI_WAIT_MS }]);
    expect(actionsOf('The form is sent.\n```\nDONE\n```')).toEqual([{ type: 'finished', summary: 'The form is sent.' }]);
    expect(actionsOf('There is no such file.\nFAIL')).toEqual([{ type: 'fail', reason: 'There is no such file.' }]);
    expect(actionsOf("```code\ncomputer.terminate(status='success', answer='42')\n```")).toEqual([{ type: 'finished', summary: '42' }]);
    expect(actionsOf("Cannot.\n```code\ncomputer.terminate(status='failure')\n```")).toEqual([{ type: 'fail', reason: 'Cannot.' }]);
  });

  it('reads several calls in order, imports and comments included', () => {
    const reply = [
      '## Thought:',
      'The name field is empty; I type the name and submit.',
      '## Action:',
      'Type the name, press Enter.',
      '## Code:',
      '```python',
      'import pyautogui, time',
      'pyautogui.click(x=710, y=86)  # the name field',
      "pyautogui.write('Ada'); pyautogui.press('enter')",
      'time.sleep(0.5)',
      '```',
    ].join('\n');
    const result = ok(parsePyautoguiReply(reply, { image }));
    expect(result.thought).toBe('The name field is empty; I type the name and submit.');
    expect(result.actions).toEqual([
      { type: 'click', x: 710, y: 86, button: 'left' },
      { type: 'type', text: 'Ada' },
      { type: 'hotkey', keys: ['enter'] },
      { type: 'wait', ms: 500 },
    ]);
    expect(result.code).toContain("pyautogui.write('Ada')");
  });

  it('reads bare code lines after the prose, and every fenced block in order', () => {
    expect(ok(parsePyautoguiReply('I click the button.\npyautogui.click(1, 2)\npyautogui.press("enter")', { image }))).toMatchObject({
      thought: 'I click the button.',
      actions: [{ type: 'click', x: 1, y: 2 }, { type: 'hotkey', keys: ['enter'] }],
    });
    expect(actionsOf('First:\n```python\npyautogui.click(1, 2)\n```\nThen:\n```python\npyautogui.click(3, 4)\n```')).toEqual([
      { type: 'click', x: 1, y: 2, button: 'left' },
      { type: 'click', x: 3, y: 4, button: 'left' },
    ]);
  });
});

describe('pyautogui: Python strings and values', () => {
  it.each<[string, string]>([
    ["'it\\'s'", "it's"],
    ['"say \\"hi\\""', 'say "hi"'],
    ["'a\\tb\\\\c'", 'a\tb\\c'],
    ["'\\x41\\u00e9\\U0001F389\\101'", 'Aé🎉A'],
    ["r'C:\\new'", 'C:\\new'],
    ["'Grüße 🎉'", 'Grüße 🎉'],
    ["'one' ' two'", 'one two'],
    ["'''line one\nline 'two'\n'''", "line one\nline 'two'\n"],
    ["'keep \\d as is'", 'keep \\d as is'],
  ])('write(%s)', (literal, text) => {
    expect(actionsOf(code(`pyautogui.write(${literal})`))).toEqual([{ type: 'type', text }]);
  });

  it('a call over several lines, with a trailing comma and a line continuation', () => {
    expect(actionsOf(code("pyautogui.hotkey(\n    'ctrl',\n    'shift',\n    't',\n)\npyautogui.click(1, \\\n 2)"))).toEqual([
      { type: 'hotkey', keys: ['ctrl', 'shift', 't'] },
      { type: 'click', x: 1, y: 2, button: 'left' },
    ]);
  });

  it('tokenizes numbers, names, strings and brackets with their lines', () => {
    const tokens = tokenizePython("a.b(1, -2.5e1, [True, None], x=('s',))\n", 3);
    expect(tokens.ok).toBe(true);
    const read = readStatements("pyautogui.click(1, y=-2.5e1)\nDONE\nimport time", 3);
    expect(read).toEqual({
      ok: true,
      statements: [
        { kind: 'call', callee: 'pyautogui.click', args: [{ name: null, value: 1 }, { name: 'y', value: -25 }], line: 3, source: 'pyautogui.click(1, y=-2.5e1)' },
        { kind: 'name', name: 'DONE', line: 4, source: 'DONE' },
        { kind: 'import', modules: ['time'], line: 5, source: 'import time' },
      ],
    });
  });
});

describe('pyautogui: errors name the line of the reply', () => {
  it.each<[string, RegExp]>([
    ["I look for it.\n```python\npyautogui.click(1, 2)\npyautogui.locateOnScreen('ok.png')\n```", /^line 4: pyautogui\.locateOnScreen\(\) is not a call Mnemo reads/],
    ['```python\nimport os\n```', /^line 2: only pyautogui, time and pyperclip are read, not "os"/],
    ['```python\nx = 5\n```', /^line 2: not a call Mnemo can read: x = 5/],
    ['```python\npyautogui.click(x)\n```', /^line 2: pyautogui\.click\(\) takes literal values; "x" is a name/],
    ['```python\nfor i in range(3): pyautogui.click(1, 2)\n```', /^line 2: /],
    ["```python\npyautogui.write('unclosed)\n```", /^line 2: a string is not closed/],
    ["```python\npyautogui.write(f'{name}')\n```", /^line 2: f-strings are not read/],
    ['```python\npyautogui.click(1, 2\n```', /^line 2: the call pyautogui\.click\( is not closed/],
    ['```python\npyautogui.click(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)\n```', /^line 2: pyautogui\.click\(\) takes at most 9 arguments/],
    ["```python\npyautogui.click(1, 2, speed=3)\n```", /^line 2: pyautogui\.click\(\) has no argument speed/],
    ["```python\npyautogui.click(1, 2, button='back')\n```", /^line 2: pyautogui\.click\(\) button must be 'left', 'right' or 'middle'/],
    ["```python\npyautogui.click('ok.png')\n```", /^line 2: pyautogui\.click\(\) with an image to find on the screen is not read/],
    ['```python\npyautogui.click(100)\n```', /^line 2: pyautogui\.click\(\) needs both x and y/],
    ['```python\npyautogui.moveTo()\n```', /^line 2: pyautogui\.moveTo\(\) needs x and y/],
    ["```python\npyautogui.press('hyperdrive')\n```", /^line 2: unknown key "hyperdrive"/],
    ['```python\npyautogui.scroll(0)\n```', /^line 2: pyautogui\.scroll\(\) clicks must be a whole number other than 0/],
    ['```python\ntime.sleep(900)\n```', /^line 2: a wait of 900 seconds is longer than 10 minutes/],
    ['```python\nPAUSE\n```', /^line 2: "PAUSE" is not a call/],
    ["```python\npyautogui.click(1, 2) pyautogui.click(3, 4)\n```", /^line 2: more than one call in a statement/],
    ['```python\npyautogui.click(1, 2)\npyautogui.click(2000, 10)\n```', /^line 3: coordinates \(2000, 10\) outside the 1280x800 image/],
  ])('%s', (reply, reason) => {
    expect(reasonOf(reply)).toMatch(reason);
  });

  it('a reply without code says how to write it', () => {
    expect(reasonOf('I would click the button now.')).toMatch(/^no code in the reply/);
    expect(reasonOf('```python\nimport pyautogui\n```')).toMatch(/^no action in the code/);
  });
});

describe('pyautogui: coordinate spaces', () => {
  it('maps each space onto the image and checks the model grid', () => {
    expect(actionsOf(code('pyautogui.click(500, 250)'), { image, coordinates: { space: 'relative-1000' } })).toEqual([{ type: 'click', x: 640, y: 200, button: 'left' }]);
    expect(actionsOf(code('pyautogui.click(0.5, 0.25)'), { image, coordinates: { space: 'relative-1' } })).toEqual([{ type: 'click', x: 640, y: 200, button: 'left' }]);
    const resized = smartResize(1280, 800);
    const [click] = actionsOf(code(`pyautogui.click(${resized.width / 2}, ${resized.height / 2})`), { image, coordinates: { space: 'smart-resize' } });
    expect(click).toMatchObject({ x: 640, y: 400 });
    expect(reasonOf(code('pyautogui.click(1001, 5)'), { image, coordinates: { space: 'relative-1000' } })).toBe('line 3: coordinates (1001, 5) outside the 1000x1000 relative range');
    expect(reasonOf(code('pyautogui.click(1.5, 0.2)'), { image, coordinates: { space: 'relative-1' } })).toBe('line 3: coordinates (1.5, 0.2) outside the 0-1 relative range');
  });

  it('without an image: points as written, negative ones refused', () => {
    expect(actionsOf(code('pyautogui.click(5000, 5000)'), {})).toEqual([{ type: 'click', x: 5000, y: 5000, button: 'left' }]);
    expect(reasonOf(code('pyautogui.click(-1, 5)'), {})).toBe('line 3: coordinates (-1, 5) are negative');
  });
});

describe('pyautogui: actions written back as code', () => {
  const frame = { space: 'relative-1000' as const, image };
  const toModel = (point: { x: number; y: number }) => imageToModel(point, frame);
  const actions = parseActions([
    { type: 'click', x: 640, y: 400, modifiers: ['shift'] },
    { type: 'double_click', x: 128, y: 80 },
    { type: 'triple_click', x: 128, y: 80, button: 'right' },
    { type: 'mouse_move', x: 64, y: 40 },
    { type: 'mouse_down', x: 128, y: 80 },
    { type: 'mouse_up', button: 'right' },
    { type: 'scroll', direction: 'down', amount: 5, x: 640, y: 400 },
    { type: 'scroll', direction: 'left', amount: 2 },
    { type: 'type', text: "it's\n\tdone \\ 🎉" },
    { type: 'hotkey', keys: ['ctrl', 'c'] },
    { type: 'hotkey', keys: ['enter'] },
    { type: 'key_down', keys: ['shift'] },
    { type: 'key_up', keys: ['shift'] },
    { type: 'wait', ms: 1500 },
    { type: 'ask_user', question: 'Which one?' },
    { type: 'query_long_term_memory', hint: 'the editor' },
    { type: 'save_fact', keyword: 'editor', description: 'The editor', value: 'Vim' },
    { type: 'finished', summary: '' },
  ]);
  if (!actions.ok) throw new Error(actions.message);

  it('reads back as the same actions in pixels of the image', () => {
    const written = actions.actions.map((action) => formatPyautoguiAction(action, toModel)).join('\n');
    expect(written).toContain('pyautogui.click(500, 500)');
    expect(written).toContain("pyautogui.keyDown('shift')\npyautogui.click(500, 500)\npyautogui.keyUp('shift')");
    const read = ok(parsePyautoguiReply(`\`\`\`python\n${written}\n\`\`\``, { image, coordinates: { space: 'relative-1000' } })).actions;
    const clickWithShift = [
      { type: 'key_down', keys: ['shift'] },
      { type: 'click', x: 640, y: 400, button: 'left' },
      { type: 'key_up', keys: ['shift'] },
    ];
    expect(read).toEqual([...clickWithShift, ...actions.actions.slice(1)]);
  });

  it('writes a drag as a move and drags', () => {
    const drag = parseActions([{ type: 'drag', x: 0, y: 0, toX: 640, toY: 400 }]);
    if (!drag.ok) throw new Error(drag.message);
    expect(formatPyautoguiAction(drag.actions[0] as Action, toModel)).toBe('pyautogui.moveTo(0, 0)\npyautogui.dragTo(500, 500)');
    expect(formatPyautoguiAction({ type: 'screenshot' }, toModel)).toBeNull();
  });
});
