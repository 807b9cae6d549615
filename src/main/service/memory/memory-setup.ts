/**
 * The memory a run shares with the runs before and after it: the blackboard, the conversation the
 * task belongs to (a follow-up task names it to continue it), the facts, the conversation's working
 * memory, and the memory model that compresses and extracts. Where they are kept (the data
 * directory, or Redis) comes from the memory backends; a store that cannot be reached was refused
 * when the backends opened. A damaged blackboard or conversation is a warning.
 *
 * The blackboard and the conversation are written as they change (whole files or whole lines,
 * never halves; in Redis, each change as it comes); a failed write reaches the running agent at
 * once, which says it as a note (memory-files.ts).
 *
 * What the memory keeps passes the redaction policy in the store writer: the run's own (its
 * blackboard and conversation file) and the backends' (facts, working memory, Redis).
 */
import { randomBytes } from 'node:crypto';
import type { PriceTable } from '../../../shared/settings';
import { StoreWriter } from '../../disk/store-writer';
import { ConversationFile, createTextModel, openBlackboard, TieredMemory, WriteFailureReports, type OpenedBlackboard, type LoadableBlackboardStore, type TieredMemoryDict } from '../../memory';
import { summarizeBlackboard, type SummaryOptions, type SummaryReport } from '../../memory/blackboard-summaries';
import { RedisBlackboardStore } from '../../memory/redis-stores';
import { AgentMemory } from '../../memory/facts';
import { WorkingMemoryAgent } from '../../memory/working';
import type { RunMemoryDeps } from '../../agent/run-memory';
import type { RunSettings } from '../../settings/settings';
import { conversationPath, type MemoryBackends } from './memory-backends';

export { conversationPath } from './memory-backends';

export interface OpenedMemory {
  deps: RunMemoryDeps;
  conversationId: string;
  warnings: string[];
  /**
   * Waits for the memory's writes and stops following the conversation; returns the write
   * failures the run did not hear about (it had ended).
   */
  save(): Promise<string[]>;
  /** Folds finished tasks of the blackboard into one line each (the memory model writes them). */
  summarize(options: SummaryOptions): Promise<SummaryReport>;
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
 * that has only a working memory (begun on another machine, whose tiers were kept there) goes on
 * from it.
 */
export async function openRunMemory(
  settings: RunSettings,
  prices: PriceTable,
  backends: MemoryBackends,
  continueConversation?: string,
  writer: StoreWriter = StoreWriter.asIs,
): Promise<MemoryOpen> {
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
  const reports = new WriteFailureReports();
  const board = await openSharedBlackboard(settings.dataDir, backends, writer, reports);
  if (!board.ok) return board;
  warnings.push(...board.board.warnings);
  // In the data directory the conversation's file follows every change; in Redis it is saved at the end.
  const file = backends.redis ? null : new ConversationFile(conversationPath(settings.dataDir, conversationId), conversation, { onWriteFailure: reports.report, writer });
  const flush = async () => {
    await Promise.all([board.board.store.flush(), file?.flush()]);
  };
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
  const manager = backends.working;
  const working = manager
    ? {
        agent: new WorkingMemoryAgent({
          llmClient: model,
          systemPrompt: store.working.prompt ?? undefined,
          memoryManager: manager,
          // The conversation so far is the chat history the seed's agent reads.
          chatHistoryClient: { get: async () => conversation.toPrompt() },
        }),
        manager,
        conversationId,
      }
    : undefined;
  return {
    ok: true,
    memory: {
      deps: {
        model,
        blackboard: board.board.blackboard,
        conversation,
        files: { onWriteFailure: (listener) => reports.subscribe(listener), flush },
        ...(facts ? { facts } : {}),
        ...(working ? { working } : {}),
      },
      conversationId,
      warnings,
      async save() {
        if (file) {
          // A conversation nothing was said in yet (the run ended before its task) still gets its file.
          file.save();
          await flush();
          file.close();
        } else {
          await flush();
          await conversations.save(conversationId, conversation.toDict()).catch((error: unknown) => reports.report(`the conversation ${conversationId} was not saved: ${(error as Error).message}`));
        }
        return reports.takeUnheard();
      },
      summarize: (options) => summarizeBlackboard(board.board.blackboard, model, options),
    },
  };
}

type SharedBoard = { ok: true; board: OpenedBlackboard<LoadableBlackboardStore> } | { ok: false; message: string };

/** The blackboard every run shares: in Redis when the backends use it, else in the data directory. */
async function openSharedBlackboard(dataDir: string, backends: MemoryBackends, writer: StoreWriter, reports: WriteFailureReports): Promise<SharedBoard> {
  const redis = backends.redis;
  try {
    const store: LoadableBlackboardStore | undefined = redis ? new RedisBlackboardStore(redis, { onWriteFailure: reports.report, writer }) : undefined;
    return { ok: true, board: await openBlackboard<LoadableBlackboardStore>(dataDir, { onWriteFailure: reports.report, writer }, { store }) };
  } catch (error) {
    return { ok: false, message: `the blackboard cannot be loaded: ${(error as Error).message}` };
  }
}

/**
 * `mnemo memory compact`: the shared blackboard opened on its own (no run), its finished tasks
 * summarised, every line saved before this returns.
 */
export async function summarizeSharedBlackboard(
  settings: RunSettings,
  prices: PriceTable,
  backends: MemoryBackends,
  writer: StoreWriter,
  options: SummaryOptions,
): Promise<{ ok: true; report: SummaryReport; warnings: string[] } | { ok: false; message: string }> {
  const reports = new WriteFailureReports();
  const board = await openSharedBlackboard(settings.dataDir, backends, writer, reports);
  if (!board.ok) return board;
  const report = await summarizeBlackboard(board.board.blackboard, createTextModel(settings.memory.model, { prices }), options);
  const saved = await board.board.store.flush();
  if (!saved.ok && report.writeError === null) report.writeError = saved.error;
  return { ok: true, report, warnings: board.board.warnings };
}
