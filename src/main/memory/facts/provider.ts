/**
 * The provider interface of seed 001 (`save`, `load`, `loadAll`, `loadByDescription`) and what
 * Mnemo adds for people and the agent: list, ranked search with scores, forget, many saves at once.
 *
 * As in the seed, a provider that cannot reach its storage throws (here a `MemoryStoreError` whose
 * message names the storage); the run memory and the memory service turn that into values.
 */
import { formatScope, type Concept, type Fact, type MemoryScope, type MemorySubject, type SaveOutcome, type StoredFact } from './model';

export interface AgentMemoryProvider {
  save(fact: Fact, subject: MemorySubject, scope: MemoryScope): Promise<SaveOutcome>;
  /** The facts on this concept (its keyword) about the subject in the scope. */
  load(concept: Concept, subject: MemorySubject, scope: MemoryScope): Promise<Fact[]>;
  loadAll(subject: MemorySubject, scope: MemoryScope): Promise<Fact[]>;
  /** Ranked full-text search (BM25) over keywords, descriptions and values, best first. */
  loadByDescription(description: string, subject: MemorySubject, scope: MemoryScope): Promise<Fact[]>;
}

/** Which facts: any subject / scope when absent. */
export interface FactFilter {
  subjects?: readonly string[] | undefined;
  scopes?: readonly string[] | undefined;
}

export interface ScoredFact {
  fact: StoredFact;
  score: number;
}

export interface SaveRequest {
  fact: Fact;
  subject: MemorySubject | string;
  scope: MemoryScope | string;
  /** The session of the run that teaches it; absent when a person saves it. */
  sessionId?: string | undefined;
}

export interface FactStore extends AgentMemoryProvider {
  /** Where the facts are, for messages: `file /path`, `redis redis://host:6379`. */
  readonly location: string;
  /**
   * As the seed's save; the subject and scope may also be given by name (`user`, `product:mnemo`),
   * and `sessionId` names the run that teaches the fact.
   */
  save(fact: Fact, subject: MemorySubject | string, scope: MemoryScope | string, sessionId?: string): Promise<SaveOutcome>;
  saveMany(requests: readonly SaveRequest[]): Promise<SaveOutcome[]>;
  /** Stored facts, most specific subject first, then newest. */
  list(filter?: FactFilter): Promise<StoredFact[]>;
  search(text: string, filter?: FactFilter & { limit?: number }): Promise<ScoredFact[]>;
  get(id: string): Promise<StoredFact | undefined>;
  /** Removes the fact and its history from the storage; false when there is no such fact. */
  forget(id: string): Promise<boolean>;
  /** Problems met and skipped while reading (a damaged line), for the user to see. */
  readonly warnings: readonly string[];
  /** A store that keeps a log (the file provider): its state, a torn last record kept aside first (`mnemo facts check`). */
  check?(): Promise<FactLogCheck>;
  close(): Promise<void>;
}

/** A torn last record of a log, kept aside: the file it is in now, and its length. */
export interface TornRecord {
  file: string;
  bytes: number;
}

/** What `FactStore.check` found: whole, or recovered (a torn last record kept aside). */
export interface FactLogCheck {
  /** The log's path, and whether there is one yet (a store never written has none). */
  log: string;
  exists: boolean;
  /** Whole records in the log now (since its last rewrite), and the facts they make with the snapshot. */
  records: number;
  facts: number;
  /** Torn records this process kept aside (at open, at a write, or by this check). */
  recovered: TornRecord[];
  /** Every torn record kept aside in the folder, this time or before. */
  keptAside: string[];
  /** Damaged lines skipped (they stay in the log until it is next rewritten). */
  damaged: string[];
}

/** The storage of a fact provider cannot be used (unreachable, a wrong key, a full disk). */
export class MemoryStoreError extends Error {
  override readonly name = 'MemoryStoreError';
}

export function subjectName(subject: MemorySubject | string): string {
  return typeof subject === 'string' ? subject : subject.name;
}

export function scopeName(scope: MemoryScope | string): string {
  return typeof scope === 'string' ? scope : formatScope(scope);
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
