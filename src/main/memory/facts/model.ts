/**
 * The fact model of seed 001 (Koog's AgentMemory), in TypeScript spelling: a `Concept` (keyword,
 * description, `FactType`), a `SingleFact` or `MultipleFacts` about it with a timestamp, the
 * `MemorySubject` it is about (lower `priorityLevel` = more specific) and the `MemoryScope` it
 * applies in. Subjects and scopes travel as plain strings (`user`, `product:mnemo`) so files, Redis
 * and the command line share one spelling.
 */
import { createHash } from 'node:crypto';
import type { FactJson } from '../../../shared/app-api';

export const FactType = { SINGLE: 'SINGLE', MULTIPLE: 'MULTIPLE' } as const;
export type FactType = (typeof FactType)[keyof typeof FactType];

export interface Concept {
  /** The concept's identifier (unique within a subject and scope). */
  keyword: string;
  /** What the concept means, or the question it answers. */
  description: string;
  factType: FactType;
}

export interface SingleFact {
  concept: Concept;
  value: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

export interface MultipleFacts {
  concept: Concept;
  values: string[];
  timestamp: number;
}

export type Fact = SingleFact | MultipleFacts;

export function isSingleFact(fact: Fact): fact is SingleFact {
  return 'value' in fact;
}

export function factValues(fact: Fact): string[] {
  return isSingleFact(fact) ? [fact.value] : [...fact.values];
}

export interface MemorySubject {
  readonly name: string;
  /** What facts about this subject are, in words the model is shown. */
  readonly promptDescription: string;
  /** Lower is more specific: its facts win over a less specific subject's on the same concept. */
  readonly priorityLevel: number;
}

/** The seed's predefined catch-all subject, the least specific of all. */
const Everything: MemorySubject = {
  name: 'everything',
  promptDescription: 'All important information and meaningful facts',
  priorityLevel: Number.MAX_SAFE_INTEGER,
};

export const MemorySubject = { Everything } as const;

/** The subjects the seed provides besides `Everything`. */
export const MemorySubjects = {
  User: {
    name: 'user',
    promptDescription: 'User information (conversation preferences, issue history, contact details, etc.)',
    priorityLevel: 1,
  },
  Machine: {
    name: 'machine',
    promptDescription: 'Technical environment (installed tools, package managers, packages, SDKs, OS, etc.)',
    priorityLevel: 1,
  },
} as const satisfies Record<string, MemorySubject>;

/** Subject names: lower-case letters, digits, `-` and `_`, starting with a letter. */
export const SUBJECT_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,40}$/;

/**
 * The subjects a process knows: the three predefined ones and any custom ones from the settings.
 * A fact about an unknown subject name (saved by a process that knew it) is still loaded; it sorts
 * after every known subject but before `everything`.
 */
export class SubjectRegistry {
  private readonly byName = new Map<string, MemorySubject>();

  constructor(custom: readonly MemorySubject[] = []) {
    for (const subject of [MemorySubjects.User, MemorySubjects.Machine, MemorySubject.Everything, ...custom]) this.byName.set(subject.name, subject);
  }

  get(name: string): MemorySubject | undefined {
    return this.byName.get(name);
  }

  all(): MemorySubject[] {
    return [...this.byName.values()].sort((a, b) => a.priorityLevel - b.priorityLevel || a.name.localeCompare(b.name));
  }

  priorityOf(name: string): number {
    return this.byName.get(name)?.priorityLevel ?? Number.MAX_SAFE_INTEGER - 1;
  }
}

export type MemoryScope =
  | { kind: 'agent'; name: string }
  | { kind: 'feature'; id: string }
  | { kind: 'product'; name: string }
  | { kind: 'cross-product' };

export const MemoryScope = {
  Agent: (name: string): MemoryScope => ({ kind: 'agent', name }),
  Feature: (id: string): MemoryScope => ({ kind: 'feature', id }),
  Product: (name: string): MemoryScope => ({ kind: 'product', name }),
  CrossProduct: { kind: 'cross-product' } as MemoryScope,
} as const;

