import { describe, expect, it } from 'vitest';
import { elementListText, elementsPromptOf } from '../../../src/main/model/element-aid';
import type { ModelImage } from '../../../src/main/model/types';
import type { ElementSnapshot } from '../../../src/shared/elements';
import { formSnapshot } from '../../fixtures/elements/form-snapshot';

/** An observation of this size (the list reads only its size). */
const observation = (width: number, height: number): ModelImage => ({ image: Buffer.alloc(0), mime: 'image/jpeg', width, height });
const SENT = observation(1280, 800);

describe('the element list for the prompt', () => {
  it('lists the interactive elements by their snapshot numbers, with role, name, value and key states', () => {
    const text = elementListText(formSnapshot(), { byNumber: true }) ?? '';
    const lines = text.split('\n');
    expect(lines[0]).toContain('"Elements form - Chromium" (Chromium)');
    expect(lines[0]).toContain('click_element {n}');
    expect(lines[0]).toContain('type_into {n, text}');
    expect(lines.slice(1)).toEqual([
      '2. entry "User name" = "alice" (focused)',
      '4. password text "Password"',
      '5. check box "I agree"',
      '6. push button "Submit"',
      '7. link "Need help?"',
    ]);
  });

  it('never says a password field’s value, even when one reached the snapshot', () => {
    const snapshot = formSnapshot();
    const password = snapshot.elements.find((element) => element.role === 'password text');
    if (password) password.value = 'hunter2-secret';
    expect(elementListText(snapshot, { byNumber: true })).not.toContain('hunter2');
  });

  it('says checked and disabled', () => {
    const snapshot = formSnapshot();
    const box = snapshot.elements.find((element) => element.role === 'check box');
    const button = snapshot.elements.find((element) => element.role === 'push button');
    if (box) box.states.push('checked');
    if (button) button.states = ['focusable'];
    const text = elementListText(snapshot, { byNumber: true }) ?? '';
    expect(text).toContain('5. check box "I agree" (checked)');
    expect(text).toContain('6. push button "Submit" (disabled)');
  });

  it('gives a family without element tools each centre in the coordinates it writes', () => {
    const snapshot = formSnapshot({ width: 1920, height: 1080 }, { width: 1280, height: 720 });
    const pixels = elementsPromptOf({ observation: observation(1280, 720), elements: { mode: 'list', snapshot } }, { byNumber: false, frame: { space: 'image', image: { width: 1280, height: 720 } } }) ?? '';
    const button = snapshot.elements.find((element) => element.role === 'push button')?.imageBounds;
    expect(button).toBeDefined();
    const centre = { x: Math.round((button?.x ?? 0) + (button?.width ?? 0) / 2), y: Math.round((button?.y ?? 0) + (button?.height ?? 0) / 2) };
    expect(pixels).toContain(`6. push button "Submit" at (${centre.x}, ${centre.y})`);
    expect(pixels).not.toContain('click_element');
    const relative = elementsPromptOf({ observation: observation(1280, 720), elements: { mode: 'list', snapshot } }, { byNumber: false, frame: { space: 'relative-1000', image: { width: 1280, height: 720 } } }) ?? '';
    expect(relative).toContain(`6. push button "Submit" at (${Math.round((centre.x / 1280) * 1000)}, ${Math.round((centre.y / 720) * 1000)})`);
  });

  it('says the numbers are drawn with marks, and nothing without the aid', () => {
    const snapshot = formSnapshot();
    expect(elementsPromptOf({ observation: SENT, elements: { mode: 'marks', snapshot } }, { byNumber: true })).toContain('numbered on the screenshot');
    expect(elementsPromptOf({ observation: SENT, elements: { mode: 'list', snapshot } }, { byNumber: true })).not.toContain('numbered on the screenshot');
    expect(elementsPromptOf({ observation: SENT }, { byNumber: true })).toBeNull();
  });

  it('gives no point and speaks of no marks when the boxes are not the observation’s (a zoomed region, another size)', () => {
    const snapshot = formSnapshot();
    const frame = { space: 'image' as const, image: { width: 1280, height: 800 } };
    const zoomed = elementsPromptOf({ observation: SENT, zoom: { x: 0, y: 0, toX: 640, toY: 400 }, elements: { mode: 'marks', snapshot } }, { byNumber: false, frame }) ?? '';
    expect(zoomed).toContain('6. push button "Submit"');
    expect(zoomed).not.toMatch(/ at \(/);
    expect(zoomed).not.toContain('numbered on the screenshot');
    const resized = elementsPromptOf({ observation: observation(1024, 640), elements: { mode: 'list', snapshot } }, { byNumber: false, frame }) ?? '';
    expect(resized).not.toMatch(/ at \(/);
  });

  it('stays within its length on a window of thousands of elements, and says how many it left out', () => {
    const base = formSnapshot();
    const elements = Array.from({ length: 3000 }, (_, index) => ({
      n: index + 1,
      ref: `:1.7/${index + 1}`,
      role: 'push button',
      name: `Open ${index + 1}`,
      states: ['enabled', 'focusable'],
      bounds: { x: 10, y: 10 + index * 22, width: 80, height: 20 },
      interactive: true,
    }));
    const snapshot: ElementSnapshot = { ...base, elements, truncated: { reason: 'count', limit: 3000 } };
    const text = elementListText(snapshot, { byNumber: true, maxChars: 2000 }) ?? '';
    const lines = text.split('\n');
    const listed = lines.filter((line) => /^\d+\. /.test(line)).length;
    expect(listed).toBeGreaterThan(10);
    expect(lines.slice(0, -2).join('\n').length).toBeLessThanOrEqual(2000);
    expect(text).toContain(`(${3000 - listed} more not listed`);
    expect(text).toContain('read only in part');
  });

  it('is null for a window with nothing to act on', () => {
    const snapshot = formSnapshot();
    expect(elementListText({ ...snapshot, elements: snapshot.elements.filter((element) => !element.interactive) }, { byNumber: true })).toBeNull();
  });
});
