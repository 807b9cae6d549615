/**
 * The seed's `AgentMemory` feature for Mnemo's loop: the provider (default `NoMemory`), the scopes
 * profile, the subjects, and what the loop does with them:
 *
 *   - at the start of a task, the facts that bear on it go into the prompt: those the task's words
 *     find (ranked) first, then the rest by subject priority and recency, one per concept (the more
 *     specific subject wins), within a token budget;
 *   - the model saves a fact on purpose (`save_fact`);
 *   - after the task, the memory model picks the lasting facts out of the run (auto-detection).
 *
 * Where a fact is saved: facts about the machine in the agent's scope (`agent:mnemo@<host>`, this
 * machine only, even when the memory is shared), every other fact in the product's scope.
 */
import type { TextModel } from '../text-model';
import { detectFacts, type Detection } from './extraction';
import { FactType, formatScope, MemoryScope, profileScopes, resolveFacts, SubjectRegistry, type MemoryScopesProfile, type MemorySubject, type SaveOutcome, type StoredFact } from './model';
import type { FactStore } from './provider';
import { NoMemory } from './table';

export interface AgentMemoryConfig {
  memoryProvider: FactStore;
  scopesProfile: MemoryScopesProfile;
  subjects: SubjectRegistry;
  /** Tokens the facts may take in the prompt (estimated at 4 characters a token). Default 600. */
  promptBudgetTokens: number;
  /** Pick facts out of each run with the memory model. Default true. */
  autoDetect: boolean;
  /** The subjects auto-detection looks for. Default user and machine. */
  detectSubjects: string[];
}

export const DEFAULT_PROMPT_BUDGET_TOKENS = 600;

export function defaultAgentMemoryConfig(profile: MemoryScopesProfile): AgentMemoryConfig {
  return { memoryProvider: NoMemory, scopesProfile: profile, subjects: new SubjectRegistry(), promptBudgetTokens: DEFAULT_PROMPT_BUDGET_TOKENS, autoDetect: true, detectSubjects: ['user', 'machine'] };
}

export const FACTS_PROMPT_HEADING = '[Facts remembered from earlier tasks:]';

export interface LoadedFacts {
  facts: StoredFact[];
  text: string;
  tokens: number;
  /** Candidates (found by the search, or the newest) that did not fit the budget. */
  omitted: number;
}

export interface FactInput {
  subject: string;
  keyword: string;
  description: string;
  values: string[];
  multiple?: boolean;
  /** The session of the run that teaches it (its `save_fact`). */
  sessionId?: string | undefined;
}

function factLine(fact: StoredFact): string {
  const description = fact.description && fact.description !== fact.keyword ? ` (${fact.description})` : '';
  return `- [${fact.subject}] ${fact.keyword}${description}: ${fact.values.join('; ')}`;
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

export class AgentMemory {
  constructor(
    readonly config: AgentMemoryConfig,
    private readonly deps: {
      model?: TextModel | null;
      now?: () => number;
    } = {},
  ) {}

  get provider(): FactStore {
    return this.config.memoryProvider;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** The scopes a run sees: agent, feature, product, cross-product of the profile. */
  scopes(): string[] {
    return profileScopes(this.config.scopesProfile).map(formatScope);
  }

  scopeFor(subject: string): MemoryScope {
    return subject === 'machine' ? MemoryScope.Agent(this.config.scopesProfile.agentName) : MemoryScope.Product(this.config.scopesProfile.productName);
  }

  /** The facts for a task's prompt, within the budget. Throws `MemoryStoreError` when the storage fails. */
  async loadForTask(task: string): Promise<LoadedFacts> {
    const scopes = this.scopes();
    const hits = await this.provider.search(task, { scopes, limit: 50 });
    const listed = (await this.provider.list({ scopes })).slice(0, 200);
    const scores = new Map(hits.map((hit) => [hit.fact.id, hit.score]));
    const candidates = new Map<string, StoredFact>();
    for (const fact of [...hits.map((hit) => hit.fact), ...listed]) candidates.set(fact.id, fact);
    const resolved = resolveFacts([...candidates.values()], this.config.subjects);
    const ordered = [...resolved.filter((fact) => scores.has(fact.id)).sort((a, b) => (scores.get(b.id) ?? 0) - (scores.get(a.id) ?? 0)), ...resolved.filter((fact) => !scores.has(fact.id))];
    const chosen: StoredFact[] = [];
    let tokens = estimateTokens(FACTS_PROMPT_HEADING);
    for (const fact of ordered) {
      const cost = estimateTokens(factLine(fact)) + 1;
      if (tokens + cost > this.config.promptBudgetTokens) continue;
      chosen.push(fact);
      tokens += cost;
    }
    const omitted = ordered.length - chosen.length;
    if (chosen.length === 0) return { facts: [], text: '', tokens: 0, omitted };
    return { facts: chosen, text: [FACTS_PROMPT_HEADING, ...chosen.map(factLine)].join('\n'), tokens, omitted };
  }

  /** Saves one fact (the `save_fact` action, the CLI, the app). Throws `MemoryStoreError`. */
  async save(input: FactInput, scope?: MemoryScope | string): Promise<SaveOutcome> {
    // The settings' secrets are masked by the provider's store writer, for every way a fact is saved.
    const multiple = input.multiple ?? input.values.length > 1;
    const concept = { keyword: input.keyword, description: input.description, factType: multiple ? FactType.MULTIPLE : FactType.SINGLE };
    const timestamp = this.now();
    const values = input.values;
    const fact = multiple ? { concept, values, timestamp } : { concept, value: values[0] ?? '', timestamp };
    return this.provider.save(fact, input.subject, scope ?? this.scopeFor(input.subject), input.sessionId);
  }

  /**
   * Auto-detection over the run's record; the facts found are saved, taught by `sessionId` (the
   * run's session). Storage failures throw.
   */
  async saveFromHistory(transcript: string, signal?: AbortSignal, sessionId?: string): Promise<{ detection: Detection; outcomes: SaveOutcome[] }> {
    const model = this.deps.model;
    if (!model) return { detection: { ok: false, error: 'no memory model is configured to detect facts', attempts: 0, reply: null }, outcomes: [] };
    const subjects = this.config.detectSubjects.map((name) => this.config.subjects.get(name)).filter((subject): subject is MemorySubject => subject !== undefined);
    const detection = await detectFacts(model, transcript, subjects, { now: () => this.now(), signal });
    if (!detection.ok || detection.facts.length === 0) return { detection, outcomes: [] };
    const outcomes = await this.provider.saveMany(detection.facts.map(({ subject, fact }) => ({ fact, subject, scope: this.scopeFor(subject), sessionId })));
    return { detection, outcomes };
  }
}
