/**
 * The memory a run shares with the runs before and after it: the blackboard, the conversation the
 * task belongs to (a follow-up task names it to continue it), the facts, the conversation's working
 * memory, and the memory model that compresses and extracts. Where they are kept (the data
 * directory or Redis) comes from the memory backends. Problems with the blackboard or a damaged
 * conversation are warnings; a store that cannot be reached was refused when the backends opened.
 */
import { randomBytes } from 'node:crypto';
import type { PriceTable } from '../../shared/settings';
import { createTextModel, openBlackboard, TieredMemory, type TieredMemoryDict } from '../memory';
import { AgentMemory } from '../memory/facts';
import { WorkingMemoryAgent } from '../memory/working';
import type { RunMemoryDeps } from '../agent/run-memory';
import type { RunSettings } from '../settings/settings';
import type { MemoryBackends } from './memory-backends';

export { conversationPath } from './memory-backends';

export interface OpenedMemory {
  deps: RunMemoryDeps;
  conversationId: string;
  warnings: string[];
  /** Saves the conversation for the next task of it. */
  save(): Promise<void>;
}

/** `conv-3fa9c2d1`: short enough to type after `--conversation`. */
export function newConversationId(): string {
  return `conv-${randomBytes(4).toString('hex')}`;
}

export const CONVERSATION_ID_PATTERN = /^[\w][\w.-]{0,80}$/;

function isTieredDict(value: unknown): value is TieredMemoryDict {
  const dict = value as TieredMemoryDict | null;
  return dict !== null && typeof dict === 'object' && Array.isArray(dict.context) && Array.isArray(dict.shortTerm) && Array.isArray(dict.longTerm);
}

export type MemoryOpen = { ok: true; memory: OpenedMemory } | { ok: false; message: string };

/**
 * Opens the shared memory for a run. Continuing a conversation that exists nowhere is an error; one
 * that has only a working memory (begun on another machine, whose tiers are local) goes on from it.
 */
export async function openRunMemory(settings: RunSettings, prices: PriceTable, backends: MemoryBackends, continueConversation?: string): Promise<MemoryOpen> {
  if (continueConversation !== undefined && !CONVERSATION_ID_PATTERN.test(continueConversation)) {
    return { ok: false, message: `"${continueConversation}" is not a conversation id (they look like conv-3fa9c2d1)` };
  }
  const warnings: string[] = [];
  const model = createTextModel(settings.memory.model, { prices });
  const conversationId = continueConversation ?? newConversationId();
  const conversation = new TieredMemory({}, { model });
  const { conversations } = backends;
  if (continueConversation !== undefined) {
    let found = false;
    try {
      const dict = await conversations.load(conversationId);
      if (dict !== null) {
        found = true;
        if (isTieredDict(dict)) conversation.restore(dict);
        else warnings.push(`conversation memory of ${conversationId} in ${conversations.location} is damaged and was not loaded`);
      }
    } catch (error) {
      found = true;
      warnings.push(`conversation memory of ${conversationId} in ${conversations.location} cannot be read: ${(error as Error).message}`);
    }
    if (!found) {
      const working = await backends.working?.retrieve({ conversation_id: conversationId }).catch(() => []);
      if (!working || working.length === 0) return { ok: false, message: `no conversation "${continueConversation}" in ${conversations.location}` };
    }
  }
  let board;
  try {
    board = await openBlackboard(settings.dataDir, {}, { store: backends.blackboardStore() });
  } catch (error) {
    return { ok: false, message: `the blackboard cannot be loaded: ${(error as Error).message}` };
  }
  warnings.push(...board.warnings);
  const store = backends.settings;
  const facts = store.facts.enabled
    ? new AgentMemory(
        {
          memoryProvider: backends.facts,
          scopesProfile: store.facts.profile,
          subjects: backends.subjects,
          promptBudgetTokens: store.facts.promptBudgetTokens,
          autoDetect: store.facts.autoDetect,
          detectSubjects: store.facts.detectSubjects,
        },
        { model },
      )
    : undefined;
  const working = backends.working
    ? {
        agent: new WorkingMemoryAgent({
          llmClient: model,
          systemPrompt: store.working.prompt ?? undefined,
          memoryManager: backends.working,
          // The conversation so far is the chat history the seed's agent reads.
          chatHistoryClient: { get: async () => conversation.toPrompt() },
        }),
        manager: backends.working,
        conversationId,
      }
    : undefined;
  return {
    ok: true,
    memory: {
      deps: { model, blackboard: board.blackboard, conversation, ...(facts ? { facts } : {}), ...(working ? { working } : {}) },
      conversationId,
      warnings,
      save: () => conversations.save(conversationId, conversation.toDict()),
    },
  };
}