/** `agent:<name>`, `feature:<id>`, `product:<name>` or `cross-product`. */
export function formatScope(scope: MemoryScope): string {
  switch (scope.kind) {
    case 'agent':
      return `agent:${scope.name}`;
    case 'feature':
      return `feature:${scope.id}`;
    case 'product':
      return `product:${scope.name}`;
    case 'cross-product':
      return 'cross-product';
  }
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const SCOPE_HELP = 'scopes are written agent:<name>, feature:<id>, product:<name> or cross-product';

export function parseScope(text: string): Parsed<MemoryScope> {
  const trimmed = text.trim();
  if (trimmed === 'cross-product') return { ok: true, value: MemoryScope.CrossProduct };
  const match = /^(agent|feature|product):(.+)$/.exec(trimmed);
  const name = match?.[2]?.trim() ?? '';
  if (!match || name === '' || /[\s\n]/.test(name)) return { ok: false, message: `"${text}" is not a scope: ${SCOPE_HELP}` };
  const kind = match[1] as 'agent' | 'feature' | 'product';
  return { ok: true, value: kind === 'agent' ? MemoryScope.Agent(name) : kind === 'feature' ? MemoryScope.Feature(name) : MemoryScope.Product(name) };
}

/** Scope specificity, most specific first (used only to order otherwise equal facts). */
export function scopeRank(scope: string): number {
  if (scope.startsWith('agent:')) return 0;
  if (scope.startsWith('feature:')) return 1;
  if (scope.startsWith('product:')) return 2;
  return 3;
}

/**
 * The names the agent's scopes are made of (the seed's `MemoryScopesProfile` and the naming half
 * of its `Config`). The organisation is what `cross-product` spans: it also namespaces the shared
 * Redis keys, so two organisations can use one server.
 */
export interface MemoryScopesProfile {
  agentName: string;
  featureName: string;
  organizationName: string;
  productName: string;
}

export function profileScopes(profile: MemoryScopesProfile): MemoryScope[] {
  return [MemoryScope.Agent(profile.agentName), MemoryScope.Feature(profile.featureName), MemoryScope.Product(profile.productName), MemoryScope.CrossProduct];
}

/** One version of a fact's values, kept when a newer one superseded it. */
export interface FactVersion {
  values: string[];
  description: string;
  timestamp: number;
  /** The session of the run that saved this version; absent when a person did (the CLI, the app). */
  sessionId?: string;
}

/**
 * A fact as stored: one per (subject, scope, keyword). `history` holds the versions it superseded,
 * oldest first; forgetting the fact removes them too.
 */
export interface StoredFact {
  id: string;
  subject: string;
  scope: string;
  keyword: string;
  description: string;
  factType: FactType;
  values: string[];
  timestamp: number;
  /**
   * The session of the run that taught the current value (its `save_fact`, or auto-detection
   * after it), so a person can see where a fact came from; absent when a person saved it.
   */
  sessionId?: string;
  history: FactVersion[];
}

/** The identity key of a fact: keywords compare without case and surrounding blanks. */
export function factKey(subject: string, scope: string, keyword: string): string {
  return `${subject}\u0000${scope}\u0000${keyword.trim().toLowerCase()}`;
}

/** A fact's id: stable for its (subject, scope, keyword), so processes agree on it without talking. */
export function factId(subject: string, scope: string, keyword: string): string {
  return `f-${createHash('sha256').update(factKey(subject, scope, keyword)).digest('hex').slice(0, 12)}`;
}

/** The seed's fact value of a stored fact. */
export function toFact(stored: StoredFact): Fact {
  const concept: Concept = { keyword: stored.keyword, description: stored.description, factType: stored.factType };
  return stored.factType === FactType.SINGLE
    ? { concept, value: stored.values[0] ?? '', timestamp: stored.timestamp }
    : { concept, values: [...stored.values], timestamp: stored.timestamp };
}

/** What a save did to the fact. */
export type SaveChange = 'added' | 'superseded' | 'extended' | 'unchanged';

export interface SaveOutcome {
  fact: StoredFact;
  change: SaveChange;
}

function cleanValues(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of values) {
    const value = raw.trim();
    if (value === '' || seen.has(value)) continue;
    seen.add(value);
    out.push(value);
  }
  return out;
}

/** The version a fact holds now, as it goes to history when a newer one supersedes it. */
export function versionOf(fact: StoredFact): FactVersion {
  return { values: fact.values, description: fact.description, timestamp: fact.timestamp, ...(fact.sessionId ? { sessionId: fact.sessionId } : {}) };
}

