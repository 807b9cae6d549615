import { describe, expect, it } from 'vitest';
import {
  fromSmartResized,
  parseUiTarsReply,
  readUiTarsPoint,
  smartResize,
  UI_TARS_CALL_USER_QUESTION,
  type UiTarsOptions,
  type UiTarsParse,
} from '../../../src/main/model/families/ui-tars';
import { knownModel } from '../../../src/shared/known-models';

const relative: UiTarsOptions = { version: '1.0' };
const v15 = (width: number, height: number): UiTarsOptions => ({ version: '1.5', image: { width, height } });

function ok(result: UiTarsParse) {
  if (!result.ok) throw new Error(`expected a parse, got: ${result.reason}`);
  return result;
}
function actionsOf(text: string, options: UiTarsOptions = relative) {
  return ok(parseUiTarsReply(text, options)).actions;
}
function reasonOf(text: string, options: UiTarsOptions = relative): string {
  const result = parseUiTarsReply(text, options);
  if (result.ok) throw new Error(`expected a failure, got: ${JSON.stringify(result.actions)}`);
  return result.reason;
}

describe('ui-tars sections', () => {
  it('reads Thought and Action', () => {
    const result = ok(parseUiTarsReply("Thought: The File menu is at the top.\nAction: click(start_box='(100,200)')", relative));
    expect(result.thought).toBe('The File menu is at the top.');
    expect(result.reflection).toBeNull();
    expect(result.actionSummary).toBeNull();
    expect(result.actions).toEqual([{ type: 'click', x: 100, y: 200, button: 'left' }]);
  });

  it('accepts the full-width colon', () => {
    const result = ok(parseUiTarsReply("Thought：打开菜单\nAction：click(start_box='(100,200)')", relative));
    expect(result.thought).toBe('打开菜单');
    expect(result.actions).toHaveLength(1);
  });

  it('keeps a multi-line thought', () => {
    const result = ok(parseUiTarsReply("Thought: line one\nline two\n\nAction: wait()", relative));
    expect(result.thought).toBe('line one\nline two');
  });

  it('reads Reflection and Action_Summary as extras; the summary is the thought without Thought', () => {
    const result = ok(
      parseUiTarsReply(
        "Reflection: The last click missed.\nAction_Summary: Click the Save button.\nAction: click(start_box='(10,20)')",
        relative,
      ),
    );
    expect(result.reflection).toBe('The last click missed.');
    expect(result.actionSummary).toBe('Click the Save button.');
    expect(result.thought).toBe('Click the Save button.');
  });

  it('prefers Thought over Action_Summary for the thought', () => {
    const result = ok(parseUiTarsReply('Thought: t\nAction_Summary: s\nAction: wait()', relative));
    expect(result.thought).toBe('t');
    expect(result.actionSummary).toBe('s');
  });

  it('uses a <think> block as the thought when there is no Thought section', () => {
    const result = ok(parseUiTarsReply('<think>reasoning here</think>\nAction: wait()', relative));
    expect(result.thought).toBe('reasoning here');
  });

  it('reads several actions separated by blank lines', () => {
    const actions = actionsOf("Thought: t\nAction: click(start_box='(1,2)')\n\ntype(content='abc')\n\nhotkey(key='enter')");
    expect(actions.map((a) => a.type)).toEqual(['click', 'type', 'hotkey']);
  });

  it('also reads actions on consecutive lines, and CRLF line ends', () => {
    const actions = actionsOf("Thought: t\r\nAction: click(start_box='(1,2)')\r\ntype(content='abc')\r\n");
    expect(actions.map((a) => a.type)).toEqual(['click', 'type']);
  });

  it('accepts a bare call without sections', () => {
    expect(actionsOf("click(start_box='(1,2)')")).toEqual([{ type: 'click', x: 1, y: 2, button: 'left' }]);
  });

  it('ignores code fences around the actions', () => {
    expect(actionsOf("Thought: t\nAction:\n```python\nclick(start_box='(1,2)')\n```")).toHaveLength(1);
  });

  it('finds an Action header that shares the line of the thought', () => {
    const result = ok(parseUiTarsReply("Thought: click it. Action: click(start_box='(1,2)')", relative));
    expect(result.thought).toBe('click it.');
    expect(result.actions).toEqual([{ type: 'click', x: 1, y: 2, button: 'left' }]);
  });

  it('does not take Action_Summary for an Action header', () => {
    expect(reasonOf('Action_Summary: click the button')).toBe('no action in the reply');
  });

  it('has a null thought when there is none', () => {
    expect(ok(parseUiTarsReply('Action: wait()', relative)).thought).toBeNull();
  });
});

