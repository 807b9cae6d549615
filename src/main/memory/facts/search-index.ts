/**
 * Ranked full-text search over facts: BM25 with field weights (a keyword match counts three times,
 * a value twice, a description once), in memory, updated fact by fact. The seed's
 * `loadByDescription` matches substrings; this ranks, so "which editor does the user like" finds
 * `preferred-editor` first among thousands.
 *
 * Cost: terms are taken rarest first; once the k-th best score so far beats what the remaining
 * (common) terms could add at most (BM25 saturates at idf × (k1 + 1)), those terms only add to
 * documents already found instead of walking their long postings — the same top k, exactly (the
 * MaxScore idea). So "user" in a query does not mean visiting every fact about the user. An update
 * touches the postings of one fact's terms.
 */

export interface IndexedText {
  keyword: string;
  description: string;
  values: readonly string[];
  /** Kept with the document so a filtered search needs no lookup elsewhere. */
  subject?: string;
  scope?: string;
}

export interface SearchOptions {
  limit?: number;
  subjects?: ReadonlySet<string> | null;
  scopes?: ReadonlySet<string> | null;
}

export interface SearchHit {
  id: string;
  score: number;
}

const FIELD_WEIGHTS = { keyword: 3, values: 2, description: 1 } as const;
const K1 = 1.2;
const B = 0.75;

const STOP_WORDS = new Set(
  'a an and are as at be by does did do for from has have how i in is it its of on or that the their this to was what when where which who why with you your'.split(' '),
);