/** A fact whose current version came from `sessionId` (or from a person: no session). */
function taughtBy(fact: StoredFact, sessionId: string | undefined): StoredFact {
  const { sessionId: _before, ...rest } = fact;
  return sessionId ? { ...rest, sessionId } : rest;
}

/**
 * The rules the seed leaves out, in one place (every provider applies them):
 *   - the same fact saved twice is stored once (`unchanged`);
 *   - a new value of a SINGLE concept supersedes the old one, which moves to `history`;
 *   - new values of a MULTIPLE concept are added to the set (`extended`; the old set goes to history);
 *   - a save older than the stored version never replaces it (it goes to history instead), so
 *     two processes replaying the same saves in any order agree.
 */
export function applySave(existing: StoredFact | undefined, fact: Fact, subject: string, scope: string, sessionId?: string): SaveOutcome {
  const keyword = fact.concept.keyword.trim();
  const values = cleanValues(factValues(fact));
  const id = factId(subject, scope, keyword);
  const description = fact.concept.description.trim();
  if (existing === undefined) {
    return { change: 'added', fact: taughtBy({ id, subject, scope, keyword, description, factType: fact.concept.factType, values, timestamp: fact.timestamp, history: [] }, sessionId) };
  }
  const current = versionOf(existing);
  const sameType = existing.factType === fact.concept.factType;
  if (sameType && fact.concept.factType === FactType.MULTIPLE) {
    const added = values.filter((value) => !existing.values.includes(value));
    if (added.length === 0) return { change: 'unchanged', fact: existing };
    const extended = { ...existing, description: description || existing.description, values: [...existing.values, ...added], timestamp: Math.max(existing.timestamp, fact.timestamp), history: [...existing.history, current] };
    return { change: 'extended', fact: taughtBy(extended, sessionId) };
  }
  if (sameType && sameValues(existing.values, values)) return { change: 'unchanged', fact: existing };
  if (fact.timestamp < existing.timestamp) {
    // An older value arriving late is history, not the current value.
    const old: FactVersion = { values, description, timestamp: fact.timestamp, ...(sessionId ? { sessionId } : {}) };
    if (existing.history.some((version) => version.timestamp === old.timestamp && sameValues(version.values, old.values))) return { change: 'unchanged', fact: existing };
    const history = [...existing.history, old].sort((a, b) => a.timestamp - b.timestamp);
    return { change: 'superseded', fact: { ...existing, history } };
  }
  const superseding = { ...existing, keyword, description: description || existing.description, factType: fact.concept.factType, values, timestamp: fact.timestamp, history: [...existing.history, current] };
  return { change: 'superseded', fact: taughtBy(superseding, sessionId) };
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/**
 * Orders facts for loading: the more specific subject first, then the newer; among facts on the
 * same concept (keyword) from several subjects only the winner is kept.
 */
export function resolveFacts(facts: readonly StoredFact[], subjects: SubjectRegistry, options: { keepShadowed?: boolean } = {}): StoredFact[] {
  const ordered = [...facts].sort(
    (a, b) => subjects.priorityOf(a.subject) - subjects.priorityOf(b.subject) || b.timestamp - a.timestamp || scopeRank(a.scope) - scopeRank(b.scope) || a.id.localeCompare(b.id),
  );
  if (options.keepShadowed) return ordered;
  const seen = new Set<string>();
  return ordered.filter((fact) => {
    const key = fact.keyword.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * `[{id, subject, scope, keyword, description, factType, values, timestamp}]`: what `mnemo facts --json`
 * prints, plus `sessionId` where a run taught the fact; the app also asks for the `history`. The
 * one shape is the contract's (`FactJsonSchema`).
 */
export type { FactJson };

export function factJson(fact: StoredFact, extra: { score?: number | undefined; history?: boolean } = {}): FactJson {
  return {
    id: fact.id,
    subject: fact.subject,
    scope: fact.scope,
    keyword: fact.keyword,
    description: fact.description,
    factType: fact.factType === FactType.SINGLE ? 'single' : 'multiple',
    values: [...fact.values],
    timestamp: fact.timestamp,
    ...(fact.sessionId ? { sessionId: fact.sessionId } : {}),
    ...(extra.score !== undefined ? { score: extra.score } : {}),
    ...(extra.history ? { history: fact.history.map((version) => ({ ...version, values: [...version.values] })) } : {}),
  };
}