describe('ui-tars points', () => {
  it.each([
    ["'(100,200)'", { x: 100, y: 200 }],
    ["'(100, 200)'", { x: 100, y: 200 }],
    ["'(100,200,300,400)'", { x: 200, y: 300 }],
    ["'<|box_start|>(100,200)<|box_end|>'", { x: 100, y: 200 }],
    ["'<|box_start|>(100,200,300,400)<|box_end|>'", { x: 200, y: 300 }],
    ["'<point>100 200</point>'", { x: 100, y: 200 }],
    ["'<bbox>100 200 300 400</bbox>'", { x: 200, y: 300 }],
    ["'[100,200,300,400]'", { x: 200, y: 300 }],
    ['"(100,200)"', { x: 100, y: 200 }],
    ['(100,200)', { x: 100, y: 200 }],
    ['<|box_start|>(100,200)<|box_end|>', { x: 100, y: 200 }],
    ['<point>100 200</point>', { x: 100, y: 200 }],
    ['[100,200,300,400]', { x: 200, y: 300 }],
  ])('start_box=%s', (box, point) => {
    expect(actionsOf(`Action: click(start_box=${box})`)).toEqual([{ type: 'click', ...point, button: 'left' }]);
  });

  it.each(['point', 'start_point'])('%s= is a synonym of start_box', (name) => {
    expect(actionsOf(`Action: click(${name}='<point>100 200</point>')`)).toEqual([
      { type: 'click', x: 100, y: 200, button: 'left' },
    ]);
  });

  it('accepts a positional point', () => {
    expect(actionsOf("Action: click('(100,200)')")).toEqual([{ type: 'click', x: 100, y: 200, button: 'left' }]);
    expect(actionsOf('Action: click(100, 200)')).toEqual([{ type: 'click', x: 100, y: 200, button: 'left' }]);
  });

  it('reads decimals', () => {
    expect(readUiTarsPoint('(10.5,20.25)')).toEqual({ ok: true, point: { x: 10.5, y: 20.25 } });
  });

  it('refuses what is not a point or a box', () => {
    expect(readUiTarsPoint('(1,2,3)')).toEqual({ ok: false, reason: 'cannot read the point "(1,2,3)"' });
    expect(readUiTarsPoint('the button')).toEqual({ ok: false, reason: 'cannot read the point "the button"' });
    expect(reasonOf("Action: click(start_box='here')")).toBe('cannot read the point "here"');
  });
});

