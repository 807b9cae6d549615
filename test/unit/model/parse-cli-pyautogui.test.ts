/**
 * `mnemo parse --family pyautogui` and `--coordinates` end to end: the real CLI in a child
 * process, the reply on stdin (their refusals are among parse-cli.test.ts's).
 */
import { describe, expect, it } from 'vitest';
import { runMnemo } from '../../fixtures/mnemo-cli';

const parse = (args: string[], stdin: string) => runMnemo(['parse', ...args], { input: stdin });

describe('mnemo parse --family pyautogui', { timeout: 30_000, concurrent: true }, () => {
  it('prints the thought and the actions of pyautogui code, in pixels of --image', async () => {
    const reply = "I fill in the name.\n```python\nimport pyautogui\npyautogui.click(x=710, y=86)\npyautogui.write('Ada\\n')\npyautogui.hotkey('ctrl', 's')\n```";
    const run = await parse(['--family', 'pyautogui', '--image', '1280x800'], reply);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      thought: 'I fill in the name.',
      actions: [
        { type: 'click', x: 710, y: 86, button: 'left' },
        { type: 'type', text: 'Ada\n' },
        { type: 'hotkey', keys: ['ctrl', 's'] },
      ],
    });
  });

  it('--coordinates relative-1000 maps the 0-1000 grid onto --image', async () => {
    const run = await parse(['--family', 'pyautogui', '--coordinates', 'relative-1000', '--image', '1920x1080'], 'pyautogui.click(500, 500)');
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ thought: null, actions: [{ type: 'click', x: 960, y: 540, button: 'left' }] });
  });

  it('--coordinates for tools and ui-tars too', async () => {
    const tools = await parse(['--family', 'tools', '--coordinates', 'relative-1', '--image', '1000x500'], '{"type":"click","x":0.5,"y":0.5}');
    expect(JSON.parse(tools.stdout)).toEqual({ thought: null, actions: [{ type: 'click', x: 500, y: 250, button: 'left' }] });
    const uiTars = await parse(['--family', 'ui-tars', '--coordinates', 'relative-1000', '--image', '1280x800'], "Action: click(start_box='(500,500)')");
    expect(JSON.parse(uiTars.stdout)).toEqual({ thought: null, actions: [{ type: 'click', x: 640, y: 400, button: 'left' }] });
  });

  it('a pyperclip paste, as OSWorld\'s UI-TARS agent writes it, is typing the text', async () => {
    const reply = [
      'import pyautogui',
      'import time',
      "'''",
      'Observation:',
      '',
      'Thought:',
      '在终端里输入命令。',
      "'''",
      'import pyperclip',
      "pyperclip.copy('echo 你好 🎉 > /tmp/x')",
      "pyautogui.hotkey('ctrl', 'v')",
      'time.sleep(0.5)',
      "pyautogui.press('enter')",
    ].join('\n');
    const run = await parse(['--family', 'pyautogui', '--image', '1920x1080'], reply);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      thought: '在终端里输入命令。',
      actions: [
        { type: 'type', text: 'echo 你好 🎉 > /tmp/x' },
        { type: 'wait', ms: 500 },
        { type: 'hotkey', keys: ['enter'] },
      ],
    });
  });

  it("OpenCUA's hotkey(keys=[...])", async () => {
    const run = await parse(['--family', 'pyautogui'], "## Action:\nCopy the cell.\n## Code:\n```python\npyautogui.hotkey(keys=['ctrl', 'c'])\n```");
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ thought: 'Copy the cell.', actions: [{ type: 'hotkey', keys: ['ctrl', 'c'] }] });
  });

  it('os.system as the first line is refused with its line, not taken for the thought', async () => {
    const run = await parse(['--family', 'pyautogui'], "os.system('rm -rf /tmp/x')\npyautogui.click(100, 200)");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^mnemo parse: line 1: os\.system\(\) is not a call Mnemo reads/);
  });

  it('--help lists the pyautogui calls', async () => {
    const run = await parse(['--help'], '');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/pyautogui\s+a thought and Python pyautogui calls/);
    expect(run.stdout).toContain('--coordinates <space>');
    expect(run.stdout).toContain("pyperclip.copy('text')");
  });
});
