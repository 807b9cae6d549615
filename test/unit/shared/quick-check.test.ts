/**
 * The quick check answers "zod would accept this and give it back unchanged" only when that is
 * true; everything else goes to zod, whose answer (and message) stays the one the caller gets.
 * Checked on recorded sessions' real events and on every one-field change of them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseEventLines } from '../../../src/main/store/session-reader';
import { AgentEventListSchema, AgentEventSchema } from '../../../src/shared/events';
import { fitsAsIs, quickParse } from '../../../src/shared/quick-check';

const SESSIONS = resolve(import.meta.dirname, '../../fixtures/sessions-v1/sessions');

/** The recorded events as the window receives them: read, then sent as JSON. */
function recordedEvents(): unknown[] {
  const folders = readdirSync(SESSIONS, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const events = folders.flatMap((folder) => parseEventLines(readFileSync(join(SESSIONS, folder.name, 'events.jsonl'), 'utf8')).events);
  return JSON.parse(JSON.stringify(events)) as unknown[];
}

/** Every path to a value inside `value`, objects and arrays included. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [prefix];
  const children = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value);
  return [prefix, ...children.flatMap((key) => paths((value as Record<string | number, unknown>)[key], [...prefix, key]))];
}

function withAt(value: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  if (replacement === undefined && rest.length === 0 && !Array.isArray(value)) delete copy[head];
  else copy[head] = withAt(copy[head], rest, replacement);
  return copy;
}

/** The soundness the callers rely on: said to fit as is, zod accepts it and gives back an equal value. */
function expectSound(schema: z.ZodType, value: unknown): boolean {
  const fits = fitsAsIs(schema, value);
  if (fits) {
    const parsed = schema.safeParse(value);
    expect(parsed.success, JSON.stringify(value)).toBe(true);
    expect(isDeepStrictEqual(parsed.success && parsed.data, value), JSON.stringify(value)).toBe(true);
  }
  return fits;
}

describe('the quick check', () => {
  it('takes every recorded event as it is, and the list too, handing back the very list', () => {
    const events = recordedEvents();
    expect(events.length).toBeGreaterThan(90);
    for (const event of events) expect(expectSound(AgentEventSchema, event), JSON.stringify(event)).toBe(true);
    const parsed = quickParse(AgentEventListSchema, events);
    expect(parsed.success && parsed.data).toBe(events);
  });

  it('is never wrong about a value one field away from a recorded event: removed, emptied, of another type, out of range', () => {
    const replacements: unknown[] = [undefined, null, '', 'x', -1, 0, 1.5, 2, true, {}, [], [{}], 'image/gif', '../outside'];
    let sure = 0;
    let unsure = 0;
    for (const event of recordedEvents()) {
      for (const path of paths(event).filter((path) => path.length > 0)) {
        for (const replacement of replacements) {
          if (expectSound(AgentEventSchema, withAt(event, path, replacement))) sure += 1;
          else unsure += 1;
        }
      }
    }
    // Both answers happen: the check is neither always sure nor never.
    expect(sure).toBeGreaterThan(100);
    expect(unsure).toBeGreaterThan(100);
  });

  it('leaves to zod what zod changes: a key it strips, a default it fills, a transform', () => {
    const event = { type: 'action', step: 1, index: 0, runId: 'r', at: 1, seq: 2, action: { type: 'click', x: 1, y: 2, button: 'left' } };
    expect(expectSound(AgentEventSchema, event)).toBe(true);
    expect(fitsAsIs(AgentEventSchema, { ...event, extra: 1 })).toBe(false);
    const withoutButton = { ...event, action: { type: 'click', x: 1, y: 2 } };
    expect(fitsAsIs(AgentEventSchema, withoutButton)).toBe(false);
    const filled = quickParse(AgentEventSchema, withoutButton);
    expect(filled.success && filled.data).toMatchObject({ action: { button: 'left' } });
    const trimmed = z.object({ name: z.string().trim() });
    expect(fitsAsIs(trimmed, { name: ' a ' })).toBe(false);
    expect(quickParse(trimmed, { name: ' a ' })).toEqual({ success: true, data: { name: 'a' } });
    const piped = z.object({ n: z.string().transform((text) => text.length) });
    expect(fitsAsIs(piped, { n: 'abc' })).toBe(false);
  });

  it('counts only the keys a value has: a name Object.prototype also has, an own __proto__, an extra key holding undefined', () => {
    // zod reads a shape's key through the prototype too: `toString` comes back in its output, so the value is not as it is.
    const inherited = z.object({ a: z.string(), toString: z.unknown().optional() });
    expect(expectSound(inherited, { a: 'x' })).toBe(false);
    expect(expectSound(inherited, { a: 'x', extra: 1 })).toBe(false);
    expect(expectSound(inherited, { a: 'x', toString: 1 })).toBe(true);
    const plain = z.object({ a: z.string(), b: z.number().optional() });
    expect(expectSound(plain, { a: 'x' })).toBe(true);
    expect(fitsAsIs(plain, { a: 'x', extra: undefined })).toBe(false);
    expect(fitsAsIs(plain, { a: 'x', b: undefined })).toBe(false);
    expect(fitsAsIs(plain, JSON.parse('{"a":"x","__proto__":{"b":1}}'))).toBe(false);
    expect(fitsAsIs(plain, Object.assign(Object.create(null), { a: 'x', c: 1 }))).toBe(false);
  });

  it('refuses nothing itself: a wrong value gets zod\'s own error', () => {
    const wrong = { type: 'step-started', step: -1, runId: 'r', at: 1, seq: 1 };
    const quick = quickParse(AgentEventSchema, wrong);
    const zod = AgentEventSchema.safeParse(wrong);
    expect(quick.success).toBe(false);
    expect(!quick.success && z.prettifyError(quick.error)).toBe(!zod.success && z.prettifyError(zod.error));
  });

  it('follows zod\'s choice in a union: the first option that accepts, even where it strips', () => {
    const union = z.union([z.object({ a: z.string() }), z.object({ a: z.string(), b: z.number() })]);
    expect(fitsAsIs(union, { a: 'x', b: 1 })).toBe(false);
    expect(quickParse(union, { a: 'x', b: 1 })).toEqual({ success: true, data: { a: 'x' } });
    expect(expectSound(union, { a: 'x' })).toBe(true);
    const kinds = z.union([z.string(), z.object({ b: z.number() })]);
    expect(expectSound(kinds, { b: 1 })).toBe(true);
  });

  it('knows the common checks, a refinement\'s test and a recursive schema; asks zod for what it does not know', () => {
    const checked = z.object({ n: z.number().int().positive().max(9), s: z.string().min(2).regex(/^a/), list: z.array(z.string()).max(1) });
    expect(expectSound(checked, { n: 3, s: 'ab', list: ['x'] })).toBe(true);
    for (const wrong of [{ n: 0, s: 'ab', list: [] }, { n: 1.5, s: 'ab', list: [] }, { n: 10, s: 'ab', list: [] }, { n: 1, s: 'b', list: [] }, { n: 1, s: 'a', list: [] }, { n: 1, s: 'ab', list: ['x', 'y'] }]) {
      expect(fitsAsIs(checked, wrong)).toBe(false);
      expect(checked.safeParse(wrong).success).toBe(false);
    }
    const json = z.record(z.string(), z.json());
    expect(expectSound(json, { a: [1, 'x', { b: null, c: [true] }] })).toBe(true);
    const refined = z.object({ from: z.number(), to: z.number() }).refine((range) => range.to > range.from);
    expect(expectSound(refined, { from: 1, to: 2 })).toBe(true);
    expect(fitsAsIs(refined, { from: 2, to: 1 })).toBe(false);
    const superRefined = z.string().superRefine((text, context) => {
      if (text === 'no') context.addIssue({ code: 'custom', message: 'not that' });
    });
    expect(expectSound(superRefined, 'yes')).toBe(true);
    expect(fitsAsIs(superRefined, 'no')).toBe(false);
  });
});