describe('ui-tars coordinates', () => {
  it('1.0 without an image stays in the 0–1000 space', () => {
    expect(actionsOf("Action: click(start_box='(500,250)')")).toEqual([{ type: 'click', x: 500, y: 250, button: 'left' }]);
  });

  it('1.0 maps 0–1000 onto the image and rounds to whole pixels', () => {
    const options: UiTarsOptions = { version: '1.0', image: { width: 1920, height: 1080 } };
    expect(actionsOf("Action: click(start_box='(500,500)')", options)).toEqual([
      { type: 'click', x: 960, y: 540, button: 'left' },
    ]);
    expect(actionsOf("Action: click(start_box='(333,333)')", options)).toEqual([
      { type: 'click', x: 639, y: 360, button: 'left' },
    ]);
    expect(actionsOf("Action: click(start_box='(1000,1000)')", options)).toEqual([
      { type: 'click', x: 1920, y: 1080, button: 'left' },
    ]);
  });

  it('1.0 maps a box centre', () => {
    const options: UiTarsOptions = { version: '1.0', image: { width: 2000, height: 1000 } };
    expect(actionsOf("Action: click(start_box='(100,100,300,300)')", options)).toEqual([
      { type: 'click', x: 400, y: 200, button: 'left' },
    ]);
  });

  it('1.0 refuses coordinates outside 0–1000', () => {
    expect(reasonOf("Action: click(start_box='(1500,20)')")).toBe('coordinates (1500, 20) outside the 1000x1000 relative range');
    expect(reasonOf("Action: click(start_box='(-5,20)')", { version: '1.0', image: { width: 800, height: 600 } })).toBe(
      'coordinates (-5, 20) outside the 1000x1000 relative range',
    );
  });

  it('1.5 keeps absolute pixels of the smart-resized image as written', () => {
    expect(actionsOf("Action: click(start_box='(1500,700)')", v15(1932, 1092))).toEqual([
      { type: 'click', x: 1500, y: 700, button: 'left' },
    ]);
    expect(actionsOf("Action: click(start_box='(101,200,200,300)')", v15(1932, 1092))).toEqual([
      { type: 'click', x: 150.5, y: 250, button: 'left' },
    ]);
  });

  it('1.5 refuses coordinates outside the image', () => {
    expect(reasonOf("Action: click(start_box='(2000,20)')", v15(1932, 1092))).toBe(
      'coordinates (2000, 20) outside the 1932x1092 image',
    );
    expect(reasonOf("Action: drag(start_box='(10,20)', end_box='(10,2000)')", v15(1932, 1092))).toBe(
      'coordinates (10, 2000) outside the 1932x1092 image',
    );
  });

  it('1.5 without an image returns coordinates unchecked, refusing only negative ones', () => {
    expect(actionsOf("Action: click(start_box='(5000,5000)')", { version: '1.5' })).toEqual([
      { type: 'click', x: 5000, y: 5000, button: 'left' },
    ]);
    expect(reasonOf("Action: click(start_box='(-1,5)')", { version: '1.5' })).toBe('coordinates (-1, 5) are negative');
  });
});

describe('UI-TARS-2 (and Doubao) replies: <point>x y</point> on the 0–1000 grid', () => {
  // As the table sets a UI-TARS-2 model up: version 1.0, the 0–1000 grid mapped onto the image.
  const row = knownModel('ByteDance-Seed/UI-TARS-2');
  const options: UiTarsOptions = { version: row?.modelVersion ?? '1.5', image: { width: 1920, height: 1080 } };

  it('the table reads UI-TARS-2 on the 0–1000 grid', () => {
    expect(row).toMatchObject({ family: 'ui-tars', coordinates: 'relative-1000', modelVersion: '1.0' });
  });

  it('reads a reply in the Doubao computer-use format, its <think> block and its thought', () => {
    const reply = "<think>用户想保存文件。“文件”菜单在左上角。</think>\nThought: 我点击左上角的“文件”菜单。\nAction: click(point='<point>21 15</point>')";
    const result = ok(parseUiTarsReply(reply, options));
    expect(result.thought).toBe('我点击左上角的“文件”菜单。');
    expect(result.actions).toEqual([{ type: 'click', x: 40, y: 16, button: 'left' }]);
  });

  it.each<[string, unknown[]]>([
    ["click(point='<point>500 500</point>')", [{ type: 'click', x: 960, y: 540, button: 'left' }]],
    ["left_double(point='<point>500 500</point>')", [{ type: 'double_click', x: 960, y: 540, button: 'left' }]],
    ["right_single(point='<point>250 750</point>')", [{ type: 'click', x: 480, y: 810, button: 'right' }]],
    ["hover(point='<point>0 0</point>')", [{ type: 'mouse_move', x: 0, y: 0 }]],
    ["drag(start_point='<point>100 200</point>', end_point='<point>900 200</point>')", [{ type: 'drag', x: 192, y: 216, toX: 1728, toY: 216, button: 'left' }]],
    ["drag(start_box='<point>100 200</point>', end_box='<point>1000 1000</point>')", [{ type: 'drag', x: 192, y: 216, toX: 1920, toY: 1080, button: 'left' }]],
    ["click(start_box='<point>500 500</point>')", [{ type: 'click', x: 960, y: 540, button: 'left' }]],
    ["scroll(point='<point>500 500</point>', direction='down')", [{ type: 'scroll', x: 960, y: 540, direction: 'down', amount: 5 }]],
    ["hotkey(key='ctrl c')", [{ type: 'hotkey', keys: ['ctrl', 'c'] }]],
    [
      "click(point='<point>500 100</point>')\n\ntype(content='北京天气\\n')",
      [
        { type: 'click', x: 960, y: 108, button: 'left' },
        { type: 'type', text: '北京天气\n' },
      ],
    ],
    ["finished(content='已保存。')", [{ type: 'finished', summary: '已保存。' }]],
  ])('%s', (action, expected) => {
    expect(actionsOf(`Thought: 下一步。\nAction: ${action}`, options)).toEqual(expected);
  });

  it('refuses a point off the grid, in any argument', () => {
    expect(reasonOf("Action: click(point='<point>1000 1001</point>')", options)).toBe('coordinates (1000, 1001) outside the 1000x1000 relative range');
    expect(reasonOf("Action: drag(start_point='<point>10 10</point>', end_point='<point>1200 10</point>')", options)).toBe('coordinates (1200, 10) outside the 1000x1000 relative range');
  });
});

