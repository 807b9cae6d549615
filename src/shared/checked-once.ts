/**
 * Values known to fit a schema because it made them in this process, so the front ends' last
 * check of an answer (the serve router, the IPC dispatch) need not walk them again: a 2,000-step
 * session's 22,000 events are checked where they are read from the record, once, not a second
 * time on their way out. A value is known only by identity (a WeakMap: nothing is kept alive),
 * and only for the very schema it was marked with; anything else is checked as before.
 */
import type { z } from 'zod';

const madeBy = new WeakMap<object, z.ZodType>();

/** Marks `value` as made by `schema` (it must be: parsed by it, or a list of what its element schema parsed). */
export function knownToFit<T extends object>(schema: z.ZodType, value: T): T {
  madeBy.set(value, schema);
  return value;
}

/** `schema.safeParse(value)`, skipped for a value `knownToFit` marked with this schema. */
export function checkOnce(schema: z.ZodType, value: unknown): { success: true; data: unknown } | { success: false; error: z.ZodError } {
  if (typeof value === 'object' && value !== null && madeBy.get(value) === schema) return { success: true, data: value };
  return schema.safeParse(value);
}
