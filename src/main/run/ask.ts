/** Questions a run puts to the user: what the model asks, confirmations and safety checks. */
import type { Action } from '../../shared/actions';
import type { AskKind } from '../../shared/events';

export interface AskRequest {
  kind: AskKind;
  question: string;
  /** The action a confirmation or safety check is about (masked). */
  action?: Action;
}

/** A question as the user sees it: `id` is the `seq` of its ask-user event. */
export interface PendingQuestion extends AskRequest {
  id: number;
}

/** Asks the user; resolves to the answer, or null when nobody can or will answer. */
export type AskUser = (request: PendingQuestion, signal: AbortSignal) => Promise<string | null>;

/** Nobody to ask (a non-interactive run): every question goes unanswered. */
export const NOBODY_ASKS: AskUser = async () => null;
