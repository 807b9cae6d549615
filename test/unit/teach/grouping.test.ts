/**
 * The grouping of a demonstration's raw input into actions (pure): clicks, double and triple
 * clicks, drags, scrolls with direction and amount, typed text grouped per field, Backspace inside
 * a group, hotkeys, modifiers held on a click, and when each action began (its screenshot).
 */
import { describe, expect, it } from 'vitest';
import { ActionGrouper, DEFAULT_GROUPING, groupActions, type TeachInput } from '../../../src/main/teach/grouping';

const press = (time: number, x: number, y: number, button = 1, modifiers: string[] = []): TeachInput => ({ kind: 'press', button, x, y, time, modifiers });
const release = (time: number, x: number, y: number, button = 1): TeachInput => ({ kind: 'release', button, x, y, time });
const move = (time: number, x: number, y: number): TeachInput => ({ kind: 'motion', x, y, time });
const click = (time: number, x: number, y: number, button = 1): TeachInput[] => [press(time, x, y, button), release(time + 40, x, y, button)];
const typed = (time: number, text: string): TeachInput[] => [...text].map((char, i) => ({ kind: 'text', char, time: time + 30 * i }));
const key = (time: number, ...keys: string[]): TeachInput => ({ kind: 'key', keys, time });
const actions = (inputs: TeachInput[]) => groupActions(inputs).map((grouped) => grouped.action);

