/**
 * Keeps secrets out of the record: text typed into a field the model calls a password (in its
 * thought, or with `"secret": true` on the action) is replaced by a mask in every event, in the
 * history sent back to the model, and in the stored raw reply. The secrets of the settings (the
 * API key and the like) are masked in every event too, whole or any piece of 8 characters or more
 * (src/shared/secret-mask.ts). In a demonstration nobody writes a thought: the words read next to
 * the field the user typed into stand for it (src/main/teach/secret-field.ts).
 */
import type { Action } from '../../shared/actions';
import type { ActionSuccess } from '../../shared/action-result';
import type { AgentEvent } from '../../shared/events';

import { MASK } from '../../shared/describe-action';
import { SecretMask, type Redactor } from '../../shared/secret-mask';

export { MASK };

const SECRET_WORDS = /\b(pass(?:word|wd|code|phrase)?|pin(?:\s*code)?|secret|otp|one[- ]time code|2fa code|security code|cvv|cvc)\b/i;

/** Does a text (a thought, the label of a field) speak of a secret: a password, a PIN, a code? */
export function namesASecret(text: string): boolean {
  return SECRET_WORDS.test(text);
}

/** Does the model's own wording say the typed text is a secret? */
export function isSecretTyping(action: Action, thought: string | null): boolean {
  if ((action.type !== 'type' && action.type !== 'type_into') || action.text.length === 0) return false;
  if (action.secret === true) return true;
  return thought !== null && namesASecret(thought);
}

/** The action as it may be recorded. */
export function maskAction(action: Action): Action {
  return action.type === 'type' || action.type === 'type_into' ? { ...action, text: MASK } : action;
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

/**
 * A raw reply for the record: the secret may sit in it JSON-escaped twice (tool-call arguments are
 * a JSON string inside the reply's JSON), and with non-ASCII characters as \u escapes.
 */
export function maskRawReply(raw: string, secrets: readonly string[]): string {
  const escaped = (text: string) => JSON.stringify(text).slice(1, -1);
  const asciiEscaped = (text: string) => escaped(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return maskSecrets(raw, [...new Set(secrets.flatMap((s) => [s, escaped(s), asciiEscaped(s), escaped(asciiEscaped(s))]))]);
}

/** The secrets a run has typed so far and those of its settings, and masking with them. */
export class SecretSet {
  private readonly secrets: string[] = [];

  /** `configured`: the redaction policy (the settings' secrets, masked by pieces wherever they appear). */
  constructor(readonly configured: Redactor = SecretMask.none) {}

  add(secret: string): void {
    if (secret !== '' && !this.secrets.includes(secret)) this.secrets.push(secret);
  }

  get list(): readonly string[] {
    return this.secrets;
  }

  text(text: string): string {
    return this.configured.text(this.secrets.length === 0 ? text : maskSecrets(text, this.secrets));
  }

  rawReply(raw: string): string {
    return this.configured.text(this.secrets.length === 0 ? raw : maskRawReply(raw, this.secrets));
  }

  /**
   * An event about to be recorded or shown: the settings' secrets masked in every string, the
   * typed ones in the texts a typed secret can reach (a thought, an action, an error, a note to
   * the model). Not everywhere: a short PIN must not cut into a screenshot's path.
   */
  event(event: AgentEvent): AgentEvent {
    const configured = this.configured.deep(event);
    return this.secrets.length === 0 ? configured : typedMaskedIn(configured, (text) => maskSecrets(text, this.secrets), (action) => this.action(action));
  }

  /** Characters at the end of a streamed text to hold until the next piece (see SecretMask.heldTail). */
  heldTail(text: string): number {
    return this.configured.heldTail(text);
  }

  /** The action as it may be recorded: typed secrets masked. */
  action(action: Action): Action {
    return (action.type === 'type' || action.type === 'type_into') && this.secrets.includes(action.text) ? maskAction(action) : action;
  }
}

/** A success's words a typed secret can reach: its detail and its read-back (a field's value). */
function maskedSuccess(result: ActionSuccess, text: (text: string) => string): ActionSuccess {
  if (result.detail === undefined && result.check === undefined) return result;
  return {
    ...result,
    ...(result.detail !== undefined ? { detail: text(result.detail) } : {}),
    ...(result.check ? { check: { ...result.check, message: text(result.check.message), ...(result.check.value !== undefined ? { value: text(result.check.value) } : {}) } } : {}),
  };
}

/** The texts of an event a typed secret can reach, masked (`text`: inside a text; `action`: a typed secret's action). */
function typedMaskedIn(event: AgentEvent, text: (text: string) => string, action: (action: Action) => Action): AgentEvent {
  switch (event.type) {
    case 'prediction':
      return { ...event, thought: event.thought === null ? null : text(event.thought), actions: event.actions.map(action) };
    case 'thought-delta':
      return { ...event, delta: text(event.delta) };
    case 'action':
      return { ...event, action: action(event.action) };
    case 'action-result':
      return { ...event, action: action(event.action), result: event.result.ok ? maskedSuccess(event.result, text) : { ...event.result, error: { ...event.result.error, message: text(event.result.error.message) } } };
    case 'ask-user':
      return event.action ? { ...event, action: action(event.action) } : event;
    case 'handed-back':
      return event.note === null ? event : { ...event, note: text(event.note) };
    default:
      return event;
  }
}
