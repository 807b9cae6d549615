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
  // A kind of event counted here is one of COUNTED too (the batch fold passes only those).
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

/** The events that change more than the time of the latest one. */
const COUNTED = new Set<AgentEvent['type']>(['prediction', 'step-finished', 'run-finished']);

/**
 * The totals after a batch of events: what adding them one by one gives, with a new object only
 * where a count changes. A 2,000-step session opened in the window is 22,000 events, and an
 * object for each of them made the collector copy the freshly parsed events along with them.
 */
export function addEventsToTotals(totals: RunTotals, events: readonly AgentEvent[]): RunTotals {
  let counted = totals;
  let lastEventAt = totals.lastEventAt;
  // By index: a fresh page runs this before V8 optimises it, and an iterator allocates a result per event there.
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as AgentEvent;
    // Only the time of the latest event depends on the events before: it is carried apart and set once.
    if (COUNTED.has(event.type)) counted = addToTotals(counted, event);
    lastEventAt = Math.max(lastEventAt ?? event.at, event.at);
  }
  return lastEventAt === counted.lastEventAt ? counted : { ...counted, lastEventAt };
}

/** The totals of a sequence of events (a record, a stream caught up). */
export function totalsOf(events: readonly AgentEvent[]): RunTotals {
  return addEventsToTotals(NO_TOTALS, events);
}
