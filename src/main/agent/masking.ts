/**
 * Keeps secrets out of the record: text typed into a field the model calls a password (in its
 * thought, or with `"secret": true` on the action) is replaced by a mask in every event, in the
 * history sent back to the model, and in the stored raw reply.
 */
import type { Action } from '../../shared/actions';

export const MASK = '********';

const SECRET_WORDS = /\b(pass(?:word|wd|code|phrase)?|pin(?:\s*code)?|secret|otp|one[- ]time code|2fa code|security code|cvv|cvc)\b/i;

/** Does the model's own wording say the typed text is a secret? */
export function isSecretTyping(action: Action, thought: string | null): boolean {
  if (action.type !== 'type' || action.text.length === 0) return false;
  if (action.secret === true) return true;
  return thought !== null && SECRET_WORDS.test(thought);
}

/** The action as it may be recorded. */
export function maskAction(action: Action): Action {
  return action.type === 'type' ? { ...action, text: MASK } : action;
}

/** Replaces every occurrence of each secret in `text` (a raw reply, a result message). */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    masked = masked.split(secret).join(MASK);
    // The raw reply may hold the secret JSON-escaped.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) masked = masked.split(escaped).join(MASK);
  }
  return masked;
}