describe('ui-tars actions', () => {
  it.each([
    ["click(start_box='(1,2)')", { type: 'click', x: 1, y: 2, button: 'left' }],
    ["left_single(start_box='(1,2)')", { type: 'click', x: 1, y: 2, button: 'left' }],
    ["left_double(start_box='(1,2)')", { type: 'double_click', x: 1, y: 2, button: 'left' }],
    ["right_single(start_box='(1,2)')", { type: 'click', x: 1, y: 2, button: 'right' }],
    ["hover(start_box='(1,2)')", { type: 'mouse_move', x: 1, y: 2 }],
    [
      "drag(start_box='(1,2)', end_box='(3,4)')",
      { type: 'drag', x: 1, y: 2, toX: 3, toY: 4, button: 'left' },
    ],
    [
      "drag(start_point='<point>1 2</point>', end_point='<point>3 4</point>')",
      { type: 'drag', x: 1, y: 2, toX: 3, toY: 4, button: 'left' },
    ],
    ["hotkey(key='ctrl c')", { type: 'hotkey', keys: ['ctrl', 'c'] }],
    ["hotkey(key='Ctrl+Shift+T')", { type: 'hotkey', keys: ['ctrl', 'shift', 't'] }],
    ["hotkey(key='enter')", { type: 'hotkey', keys: ['enter'] }],
    ["hotkey(key='ctrl +')", { type: 'hotkey', keys: ['ctrl', '+'] }],
    ["hotkey(key='arrowdown')", { type: 'hotkey', keys: ['down'] }],
    ["press(key='shift')", { type: 'key_down', keys: ['shift'] }],
    ["release(key='shift')", { type: 'key_up', keys: ['shift'] }],
    ["scroll(start_box='(1,2)', direction='down')", { type: 'scroll', x: 1, y: 2, direction: 'down', amount: 5 }],
    ["scroll(start_box='(1,2)', direction='UP')", { type: 'scroll', x: 1, y: 2, direction: 'up', amount: 5 }],
    ["scroll(direction='left')", { type: 'scroll', direction: 'left', amount: 5 }],
    ["scroll(point='<point>5 6</point>', direction='right')", { type: 'scroll', x: 5, y: 6, direction: 'right', amount: 5 }],
    ['wait()', { type: 'wait', ms: 5000 }],
    ["finished(content='All done.')", { type: 'finished', summary: 'All done.' }],
    ['finished()', { type: 'finished', summary: '' }],
    ["call_user(content='Which account?')", { type: 'ask_user', question: 'Which account?' }],
  ])('%s', (call, expected) => {
    expect(actionsOf(`Action: ${call}`)).toEqual([expected]);
  });

  it('call_user asks with the thought, or a default text', () => {
    expect(actionsOf('Thought: I need the password.\nAction: call_user()')).toEqual([
      { type: 'ask_user', question: 'I need the password.' },
    ]);
    expect(actionsOf('Action: call_user()')).toEqual([{ type: 'ask_user', question: UI_TARS_CALL_USER_QUESTION }]);
  });

  it('accepts double quotes and missing quotes', () => {
    expect(actionsOf('Action: hotkey(key="ctrl c")')).toEqual([{ type: 'hotkey', keys: ['ctrl', 'c'] }]);
    expect(actionsOf('Action: hotkey(key=ctrl c)')).toEqual([{ type: 'hotkey', keys: ['ctrl', 'c'] }]);
    expect(actionsOf('Action: scroll(start_box=(1,2), direction=down)')).toEqual([
      { type: 'scroll', x: 1, y: 2, direction: 'down', amount: 5 },
    ]);
    expect(actionsOf('Action: type(content=Hello, world)')).toEqual([{ type: 'type', text: 'Hello, world' }]);
  });
});

