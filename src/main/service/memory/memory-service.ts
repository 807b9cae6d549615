/**
 * The long-lived memory for people and front ends: list, search, add and forget facts, and read a
 * conversation's working memory. `mnemo facts`, `mnemo memory working` and the app's Memory view
 * (its Facts and Working memory regions) call this; `MemoryHost.memoryService()` hands out the one
 * its runs use (the CLI opens it the same way). Failures are `ServiceResult` values: `settings` (a bad subject, scope or value),
 * `not_found` (no such fact), `memory` (the storage cannot be used: Redis unreachable, a wrong key).
 */
import { factJson, FactType, formatScope, parseScope, SUBJECT_NAME_PATTERN, type FactJson } from '../../memory/facts';
import { describeError, type FactLogCheck } from '../../memory/facts';
import { WORKING_MEMORY_ID_PATTERN } from '../../memory/working';
import type { MemoryBackends } from './memory-backends';
import type { FactQuery } from '../../../shared/app-api';
import type { ServiceResult } from '../service-result';

/**
 * Which facts (the contract's): `subject` a subject name (user, machine, everything or a custom
 * one), `scope` `agent:<name>`, `feature:<id>`, `product:<name>` or `cross-product`.
 */
export type { FactQuery };

/** How facts are answered: the app also shows the versions each one superseded. */
export interface FactView {
  history?: boolean;
}

export interface NewFact {
  subject: string;
  scope: string;
  keyword: string;
  description: string;
  values: string[];
  /** A MULTIPLE concept (several values at once); default: when more than one value is given. */
  multiple?: boolean;
}

export interface WorkingMemoryView {
  conversationId: string;
  memory: string;
  /** Milliseconds since the epoch. */
  updatedAt: number;
}

const settingsError = (message: string) => ({ ok: false as const, error: { kind: 'settings' as const, message } });
const memoryError = (error: unknown) => ({ ok: false as const, error: { kind: 'memory' as const, message: describeError(error) } });

export class MemoryService {
  constructor(
    private readonly backends: MemoryBackends,
    private readonly now: () => number = Date.now,
  ) {}

  /** Where the facts are (`file <dir>`, `redis <url>`), and warnings met while opening. */
  get location(): string {
    return this.backends.facts.location;
  }

  get warnings(): readonly string[] {
    return this.backends.warnings;
  }

  private checkQuery(query: FactQuery): string | null {
    if (query.subject !== undefined && !this.knownSubject(query.subject)) return this.subjectProblem(query.subject);
    if (query.scope !== undefined) {
      const scope = parseScope(query.scope);
      if (!scope.ok) return scope.message;
    }
    return null;
  }

  private knownSubject(name: string): boolean {
    return this.backends.subjects.get(name) !== undefined;
  }

  private subjectProblem(name: string): string {
    const known = this.backends.subjects.all().map((subject) => subject.name).join(', ');
    return SUBJECT_NAME_PATTERN.test(name) ? `unknown subject "${name}" (known: ${known}; add custom ones in memory.facts.subjects)` : `"${name}" is not a subject name (known: ${known})`;
  }

  private filterOf(query: FactQuery) {
    const scope = query.scope !== undefined ? parseScope(query.scope) : null;
    return {
      ...(query.subject !== undefined ? { subjects: [query.subject] } : {}),
      ...(scope?.ok ? { scopes: [formatScope(scope.value)] } : {}),
    };
  }

  /** Stored facts, most specific subject first, then newest. */
  async listFacts(query: FactQuery = {}, view: FactView = {}): Promise<ServiceResult<FactJson[]>> {
    const problem = this.checkQuery(query);
    if (problem) return settingsError(problem);
    try {
      return { ok: true, value: (await this.backends.facts.list(this.filterOf(query))).map((fact) => factJson(fact, view)) };
    } catch (error) {
      return memoryError(error);
    }
  }

  /** Ranked search (BM25) over keywords, descriptions and values; best first, each with its score. */
  async searchFacts(text: string, query: FactQuery & { limit?: number } = {}, view: FactView = {}): Promise<ServiceResult<FactJson[]>> {
    if (text.trim() === '') return settingsError('the search text is empty');
    const problem = this.checkQuery(query);
    if (problem) return settingsError(problem);
    try {
      const hits = await this.backends.facts.search(text, { ...this.filterOf(query), limit: query.limit ?? 20 });
      return { ok: true, value: hits.map((hit) => factJson(hit.fact, { ...view, score: hit.score })) };
    } catch (error) {
      return memoryError(error);
    }
  }

  /** Saves a fact as a person gives it: a new SINGLE value supersedes the old one, which goes to its history. */
  async addFact(input: NewFact, view: FactView = {}): Promise<ServiceResult<FactJson>> {
    if (!this.knownSubject(input.subject)) return settingsError(this.subjectProblem(input.subject));
    const scope = parseScope(input.scope);
    if (!scope.ok) return settingsError(scope.message);
    const keyword = input.keyword.trim();
    if (keyword === '') return settingsError('the keyword is empty');
    const values = input.values.map((value) => value.trim()).filter((value) => value !== '');
    if (values.length === 0) return settingsError('a fact needs at least one non-empty value');
    const multiple = input.multiple ?? values.length > 1;
    if (!multiple && values.length > 1) return settingsError('a single fact has one value; say it is a multiple fact for several');
    const concept = { keyword, description: input.description.trim() || keyword, factType: multiple ? FactType.MULTIPLE : FactType.SINGLE };
    const timestamp = this.now();
    try {
      const outcome = await this.backends.facts.save(multiple ? { concept, values, timestamp } : { concept, value: values[0] as string, timestamp }, input.subject, scope.value);
      return { ok: true, value: factJson(outcome.fact, view) };
    } catch (error) {
      return memoryError(error);
    }
  }

  /** Removes a fact and its history from the storage. */
  async forgetFact(id: string): Promise<ServiceResult<{ id: string }>> {
    try {
      if (await this.backends.facts.forget(id)) return { ok: true, value: { id } };
      return { ok: false, error: { kind: 'not_found', message: `no fact ${id} in ${this.backends.facts.location}` } };
    } catch (error) {
      return memoryError(error);
    }
  }

  /**
   * The facts log checked (`mnemo facts check`): whole, or recovered (a torn last record kept
   * aside). `log: null` for a storage that keeps none (Redis, facts turned off).
   */
  async checkFacts(): Promise<ServiceResult<FactLogCheck | { log: null; location: string }>> {
    const facts = this.backends.facts;
    if (!facts.check) return { ok: true, value: { log: null, location: facts.location } };
    try {
      return { ok: true, value: await facts.check() };
    } catch (error) {
      return memoryError(error);
    }
  }

  /** A conversation's working memory; null when it has none yet. */
  async workingMemory(conversationId: string): Promise<ServiceResult<WorkingMemoryView | null>> {
    if (!WORKING_MEMORY_ID_PATTERN.test(conversationId)) return settingsError(`"${conversationId}" is not a conversation id (they look like conv-3fa9c2d1)`);
    const manager = this.backends.working;
    if (!manager) return settingsError('working memory is turned off (memory.working.enabled is false)');
    try {
      const [record] = await manager.retrieve({ conversation_id: conversationId });
      return { ok: true, value: record ? { conversationId, memory: record.working_memory, updatedAt: record.updated_at } : null };
    } catch (error) {
      return memoryError(error);
    }
  }

  /** Conversations that have a working memory. */
  async conversations(): Promise<ServiceResult<string[]>> {
    try {
      return { ok: true, value: (await this.backends.working?.list()) ?? [] };
    } catch (error) {
      return memoryError(error);
    }
  }
}
