/**
 * Keeps the secrets of the settings (the API key, a password in a URL, an encryption key) out of
 * every text Mnemo records, prints or exports: the whole secret and any piece of it of
 * MIN_FRAGMENT characters or more become MASK, as they are written and as they appear inside JSON
 * (escaped once, twice, with \u escapes). A provider that echoes part of the key
 * (`Incorrect API key provided: sk-abc12***...`) is masked too.
 *
 * Secrets shorter than MIN_FRAGMENT are left alone: they are placeholders (`ollama`, `none`), and
 * masking them would blank ordinary words.
 *
 * Matching is by 8-character windows: every window of the text that is also a window of a secret
 * is covered, and each covered run becomes one MASK. A rolling hash finds the candidates, so a
 * long text costs one pass.
 */
import { MASK } from './describe-action';

export const MIN_FRAGMENT = 8;

const BASE = 31;
/** BASE^(MIN_FRAGMENT - 1), mod 2^32: what the leaving character weighs in the rolling hash. */
const LEAD = Array.from({ length: MIN_FRAGMENT - 1 }).reduce<number>((power) => Math.imul(power, BASE), 1);

function hashOf(text: string, start: number): number {
  let hash = 0;
  for (let i = start; i < start + MIN_FRAGMENT; i++) hash = (Math.imul(hash, BASE) + text.charCodeAt(i)) | 0;
  return hash;
}

/** The forms a secret takes in text and inside JSON strings. */
function variantsOf(secret: string): string[] {
  const escaped = (text: string) => JSON.stringify(text).slice(1, -1);
  const unicode = (text: string) => escaped(text).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [...new Set([secret, escaped(secret), escaped(escaped(secret)), unicode(secret), escaped(unicode(secret))])];
}

/**
 * What keeps the settings' secrets out of a text or a value: a fixed `SecretMask`, or the run
 * service's redaction policy, which follows the settings as they change
 * (src/main/settings/redaction.ts).
 */
export interface Redactor {
  /** The text with every secret, and every piece of one of 8 characters or more, masked. */
  text(text: string): string;
  /** Every string inside a JSON-like value masked. */
  deep<T>(value: T): T;
  /** Characters at the end of a streamed text to hold until the next piece (it may begin a secret). */
  heldTail(text: string): number;
}

/** Two redactors as one, `first` then `second` (a workflow run's secret values over the settings' policy). */
export function chainRedactors(first: Redactor, second: Redactor): Redactor {
  return {
    text: (text) => second.text(first.text(text)),
    deep: (value) => second.deep(first.deep(value)),
    heldTail: (text) => Math.max(first.heldTail(text), second.heldTail(text)),
  };
}

export class SecretMask implements Redactor {
  /** Masks nothing. */
  static readonly none = new SecretMask([]);

  /** The 8-character windows of every secret, and their hashes. */
  private readonly windows = new Set<string>();
  private readonly hashes = new Set<number>();
  /** Every piece shorter than a window: what a text cut in the middle of a secret may end with. */
  private readonly pieces = new Set<string>();

  constructor(secrets: readonly string[]) {
    for (const secret of secrets) {
      if (secret.length < MIN_FRAGMENT) continue;
      for (const variant of variantsOf(secret)) {
        for (let i = 0; i + MIN_FRAGMENT <= variant.length; i++) {
          this.windows.add(variant.slice(i, i + MIN_FRAGMENT));
          this.hashes.add(hashOf(variant, i));
        }
        for (let length = 1; length < MIN_FRAGMENT; length++) {
          for (let i = 0; i + length <= variant.length; i++) this.pieces.add(variant.slice(i, i + length));
        }
      }
    }
  }

  /** True when there is nothing to mask (no secret, or only short ones). */
  get empty(): boolean {
    return this.windows.size === 0;
  }

  /** The covered runs of `text`, as [start, end) pairs in order. */
  private covered(text: string): Array<[number, number]> {
    const runs: Array<[number, number]> = [];
    if (this.empty || text.length < MIN_FRAGMENT) return runs;
    let hash = hashOf(text, 0);
    for (let i = 0; ; i++) {
      if (this.hashes.has(hash) && this.windows.has(text.slice(i, i + MIN_FRAGMENT))) {
        const last = runs[runs.length - 1];
        if (last && last[1] >= i) last[1] = i + MIN_FRAGMENT;
        else runs.push([i, i + MIN_FRAGMENT]);
      }
      if (i + MIN_FRAGMENT >= text.length) break;
      hash = (Math.imul(hash - Math.imul(text.charCodeAt(i), LEAD), BASE) + text.charCodeAt(i + MIN_FRAGMENT)) | 0;
    }
    return runs;
  }

  /** The text with every secret, and every piece of one of 8 characters or more, masked. */
  text(text: string): string {
    const runs = this.covered(text);
    if (runs.length === 0) return text;
    let masked = '';
    let from = 0;
    for (const [start, end] of runs) {
      masked += text.slice(from, start) + MASK;
      from = end;
    }
    return masked + text.slice(from);
  }

  /** Every string inside a JSON-like value masked; unchanged parts are shared, nothing is mutated. */
  deep<T>(value: T): T {
    if (this.empty) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) {
      let changed = false;
      const items = value.map((item) => {
        const masked = this.walk(item);
        changed ||= masked !== item;
        return masked;
      });
      return changed ? items : value;
    }
    if (typeof value === 'object' && value !== null && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) {
      let changed = false;
      const entries = Object.entries(value).map(([key, item]) => {
        const masked = this.walk(item);
        changed ||= masked !== item;
        return [key, masked] as const;
      });
      return changed ? Object.fromEntries(entries) : value;
    }
    return value;
  }

  /**
   * How many characters at the end of `text` to hold back when it is streamed in pieces: a secret
   * cut by the end of this piece would otherwise go out in two halves, each too short to mask.
   * That is a masked run that reaches the end (it may go on), or an ending that is a piece of a
   * secret shorter than a window.
   */
  heldTail(text: string): number {
    if (this.empty) return 0;
    const last = this.covered(text).at(-1);
    if (last && last[1] === text.length) return text.length - last[0];
    for (let length = Math.min(MIN_FRAGMENT - 1, text.length); length > 0; length--) {
      if (this.pieces.has(text.slice(text.length - length))) return length;
    }
    return 0;
  }
}