describe('ui-tars type content', () => {
  it('unescapes quotes, backslashes and \\n', () => {
    expect(actionsOf(String.raw`Action: type(content='It\'s a \"test\" with a \\ backslash')`)).toEqual([
      { type: 'type', text: 'It\'s a "test" with a \\ backslash' },
    ]);
    expect(actionsOf(String.raw`Action: type(content="say \"hi\"")`)).toEqual([{ type: 'type', text: 'say "hi"' }]);
  });

  it('keeps a trailing \\n, which means Enter', () => {
    expect(actionsOf(String.raw`Action: type(content='hello world\n')`)).toEqual([{ type: 'type', text: 'hello world\n' }]);
    expect(actionsOf(String.raw`Action: type(content='line1\nline2')`)).toEqual([{ type: 'type', text: 'line1\nline2' }]);
  });

  it('keeps a literal backslash-n written as \\\\n', () => {
    expect(actionsOf(String.raw`Action: type(content='C:\\new')`)).toEqual([{ type: 'type', text: 'C:\\new' }]);
  });

  it('reads an unescaped apostrophe inside single quotes', () => {
    expect(actionsOf("Action: type(content='it's here')")).toEqual([{ type: 'type', text: "it's here" }]);
  });

  it('keeps a real newline inside the content', () => {
    expect(actionsOf("Action: type(content='a\nb')\n\nwait()")).toEqual([
      { type: 'type', text: 'a\nb' },
      { type: 'wait', ms: 5000 },
    ]);
  });

  it('keeps commas and parentheses inside quoted content', () => {
    expect(actionsOf("Action: type(content='f(a, b), c')")).toEqual([{ type: 'type', text: 'f(a, b), c' }]);
  });

  it('unescapes finished content too', () => {
    expect(actionsOf(String.raw`Action: finished(content='Saved \'report.txt\'')`)).toEqual([
      { type: 'finished', summary: "Saved 'report.txt'" },
    ]);
  });
});

