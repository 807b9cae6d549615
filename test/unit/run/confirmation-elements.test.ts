/**
 * The confirmation rules hold for the element actions as for the plain ones they are: a rule
 * about clicks asks before `click_element`, one about typing (its types, its text, Enter) before
 * `type_into`.
 */
import { describe, expect, it } from 'vitest';
import type { Action } from '../../../src/shared/actions';
import type { ConfirmationRule } from '../../../src/shared/config';
import { confirmationNeeded } from '../../../src/main/run/confirmation';

const ask = (action: Action, rule: ConfirmationRule, title?: string) => confirmationNeeded(action, [rule], title);

describe('confirmation rules and the element actions', () => {
  it('a rule about clicks holds for click_element, one about typing for type_into', () => {
    expect(ask({ type: 'click_element', n: 3 }, { types: ['click'], windowTitleContains: 'Bank', reason: 'a click in the bank' }, 'My Bank')).toEqual({ reason: 'a click in the bank' });
    expect(ask({ type: 'click_element', n: 3 }, { types: ['click'], windowTitleContains: 'Bank' }, 'Notes')).toBeUndefined();
    expect(ask({ type: 'type_into', n: 2, text: 'rm -rf /' }, { textMatches: 'rm -rf', reason: 'a dangerous command' })).toEqual({ reason: 'a dangerous command' });
    expect(ask({ type: 'type_into', n: 2, text: 'send\n' }, { types: ['type'], keys: ['Return'], reason: 'Enter sends' })).toEqual({ reason: 'Enter sends' });
    expect(ask({ type: 'type_into', n: 2, text: 'hello' }, { types: ['click'] })).toBeUndefined();
  });
});
