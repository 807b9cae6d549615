/**
 * Which actions need the user's yes before they run: those the model marks itself (UFO's
 * CONFIRM, `"confirm": true` in the wire format) and those a configurable rule list matches, for
 * example Enter, or any click while a window titled "...Delete..." is in front.
 */
import type { Action } from '../../shared/actions';
import type { ConfirmationRule } from '../../shared/config';
import { normalizeKey } from '../../shared/keys';

export { ConfirmationRuleSchema, type ConfirmationRule } from '../../shared/config';

/** Sensible defaults: nothing beyond what the model asks for. Users add rules in settings. */
export const DEFAULT_CONFIRMATION_RULES: ConfirmationRule[] = [];

export interface ConfirmationNeed {
  reason: string;
}

function canonicalKeys(keys: readonly string[]): string[] {
  return keys.map((key) => {
    const parsed = normalizeKey(key);
    return parsed.ok ? parsed.key : key.toLowerCase();
  });
}

/** The plain action an element action is (a rule about clicks or typing holds for them too). */
const PLAIN_TYPE_OF: Partial<Record<Action['type'], Action['type']>> = { click_element: 'click', type_into: 'type' };

function ruleMatches(rule: ConfirmationRule, action: Action, windowTitle: string | undefined): boolean {
  const plain = PLAIN_TYPE_OF[action.type];
  if (rule.types && !rule.types.includes(action.type) && !(plain !== undefined && rule.types.includes(plain))) return false;
  if (rule.keys) {
    const wanted = canonicalKeys(rule.keys);
    if (action.type === 'hotkey' || action.type === 'key_down') {
      if (!wanted.every((key) => action.keys.includes(key))) return false;
    } else if (action.type === 'type' || action.type === 'type_into') {
      // Typed text ending a line presses Enter.
      if (!(wanted.length === 1 && wanted[0] === 'enter' && /\n/.test(action.text))) return false;
    } else return false;
  }
  if (rule.textMatches !== undefined) {
    if ((action.type !== 'type' && action.type !== 'type_into') || !new RegExp(rule.textMatches, 'i').test(action.text)) return false;
  }
  if (rule.windowTitleContains !== undefined) {
    if (!windowTitle?.toLowerCase().includes(rule.windowTitleContains.toLowerCase())) return false;
  }
  return true;
}

/** Whether `action` needs confirmation, and why; `windowTitle` is the focused window's. */
export function confirmationNeeded(action: Action, rules: readonly ConfirmationRule[], windowTitle: string | undefined): ConfirmationNeed | undefined {
  if (action.confirm) return { reason: 'the model asked for confirmation before this action' };
  const rule = rules.find((candidate) => ruleMatches(candidate, action, windowTitle));
  if (!rule) return undefined;
  return { reason: rule.reason ?? 'a confirmation rule matches this action' };
}

/** True when a rule list could need the window title (so it is looked up only then). */
export function rulesUseWindowTitle(rules: readonly ConfirmationRule[]): boolean {
  return rules.some((rule) => rule.windowTitleContains !== undefined);
}

/** "yes", "y", "ok", "confirm", ... */
export function isAffirmative(answer: string | null): boolean {
  return answer !== null && /^\s*(y|yes|ok|okay|confirm|confirmed|allow|go|go ahead|sure|proceed)\s*[.!]?\s*$/i.test(answer);
}
