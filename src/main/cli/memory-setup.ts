/**
 * The memory a CLI run shares with the runs before and after it: the data directory's blackboard
 * and the conversation (saved in `<data-dir>/memory/conversation.json`), and the memory model that
 * compresses them. Problems are warnings: a run is never refused for its memory.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PriceTable } from '../../shared/settings';
import { createTextModel, openBlackboard, TieredMemory, type TieredMemoryDict } from '../memory';
import type { RunMemoryDeps } from '../agent/run-memory';
import type { RunSettings } from './run-settings';

export interface CliMemory {
  deps: RunMemoryDeps;
  warnings: string[];
  /** Saves the conversation for the next run. */
  save(): Promise<void>;
}

function conversationPath(dataDir: string): string {
  return join(dataDir, 'memory', 'conversation.json');
}

async function loadConversation(dataDir: string, conversation: TieredMemory, warnings: string[]): Promise<void> {
  let text: string;
  try {
    text = await readFile(conversationPath(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`conversation memory cannot be read: ${(error as Error).message}`);
    return;
  }
  try {
    const dict = JSON.parse(text) as TieredMemoryDict;
    if (!Array.isArray(dict.context) || !Array.isArray(dict.shortTerm) || !Array.isArray(dict.longTerm)) throw new Error('not a conversation memory');
    conversation.restore(dict);
  } catch (error) {
    warnings.push(`conversation memory in ${conversationPath(dataDir)} is damaged and was not loaded: ${(error as Error).message}`);
  }
}

export async function openCliMemory(settings: RunSettings, prices: PriceTable): Promise<CliMemory> {
  const warnings: string[] = [];
  const model = createTextModel(settings.memory.model, { prices });
  const { blackboard, warnings: boardWarnings } = await openBlackboard(settings.dataDir);
  warnings.push(...boardWarnings);
  const conversation = new TieredMemory({}, { model });
  await loadConversation(settings.dataDir, conversation, warnings);
  return {
    deps: { model, blackboard, conversation },
    warnings,
    async save() {
      const path = conversationPath(settings.dataDir);
      await mkdir(join(settings.dataDir, 'memory'), { recursive: true });
      await writeFile(`${path}.partial`, `${JSON.stringify(conversation.toDict(), null, 2)}\n`);
      await rename(`${path}.partial`, path);
    },
  };
}
