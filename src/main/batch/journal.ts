/**
 * A batch in the data directory: `batches/<id>/batch.json` (the batch as asked for, written once,
 * atomically) and `batches/<id>/journal.jsonl` (what happened, one line each). Each line is one
 * write to a file opened for appending (so another process's `cancel` line never interleaves) and
 * is synced before the call returns: an outcome journalled survives Ctrl+C, a crash and a reboot.
 * A reader skips a line cut short by a crash mid-write.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDir, openPrivate, writeJsonAtomically, writeEmptyPrivate } from '../disk/files';
import { BatchDefinitionSchema, JournalEntrySchema, type BatchDefinition, type JournalEntry } from './records';

const DEFINITION_FILE = 'batch.json';
const JOURNAL_FILE = 'journal.jsonl';

export function batchesRoot(dataDir: string): string {
  return join(dataDir, 'batches');
}

/** `b-20261206-201500-1a2b3c`: sorts by creation, says when. */
export function newBatchId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `b-${stamp}-${randomBytes(3).toString('hex')}`;
}

export type JournalRead = { ok: true; definition: BatchDefinition; entries: JournalEntry[]; skipped: number } | { ok: false; kind: 'not_found' | 'damaged'; message: string };

export class BatchJournal {
  /** Appends of this process, in order. */
  private writes: Promise<void> = Promise.resolve();

  private constructor(
    readonly id: string,
    readonly directory: string,
  ) {}

  /** Makes the batch's folder and writes its definition; the journal starts empty. */
  static async create(dataDir: string, definition: BatchDefinition): Promise<BatchJournal> {
    const directory = join(batchesRoot(dataDir), definition.id);
    await makePrivateDir(directory, { recursive: true });
    await writeJsonAtomically(join(directory, DEFINITION_FILE), definition, { sync: true });
    await writeEmptyPrivate(join(directory, JOURNAL_FILE));
    return new BatchJournal(definition.id, directory);
  }

  /** A batch made before, by its id or a unique prefix of it. */
  static async open(dataDir: string, ref: string): Promise<{ ok: true; journal: BatchJournal } | { ok: false; kind: 'not_found'; message: string }> {
    const ids = await listBatchIds(dataDir);
    const matches = ids.includes(ref) ? [ref] : ids.filter((id) => id.startsWith(ref));
    if (matches.length === 1) return { ok: true, journal: new BatchJournal(matches[0] as string, join(batchesRoot(dataDir), matches[0] as string)) };
    const message = matches.length === 0 ? `no batch "${ref}" (mnemo batch list shows them)` : `"${ref}" names ${matches.length} batches: ${matches.join(', ')}`;
    return { ok: false, kind: 'not_found', message };
  }

  /** The definition and every whole entry so far. */
  async read(): Promise<JournalRead> {
    let definition: BatchDefinition;
    try {
      const parsed = BatchDefinitionSchema.safeParse(JSON.parse(await readFile(join(this.directory, DEFINITION_FILE), 'utf8')));
      if (!parsed.success) return { ok: false, kind: 'damaged', message: `batch ${this.id}: ${DEFINITION_FILE} is damaged (${parsed.error.issues[0]?.message ?? 'unreadable'})` };
      definition = parsed.data;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return { ok: false, kind: code === 'ENOENT' ? 'not_found' : 'damaged', message: `batch ${this.id}: cannot read ${DEFINITION_FILE}: ${(error as Error).message}` };
    }
    const text = await readFile(join(this.directory, JOURNAL_FILE), 'utf8').catch(() => '');
    const entries: JournalEntry[] = [];
    let skipped = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const parsed = JournalEntrySchema.safeParse(JSON.parse(line));
        if (parsed.success) entries.push(parsed.data);
        else skipped++;
      } catch {
        skipped++;
      }
    }
    return { ok: true, definition, entries, skipped };
  }

  /** What changes whenever the journal does (its size and time), so a reader following it reads it again only then; null when it cannot be seen. */
  async version(): Promise<string | null> {
    const file = await stat(join(this.directory, JOURNAL_FILE)).catch(() => null);
    return file ? `${file.size}:${file.mtimeMs}` : null;
  }

  /** Appends one entry, whole and synced; entries of this process keep their order. */
  append(entry: JournalEntry): Promise<void> {
    const line = `${JSON.stringify(entry)}\n`;
    const write = this.writes.then(async () => {
      const handle = await openPrivate(join(this.directory, JOURNAL_FILE), 'a');
      try {
        await handle.appendFile(line);
        await handle.datasync();
      } finally {
        await handle.close().catch(() => undefined);
      }
    });
    this.writes = write.catch(() => undefined);
    return write;
  }
}

/** The batches of a data directory, oldest first. */
export async function listBatchIds(dataDir: string): Promise<string[]> {
  const names = await readdir(batchesRoot(dataDir)).catch(() => [] as string[]);
  return names.filter((name) => name.startsWith('b-')).sort();
}
