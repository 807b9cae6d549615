/**
 * A memory section of the system prompt, rendered within its token budget: what it shows, what it
 * costs, and what it left out. Every part of memory that outlives a task (the blackboard, the
 * conversation, facts, working memory) reaches the prompt through one of these, so the prompt
 * stays bounded however long Mnemo is used; what does not fit stays in memory and is searched.
 */
import type { PromptSectionName, PromptSectionView } from '../../shared/memory';
import { estimateTextTokens } from './pruning';

/** Tokens each memory section may take in a system prompt (facts: see the fact memory's config). */
export interface PromptBudgets {
  blackboard: number;
  conversation: number;
  workingMemory: number;
}

/**
 * Together with the facts' 600, at most 1,800 tokens of memory besides the layers (bounded on
 * their own): well inside any vision model's context, and small next to the screenshots. The
 * blackboard's 600 hold about ten one-line tasks (the most recent and those a search finds
 * relevant); the conversation's 300 its last messages and the memories that bear on the task
 * (the agent asks long-term memory for more with query_long_term_memory).
 */
export const DEFAULT_PROMPT_BUDGETS: PromptBudgets = { blackboard: 600, conversation: 300, workingMemory: 300 };

/** Tokens a text costs in a prompt: the pruner's estimate, so all budgets speak one measure. */
export function tokensOf(text: string): number {
  return estimateTextTokens(text);
}

/** The section with nothing in it. */
export function emptySection(name: PromptSectionName, budgetTokens: number | null): PromptSectionView {
  return { name, budgetTokens, usedTokens: 0, shown: 0, omitted: 0, leftOut: '', text: '' };
}

/** The text cut to a number of tokens at a line or word boundary, saying that it was cut. */
export function clipToTokens(text: string, budgetTokens: number): { text: string; clipped: boolean } {
  if (tokensOf(text) <= budgetTokens) return { text, clipped: false };
  const note = ' […]';
  const room = Math.max(0, budgetTokens * 3 - note.length);
  const cut = text.slice(0, room);
  const boundary = Math.max(cut.lastIndexOf('\n'), cut.lastIndexOf(' '));
  return { text: `${(boundary > room / 2 ? cut.slice(0, boundary) : cut).trimEnd()}${note}`, clipped: true };
}

/** A section made of one text (working memory, the layers): clipped to the budget when it has one. */
export function textSection(name: PromptSectionName, body: string, budgetTokens: number | null, heading = ''): PromptSectionView {
  if (body.trim() === '') return emptySection(name, budgetTokens);
  const room = budgetTokens === null ? Number.POSITIVE_INFINITY : budgetTokens - (heading ? tokensOf(heading) + 1 : 0);
  const clipped = room === Number.POSITIVE_INFINITY ? { text: body.trim(), clipped: false } : clipToTokens(body.trim(), room);
  const text = heading ? `${heading}\n${clipped.text}` : clipped.text;
  return {
    name,
    budgetTokens,
    usedTokens: tokensOf(text),
    shown: 1,
    omitted: 0,
    leftOut: clipped.clipped ? `the end of the text (${tokensOf(body) - tokensOf(clipped.text)} tokens)` : '',
    text,
  };
}

/** A line for a list entry: whitespace folded, at most `max` characters. */
export function oneLine(text: string, max = 240): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** "1 request, 40 tasks": counts in words (singular, plural), the empty ones left out. */
export function describeCounts(counts: ReadonlyArray<readonly [singular: string, plural: string, count: number]>): string {
  return counts
    .filter(([, , count]) => count > 0)
    .map(([singular, plural, count]) => `${count} ${count === 1 ? singular : plural}`)
    .join(', ');
}

/**
 * Picks entries for a section within a budget, tier by tier: each tier's entries (in its order)
 * while the tokens used so far stay within that tier's limit (and the budget). The first tiers
 * hold what bears most on the task: its own entries, the most recent, what a search found.
 */
export function chooseWithinBudget<T>(costOf: (entry: T) => number, budgetTokens: number, tiers: ReadonlyArray<{ entries: Iterable<T>; limit: number }>): Set<T> {
  const chosen = new Set<T>();
  let used = 0;
  for (const tier of tiers) {
    const limit = Math.min(budgetTokens, tier.limit);
    for (const entry of tier.entries) {
      if (used >= limit) break;
      if (chosen.has(entry)) continue;
      const cost = costOf(entry);
      if (used + cost > limit) continue;
      chosen.add(entry);
      used += cost;
    }
  }
  return chosen;
}
