/**
 * The `pyautogui` family on replies written as real agents write them: OSWorld's UI-TARS and
 * Doubao agents, which type through the clipboard (`pyperclip.copy` then a paste), OpenCUA's
 * `hotkey(keys=[...])`, code Mnemo does not read standing where a thought could be, and prose that
 * only mentions code.
 */
import { describe, expect, it } from 'vitest';
import { type Action } from '../../../src/shared/actions';
import { parsePyautoguiReply, type PyautoguiOptions, type PyautoguiParse } from '../../../src/main/model/families/pyautogui';
import { looksLikePythonStatement } from '../../../src/main/model/families/python-calls';
import { visiblePyautoguiThought } from '../../../src/main/model/pyautogui-model';

const image = { width: 1920, height: 1080 };

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
const fenced = (lines: string[]) => ['I act.', '```python', ...lines, '```'].join('\n');

/** The code OSWorld's UI-TARS agent records for `type(content=...)`: a docstring, then the paste. */
const osworldTyping = (literal: string, enter = false) =>
  [
    'import pyautogui',
    'import time',
    "'''",
    'Observation:',
    '',
    '',
    'Thought:',
    '我需要在终端里输入命令。',
    "'''",
    '',
    'import pyperclip',
    `pyperclip.copy(${literal})`,
    "pyautogui.hotkey('ctrl', 'v')",
    'time.sleep(0.5)',
    '',
    ...(enter ? ["pyautogui.press('enter')"] : []),
  ].join('\n');