/** Folds the common English plural and possessive endings, so "editors" finds "editor". */
function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|us|is)$/.test(word)) return word;
  if (/(?:sh|ch|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/** Lower-case words and numbers (any script), stop words dropped, lightly stemmed. */
export function tokenize(text: string): string[] {
  const words = text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((word) => !STOP_WORDS.has(word)).map(stem);
}

interface Doc {
  id: string;
  length: number;
  terms: Map<string, number>;
  subject: string;
  scope: string;
}

export class FactSearchIndex {
  private readonly docs: Array<Doc | undefined> = [];
  private readonly numbers = new Map<string, number>();
  private readonly free: number[] = [];
  private readonly postings = new Map<string, Map<number, number>>();
  private totalLength = 0;
  private scores = new Float64Array(0);

  get size(): number {
    return this.numbers.size;
  }

  /** Adds a fact, or replaces what was indexed for its id. */
  set(id: string, text: IndexedText): void {
    this.remove(id);
    const terms = new Map<string, number>();
    const count = (source: string, weight: number) => {
      for (const term of tokenize(source)) terms.set(term, (terms.get(term) ?? 0) + weight);
    };
    count(text.keyword, FIELD_WEIGHTS.keyword);
    count(text.description, FIELD_WEIGHTS.description);
    for (const value of text.values) count(value, FIELD_WEIGHTS.values);
    let length = 0;
    for (const weight of terms.values()) length += weight;
    const number = this.free.pop() ?? this.docs.length;
    this.docs[number] = { id, length, terms, subject: text.subject ?? '', scope: text.scope ?? '' };
    this.numbers.set(id, number);
    this.totalLength += length;
    for (const [term, weight] of terms) {
      let list = this.postings.get(term);
      if (!list) this.postings.set(term, (list = new Map()));
      list.set(number, weight);
    }
  }

  remove(id: string): void {
    const number = this.numbers.get(id);
    if (number === undefined) return;
    const doc = this.docs[number] as Doc;
    for (const term of doc.terms.keys()) {
      const list = this.postings.get(term);
      list?.delete(number);
      if (list?.size === 0) this.postings.delete(term);
    }
    this.totalLength -= doc.length;
    this.docs[number] = undefined;
    this.numbers.delete(id);
    this.free.push(number);
  }

  clear(): void {
    this.docs.length = 0;
    this.numbers.clear();
    this.free.length = 0;
    this.postings.clear();
    this.totalLength = 0;
  }

  /** The best `limit` facts for the query, best first, within the subjects and scopes given. */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const limit = options.limit ?? 20;
    const total = this.numbers.size;
    if (total === 0 || limit <= 0) return [];
    const average = this.totalLength / total || 1;
    const terms = [...new Set(tokenize(query))]
      .map((term) => ({ list: this.postings.get(term) }))
      .filter((term): term is { list: Map<number, number> } => term.list !== undefined)
      .map(({ list }) => {
        const idf = Math.log(1 + (total - list.size + 0.5) / (list.size + 0.5));
        return { list, idf, bound: idf * (K1 + 1) };
      })
      .sort((a, b) => b.idf - a.idf);
    if (terms.length === 0) return [];
    if (this.scores.length < this.docs.length) this.scores = new Float64Array(Math.max(this.docs.length, this.scores.length * 2, 64));
    const scores = this.scores;
    const docs = this.docs;
    const { subjects, scopes } = options;
    const accepted = (doc: Doc) => (!subjects || subjects.has(doc.subject)) && (!scopes || scopes.has(doc.scope));
    const touched: number[] = [];
    let remaining = terms.reduce((sum, term) => sum + term.bound, 0);
    let closed = false;
    const add = (number: number, tf: number, idf: number) => {
      const doc = docs[number] as Doc;
      scores[number] = (scores[number] as number) + (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / average));
    };
    for (const { list, idf, bound } of terms) {
      if (!closed && touched.length >= limit && this.kthBest(touched, limit, accepted) > remaining) closed = true;
      if (closed) {
        // No document outside `touched` can reach the top k any more: only add to those.
        for (const number of touched) {
          const tf = list.get(number);
          if (tf !== undefined) add(number, tf, idf);
        }
      } else {
        list.forEach((tf, number) => {
          if (scores[number] === 0) touched.push(number);
          add(number, tf, idf);
        });
      }
      remaining -= bound;
    }
    const heap = new TopK(limit);
    for (const number of touched) {
      const score = scores[number] as number;
      scores[number] = 0;
      const doc = docs[number] as Doc;
      if (accepted(doc)) heap.offer(doc.id, score);
    }
    return heap.sorted();
  }

  /** The k-th best score among the accepted documents found so far (0 when fewer than k). */
  private kthBest(touched: readonly number[], k: number, accepted: (doc: Doc) => boolean): number {
    const heap = new TopK(k);
    for (const number of touched) {
      const doc = this.docs[number] as Doc;
      if (accepted(doc)) heap.offer(doc.id, this.scores[number] as number);
    }
    return heap.size < k ? 0 : heap.minimum;
  }
}

/** The k best hits seen, in a min-heap on score (ties: the smaller id wins, for stable output). */
class TopK {
  private readonly items: SearchHit[] = [];

  constructor(private readonly k: number) {}

  get size(): number {
    return this.items.length;
  }

  /** The worst score kept. */
  get minimum(): number {
    return this.items[0]?.score ?? 0;
  }

  private worse(a: SearchHit, b: SearchHit): boolean {
    return a.score < b.score || (a.score === b.score && a.id > b.id);
  }

  offer(id: string, score: number): void {
    const items = this.items;
    if (items.length < this.k) {
      items.push({ id, score });
      let i = items.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(items[i] as SearchHit, items[parent] as SearchHit)) break;
        [items[i], items[parent]] = [items[parent] as SearchHit, items[i] as SearchHit];
        i = parent;
      }
      return;
    }
    const top = items[0] as SearchHit;
    if (score < top.score || (score === top.score && id > top.id)) return;
    items[0] = { id, score };
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && this.worse(items[left] as SearchHit, items[smallest] as SearchHit)) smallest = left;
      if (right < items.length && this.worse(items[right] as SearchHit, items[smallest] as SearchHit)) smallest = right;
      if (smallest === i) break;
      [items[i], items[smallest]] = [items[smallest] as SearchHit, items[i] as SearchHit];
      i = smallest;
    }
  }

  sorted(): SearchHit[] {
    return [...this.items].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  }
}
