/**
 * Ranked full-text search over facts: BM25 with field weights (a keyword match counts three times,
 * a value twice, a description once), in memory, updated fact by fact. The seed's
 * `loadByDescription` matches substrings; this ranks, so "which editor does the user like" finds
 * `preferred-editor` first among thousands.
 *
 * Cost: a query walks the postings of its terms only and keeps the best k in a small heap, so it
 * stays a few milliseconds at 100k facts; an update touches the postings of one fact's terms.
 */

export interface IndexedText {
  keyword: string;
  description: string;
  values: readonly string[];
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
    this.docs[number] = { id, length, terms };
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

  /** The best `limit` facts for the query, best first; `accept` filters by id (subject, scope). */
  search(query: string, options: { limit?: number; accept?: (id: string) => boolean } = {}): SearchHit[] {
    const limit = options.limit ?? 20;
    const terms = [...new Set(tokenize(query))];
    const total = this.numbers.size;
    if (terms.length === 0 || total === 0 || limit <= 0) return [];
    if (this.scores.length < this.docs.length) this.scores = new Float64Array(Math.max(this.docs.length, this.scores.length * 2, 64));
    const scores = this.scores;
    const touched: number[] = [];
    const average = this.totalLength / total || 1;
    for (const term of terms) {
      const list = this.postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (total - list.size + 0.5) / (list.size + 0.5));
      for (const [number, tf] of list) {
        const doc = this.docs[number] as Doc;
        if (scores[number] === 0) touched.push(number);
        scores[number] = (scores[number] as number) + (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / average));
      }
    }
    const heap = new TopK(limit);
    for (const number of touched) {
      const score = scores[number] as number;
      scores[number] = 0;
      const id = (this.docs[number] as Doc).id;
      if (options.accept && !options.accept(id)) continue;
      heap.offer(id, score);
    }
    return heap.sorted();
  }
}

/** The k best hits seen, in a min-heap on score (ties: the smaller id wins, for stable output). */
class TopK {
  private readonly items: SearchHit[] = [];

  constructor(private readonly k: number) {}

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
    const hit = { id, score };
    if (!this.worse(items[0] as SearchHit, hit)) return;
    items[0] = hit;
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
