/**
 * The conversation (tiered memory, seed 004) as it reaches the system prompt, within its budget.
 * The tiers bound themselves by count (ten messages, ten short-term memories), not by size, and
 * long-term memory is not bounded at all; so the section picks, while it fits:
 *
 *   1. the newest messages of the chat context (up to half the budget; a long one is cut);
 *   2. the newest short-term memories (up to 70%);
 *   3. long-term memory (up to 90%): whole when it fits, else the statements a ranked search
 *      finds related to the task, never a list of all of it;
 *   4. the older messages and memories, newest first;
 *
 * and says what it left out. The agent can still ask long-term memory with `query_long_term_memory`.
 */
import type { PromptSectionView } from '../../shared/memory';
import { chooseWithinBudget, clipToTokens, describeCounts, emptySection, tokensOf } from './prompt-section';
import type { TieredMemory } from './tiered';

interface Entry {
  tier: 'context' | 'shortTerm' | 'longTerm';
  text: string;
  /** Position in its tier (older first). */
  position: number;
}

const CONTEXT_SHARE = 0.5;
const SHORT_TERM_SHARE = 0.7;
const LONG_TERM_SHARE = 0.9;
/** A single message takes at most this share of the budget (a pasted document would take it all). */
const MESSAGE_SHARE = 0.25;

export function renderConversationSection(conversation: TieredMemory, task: string, budgetTokens: number): PromptSectionView {
  const messageRoom = Math.max(20, Math.floor(budgetTokens * MESSAGE_SHARE));
  const context: Entry[] = conversation.context.map((message, position) => ({
    tier: 'context',
    position,
    text: `${message.role}${message.kind === 'task' ? ' (task)' : ''}: ${clipToTokens(message.content.replace(/\s+/g, ' ').trim(), messageRoom).text}`,
  }));
  const shortTerm: Entry[] = conversation.shortTerm.map((text, position) => ({ tier: 'shortTerm', position, text }));
  if (context.length === 0 && shortTerm.length === 0 && conversation.longTerm.length === 0) return emptySection('conversation', budgetTokens);
  const heading = `Things you remember about ${conversation.userName}:`;
  const room = Math.max(0, budgetTokens - tokensOf(heading) - 40);
  // A long-term memory that fits its share is shown whole; a larger one is searched.
  const longTermRoom = Math.floor(room * (LONG_TERM_SHARE - SHORT_TERM_SHARE));
  const whole = conversation.longTerm.reduce((sum, text) => sum + tokensOf(text) + 1, 0) <= longTermRoom;
  const longTerm: Entry[] = (whole ? [...conversation.longTerm] : conversation.searchLongTerm(task, longTermRoom)).map((text, position) => ({ tier: 'longTerm', position, text }));
  const newest = (entries: Entry[]) => [...entries].reverse();
  const chosen = chooseWithinBudget((entry: Entry) => tokensOf(entry.text) + 1, room, [
    { entries: newest(context), limit: room * CONTEXT_SHARE },
    { entries: newest(shortTerm), limit: room * SHORT_TERM_SHARE },
    { entries: longTerm, limit: room * LONG_TERM_SHARE },
    { entries: [...newest(context), ...newest(shortTerm)], limit: room },
  ]);
  const shownOf = (entries: Entry[]) => entries.filter((entry) => chosen.has(entry));
  const remembered = [...shownOf(longTerm), ...shownOf(shortTerm)];
  const lines: string[] = [];
  if (remembered.length > 0) lines.push(heading, ...remembered.map((entry) => `- ${entry.text}`));
  const messages = shownOf(context);
  if (messages.length > 0) lines.push('Conversation so far:', ...messages.map((entry) => entry.text));
  const counts = [
    ['earlier message', 'earlier messages', context.length - messages.length],
    ['short-term memory', 'short-term memories', shortTerm.length - shownOf(shortTerm).length],
    ['long-term memory', 'long-term memories', conversation.longTerm.length - shownOf(longTerm).length],
  ] as const;
  const omitted = counts.reduce((sum, [, , count]) => sum + count, 0);
  const leftOut = describeCounts(counts);
  if (omitted > 0) lines.push(`(Not shown: ${leftOut}. Ask for what you need with query_long_term_memory.)`);
  const text = lines.join('\n');
  return { name: 'conversation', budgetTokens, usedTokens: tokensOf(text), shown: chosen.size, omitted, leftOut, text };
}
