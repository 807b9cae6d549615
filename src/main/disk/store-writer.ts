/**
 * The one writer the stores under the data directory write their text through: the session
 * recorder, the blackboard, the conversations, the facts and the working memory. Every text passes
 * the redaction policy here (the settings' secrets masked: src/main/settings/redaction.ts) before
 * it is written, the way disk/files.ts writes (owner-only, whole or not at all).
 *
 * Two more ways through, for stores that do not write plain text at once:
 * - `text` for a store that seals its records with the memory key (the policy must see the plain
 *   text, not the ciphertext) or that sends them to Redis;
 * - `value` for a store that keeps what it stores in memory and answers from it (the facts'
 *   table), so what it answers is what it wrote.
 *
 * Files that must be kept as they are (config.json, the keychain's sealed memory key, locks) are
 * written with disk/files.ts directly, never through this.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Redactor } from '../../shared/secret-mask';
import { appendPrivate, appendWhole, appendWholeToFile, writeFileAtomically } from './files';

export type Redaction = Pick<Redactor, 'text' | 'deep'>;

export interface WriteOptions {
  /** Flush to the disk before the rename. */
  sync?: boolean;
  /** Seals the (redacted) text before it is written (the memory key). */
  seal?: ((plain: string) => string) | null;
}

export class StoreWriter {
  /** Writes what it is given as it is (tests; stores built without a policy). */
  static readonly asIs = new StoreWriter(null);

  constructor(private readonly redaction: Redaction | null) {}

  /** A text as it may be kept. */
  text(text: string): string {
    return this.redaction ? this.redaction.text(text) : text;
  }

  /** A value as it may be kept: every string in it (unchanged parts are shared, nothing is mutated). */
  value<T>(value: T): T {
    return this.redaction ? this.redaction.deep(value) : value;
  }

  /** A whole file, through a temporary file and a rename (disk/files.ts). */
  writeText(path: string, text: string, options: WriteOptions = {}): Promise<void> {
    const kept = this.text(text);
    return writeFileAtomically(path, options.seal ? options.seal(kept) : kept, { sync: options.sync === true });
  }

  writeJson(path: string, value: unknown, options: WriteOptions = {}): Promise<void> {
    return this.writeText(path, `${JSON.stringify(value, null, 2)}\n`, options);
  }

  /** Appends to a file only this process writes, whole or not at all. */
  append(path: string, text: string): Promise<void> {
    return appendWholeToFile(path, this.text(text));
  }

  /** Appends to a file several processes append to (one write, so their lines do not interleave). */
  appendShared(path: string, text: string): Promise<void> {
    return appendPrivate(path, this.text(text));
  }

  /** Appends to an open file of length `size`; returns the new length (a failed append is cut back). */
  appendWhole(handle: FileHandle, size: number, text: string): Promise<number> {
    return appendWhole(handle, size, this.text(text));
  }
}
