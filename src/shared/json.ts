/** JSON from text that may not be JSON (a model's reply, a file someone edited): undefined then. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A JSON value found in a text, and the span [start, end) it takes there (its fence included). */
export interface JsonInText<T> {
  value: T;
  start: number;
  end: number;
}

/** A fenced block marked json or jsonc (in any case) or not marked: where models put the JSON they mean. */
const JSON_FENCE = /```[ \t]*(?:jsonc?)?[ \t]*\n([\s\S]*?)```/gi;

/**
 * The first JSON value in a model's reply that `accept` takes: the fenced blocks first, in order,
 * then each balanced value in the prose that opens with `opener`. `accept` returns what the caller
 * wants of a value, or undefined to look further; the span lets a caller cut the JSON out of the
 * prose (the tool-calling family keeps the rest as the thought).
 */
export function findJsonInText<T>(text: string, opener: '{' | '[', accept: (value: unknown) => T | undefined): JsonInText<T> | null {
  const take = (json: string): T | undefined => {
    const parsed = parseJsonOrUndefined(json);
    return parsed === undefined ? undefined : accept(parsed);
  };
  for (const fence of text.matchAll(JSON_FENCE)) {
    const value = take((fence[1] ?? '').trim());
    if (value !== undefined) return { value, start: fence.index, end: fence.index + fence[0].length };
  }
  for (let start = text.indexOf(opener); start >= 0; start = text.indexOf(opener, start + 1)) {
    const end = balancedEnd(text, start);
    if (end < 0) continue;
    const value = take(text.slice(start, end));
    if (value !== undefined) return { value, start, end };
  }
  return null;
}

/**
 * Index just after the bracket that closes the one at `start`, or -1. Brackets inside strings do
 * not count; `[` and `{` are counted alike, which is exact for valid JSON (the span is parsed after).
 */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth += 1;
    else if (c === ']' || c === '}') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
