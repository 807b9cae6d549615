import { describe, expect, it } from 'vitest';
import { ACTION_TYPES, parseAction } from '../../../src/shared/actions';
import { normalizeKey } from '../../../src/shared/keys';

describe('key names in the spellings models use', () => {
  const cases: Array<[string, string]> = [
    ['enter', 'enter'],
    ['Return', 'enter'],
    ['esc', 'escape'],
    ['Escape', 'escape'],
    ['pagedown', 'pagedown'],
    ['page_down', 'pagedown'],
    ['PgDn', 'pagedown'],
    ['left', 'left'],
    ['ArrowLeft', 'left'],
    ['ctrl', 'ctrl'],
    ['Control', 'ctrl'],
    ['cmd', 'cmd'],
    ['command', 'cmd'],
    ['meta', 'meta'],
    ['super', 'meta'],
    ['win', 'meta'],
    ['alt', 'alt'],
    ['option', 'alt'],
    ['backspace', 'backspace'],
    ['delete', 'delete'],
    ['del', 'delete'],
    ['tab', 'tab'],
    ['space', 'space'],
    [' ', 'space'],
    ['home', 'home'],
    ['end', 'end'],
    ['insert', 'insert'],
    ['F1', 'f1'],
    ['f12', 'f12'],
    ['F24', 'f24'],
    ['printscreen', 'printscreen'],
    ['PrtSc', 'printscreen'],
    ['capslock', 'capslock'],
    ['Caps_Lock', 'capslock'],
    ['a', 'a'],
    ['A', 'a'],
    ['7', '7'],
    ['!', '!'],
    ['/', '/'],
  ];
  for (const [raw, canonical] of cases) {
    it(`${JSON.stringify(raw)} → ${canonical}`, () => expect(normalizeKey(raw)).toEqual({ ok: true, key: canonical }));
  }
  it('an unknown key is an error that names it', () => {
    expect(normalizeKey('hyperdrive')).toEqual({ ok: false, message: 'unknown key "hyperdrive"' });
    expect(normalizeKey('f25')).toEqual({ ok: false, message: 'unknown key "f25"' });
  });
});

describe('the action wire format', () => {
  it('parses every action kind with defaults', () => {
    const samples = [
      { type: 'click', x: 1, y: 2 },
      { type: 'click', x: 1, y: 2, button: 'right', modifiers: ['Shift'] },
      { type: 'double_click', x: 1, y: 2 },
      { type: 'triple_click', x: 1, y: 2 },
      { type: 'mouse_move', x: 1, y: 2 },
      { type: 'mouse_down', x: 1, y: 2, button: 'middle' },
      { type: 'mouse_up', x: 1, y: 2 },
      { type: 'drag', x: 1, y: 2, toX: 3, toY: 4 },
      { type: 'drag', path: [{ x: 1, y: 2 }, { x: 3, y: 4 }, { x: 5, y: 6 }] },
      { type: 'scroll', x: 1, y: 2, direction: 'down', amount: 3 },
      { type: 'type', text: 'héllo\n世界 🎉' },
      { type: 'hotkey', keys: ['ctrl', 'shift', 't'] },
      { type: 'key_down', keys: ['shift'] },
      { type: 'key_up', keys: ['shift'] },
      { type: 'wait', ms: 10 },
      { type: 'screenshot' },
      { type: 'zoom', x: 1, y: 2, toX: 30, toY: 40 },
      { type: 'finished', summary: 'done' },
      { type: 'ask_user', question: 'which file?' },
      { type: 'fail', reason: 'no such app' },
      { type: 'query_long_term_memory', hint: "the user's favourite editor" },
      { type: 'save_fact', keyword: 'preferred-editor', description: "The user's preferred editor", value: 'Vim' },
      { type: 'run_workflow', name: 'invoice', params: { supplier: 'ACME' } },
      { type: 'click_element', n: 3 },
      { type: 'type_into', n: 4, text: 'Ada' },
    ];
    const seen = new Set<string>();
    for (const sample of samples) {
      const parsed = parseAction(sample);
      expect(parsed, JSON.stringify(sample)).toMatchObject({ ok: true, action: { type: sample.type } });
      seen.add(sample.type);
    }
    expect([...seen].sort()).toEqual([...ACTION_TYPES].sort());
  });

  it('fills defaults and canonicalises keys', () => {
    expect(parseAction({ type: 'click', x: 5, y: 6 })).toEqual({ ok: true, action: { type: 'click', x: 5, y: 6, button: 'left' } });
    expect(parseAction({ type: 'hotkey', keys: ['Control', 'Return'] })).toEqual({
      ok: true,
      action: { type: 'hotkey', keys: ['ctrl', 'enter'] },
    });
  });

  it('names the problem in bad input', () => {
    const bad: Array<[unknown, RegExp]> = [
      [null, /JSON object/],
      [[1], /JSON object/],
      [{ x: 1 }, /no "type"/],
      [{ type: 'teleport' }, /unknown action type "teleport"/],
      [{ type: 'click', y: 1 }, /x: missing required field/],
      [{ type: 'click', x: '1', y: 1 }, /x: .*number/i],
      [{ type: 'click', x: 1, y: 1, button: 'side' }, /button/],
      [{ type: 'hotkey', keys: ['ctrl', 'warp'] }, /unknown key "warp"/],
      [{ type: 'hotkey', keys: [] }, /at least one key/],
      [{ type: 'drag', x: 1, y: 1 }, /toX, toY|path/],
      [{ type: 'drag', path: [{ x: 1, y: 1 }] }, /at least two points/],
      [{ type: 'scroll', direction: 'sideways' }, /direction/],
      [{ type: 'type' }, /text: missing required field/],
    ];
    for (const [value, message] of bad) {
      const parsed = parseAction(value);
      expect(parsed.ok, JSON.stringify(value)).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(message);
    }
  });
});
