/**
 * The one fold from a run's events to its totals: how many steps finished and what they spent.
 * The run lifecycle folds what it emits (each step-finished's `costUsd`, the run-finished usage),
 * the recorder what it records (session.json's totals, the ending written on a full disk), the
 * store a running or interrupted session's record (`mnemo sessions`, History), the terminal view
 * and the window what they receive: the same function everywhere, so they cannot disagree.
 *
 * A step's own usage is on its step-finished event. Records made before it was kept have none
 * there: their tokens are the step's prediction's and their cost the run's cost so far, which
 * step-finished carried then as now; a failed model call's tokens were counted only in the
 * run-finished usage, which is taken whole when it comes.
 */
import { sumUsage, ZERO_USAGE, type AgentEvent, type UsageSummary } from './events';

export interface RunTotals {
  /** The highest step that finished (the run-finished count once the run ended). */
  steps: number;
  /** Tokens and cost of the finished steps (of the run, once it ended). */
  usage: UsageSummary;
  /** The time of the latest event folded, or null before the first. */
  lastEventAt: number | null;
  /** Older records only: the tokens of the step predicted last, until its step-finished comes. */
  predicted: { step: number; inputTokens: number; outputTokens: number } | null;
}

export const NO_TOTALS: RunTotals = Object.freeze({ steps: 0, usage: ZERO_USAGE, lastEventAt: null, predicted: null });

/** The totals after one more event (a new object; the one given is not changed). */
export function addToTotals(totals: RunTotals, event: AgentEvent): RunTotals {
  const lastEventAt = Math.max(totals.lastEventAt ?? event.at, event.at);
  switch (event.type) {
    case 'prediction':
      return { ...totals, lastEventAt, predicted: { step: event.step, inputTokens: event.usage.inputTokens, outputTokens: event.usage.outputTokens } };
    case 'step-finished': {
      const steps = Math.max(totals.steps, event.step);
      if (event.usage) return { steps, usage: sumUsage(totals.usage, event.usage), lastEventAt, predicted: null };
      const tokens = totals.predicted?.step === event.step ? totals.predicted : { inputTokens: 0, outputTokens: 0 };
      const usage = { inputTokens: totals.usage.inputTokens + tokens.inputTokens, outputTokens: totals.usage.outputTokens + tokens.outputTokens, costUsd: event.costUsd };
      return { steps, usage, lastEventAt, predicted: null };
    }
    case 'run-finished':
      return { steps: event.steps, usage: { ...event.usage }, lastEventAt, predicted: null };
    default:
      return lastEventAt === totals.lastEventAt ? totals : { ...totals, lastEventAt };
  }
}

/** The totals of a sequence of events (a record, a stream caught up). */
export function totalsOf(events: Iterable<AgentEvent>): RunTotals {
  let totals = NO_TOTALS;
  for (const event of events) totals = addToTotals(totals, event);
  return totals;
}
