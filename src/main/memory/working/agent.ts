/**
 * The working memory agent (seed 002, Arshai's WorkingMemoryAgent): after each interaction of a
 * conversation, the model rewrites the conversation's one working memory from the memory so far,
 * the chat history and the new interaction, and the result is stored by conversation id.
 *
 * `process` answers with the seed's status strings, exactly: `success`, or
 * `error: no conversation_id provided`, `error: empty memory response`,
 * `error: storage failed - <details>`, `error: <exception message>`.
 *
 * It degrades as the seed does: memory that cannot be read counts as none (start fresh), a missing
 * chat history as no history, a missing manager means nothing is stored (with a warning).
 */
import type { TextModel } from '../text-model';
import { describeModelError } from '../text-replies';
import type { WorkingMemoryManager } from './managers';

export const WORKING_MEMORY_STATUS = {
  success: 'success',
  noConversationId: 'error: no conversation_id provided',
  emptyMemory: 'error: empty memory response',
  storageFailed: (details: string) => `error: storage failed - ${details}`,
  failed: (message: string) => `error: ${message}`,
} as const;

/** Mnemo's own words for the seed's default behaviour: keep one concise, current, useful memory. */
export const DEFAULT_WORKING_MEMORY_PROMPT = `You keep the working memory of a conversation between a user and an assistant that operates their computer.

Each time, you are given the working memory so far, the conversation history when there is one, and the newest interaction. Write the working memory anew:
1. read the history and the new interaction;
2. pick out what matters: facts, decisions, preferences, open tasks and their state;
3. merge it with the memory so far, replacing what has changed;
4. keep what will help the next interaction, and drop the rest.

The memory you write is short and complete, states things plainly, is up to date, and says nothing twice. Answer with the memory text only.`;

export interface AgentInput {
  message: string;
  metadata?: Record<string, unknown>;
}

/** The chat history of a conversation, if the caller keeps one. */
export interface ChatHistorySource {
  get(conversationId: string): Promise<string | null | undefined>;
}

export interface WorkingMemoryAgentDeps {
  llmClient: TextModel;
  systemPrompt?: string | undefined;
  memoryManager?: WorkingMemoryManager | null | undefined;
  chatHistoryClient?: ChatHistorySource | null | undefined;
  log?: ((level: 'debug' | 'warning' | 'error', message: string) => void) | undefined;
}

export class WorkingMemoryAgent {
  readonly systemPrompt: string;
  private readonly deps: WorkingMemoryAgentDeps;

  constructor(deps: WorkingMemoryAgentDeps) {
    this.deps = deps;
    this.systemPrompt = deps.systemPrompt?.trim() ? deps.systemPrompt : DEFAULT_WORKING_MEMORY_PROMPT;
  }

  private log(level: 'debug' | 'warning' | 'error', message: string): void {
    this.deps.log?.(level, message);
  }

  async process(input: AgentInput, signal?: AbortSignal): Promise<string> {
    const conversationId = input.metadata?.['conversation_id'];
    if (typeof conversationId !== 'string' || conversationId.trim() === '') return WORKING_MEMORY_STATUS.noConversationId;
    try {
      const { memoryManager, chatHistoryClient, llmClient } = this.deps;
      let currentMemory = '';
      if (memoryManager) {
        try {
          const records = await memoryManager.retrieve({ conversation_id: conversationId });
          currentMemory = records[0]?.working_memory ?? '';
        } catch (error) {
          this.log('warning', `the working memory of ${conversationId} could not be read, starting fresh: ${messageOf(error)}`);
        }
      } else {
        this.log('warning', 'no memory manager: the working memory is generated but not stored');
      }
      let history = '';
      if (chatHistoryClient) {
        try {
          history = (await chatHistoryClient.get(conversationId)) ?? '';
        } catch (error) {
          this.log('warning', `the chat history of ${conversationId} could not be read: ${messageOf(error)}`);
        }
      }
      const reply = await llmClient.complete({ system: this.systemPrompt, messages: [{ role: 'user', content: workingMemoryContext(currentMemory, history, input.message) }] }, signal);
      if (!reply.ok) return WORKING_MEMORY_STATUS.failed(describeModelError(reply.error));
      const updated = (reply.text ?? '').trim();
      if (updated === '') return WORKING_MEMORY_STATUS.emptyMemory;
      if (memoryManager) {
        try {
          await memoryManager.store({ conversation_id: conversationId, working_memory: updated, metadata: { ...input.metadata } });
        } catch (error) {
          this.log('error', `the working memory of ${conversationId} was not stored: ${messageOf(error)}`);
          return WORKING_MEMORY_STATUS.storageFailed(messageOf(error));
        }
      }
      this.log('debug', `working memory of ${conversationId} updated (${updated.length} characters)`);
      return WORKING_MEMORY_STATUS.success;
    } catch (error) {
      this.log('error', `working memory update failed: ${messageOf(error)}`);
      return WORKING_MEMORY_STATUS.failed(messageOf(error));
    }
  }
}

/** The user message of one update: the memory, the history and the new interaction, each labelled. */
export function workingMemoryContext(currentMemory: string, history: string, message: string): string {
  return [
    `Working memory so far:\n${currentMemory.trim() || '(none yet)'}`,
    `Conversation history:\n${history.trim() || '(no earlier history)'}`,
    `Newest interaction:\n${message}`,
    'Write the updated working memory, with what is new worked in.',
  ].join('\n\n');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
