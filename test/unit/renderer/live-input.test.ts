/**
 * The live view's mapping of the user's mouse and keys to actions in the run's display pixels:
 * the image shown smaller or larger than the display, clicks against drags, wheel notches, keys.
 */
import { describe, expect, it } from 'vitest';
import { parseAction } from '../../../src/shared/actions';
import { keyAction, mergeTyping, pointerAction, toDisplay, wheelAction } from '../../../src/renderer/src/views/run/live-input';

describe('the live view input', () => {
  it('maps a point of the shown image to the display, at 1280x800 and at larger displays', () => {
    expect(toDisplay({ x: 320, y: 200 }, { width: 640, height: 400 }, { width: 1280, height: 800 })).toEqual({ x: 640, y: 400 });
    expect(toDisplay({ x: 480, y: 270 }, { width: 960, height: 540 }, { width: 1920, height: 1080 })).toEqual({ x: 960, y: 540 });
    expect(toDisplay({ x: 100, y: 50 }, { width: 2560, height: 1440 }, { width: 3840, height: 2160 })).toEqual({ x: 150, y: 75 });
    // The far edge is the display's last pixel, never outside it.
    expect(toDisplay({ x: 640, y: 400 }, { width: 640, height: 400 }, { width: 1920, height: 1200 })).toEqual({ x: 1919, y: 1199 });
  });

  it('a press and release in place is a click (double, triple by the click count); moved, a drag', () => {
    expect(pointerAction({ x: 10, y: 10 }, { x: 11, y: 12 }, 'left', 1)).toEqual({ type: 'click', x: 11, y: 12, button: 'left' });
    expect(pointerAction({ x: 10, y: 10 }, { x: 10, y: 10 }, 'left', 2).type).toBe('double_click');
    expect(pointerAction({ x: 10, y: 10 }, { x: 10, y: 10 }, 'right', 3)).toMatchObject({ type: 'triple_click', button: 'right' });
    expect(pointerAction({ x: 10, y: 10 }, { x: 200, y: 40 }, 'left', 1)).toEqual({ type: 'drag', x: 10, y: 10, toX: 200, toY: 40, button: 'left' });
  });

  it('the wheel scrolls by notches in its direction', () => {
    expect(wheelAction({ x: 5, y: 6 }, 0, 100)).toEqual({ type: 'scroll', x: 5, y: 6, direction: 'down', amount: 1 });
    expect(wheelAction({ x: 5, y: 6 }, 0, -300)).toMatchObject({ direction: 'up', amount: 3 });
    expect(wheelAction({ x: 5, y: 6 }, 120, 10)).toMatchObject({ direction: 'right' });
    expect(wheelAction({ x: 5, y: 6 }, 0, 0)).toBeNull();
  });

  it('keys: characters are typed, chords and named keys are hotkeys, a modifier alone waits; all valid actions', () => {
    const press = (key: string, mods: Partial<{ ctrlKey: boolean; altKey: boolean; metaKey: boolean; shiftKey: boolean }> = {}) =>
      keyAction({ key, ctrlKey: false, altKey: false, metaKey: false, shiftKey: false, ...mods });
    expect(press('a')).toEqual({ type: 'type', text: 'a' });
    expect(press('A', { shiftKey: true })).toEqual({ type: 'type', text: 'A' });
    expect(press('é')).toEqual({ type: 'type', text: 'é' });
    expect(press('Enter')).toEqual({ type: 'hotkey', keys: ['enter'] });
    expect(press('a', { ctrlKey: true })).toEqual({ type: 'hotkey', keys: ['ctrl', 'a'] });
    expect(press('Tab', { shiftKey: true })).toEqual({ type: 'hotkey', keys: ['shift', 'tab'] });
    expect(press('ArrowLeft')).toEqual({ type: 'hotkey', keys: ['left'] });
    expect(press('F5')).toEqual({ type: 'hotkey', keys: ['f5'] });
    expect(press('Shift')).toBeNull();
    for (const action of [press('Enter'), press('a', { ctrlKey: true }), press('PageDown'), press('Backspace'), press('Escape')]) expect(parseAction(action).ok).toBe(true);
  });

  it('typing that piles up goes as one text, in order with the rest', () => {
    expect(mergeTyping([{ type: 'type', text: 'A' }, { type: 'type', text: 'da' }, { type: 'hotkey', keys: ['enter'] }, { type: 'type', text: '!' }])).toEqual([
      { type: 'type', text: 'Ada' },
      { type: 'hotkey', keys: ['enter'] },
      { type: 'type', text: '!' },
    ]);
  });
});
