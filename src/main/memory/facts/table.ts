/**
 * The facts a process holds in memory, with their search index, and the provider logic every
 * storage shares: a storage only says how to catch up with what others wrote (`sync`) and how to
 * write changes under its own exclusion (`commit`); the seed's rules (dedup, supersede, priority)
 * are applied here, once.
 */
import { applySave, factId, resolveFacts, SubjectRegistry, toFact, type Concept, type Fact, type MemoryScope, type MemorySubject, type SaveOutcome, type StoredFact } from './model';
import { scopeName, subjectName, type FactFilter, type FactStore, type SaveRequest, type ScoredFact } from './provider';
import { FactSearchIndex } from './search-index';
import { StoreWriter } from '../../disk/store-writer';

export class FactTable {
  private readonly facts = new Map<string, StoredFact>();
  private readonly index = new FactSearchIndex();

  get size(): number {
    return this.facts.size;
  }

  get(id: string): StoredFact | undefined {
    return this.facts.get(id);
  }

  put(fact: StoredFact): void {
    const before = this.facts.get(fact.id);
    this.facts.set(fact.id, fact);
    if (
      before &&
      before.keyword === fact.keyword &&
      before.description === fact.description &&
      before.subject === fact.subject &&
      before.scope === fact.scope &&
      before.values.length === fact.values.length &&
      before.values.every((v, i) => v === fact.values[i])
    ) {
      return;
    }
    this.index.set(fact.id, fact);
  }

  delete(id: string): boolean {
    this.index.remove(id);
    return this.facts.delete(id);
  }

  clear(): void {
    this.facts.clear();
    this.index.clear();
  }

  all(): IterableIterator<StoredFact> {
    return this.facts.values();
  }

  filter(filter: FactFilter = {}): StoredFact[] {
    const accept = acceptor(filter);
    const out: StoredFact[] = [];
    for (const fact of this.facts.values()) if (accept(fact)) out.push(fact);
    return out;
  }

  search(text: string, filter: FactFilter & { limit?: number } = {}): ScoredFact[] {
    const hits = this.index.search(text, {
      limit: filter.limit ?? 20,
      subjects: filter.subjects ? new Set(filter.subjects) : null,
      scopes: filter.scopes ? new Set(filter.scopes) : null,
    });
    return hits.map((hit) => ({ fact: this.facts.get(hit.id) as StoredFact, score: Math.round(hit.score * 1000) / 1000 }));
  }
}

function acceptor(filter: FactFilter): (fact: StoredFact) => boolean {
  const subjects = filter.subjects ? new Set(filter.subjects) : null;
  const scopes = filter.scopes ? new Set(filter.scopes) : null;
  return (fact) => (subjects === null || subjects.has(fact.subject)) && (scopes === null || scopes.has(fact.scope));
}

/** A change to write: the fact's new state, or its removal. */
export type FactChange = { put: StoredFact } | { forget: string };

export interface TableStoreOptions {
  subjects?: SubjectRegistry;
  now?: () => number;
  /**
   * What a fact passes before it is kept (the redaction policy applied): the table answers what
   * the storage holds. Default: as it is.
   */
  writer?: StoreWriter;
}

/**
 * The provider over a `FactTable`. `exclusive` runs a read-modify-write with no other writer (of
 * any process) in between; inside it `sync` has brought the table up to date and `commit` writes.
 */
export abstract class TableFactStore implements FactStore {
  abstract readonly location: string;
  protected readonly table = new FactTable();
  protected readonly subjects: SubjectRegistry;
  protected readonly problems: string[] = [];
  protected readonly writer: StoreWriter;
  /** One writer at a time within this process (the storage's lock covers other processes). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: TableStoreOptions = {}) {
    this.subjects = options.subjects ?? new SubjectRegistry();
    this.writer = options.writer ?? StoreWriter.asIs;
  }

  get warnings(): readonly string[] {
    return this.problems;
  }

  /** Brings the table up to date with the storage. */
  protected abstract sync(): Promise<void>;
  /** Runs `work` with no other writer between its sync and its commit. */
  protected abstract exclusive<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Writes changes (inside `exclusive`, after `sync`) and returns them as written (a storage that
   * met a concurrent write may have merged them); the caller puts those in the table.
   */
  protected abstract commit(changes: readonly FactChange[]): Promise<readonly FactChange[]>;
  abstract close(): Promise<void>;

  protected serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  save(fact: Fact, subject: MemorySubject | string, scope: MemoryScope | string, sessionId?: string): Promise<SaveOutcome> {
    return this.saveMany([{ fact, subject, scope, sessionId }]).then((outcomes) => outcomes[0] as SaveOutcome);
  }

