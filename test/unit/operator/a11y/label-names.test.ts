/**
 * Unnamed fields named from the label beside them (zenity --forms lays a label left of each entry
 * and ties neither): the label on the field's row to its left, else the one just above; a field
 * with a name of its own, or with no label near, keeps what the tree said.
 */
import { describe, expect, it } from 'vitest';
import type { Element } from '../../../../src/shared/elements';
import { nameFromLabels, ownName } from '../../../../src/main/operator/a11y/label-names';

let next = 1;
function element(role: string, name: string, bounds: Element['bounds'], interactive: boolean): Element {
  const n = next++;
  return { n, ref: `:1.0/${n}`, role, name, states: [], bounds, interactive };
}

describe('nameFromLabels', () => {
  // As zenity --forms lays them out at 1280x800 (read from its tree).
  const fullNameLabel = element('label', 'Full name', { x: 505, y: 255, width: 64, height: 34 }, false);
  const fullName = element('text', '', { x: 579, y: 255, width: 204, height: 34 }, true);
  const emailLabel = element('label', 'Email', { x: 505, y: 295, width: 37, height: 34 }, false);
  const email = element('text', '', { x: 579, y: 295, width: 204, height: 34 }, true);
  const birthdayLabel = element('label', 'Birthday', { x: 505, y: 375, width: 55, height: 156 }, false);
  const calendar = element('calendar', '', { x: 579, y: 375, width: 204, height: 156 }, true);
  const ok = element('push button', 'OK', { x: 704, y: 580, width: 86, height: 34 }, true);

  it('gives each unnamed field the label on its row, to its left, and says the name is from a label', () => {
    const named = nameFromLabels([fullNameLabel, fullName, emailLabel, email, birthdayLabel, calendar, ok]);
    expect(named.map((item) => `${item.role}:${item.name}${item.nameFrom ? ` (${item.nameFrom})` : ''}`)).toEqual([
      'label:Full name',
      'text:Full name (label)',
      'label:Email',
      'text:Email (label)',
      'label:Birthday',
      'calendar:Birthday (label)',
      'push button:OK',
    ]);
    // The tree's own name is what a ref is checked against.
    expect(ownName(named[1] as Element)).toBe('');
    expect(ownName(ok)).toBe('OK');
  });

  it('takes the label just above a field where none is on its row', () => {
    const above = element('label', 'Comment', { x: 20, y: 100, width: 80, height: 18 }, false);
    const field = element('entry', '', { x: 20, y: 122, width: 300, height: 28 }, true);
    expect(nameFromLabels([above, field])[1]).toMatchObject({ name: 'Comment', nameFrom: 'label' });
  });

  it('leaves a field alone that has a name, or no label near it, or a label on its right', () => {
    const named = element('entry', 'Search', { x: 579, y: 255, width: 204, height: 34 }, true);
    const far = element('text', '', { x: 900, y: 700, width: 200, height: 30 }, true);
    const right = element('label', 'after', { x: 1110, y: 700, width: 40, height: 30 }, false);
    const result = nameFromLabels([fullNameLabel, named, far, right]);
    expect(result[1]).toEqual(named);
    expect(result[2]).toEqual(far);
    expect(result[2]).not.toHaveProperty('nameFrom');
  });

  it('never names a label or other text from another label', () => {
    const heading = element('heading', '', { x: 579, y: 255, width: 204, height: 34 }, false);
    expect(nameFromLabels([fullNameLabel, heading])[1]).toEqual(heading);
  });
});