describe('pyautogui: typing through the clipboard (OSWorld UI-TARS and Doubao)', () => {
  it('reads OSWorld UI-TARS code as typing the text, its docstring as the thought', () => {
    const result = ok(parsePyautoguiReply(osworldTyping("'ls /home/user'", true), { image }));
    expect(result.thought).toBe('我需要在终端里输入命令。');
    expect(result.actions).toEqual([
      { type: 'type', text: 'ls /home/user' },
      { type: 'wait', ms: 500 },
      { type: 'hotkey', keys: ['enter'] },
    ]);
    expect(result.unpastedCopy).toBeNull();
  });

  it.each<[string, string, string]>([
    ['Chinese', "'你好，世界'", '你好，世界'],
    ['Japanese', "'東京都の天気'", '東京都の天気'],
    ['Korean', "'안녕하세요'", '안녕하세요'],
    ['Arabic', "'مرحبا بالعالم'", 'مرحبا بالعالم'],
    ['Cyrillic and accents', "'Привет, Grüße, café'", 'Привет, Grüße, café'],
    ['emoji with a skin tone and a joiner', "'👍🏽 👨‍👩‍👧 🎉'", '👍🏽 👨‍👩‍👧 🎉'],
    ['an escaped quote', "'it\\'s done'", "it's done"],
    ['newlines written as escapes', "'line one\\nline two\\n'", 'line one\nline two\n'],
    ['a triple-quoted string over lines', "'''def f():\n    return '你好'\n'''", "def f():\n    return '你好'\n"],
    ['tabs and backslashes', "'C:\\\\Users\\\\ada\\tend'", 'C:\\Users\\ada\tend'],
  ])('%s', (_script, literal, text) => {
    expect(actionsOf(osworldTyping(literal))).toEqual([
      { type: 'type', text },
      { type: 'wait', ms: 500 },
    ]);
  });

  it.each<[string, string[]]>([
    ["hotkey('ctrl', 'v')", ["pyautogui.hotkey('ctrl', 'v')"]],
    ["hotkey('command', 'v') (macOS)", ["pyautogui.hotkey('command', 'v')"]],
    ["hotkey('shift', 'insert')", ["pyautogui.hotkey('shift', 'insert')"]],
    ["hotkey('ctrl', 'shift', 'v') (a terminal)", ["pyautogui.hotkey('ctrl', 'shift', 'v')"]],
    ["hotkey(keys=['ctrl', 'v']) (OpenCUA)", ["pyautogui.hotkey(keys=['ctrl', 'v'])"]],
    ["hotkey(['ctrl', 'v'])", ["pyautogui.hotkey(['ctrl', 'v'])"]],
    ["hotkey('ctrlleft', 'V')", ["pyautogui.hotkey('ctrlleft', 'V', interval=0.1)"]],
    ['keyDown, press, keyUp', ["pyautogui.keyDown('ctrl')", "pyautogui.press('v')", "pyautogui.keyUp('ctrl')"]],
    ['the same on one line', ["pyautogui.keyDown('ctrlleft'); pyautogui.press('v'); pyautogui.keyUp('ctrlleft')"]],
    ['keyDown and keyUp of the key too', ["pyautogui.keyDown('command')", "pyautogui.keyDown('v')", "pyautogui.keyUp('v')", "pyautogui.keyUp('command')"]],
  ])('a paste written %s types the text', (_spelling, paste) => {
    const reply = fenced(['import pyperclip', "pyperclip.copy('Ada Lovelace')", ...paste, "pyautogui.press('tab')"]);
    expect(actionsOf(reply)).toEqual([
      { type: 'type', text: 'Ada Lovelace' },
      { type: 'hotkey', keys: ['tab'] },
    ]);
  });

  it('a copy sets the clipboard for a paste later in the reply, across blocks, as often as it is pasted', () => {
    const reply = [
      'I copy the name, open the field, and paste it twice.',
      '```python',
      "pyperclip.copy('Grace Hopper')",
      'pyautogui.click(960, 540)',
      '```',
      '```python',
      "pyautogui.hotkey('ctrl', 'v')",
      "pyautogui.press('tab')",
      "pyautogui.hotkey('ctrl', 'v')",
      '```',
    ].join('\n');
    expect(actionsOf(reply)).toEqual([
      { type: 'click', x: 960, y: 540, button: 'left' },
      { type: 'type', text: 'Grace Hopper' },
      { type: 'hotkey', keys: ['tab'] },
      { type: 'type', text: 'Grace Hopper' },
    ]);
  });

  it('a copy never pasted does nothing and is said in the parse', () => {
    const result = ok(parsePyautoguiReply(fenced(["pyperclip.copy('unused')", 'pyautogui.click(10, 20)']), { image }));
    expect(result.actions).toEqual([{ type: 'click', x: 10, y: 20, button: 'left' }]);
    expect(result.unpastedCopy).toBe('unused');
  });

  it('a reply whose only statement is a copy has no action, and says why', () => {
    expect(reasonOf(fenced(["pyperclip.copy('ls')"]))).toBe("no action in the code: pyperclip.copy() only fills the clipboard, and no paste in the same reply types it (pyautogui.hotkey('ctrl', 'v'))");
  });

  it('a paste with no copy before it, or after a copy of the screen, stays the keys', () => {
    expect(actionsOf(fenced(["pyautogui.hotkey('ctrl', 'v')"]))).toEqual([{ type: 'hotkey', keys: ['ctrl', 'v'] }]);
    const result = ok(parsePyautoguiReply(fenced(["pyperclip.copy('typed')", "pyautogui.hotkey('ctrl', 'c')", "pyautogui.hotkey('ctrl', 'v')"]), { image }));
    expect(result.actions).toEqual([
      { type: 'hotkey', keys: ['ctrl', 'c'] },
      { type: 'hotkey', keys: ['ctrl', 'v'] },
    ]);
    expect(result.unpastedCopy).toBe('typed');
  });

  it('a copy of the empty text pastes nothing; pyperclip.paste() reads and does nothing', () => {
    expect(actionsOf(fenced(["pyperclip.copy('')", "pyautogui.hotkey('ctrl', 'v')", 'pyperclip.paste()', "pyautogui.press('enter')"]))).toEqual([{ type: 'hotkey', keys: ['enter'] }]);
  });

  it('the thought shown while the reply streams stops at a copy', () => {
    expect(visiblePyautoguiThought("I type the path.\npyperclip.copy('/home/user')\n")).toBe('I type the path.');
  });

  it('a paste keeps its points around it mapped as usual', () => {
    const options = { image, coordinates: { space: 'relative-1000' as const } };
    expect(actionsOf(fenced(['pyautogui.click(500, 500)', "pyperclip.copy('北京')", "pyautogui.hotkey('ctrl', 'v')"]), options)).toEqual([
      { type: 'click', x: 960, y: 540, button: 'left' },
      { type: 'type', text: '北京' },
    ]);
  });

  it.each<[string, string]>([
    ['pyperclip.copy(42)', 'line 3: pyperclip.copy() needs the text as a string, not 42'],
    ['pyperclip.copy()', 'line 3: pyperclip.copy() takes one argument, the text'],
    ["pyperclip.copy('a', 'b')", 'line 3: pyperclip.copy() takes one argument, the text'],
    ['pyperclip.determine_clipboard()', 'line 3: pyperclip.determine_clipboard() is not a call Mnemo reads'],
  ])('%s is refused', (line, reason) => {
    expect(reasonOf(fenced([line]))).toMatch(new RegExp(`^${reason.replace(/[()[\]]/g, '\\$&')}`));
  });
});