describe('ui-tars failures', () => {
  it.each([
    ['', 'no action in the reply'],
    ['I am not sure what to do.', 'no action in the reply'],
    ['Thought: just thinking', 'no action in the reply'],
    ['Thought: t\nAction: ', 'no action in the reply'],
    ['Action: foo(x=1)', 'unknown action "foo"'],
    ["Action: long_press(start_box='(1,2)')", 'unknown action "long_press"'],
    ['Action: click()', 'click without a point'],
    ["Action: click(start_box='')", 'click without a point'],
    ['Action: left_double()', 'left_double without a point'],
    ['Action: right_single()', 'right_single without a point'],
    ['Action: hover()', 'hover without a point'],
    ["Action: drag(end_box='(1,2)')", 'drag without a start point'],
    ["Action: drag(start_box='(1,2)')", 'drag without an end point'],
    ['Action: type()', 'type without content'],
    ['Action: hotkey()', 'hotkey without a key'],
    ["Action: hotkey(key='ctrl blah')", 'unknown key "blah"'],
    ["Action: press(key='hyperkey')", 'unknown key "hyperkey"'],
    ["Action: scroll(start_box='(1,2)')", 'scroll without a direction'],
    ["Action: scroll(start_box='(1,2)', direction='sideways')", 'scroll direction "sideways" is not up, down, left or right'],
    ["Action: click(start_box='(1,2)'", `unclosed call "click(start_box='(1,2)'"`],
    ['Action: I will click the button', 'cannot read the action "I will click the button"'],
    ["Action: click(start_box='(1,2)')\n\nnow I am done", 'cannot read the action "now I am done"'],
  ])('%j → %s', (text, reason) => {
    expect(reasonOf(text)).toBe(reason);
  });

  it('fails the whole reply when one of several actions is bad', () => {
    expect(reasonOf("Action: click(start_box='(1,2)')\n\nfoo()")).toBe('unknown action "foo"');
  });

  it('never throws on odd input', () => {
    for (const text of ['Action: (((', "Action: click(start_box='", 'Action: click(=)', '}{', 'Action: ,,,)']) {
      expect(() => parseUiTarsReply(text, relative)).not.toThrow();
      expect(parseUiTarsReply(text, relative).ok).toBe(false);
    }
  });
});

describe('smartResize (Qwen2.5-VL rule of UI-TARS-1.5)', () => {
  it('rounds each side to a multiple of 28', () => {
    expect(smartResize(1920, 1080)).toEqual({ width: 1932, height: 1092 });
    expect(smartResize(1280, 800)).toEqual({ width: 1288, height: 812 });
    expect(smartResize(2560, 1440)).toEqual({ width: 2548, height: 1428 });
    expect(smartResize(1288, 812)).toEqual({ width: 1288, height: 812 });
  });

  it('rounds halves to even, as Python does', () => {
    // 42 / 28 = 1.5 → 2, 70 / 28 = 2.5 → 2 (not 3); with no pixel bounds in the way.
    expect(smartResize(70, 42, { minPixels: 1 })).toEqual({ width: 56, height: 56 });
  });

  it('scales down to stay within maxPixels, keeping the aspect ratio', () => {
    const size = smartResize(8000, 6000);
    expect(size).toEqual({ width: 4116, height: 3080 });
    expect(size.width * size.height).toBeLessThanOrEqual(16384 * 28 * 28);
    expect(smartResize(1920, 1080, { maxPixels: 1280 * 28 * 28 })).toEqual({ width: 1316, height: 728 });
  });

  it('scales up to reach minPixels', () => {
    const size = smartResize(200, 100);
    expect(size.width % 28).toBe(0);
    expect(size.height % 28).toBe(0);
    expect(size.width * size.height).toBeGreaterThanOrEqual(100 * 28 * 28);
    expect(size).toEqual({ width: 420, height: 224 });
  });

  it('takes another factor', () => {
    expect(smartResize(1920, 1080, { factor: 14 })).toEqual({ width: 1918, height: 1078 });
  });

  it('throws for sizes no image has', () => {
    expect(() => smartResize(0, 10)).toThrow(RangeError);
    expect(() => smartResize(10_000, 10)).toThrow(RangeError);
  });

  it('maps a point of the smart-resized image back onto the image sent', () => {
    expect(fromSmartResized({ x: 966, y: 546 }, { width: 1920, height: 1080 })).toEqual({ x: 960, y: 540 });
    expect(fromSmartResized({ x: 0, y: 0 }, { width: 1920, height: 1080 })).toEqual({ x: 0, y: 0 });
  });
});
