/**
 * The memory a run shares with the runs before and after it: the data directory's blackboard,
 * the conversation the task belongs to (`<data-dir>/memory/conversations/<id>.json`; a follow-up
 * task names it to continue it), and the memory model that compresses them. Problems are
 * warnings: a run is never refused for its memory.
 *
 * Both files are written as they change (whole files or whole lines, never halves); a failed
 * write reaches the running agent at once, which says it as a note (memory-files.ts).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SecretMask } from '../../shared/secret-mask';
import type { PriceTable } from '../../shared/settings';
import { ConversationFile, createTextModel, openBlackboard, TieredMemory, WriteFailureReports, type TieredMemoryDict } from '../memory';
import type { RunMemoryDeps } from '../agent/run-memory';
import type { RunSettings } from '../settings/settings';

export interface OpenedMemory {
  deps: RunMemoryDeps;
  conversationId: string;
  warnings: string[];
  /**
   * Waits for the memory files' writes and stops following the conversation; returns the write
   * failures the run did not hear about (it had ended).
   */
  save(): Promise<string[]>;
}

/** `conv-3fa9c2d1`: short enough to type after `--conversation`. */
export function newConversationId(): string {
  return `conv-${randomBytes(4).toString('hex')}`;
}

export const CONVERSATION_ID_PATTERN = /^[\w][\w.-]{0,80}$/;

export function conversationPath(dataDir: string, id: string): string {
  return join(dataDir, 'memory', 'conversations', `${id}.json`);
}

type Loaded = { state: 'loaded' | 'missing' } | { state: 'damaged'; message: string };

async function loadConversation(path: string, conversation: TieredMemory): Promise<Loaded> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'damaged', message: `conversation memory cannot be read: ${(error as Error).message}` };
  }
  try {
    const dict = JSON.parse(text) as TieredMemoryDict;
    if (!Array.isArray(dict.context) || !Array.isArray(dict.shortTerm) || !Array.isArray(dict.longTerm)) throw new Error('not a conversation memory');
    conversation.restore(dict);
    return { state: 'loaded' };
  } catch (error) {
    return { state: 'damaged', message: `conversation memory in ${path} is damaged and was not loaded: ${(error as Error).message}` };
  }
}

export type MemoryOpen = { ok: true; memory: OpenedMemory } | { ok: false; message: string };

/** Opens the shared memory for a run; continuing a conversation that does not exist is an error. */
export async function openRunMemory(settings: RunSettings, prices: PriceTable, continueConversation?: string, secrets: SecretMask = SecretMask.none): Promise<MemoryOpen> {
  if (continueConversation !== undefined && !CONVERSATION_ID_PATTERN.test(continueConversation)) {
    return { ok: false, message: `"${continueConversation}" is not a conversation id (they look like conv-3fa9c2d1)` };
  }
  const warnings: string[] = [];
  const model = createTextModel(settings.memory.model, { prices });
  const conversationId = continueConversation ?? newConversationId();
  const path = conversationPath(settings.dataDir, conversationId);
  const conversation = new TieredMemory({}, { model });
  if (continueConversation !== undefined) {
    const loaded = await loadConversation(path, conversation);
    if (loaded.state === 'missing') return { ok: false, message: `no conversation "${continueConversation}" in ${join(settings.dataDir, 'memory', 'conversations')}` };
    if (loaded.state === 'damaged') warnings.push(loaded.message);
  }
  const reports = new WriteFailureReports();
  // What the memory keeps on disk has the settings' secrets masked (the task, a question may hold one).
  const mask = <T>(value: T): T => secrets.deep(value);
  const { blackboard, store, warnings: boardWarnings } = await openBlackboard(settings.dataDir, { onWriteFailure: reports.report, mask });
  warnings.push(...boardWarnings);
  const file = new ConversationFile(path, conversation, { onWriteFailure: reports.report, mask });
  const flush = async () => {
    await Promise.all([store.flush(), file.flush()]);
  };
  return {
    ok: true,
    memory: {
      deps: { model, blackboard, conversation, files: { onWriteFailure: (listener) => reports.subscribe(listener), flush } },
      conversationId,
      warnings,
      async save() {
        // A conversation nothing was said in yet (the run ended before its task) still gets its file.
        file.save();
        await flush();
        file.close();
        return reports.takeUnheard();
      },
    },
  };
}