describe('pyautogui: OpenCUA replies', () => {
  it('reads hotkey(keys=[...]) and its Thought section', () => {
    const reply = [
      '# Step 4:',
      '## Thought:',
      'The cell B2 is selected; I copy it so I can paste it into the report.',
      '## Action:',
      'Copy the selected cell with Ctrl+C.',
      '## Code:',
      '```python',
      "pyautogui.hotkey(keys=['ctrl', 'c'])",
      '```',
    ].join('\n');
    const result = ok(parsePyautoguiReply(reply, { image }));
    expect(result.thought).toBe('The cell B2 is selected; I copy it so I can paste it into the report.');
    expect(result.actions).toEqual([{ type: 'hotkey', keys: ['ctrl', 'c'] }]);
  });

  it.each<[string, Action[]]>([
    ["pyautogui.press(keys='enter')", [{ type: 'hotkey', keys: ['enter'] }]],
    ["pyautogui.press(keys=['enter'])", [{ type: 'hotkey', keys: ['enter'] }]],
    ["pyautogui.hotkey(keys='enter')", [{ type: 'hotkey', keys: ['enter'] }]],
    ["pyautogui.hotkey(keys=('alt', 'f4'), interval=0.1)", [{ type: 'hotkey', keys: ['alt', 'f4'] }]],
    ["pyautogui.write(message='bread buns')", [{ type: 'type', text: 'bread buns' }]],
    ["computer.terminate(status='success', answer='''42''')", [{ type: 'finished', summary: '42' }]],
  ])('%s', (line, expected) => {
    expect(actionsOf(fenced([line]))).toEqual(expected);
  });

  it('refuses keys given twice', () => {
    expect(reasonOf(fenced(["pyautogui.hotkey('ctrl', keys=['c'])"]))).toBe('line 3: pyautogui.hotkey() got its keys both as arguments and as keys=');
  });
});

