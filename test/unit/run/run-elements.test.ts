/**
 * RunElements on a tree of values (the desktop tests drive it on Chromium): what an element
 * action does when its number is unknown or its element is gone, the element a click hit, and the
 * read-backs (a field's value, a password's length only, a radio button checked).
 */
import { describe, expect, it } from 'vitest';
import type { Action } from '../../../src/shared/actions';
import type { ActionResult } from '../../../src/shared/action-result';
import type { Element, ElementSnapshot } from '../../../src/shared/elements';
import type { Frame } from '../../../src/shared/frame';
import { screenPoint } from '../../../src/shared/actions';
import type { ReadBack } from '../../../src/main/operator/a11y/snapshot';
import { RunElements, type ElementSource } from '../../../src/main/run/elements';

const FRAME: Frame = { displayId: 'screen', bounds: { x: 0, y: 0, width: 1280, height: 800 }, scaleFactor: 1, captured: { width: 1280, height: 800 }, image: { width: 640, height: 400, format: 'jpeg' } };

function element(n: number, role: string, name: string, bounds: Element['bounds'], states: string[] = []): Element {
  return { n, ref: `:1.5/${n}`, role, name, states, bounds, interactive: true };
}

const FIELD = element(1, 'entry', 'Name', { x: 100, y: 100, width: 200, height: 30 }, ['editable', 'focused']);
const SECRET = element(2, 'password text', 'Password', { x: 100, y: 150, width: 200, height: 30 }, ['editable']);
const RADIO = element(3, 'radio button', 'Express', { x: 100, y: 200, width: 20, height: 20 });

/** A tree whose elements hold what `held` says; `gone` refs resolve stale. */
class Tree implements ElementSource {
  held = new Map<string, { value?: string; length?: number; states: string[] }>();
  gone = new Set<string>();
  constructor(readonly elements: Element[]) {
    for (const one of elements) this.held.set(one.ref, { states: one.states, ...(one.role === 'password text' ? { length: 0 } : { value: '' }) });
  }
  snapshot = async () => ({ ok: true as const, snapshot: this.taken() });
  taken(): ElementSnapshot {
    const elements = this.elements.filter((one) => !this.gone.has(one.ref)).map((one) => ({ ...one, states: this.held.get(one.ref)?.states ?? one.states }));
    return { display: ':9', takenAt: 0, elapsedMs: 1, method: 'collection', window: { app: 'form', role: 'frame', name: 'Form', bounds: FRAME.bounds, chosenBy: 'active' }, elements };
  }
  resolve = async (one: Pick<Element, 'ref' | 'role' | 'name'>) => {
    if (this.gone.has(one.ref)) return { ok: false as const, kind: 'stale' as const, message: `the element ${one.role} "${one.name}" (${one.ref}) is stale: it was removed; take a new snapshot` };
    const found = this.elements.find((candidate) => candidate.ref === one.ref) as Element;
    return { ok: true as const, bounds: found.bounds, states: this.held.get(one.ref)?.states ?? [] };
  };
  readBack = async (one: Pick<Element, 'ref' | 'role' | 'name'>): Promise<ReadBack> => {
    const resolved = await this.resolve(one);
    if (!resolved.ok) return resolved;
    const { value, length } = this.held.get(one.ref) ?? {};
    return { ...resolved, ...(value !== undefined ? { value } : {}), ...(length !== undefined ? { length } : {}) };
  };
}

/** The desktop: what each plain action does to the tree (`effect`), and what was done. */
function desktop(effect: (action: Action) => void = () => undefined) {
  const done: Array<{ action: Action; frame: Frame }> = [];
  const act = async (action: Action, frame: Frame): Promise<ActionResult> => {
    done.push({ action, frame });
    effect(action);
    return { ok: true, type: action.type, ...(action.type === 'click' ? { points: [screenPoint({ x: action.x + frame.bounds.x, y: action.y + frame.bounds.y })] } : {}), durationMs: 1 };
  };
  return { act, done };
}

const quick = { readBackMs: 50, pollMs: 5 };