  saveMany(requests: readonly SaveRequest[]): Promise<SaveOutcome[]> {
    if (requests.length === 0) return Promise.resolve([]);
    return this.serial(() =>
      this.exclusive(async () => {
        await this.sync();
        const pending = new Map<string, StoredFact>();
        const outcomes: SaveOutcome[] = [];
        for (const request of requests.map((saved) => ({ ...saved, fact: this.writer.value(saved.fact) }))) {
          const subject = subjectName(request.subject);
          const scope = scopeName(request.scope);
          const id = factId(subject, scope, request.fact.concept.keyword);
          const outcome = applySave(pending.get(id) ?? this.table.get(id), request.fact, subject, scope, request.sessionId);
          if (outcome.change !== 'unchanged') pending.set(id, outcome.fact);
          outcomes.push(outcome);
        }
        if (pending.size > 0) {
          const written = await this.commit([...pending.values()].map((fact) => ({ put: fact })));
          for (const change of written) if ('put' in change) this.table.put(change.put);
          return outcomes.map((outcome) => {
            const stored = this.table.get(outcome.fact.id);
            return stored && outcome.change !== 'unchanged' ? { ...outcome, fact: stored } : outcome;
          });
        }
        return outcomes;
      }),
    );
  }

  forget(id: string): Promise<boolean> {
    return this.serial(() =>
      this.exclusive(async () => {
        await this.sync();
        if (!this.table.get(id)) return false;
        await this.commit([{ forget: id }]);
        this.table.delete(id);
        return true;
      }),
    );
  }

  async load(concept: Concept, subject: MemorySubject, scope: MemoryScope): Promise<Fact[]> {
    await this.sync();
    const fact = this.table.get(factId(subject.name, scopeName(scope), concept.keyword));
    return fact ? [toFact(fact)] : [];
  }

  async loadAll(subject: MemorySubject, scope: MemoryScope): Promise<Fact[]> {
    return (await this.list({ subjects: [subject.name], scopes: [scopeName(scope)] })).map(toFact);
  }

  async loadByDescription(description: string, subject: MemorySubject, scope: MemoryScope): Promise<Fact[]> {
    return (await this.search(description, { subjects: [subject.name], scopes: [scopeName(scope)] })).map((hit) => toFact(hit.fact));
  }

  async list(filter: FactFilter = {}): Promise<StoredFact[]> {
    await this.sync();
    return resolveFacts(this.table.filter(filter), this.subjects, { keepShadowed: true });
  }

  async search(text: string, filter: FactFilter & { limit?: number } = {}): Promise<ScoredFact[]> {
    await this.sync();
    return this.table.search(text, filter);
  }

  async get(id: string): Promise<StoredFact | undefined> {
    await this.sync();
    return this.table.get(id);
  }
}

/** Facts kept in this process only (tests, a run without storage). */
export class InMemoryFactStore extends TableFactStore {
  readonly location = 'memory';
  protected async sync(): Promise<void> {}
  protected exclusive<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }
  protected async commit(changes: readonly FactChange[]): Promise<readonly FactChange[]> {
    return changes;
  }
  async close(): Promise<void> {}
}

/** The seed's default provider when none is configured: remembers nothing. */
export class NoMemoryProvider implements FactStore {
  readonly location = 'none';
  readonly warnings: readonly string[] = [];
  async save(fact: Fact, subject: MemorySubject | string, scope: MemoryScope | string, sessionId?: string): Promise<SaveOutcome> {
    const outcome = applySave(undefined, fact, subjectName(subject), scopeName(scope), sessionId);
    return { ...outcome, change: 'unchanged' };
  }
  async saveMany(requests: readonly SaveRequest[]): Promise<SaveOutcome[]> {
    return Promise.all(requests.map((request) => this.save(request.fact, request.subject, request.scope, request.sessionId)));
  }
  async load(): Promise<Fact[]> {
    return [];
  }
  async loadAll(): Promise<Fact[]> {
    return [];
  }
  async loadByDescription(): Promise<Fact[]> {
    return [];
  }
  async list(): Promise<StoredFact[]> {
    return [];
  }
  async search(): Promise<ScoredFact[]> {
    return [];
  }
  async get(): Promise<StoredFact | undefined> {
    return undefined;
  }
  async forget(): Promise<boolean> {
    return false;
  }
  async close(): Promise<void> {}
}

export const NoMemory: FactStore = new NoMemoryProvider();
