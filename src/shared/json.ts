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

/**
 * How deep a JSON value from outside (a request body, a file to import) may nest. Far beyond
 * anything Mnemo writes (a workflow file nests about ten levels), and far below what code that
 * walks a value recursively (JSON.stringify, the redaction) survives.
 */
export const MAX_JSON_DEPTH = 64;

export type JsonRead = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * JSON from outside, taken only when it is safe to hand on: the one guard for request bodies
 * (`mnemo serve`) and files to import (the CLI and serve alike). Refused with the reason: text
 * that is not JSON, a value nested deeper than `maxDepth` (measured before parsing, without
 * recursion), or an object key `__proto__` (merged into another object it would set its prototype).
 */
export function parseJsonWithin(text: string, maxDepth = MAX_JSON_DEPTH): JsonRead {
  if (nestsDeeperThan(text, maxDepth)) return { ok: false, message: `it nests deeper than ${maxDepth} levels` };
  let hostileKey = false;
  let value: unknown;
  try {
    value = JSON.parse(text, (key, field: unknown) => {
      if (key === '__proto__') hostileKey = true;
      return field;
    }) as unknown;
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  return hostileKey ? { ok: false, message: 'it has a key "__proto__", which is not accepted' } : { ok: true, value };
}

/** Whether `[` and `{` outside strings open more than `max` levels at some point (a linear scan; strings skipped whole). */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i < 0) return false; // unterminated: JSON.parse says what is wrong
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

/** The index of the quote that closes the string opened at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let at = start + 1; ; at += 1) {
    at = text.indexOf('"', at);
    if (at < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
}