describe('RunElements', () => {
  it('an element action without a list, with a number not in it, or on an element gone: a value, nothing done', async () => {
    const tree = new Tree([FIELD]);
    const elements = new RunElements(tree, quick);
    const { act, done } = desktop();
    expect(await elements.execute({ type: 'click_element', n: 1 }, FRAME, act)).toMatchObject({ ok: false, error: { kind: 'stale_element', message: expect.stringMatching(/no element list for this screen.*look again/) } });
    elements.adopt(tree.taken());
    expect(await elements.execute({ type: 'click_element', n: 9 }, FRAME, act)).toMatchObject({ ok: false, error: { kind: 'invalid_action', message: "there is no element 9 in this step's list (1 to 1)" } });
    tree.gone.add(FIELD.ref);
    expect(await elements.execute({ type: 'click_element', n: 1 }, FRAME, act)).toMatchObject({ ok: false, type: 'click_element', error: { kind: 'stale_element', message: 'element 1 (entry "Name") is stale: it was removed; look again at the next screenshot and its elements before acting on it' } });
    expect(done).toEqual([]);
  });

  it('type_into clicks the centre in screen pixels, selects all, types, and reads the value back; a mismatch says what the field holds', async () => {
    const tree = new Tree([FIELD]);
    const elements = new RunElements(tree, quick);
    elements.adopt(tree.taken());
    const { act, done } = desktop((action) => {
      if (action.type === 'type') tree.held.set(FIELD.ref, { value: action.text.replace('e', ''), states: ['editable', 'focused'] });
    });
    const result = await elements.execute({ type: 'type_into', n: 1, text: 'Ada Lovelace' }, FRAME, act);
    expect(done.map(({ action }) => action)).toEqual([{ type: 'click', x: 199, y: 114, button: 'left' }, { type: 'hotkey', keys: ['ctrl', 'a'] }, { type: 'type', text: 'Ada Lovelace' }]);
    // The click's frame is the screen's own pixels (not the 640x400 image's).
    expect(done[0]?.frame.image).toMatchObject({ width: 1280, height: 800 });
    expect(result).toMatchObject({
      ok: true,
      type: 'type_into',
      points: [{ x: 199, y: 114 }],
      element: { role: 'entry', name: 'Name', n: 1 },
      check: { kind: 'value', ok: false, message: 'entry "Name" holds "Ada Lovlace" after typing "Ada Lovelace": the text did not arrive as typed (a dropped character, an input mask, or it went to another field)' },
      detail: expect.stringMatching(/^typed 12 characters into entry "Name"; read back: /),
    });
    // What the field holds, as a value of its own (what a batch's row keeps as read off the screen).
    expect(result).toMatchObject({ check: { value: 'Ada Lovlace' } });
  });

  it('plain typing into a password field is checked by its length only, counting what it held', async () => {
    const secret = { ...SECRET, states: ['editable', 'focused'] };
    const tree = new Tree([secret]);
    tree.held.set(secret.ref, { length: 3, states: secret.states });
    const elements = new RunElements(tree, quick);
    const { act } = desktop((action) => {
      if (action.type === 'type') tree.held.set(secret.ref, { length: 3 + action.text.length, states: secret.states });
    });
    const result = await elements.execute({ type: 'type', text: 'hunter2' }, FRAME, act);
    expect(result).toMatchObject({ ok: true, element: { role: 'password text', name: 'Password' }, check: { kind: 'length', ok: true, message: 'password text "Password" holds 10 characters, as typed' } });
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(result).toMatchObject({ check: { length: 10 } });
    expect(result.ok && result.check).not.toHaveProperty('value');
  });

  it('a click names the element under it and reads a radio button back as checked', async () => {
    const tree = new Tree([FIELD, RADIO]);
    const elements = new RunElements(tree, quick);
    const { act } = desktop((action) => {
      if (action.type === 'click') tree.held.set(RADIO.ref, { states: ['checked'] });
    });
    // (55, 105) of the 640x400 image is (110, 210) on the 1280x800 screen: inside the radio button.
    const result = await elements.execute({ type: 'click', x: 55, y: 105, button: 'left' }, FRAME, act);
    expect(result).toMatchObject({ ok: true, type: 'click', detail: 'clicked radio button "Express"', element: { role: 'radio button', name: 'Express' }, check: { kind: 'checked', ok: true, message: 'radio button "Express" is checked' } });
    // From one query of the tree, not a step's list: no number.
    expect(result).not.toHaveProperty('element.n');
  });

  it('typing right after a click on a field waits for the tree to move the focus there, then reads the text back', async () => {
    const box = element(4, 'check box', 'Subscribe', { x: 400, y: 100, width: 20, height: 20 }, ['focused']);
    const field = { ...FIELD, states: ['editable'] };
    const tree = new Tree([field, box]);
    // The tree keeps the focus on the box for a few queries after the click on the field.
    let lateBy = 3;
    const focusedBefore = () => (lateBy-- > 0 ? box : { ...field, states: ['editable', 'focused'] });
    const source: ElementSource = { ...tree, snapshot: tree.snapshot, resolve: tree.resolve, readBack: tree.readBack, focused: async () => focusedBefore() };
    const elements = new RunElements(source, { readBackMs: 5_000, pollMs: 1 });
    const { act } = desktop((action) => {
      if (action.type === 'type') tree.held.set(field.ref, { value: action.text, states: field.states });
    });
    // (100, 57) of the 640x400 image is (200, 114) on the screen: inside the field.
    expect(await elements.execute({ type: 'click', x: 100, y: 57, button: 'left' }, FRAME, act)).toMatchObject({ ok: true, element: { role: 'entry', name: 'Name' } });
    const typed = await elements.execute({ type: 'type', text: 'Ada' }, FRAME, act);
    expect(typed).toMatchObject({ ok: true, type: 'type', element: { role: 'entry', name: 'Name' }, check: { kind: 'value', ok: true, message: 'entry "Name" holds "Ada"' } });
    expect(lateBy).toBeLessThan(0);
  });
});
