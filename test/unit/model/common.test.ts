import { describe, expect, it } from 'vitest';
import {
  checkActionInImage,
  defaultUiTarsVersion,
  mapPoint,
  MODEL_FAMILIES,
  parseReply,
  scaleAction,
} from '../../../src/main/model/families';
import { buildAction } from '../../../src/main/model/families/common';

describe('buildAction', () => {
  it('fills defaults and canonicalises keys', () => {
    expect(buildAction({ type: 'hotkey', keys: ['Control', 'Return'] })).toEqual({
      ok: true,
      action: { type: 'hotkey', keys: ['ctrl', 'enter'] },
    });
  });

  it.each([
    [null, 'an action must be a JSON object with a "type" field'],
    [{ x: 1 }, 'an action has no "type" field'],
    [{ type: 'fly' }, 'unknown action "fly"'],
    [{ type: 'triple_click', x: 1 }, 'triple_click without a point'],
    [{ type: 'wait', ms: -1 }, /^invalid wait action: ms: /],
  ])('%j → %s', (raw, reason) => {
    const result = buildAction(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('geometry helpers', () => {
  it('maps a point between image sizes', () => {
    expect(mapPoint({ x: 500, y: 250 }, { width: 1000, height: 1000 }, { width: 1920, height: 1080 })).toEqual({ x: 960, y: 270 });
  });

  it('scales every coordinate of an action', () => {
    const from = { width: 100, height: 100 };
    const to = { width: 200, height: 50 };
    expect(scaleAction({ type: 'click', x: 10, y: 10, button: 'left' }, from, to)).toEqual({
      type: 'click',
      x: 20,
      y: 5,
      button: 'left',
    });
    expect(scaleAction({ type: 'drag', x: 10, y: 10, toX: 20, toY: 20, button: 'left' }, from, to)).toEqual({
      type: 'drag',
      x: 20,
      y: 5,
      toX: 40,
      toY: 10,
      button: 'left',
    });
    expect(
      scaleAction({ type: 'drag', path: [{ x: 10, y: 10 }, { x: 50, y: 50 }], button: 'left' }, from, to),
    ).toEqual({ type: 'drag', path: [{ x: 20, y: 5 }, { x: 100, y: 25 }], button: 'left' });
    expect(scaleAction({ type: 'scroll', direction: 'down', amount: 3 }, from, to)).toEqual({
      type: 'scroll',
      direction: 'down',
      amount: 3,
    });
    expect(scaleAction({ type: 'type', text: 'a' }, from, to)).toEqual({ type: 'type', text: 'a' });
  });

  it('checks an action against the image', () => {
    const image = { width: 100, height: 50 };
    expect(checkActionInImage({ type: 'click', x: 100, y: 50, button: 'left' }, image)).toBeNull();
    expect(checkActionInImage({ type: 'click', x: 101, y: 50, button: 'left' }, image)).toBe(
      'coordinates (101, 50) outside the 100x50 image',
    );
    expect(checkActionInImage({ type: 'hotkey', keys: ['a'] }, image)).toBeNull();
  });
});

describe('parseReply', () => {
  it('knows the families', () => {
    expect(MODEL_FAMILIES).toEqual(['tools', 'ui-tars', 'openai-cua', 'anthropic', 'gemini', 'pyautogui']);
  });

  it('assumes UI-TARS 1.5 with an image and 1.0 without', () => {
    expect(defaultUiTarsVersion({ width: 10, height: 10 })).toBe('1.5');
    expect(defaultUiTarsVersion(undefined)).toBe('1.0');
    expect(parseReply('ui-tars', "Action: click(start_box='(500,500)')", { image: { width: 600, height: 600 } })).toMatchObject({
      ok: true,
      actions: [{ type: 'click', x: 500, y: 500 }],
    });
    expect(parseReply('ui-tars', "Action: click(start_box='(1500,500)')")).toEqual({
      ok: false,
      reason: 'coordinates (1500, 500) outside the 1000x1000 relative range',
    });
  });

  it('dispatches to each family', () => {
    expect(parseReply('tools', '{"type":"wait"}')).toMatchObject({ ok: true, actions: [{ type: 'wait', ms: 1000 }] });
    expect(parseReply('ui-tars', "Action: click(start_box='(10,20)')", { uiTarsVersion: '1.5' })).toMatchObject({
      ok: true,
      actions: [{ type: 'click', x: 10, y: 20 }],
    });
    expect(
      parseReply('ui-tars', "Action: click(start_box='(500,500)')", { uiTarsVersion: '1.0', image: { width: 200, height: 100 } }),
    ).toMatchObject({ ok: true, actions: [{ type: 'click', x: 100, y: 50 }] });
    expect(parseReply('openai-cua', '{"type":"computer_call","call_id":"c","action":{"type":"screenshot"}}')).toMatchObject({
      ok: true,
      actions: [{ type: 'screenshot' }],
    });
  });
});
