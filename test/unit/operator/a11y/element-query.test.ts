/**
 * The questions asked of a snapshot, as pure functions: the element under a point, the element a
 * "role:name" query names, an element's box on the model's image; and refs read back.
 */
import { describe, expect, it } from 'vitest';
import type { Element } from '../../../../src/shared/elements';
import type { Frame } from '../../../../src/shared/frame';
import { elementAt, findElements, imageBoundsOf, parseFindQuery } from '../../../../src/main/operator/a11y/element-query';
import { addressOfRef, refOf } from '../../../../src/main/operator/a11y/snapshot';
import { hasState, stateNames } from '../../../../src/main/operator/a11y/atspi-constants';

let next = 1;
function element(role: string, name: string, bounds: Element['bounds'], interactive = true): Element {
  const n = next++;
  return { n, ref: `:1.5/${n}`, role, name, states: [], bounds, interactive };
}

const toolbar = element('tool bar', 'Main', { x: 0, y: 0, width: 800, height: 40 }, false);
const save = element('push button', 'Save', { x: 10, y: 5, width: 60, height: 30 });
const saveAs = element('push button', 'Save as…', { x: 80, y: 5, width: 80, height: 30 });
const heading = element('heading', 'Save your work', { x: 10, y: 60, width: 300, height: 30 }, false);
const user = element('entry', 'User name', { x: 10, y: 100, width: 200, height: 24 });
const elements = [toolbar, save, saveAs, heading, user];

describe('parseFindQuery', () => {
  it('splits at the first colon: roles hold spaces, names may hold colons', () => {
    expect(parseFindQuery('push button:Submit')).toEqual({ ok: true, query: { role: 'push button', name: 'Submit' } });
    expect(parseFindQuery('link:Time: 10:30')).toEqual({ ok: true, query: { role: 'link', name: 'Time: 10:30' } });
    expect(parseFindQuery(':OK')).toEqual({ ok: true, query: { role: '', name: 'OK' } });
    expect(parseFindQuery('OK')).toEqual({ ok: true, query: { role: '', name: 'OK' } });
    expect(parseFindQuery('entry:')).toEqual({ ok: true, query: { role: 'entry', name: '' } });
    expect(parseFindQuery(' : ')).toMatchObject({ ok: false, message: expect.stringContaining('role:name') });
  });
});

describe('findElements', () => {
  it('puts an equal name before one that only contains it, case and spacing aside', () => {
    expect(findElements(elements, { role: 'push button', name: 'save' })).toEqual([save, saveAs]);
    expect(findElements(elements, { role: '', name: '  USER   name ' })).toEqual([user]);
  });

  it('puts an interactive element before text with the same match', () => {
    expect(findElements(elements, { role: '', name: 'save' }).map((found) => found.n)).toEqual([save.n, saveAs.n, heading.n]);
  });

  it('a role alone finds that role in reading order; nothing matching is an empty list', () => {
    expect(findElements(elements, { role: 'Push Button', name: '' })).toEqual([save, saveAs]);
    expect(findElements(elements, { role: 'check box', name: 'Save' })).toEqual([]);
  });
});

describe('elementAt', () => {
  it('gives the innermost interactive element under the point, else the text under it', () => {
    expect(elementAt(elements, { x: 20, y: 10 })).toBe(save);
    expect(elementAt(elements, { x: 500, y: 10 })).toBe(toolbar);
    expect(elementAt(elements, { x: 20, y: 70 })).toBe(heading);
  });

  it('edges: the left and top belong to a box, the right and bottom do not', () => {
    expect(elementAt(elements, { x: 10, y: 5 })).toBe(save);
    expect(elementAt(elements, { x: 70, y: 20 })).toBe(toolbar);
    expect(elementAt(elements, { x: 900, y: 500 })).toBeUndefined();
  });
});

describe('imageBoundsOf', () => {
  const frame = (x: number, width: number, height: number, image: { width: number; height: number }): Frame => ({
    displayId: '0',
    bounds: { x, y: 0, width, height },
    scaleFactor: 1,
    captured: { width, height },
    image: { ...image, format: 'jpeg' },
  });

  it('scales a screen box onto the image, rounded outwards', () => {
    const full = frame(0, 1920, 1080, { width: 1280, height: 720 });
    expect(imageBoundsOf({ x: 300, y: 150, width: 150, height: 45 }, full)).toEqual({ x: 200, y: 100, width: 100, height: 30 });
    expect(imageBoundsOf({ x: 1, y: 1, width: 1, height: 1 }, full)).toEqual({ x: 0, y: 0, width: 2, height: 2 });
  });

  it('is relative to the display the frame covers, clipped to it; off it, none', () => {
    const second = frame(1280, 1280, 800, { width: 1280, height: 800 });
    expect(imageBoundsOf({ x: 1300, y: 10, width: 50, height: 20 }, second)).toEqual({ x: 20, y: 10, width: 50, height: 20 });
    expect(imageBoundsOf({ x: 1260, y: 10, width: 50, height: 20 }, second)).toEqual({ x: 0, y: 10, width: 30, height: 20 });
    expect(imageBoundsOf({ x: 100, y: 10, width: 50, height: 20 }, second)).toBeUndefined();
  });
});

describe('refs and states', () => {
  it('a ref names the application and the object, the usual path shortened, and reads back', () => {
    const usual = { app: ':1.42', path: '/org/a11y/atspi/accessible/137' };
    const other = { app: ':1.7', path: '/com/example/Widget/3' };
    expect(refOf(usual)).toBe(':1.42/137');
    expect(addressOfRef(refOf(usual))).toEqual(usual);
    expect(addressOfRef(refOf(other))).toEqual(other);
    expect(addressOfRef('e12')).toBeUndefined();
    expect(addressOfRef(':1.42/')).toBeUndefined();
  });

  it('state words read bit by bit, the ones every element has left unsaid', () => {
    // focusable (11), focused (12), showing (25), visible (30); checkable (41) in the second word.
    const words = [(1 << 11) | (1 << 12) | (1 << 25) | (1 << 30), 1 << 9];
    expect(hasState(words, 41)).toBe(true);
    expect(hasState(words, 4)).toBe(false);
    expect(stateNames(words)).toEqual(['focusable', 'focused', 'checkable']);
  });
});