describe('pyautogui: code Mnemo does not read is refused wherever it stands', () => {
  it.each<[string, string, RegExp]>([
    ['os.system as the first line', "os.system('rm -rf /tmp/x')\npyautogui.click(100, 200)", /^line 1: os\.system\(\) is not a call Mnemo reads/],
    ['os.system after a line of prose', "I clean up first.\nos.system('rm -rf /tmp/x')\npyautogui.click(100, 200)", /^line 2: os\.system\(\) is not a call Mnemo reads/],
    ['subprocess.run', "subprocess.run(['rm', '-rf', '/tmp/x'])\npyautogui.click(100, 200)", /^line 1: subprocess\.run\(\) is not a call Mnemo reads/],
    ['import os', "import os\nos.remove('/tmp/x')", /^line 1: only pyautogui, time and pyperclip are read, not "os"/],
    ['from subprocess import run', "Let me run it.\nfrom subprocess import run\nrun('ls')", /^line 2: only pyautogui, time and pyperclip are read, not "subprocess"/],
    ['an assignment', 'x = 1\npyautogui.click(x, 200)', /^line 1: not a call Mnemo can read: x = 1/],
    ['a setting of pyautogui', 'pyautogui.FAILSAFE = False\npyautogui.click(1, 2)', /^line 1: not a call Mnemo can read: pyautogui\.FAILSAFE = False/],
    ['exec', "exec('import os')\npyautogui.click(1, 2)", /^line 1: exec\(\) is not a call Mnemo reads/],
    ['__import__', "__import__('os').system('ls')", /^line 1: /],
    ['a loop', 'I click three times.\nfor i in range(3): pyautogui.click(1, 2)', /^line 2: /],
    ['a block', 'with open("/etc/passwd") as f:\n    pyautogui.write(f.read())', /^line 1: /],
    ['a definition', 'def go():\n    pyautogui.click(1, 2)\ngo()', /^line 1: /],
    ['code after the calls', "pyautogui.click(1, 2)\nos.system('ls')", /^line 2: os\.system\(\) is not a call Mnemo reads/],
  ])('%s', (_case, reply, reason) => {
    expect(reasonOf(reply)).toMatch(reason);
  });

  it('refuses code outside the ```python block, naming its line', () => {
    const reply = ["I'll clean up, then click.", "os.system('rm -rf /tmp/x')", '```python', 'pyautogui.click(100, 200)', '```'].join('\n');
    expect(reasonOf(reply)).toBe("line 2: code outside the ```python block is not read: os.system('rm -rf /tmp/x')");
    expect(reasonOf("Thought: click it.\npyautogui.click(5, 5)\n```python\npyautogui.click(1, 2)\n```")).toMatch(/^line 2: code outside the ```python block/);
  });

  it('accepts comments, in the code and before it', () => {
    const reply = ['# Open a terminal, then list the files.', "pyautogui.hotkey('ctrl', 'alt', 't')  # the shortcut", '# wait for it', 'time.sleep(1)', "pyautogui.write('ls\\n')"].join('\n');
    const result = ok(parsePyautoguiReply(reply, { image }));
    expect(result.thought).toBe('# Open a terminal, then list the files.');
    expect(result.actions).toEqual([
      { type: 'hotkey', keys: ['ctrl', 'alt', 't'] },
      { type: 'wait', ms: 1000 },
      { type: 'type', text: 'ls\n' },
    ]);
    expect(actionsOf(fenced(['# the Save button', 'pyautogui.click(1850, 1040)']))).toEqual([{ type: 'click', x: 1850, y: 1040, button: 'left' }]);
  });

  it('reads prose that mentions code as prose', () => {
    const prose = [
      "I won't use os.system('ls') here: Mnemo reads only pyautogui calls.",
      'os.system is not available, so I open the menu instead.',
      'if the dialog opens: press Enter.',
      'for each file in the folder: rename it.',
      'Note (see below) the menu moved.',
      'import the data from the CSV file first.',
      'from the File menu I choose Save.',
      'return to the main window afterwards.',
    ];
    for (const reply of [[...prose, 'pyautogui.click(10, 20)'].join('\n'), fenced([...prose.map((line) => `# ${line}`), 'pyautogui.click(10, 20)']).replace('I act.', prose.join('\n'))]) {
      const result = ok(parsePyautoguiReply(reply, { image }));
      expect(result.thought).toContain("I won't use os.system('ls') here");
      expect(result.actions).toEqual([{ type: 'click', x: 10, y: 20, button: 'left' }]);
    }
  });

  it('keeps the markers and the calls of computer and mnemo', () => {
    expect(actionsOf('All done.\nDONE')).toEqual([{ type: 'finished', summary: 'All done.' }]);
    expect(actionsOf("The file is not there.\n```code\ncomputer.terminate(status='failure')\n```")).toEqual([{ type: 'fail', reason: 'The file is not there.' }]);
    expect(actionsOf("I need the account.\nmnemo.ask_user('Which account?')")).toEqual([{ type: 'ask_user', question: 'Which account?' }]);
  });
});

describe('looksLikePythonStatement', () => {
  it.each([
    "os.system('rm -rf /tmp/x')",
    "os . system ('ls')",
    "subprocess.run(['ls'])",
    "exec('x')",
    'x = 1',
    'a, b = 1, 2',
    "config['key'] = 'v'",
    'count += 1',
    'import os',
    'import os, sys',
    'import numpy as np',
    'from os import path',
    'from . import helpers',
    'for i in range(3):',
    'for i in range(3): pyautogui.click(1, 2)',
    'if done:',
    "if x == 'a': pyautogui.click(1, 2)",
    'while True:',
    "with open('f') as f:",
    'def go():',
    'class Agent:',
    'try:',
    'except Exception as e:',
    'else:',
    'pass',
    'return x',
    "raise ValueError('x')",
    "'''",
    '"""Docstring."""',
    '@decorator',
  ])('%s is code', (line) => {
    expect(looksLikePythonStatement(line)).toBe(true);
  });

  it.each([
    'I will click the Save button.',
    "I won't use os.system('ls') here.",
    'os.system is not available.',
    'Note (see below) the menu moved.',
    'Thought: the dialog is open.',
    '## Action:',
    'import the data from the CSV file first.',
    'from the File menu I choose Save.',
    'if the dialog opens: press Enter.',
    'while waiting for the page to load, I look around.',
    'for each file in the folder: rename it.',
    'return to the main window afterwards.',
    '1. Click the button',
    '- x = 1 is the setting',
    '`pyautogui.click(1, 2)` is the call.',
    '',
  ])('%s is prose', (line) => {
    expect(looksLikePythonStatement(line)).toBe(false);
  });
});