describe('groupActions', () => {
  it('a press and release in place is a click, with the button', () => {
    expect(actions([...click(1000, 200, 300), ...click(3000, 50, 60, 3)])).toEqual([
      { type: 'click', x: 200, y: 300, button: 'left' },
      { type: 'click', x: 50, y: 60, button: 'right' },
    ]);
  });

  it('two quick clicks in one place are a double click, three a triple click; slow or apart they stay clicks', () => {
    expect(actions([...click(1000, 200, 300), ...click(1150, 201, 300)])).toEqual([{ type: 'double_click', x: 200, y: 300, button: 'left' }]);
    expect(actions([...click(1000, 200, 300), ...click(1150, 200, 300), ...click(1300, 200, 300)])).toEqual([{ type: 'triple_click', x: 200, y: 300, button: 'left' }]);
    expect(actions([...click(1000, 200, 300), ...click(1000 + 40 + DEFAULT_GROUPING.doubleClickMs + 1, 200, 300)]).map((a) => a.type)).toEqual(['click', 'click']);
    expect(actions([...click(1000, 200, 300), ...click(1150, 260, 300)]).map((a) => a.type)).toEqual(['click', 'click']);
  });

  it('a press, a move and a release elsewhere is a drag from the press to the release', () => {
    expect(actions([press(1000, 100, 100), move(1050, 150, 120), move(1100, 300, 240), release(1150, 300, 240)])).toEqual([
      { type: 'drag', x: 100, y: 100, toX: 300, toY: 240, button: 'left' },
    ]);
  });

  it('a press that wanders and comes back is still a drag; a jitter of a few pixels is a click', () => {
    expect(actions([press(1000, 100, 100), move(1050, 160, 100), release(1100, 102, 100)]).map((a) => a.type)).toEqual(['drag']);
    expect(actions([press(1000, 100, 100), move(1020, 103, 102), release(1040, 103, 102)])).toEqual([{ type: 'click', x: 100, y: 100, button: 'left' }]);
  });

  it('wheel notches add up to one scroll per direction and place; buttons 4-7 are up, down, left, right', () => {
    const notch = (time: number, button: number, x = 400, y = 300): TeachInput[] => [press(time, x, y, button), release(time + 5, x, y, button)];
    expect(actions([...notch(1000, 5), ...notch(1050, 5), ...notch(1100, 5), ...notch(1200, 4), ...notch(1250, 6), ...notch(1300, 7)])).toEqual([
      { type: 'scroll', x: 400, y: 300, direction: 'down', amount: 3 },
      { type: 'scroll', x: 400, y: 300, direction: 'up', amount: 1 },
      { type: 'scroll', x: 400, y: 300, direction: 'left', amount: 1 },
      { type: 'scroll', x: 400, y: 300, direction: 'right', amount: 1 },
    ]);
    // A pause or another place starts a new scroll.
    expect(actions([...notch(1000, 5), ...notch(1000 + DEFAULT_GROUPING.scrollGapMs + 50, 5), ...notch(3000, 5, 800, 300)]).map((a) => a.type === 'scroll' && a.amount)).toEqual([1, 1, 1]);
  });

  it('typed characters are one text per field: a click or a named key ends it', () => {
    const inputs = [...click(1000, 700, 86), ...typed(1200, 'Ada Lovelace'), ...click(3000, 700, 170), ...typed(3200, 'Note G'), key(4000, 'tab'), ...typed(4200, 'x')];
    expect(actions(inputs)).toEqual([
      { type: 'click', x: 700, y: 86, button: 'left' },
      { type: 'type', text: 'Ada Lovelace' },
      { type: 'click', x: 700, y: 170, button: 'left' },
      { type: 'type', text: 'Note G' },
      { type: 'hotkey', keys: ['tab'] },
      { type: 'type', text: 'x' },
    ]);
  });

  it('Backspace takes back the group’s last character; on an empty group it is a key of its own', () => {
    expect(actions([...typed(1000, 'Adx'), key(1200, 'backspace'), ...typed(1300, 'a')])).toEqual([{ type: 'type', text: 'Ada' }]);
    expect(actions([...click(1000, 10, 10), key(1200, 'backspace'), ...typed(1300, 'b')])).toEqual([
      { type: 'click', x: 10, y: 10, button: 'left' },
      { type: 'hotkey', keys: ['backspace'] },
      { type: 'type', text: 'b' },
    ]);
    // Typed and all taken back: nothing.
    expect(actions([...typed(1000, 'ab'), key(1100, 'backspace'), key(1150, 'backspace'), key(1200, 'enter')])).toEqual([{ type: 'hotkey', keys: ['enter'] }]);
  });

  it('Enter, Escape and shortcuts are hotkeys; a shortcut ends the text before it', () => {
    expect(actions([...typed(1000, 'abc'), key(1200, 'ctrl', 'a'), key(1300, 'enter'), key(1400, 'escape')])).toEqual([
      { type: 'type', text: 'abc' },
      { type: 'hotkey', keys: ['ctrl', 'a'] },
      { type: 'hotkey', keys: ['enter'] },
      { type: 'hotkey', keys: ['escape'] },
    ]);
  });

  it('a click keeps the modifiers held at its press', () => {
    expect(actions([press(1000, 5, 6, 1, ['ctrl', 'shift']), release(1040, 5, 6)])).toEqual([{ type: 'click', x: 5, y: 6, button: 'left', modifiers: ['ctrl', 'shift'] }]);
  });

  it('each action says when it began: a text at its first key, a double click at its first press', () => {
    const grouped = groupActions([...click(1000, 700, 86), ...click(1100, 700, 86), ...typed(2000, 'hello'), key(2600, 'enter')]);
    expect(grouped.map((g) => [g.action.type, g.startedAt, g.endedAt])).toEqual([
      ['double_click', 1000, 1140],
      ['type', 2000, 2120],
      ['hotkey', 2600, 2600],
    ]);
  });
});

describe('ActionGrouper, live', () => {
  it('a click is handed back once the double-click time has passed without a second one', () => {
    const grouper = new ActionGrouper();
    expect(grouper.push(press(1000, 1, 2))).toEqual([]);
    expect(grouper.push(release(1040, 1, 2))).toEqual([]);
    expect(grouper.tick(1040 + DEFAULT_GROUPING.doubleClickMs)).toEqual([]);
    expect(grouper.tick(1040 + DEFAULT_GROUPING.doubleClickMs + 1).map((g) => g.action.type)).toEqual(['click']);
    expect(grouper.openSince).toBeNull();
  });

  it('while a text is open, it says since when (its screenshot is kept until it ends)', () => {
    const grouper = new ActionGrouper();
    for (const input of typed(5000, 'abc')) grouper.push(input);
    expect(grouper.openSince).toBe(5000);
    expect(grouper.tick(60_000)).toEqual([]);
    expect(grouper.flush().map((g) => g.action)).toEqual([{ type: 'type', text: 'abc' }]);
    expect(grouper.openSince).toBeNull();
  });
});
