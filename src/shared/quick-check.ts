/**
 * A quicker check of values zod already describes, for the long lists the window reads: a
 * 2,000-step session is 22,000 events, and zod builds a new copy of every object it checks. Here
 * a schema is turned once into a plain function that walks a value and answers one question:
 * would zod accept it and give it back unchanged (nothing stripped, no default filled, no
 * transform)? When it is sure, the value is used as it is. When it is not (a field it does not
 * know, a transform, a wrong type), zod checks the value as before, so a value is never refused
 * here: what is refused, and the message saying why, are zod's own.
 *
 * Only what zod's shape says is read here (`_zod.def`: types, shapes, literal values and the
 * common checks: integers, bounds, lengths, patterns, a refinement's test); a check it does not
 * know is asked of zod for that part alone.
 *
 * The loops go by index: the window checks a long session in a freshly loaded page, before V8 has
 * optimised these functions, and there an iterator allocates a result for each item it yields.
 */
import type { z } from 'zod';

/** True: zod accepts the value and its output equals it. False: not known here, ask zod. */
type Fits = (value: unknown) => boolean;

interface Def {
  type: string;
  checks?: Array<{ _zod: { def: CheckDef } }>;
  [field: string]: unknown;
}
interface CheckDef {
  check: string;
  [field: string]: unknown;
}
type Internal = { _zod: { def: Def } };

const compiled = new WeakMap<object, Fits>();

/**
 * The plain type checks (a string, a finite number, a boolean, with no further check), known by
 * their function: an object's walk checks such fields itself rather than calling a function for
 * each, which is most of the fields of an event.
 */
const enum Leaf {
  None,
  String,
  Number,
  Boolean,
}
const isString: Fits = (value) => typeof value === 'string';
const isFiniteNumber: Fits = (value) => typeof value === 'number' && Number.isFinite(value);
const isBoolean: Fits = (value) => typeof value === 'boolean';
const leafOf = (fits: Fits): Leaf => (fits === isString ? Leaf.String : fits === isFiniteNumber ? Leaf.Number : fits === isBoolean ? Leaf.Boolean : Leaf.None);

const defOf = (schema: unknown): Def => (schema as Internal)._zod.def;
const never: Fits = () => false;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * zod's own check of `schema` for a part whose checks are not known here. The type was checked as
 * it is first, so only a primitive can come back changed; it must come back equal.
 */
function zodKeepsAsIs(schema: z.ZodType, value: unknown): boolean {
  const parsed = schema.safeParse(value);
  return parsed.success && (typeof value === 'object' || parsed.data === value);
}

/** The length of what a length check measures, or undefined. */
const lengthOf = (value: unknown): number | undefined => (typeof value === 'string' || Array.isArray(value) ? value.length : undefined);

/** One of zod's common checks as a function, or null for one it must run itself. */
function knownCheck(check: CheckDef): Fits | null {
  switch (check.check) {
    case 'number_format':
      return check.format === 'safeint' ? (value) => Number.isSafeInteger(value) : null;
    case 'greater_than': {
      const bound = check.value as number;
      return check.inclusive ? (value) => (value as number) >= bound : (value) => (value as number) > bound;
    }
    case 'less_than': {
      const bound = check.value as number;
      return check.inclusive ? (value) => (value as number) <= bound : (value) => (value as number) < bound;
    }
    case 'min_length': {
      const minimum = check.minimum as number;
      return (value) => (lengthOf(value) ?? -1) >= minimum;
    }
    case 'max_length': {
      const maximum = check.maximum as number;
      return (value) => (lengthOf(value) ?? Infinity) <= maximum;
    }
    case 'length_equals': {
      const length = check.length as number;
      return (value) => lengthOf(value) === length;
    }
    case 'string_format': {
      if (check.format !== 'regex' || !(check.pattern instanceof RegExp)) return null;
      // A copy without the stateful flags: `test` must not depend on the last call.
      const pattern = new RegExp(check.pattern.source, check.pattern.flags.replace(/[gy]/g, ''));
      return (value) => pattern.test(value as string);
    }
    case 'custom': {
      // A refinement's own test (`refine(fn)`): true passes. Anything else (a superRefine, a
      // promise, a throw) is zod's to judge.
      const test = check.fn;
      if (typeof test !== 'function') return null;
      return (value) => {
        try {
          return (test as (value: unknown) => unknown)(value) === true;
        } catch {
          return false;
        }
      };
    }
    default:
      return null;
  }
}

/** The schema's type check with its checks after it; checks zod must run are asked of it for this part. */
function withChecks(schema: z.ZodType, def: Def, fitsType: Fits): Fits {
  const defs = (def.checks ?? []).map((check) => check._zod.def);
  if (defs.length === 0) return fitsType;
  // An overwrite (trim, lower case…) changes the value: never as it is.
  if (defs.some((check) => check.check === 'overwrite')) return never;
  const checks = defs.map(knownCheck);
  if (checks.every((check): check is Fits => check !== null)) {
    if (checks.length === 1) {
      const [only] = checks as [Fits];
      return (value) => fitsType(value) && only(value);
    }
    return (value) => {
      if (!fitsType(value)) return false;
      for (let index = 0; index < checks.length; index++) if (!(checks[index] as Fits)(value)) return false;
      return true;
    };
  }
  return (value) => fitsType(value) && zodKeepsAsIs(schema, value);
}

function objectFits(def: Def): Fits {
  const shape = def.shape as Record<string, z.ZodType>;
  const entries = Object.entries(shape);
  const fields = entries.map(([key, field]) => {
    const fits = compile(field);
    // A name Object.prototype also has (`constructor`, `toString`…) may be found there: its own-ness is asked.
    return { key, fits, leaf: leafOf(fits), optional: defOf(field).type === 'optional', inherited: key in Object.prototype };
  });
  const catchall = def.catchall === undefined ? null : defOf(def.catchall).type;
  const extraKept = catchall === 'unknown' || catchall === 'any';
  return (value) => {
    if (!isPlainObject(value)) return false;
    let present = 0;
    for (let index = 0; index < fields.length; index++) {
      const field = fields[index] as (typeof fields)[number];
      const own = value[field.key];
      if (own === undefined) {
        // Absent: only an optional field stays absent (a default would be filled in).
        if (!field.optional || Object.hasOwn(value, field.key)) return false;
        continue;
      }
      if (field.inherited && !Object.hasOwn(value, field.key)) return false;
      present++;
      switch (field.leaf) {
        case Leaf.String:
          if (typeof own !== 'string') return false;
          break;
        case Leaf.Number:
          if (typeof own !== 'number' || !Number.isFinite(own)) return false;
          break;
        case Leaf.Boolean:
          if (typeof own !== 'boolean') return false;
          break;
        default:
          if (!field.fits(own)) return false;
      }
    }
    // A key the shape does not name is stripped (or refused) by zod: not as it is. Every named
    // key found is the value's own, so more keys than those means one the shape does not name.
    if (extraKept) return true;
    let keys = 0;
    for (const _key in value) keys++;
    return keys === present;
  };
}

/** Which kinds of JSON value a schema can accept at all, to know which union options surely refuse one. */
function kindsOf(schema: z.ZodType, seen = new Set<object>()): Set<string> | 'any' {
  if (seen.has(schema)) return 'any';
  seen.add(schema);
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
      return new Set([def.type]);
    case 'null':
      return new Set(['null']);
    case 'array':
    case 'tuple':
      return new Set(['array']);
    case 'object':
    case 'record':
      return new Set(['object']);
    case 'literal':
    case 'enum': {
      const values = def.type === 'literal' ? (def.values as unknown[]) : Object.values(def.entries as object);
      return new Set(values.map(kindOf));
    }
    case 'nullable': {
      const inner = kindsOf(def.innerType as z.ZodType, seen);
      return inner === 'any' ? inner : new Set([...inner, 'null']);
    }
    case 'lazy':
      return kindsOf((def.getter as () => z.ZodType)(), seen);
    case 'union': {
      const all = new Set<string>();
      for (const option of def.options as z.ZodType[]) {
        const kinds = kindsOf(option, seen);
        if (kinds === 'any') return 'any';
        for (const kind of kinds) all.add(kind);
      }
      return all;
    }
    default:
      return 'any';
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function unionFits(def: Def): Fits {
  const options = def.options as z.ZodType[];
  const discriminator = def.discriminator as string | undefined;
  if (discriminator !== undefined) {
    // Each option names its value of the discriminator: the value's own picks the one option zod tries.
    const byTag = new Map<unknown, Fits>();
    for (const option of options) {
      const optionDef = defOf(option);
      const tag = optionDef.type === 'object' ? (optionDef.shape as Record<string, z.ZodType>)[discriminator] : undefined;
      if (!tag || defOf(tag).type !== 'literal') return never;
      for (const literal of defOf(tag).values as unknown[]) byTag.set(literal, compile(option));
    }
    return (value) => isPlainObject(value) && (byTag.get(value[discriminator])?.(value) ?? false);
  }
  // zod takes the first option that accepts: an earlier one must surely refuse the value's kind.
  const entries = options.map((option) => ({ fits: compile(option), kinds: kindsOf(option) }));
  return (value) => {
    const kind = kindOf(value);
    for (const entry of entries) {
      if (entry.fits(value)) return true;
      if (entry.kinds === 'any' || entry.kinds.has(kind)) return false;
    }
    return false;
  };
}

function build(schema: z.ZodType): Fits {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return withChecks(schema, def, isString);
    case 'number':
      return withChecks(schema, def, isFiniteNumber);
    case 'boolean':
      return withChecks(schema, def, isBoolean);
    case 'null':
      return (value) => value === null;
    case 'unknown':
    case 'any':
      return (value) => value !== undefined;
    case 'literal': {
      const values = def.values as unknown[];
      return (value) => values.includes(value);
    }
    case 'enum': {
      const values = new Set(Object.values(def.entries as object));
      return (value) => values.has(value);
    }
    case 'optional': {
      const inner = compile(def.innerType as z.ZodType);
      return (value) => value === undefined || inner(value);
    }
    case 'nullable': {
      const inner = compile(def.innerType as z.ZodType);
      return (value) => value === null || inner(value);
    }
    case 'default': {
      // Present, the default plays no part; absent, zod fills it in (not as it is).
      const inner = compile(def.innerType as z.ZodType);
      return (value) => value !== undefined && inner(value);
    }
    case 'array': {
      const element = compile(def.element as z.ZodType);
      return withChecks(schema, def, (value) => {
        if (!Array.isArray(value)) return false;
        for (let index = 0; index < value.length; index++) {
          const item: unknown = value[index];
          if (item === undefined || !element(item)) return false;
        }
        return true;
      });
    }
    case 'record': {
      const keyDef = defOf(def.keyType);
      if (keyDef.type !== 'string' || (keyDef.checks ?? []).length > 0) return never;
      const element = compile(def.valueType as z.ZodType);
      return withChecks(schema, def, (value) => {
        if (!isPlainObject(value)) return false;
        for (const key in value) if (!element(value[key])) return false;
        return true;
      });
    }
    case 'object':
      return withChecks(schema, def, objectFits(def));
    case 'union':
      return withChecks(schema, def, unionFits(def));
    case 'lazy': {
      let inner: Fits | undefined;
      return (value) => (inner ??= compile((def.getter as () => z.ZodType)()))(value);
    }
    default:
      // A transform, a pipe, a tuple, an intersection…: zod's to check.
      return never;
  }
}

function compile(schema: z.ZodType): Fits {
  const known = compiled.get(schema);
  if (known) return known;
  // A recursive schema meets itself while it is built: the call goes through the table.
  compiled.set(schema, (value) => (compiled.get(schema) as Fits)(value));
  const fits = build(schema);
  compiled.set(schema, fits);
  return fits;
}

/** True when zod would accept `value` for `schema` and give it back unchanged; false when not known. */
export function fitsAsIs(schema: z.ZodType, value: unknown): boolean {
  return compile(schema)(value);
}

/**
 * `schema.safeParse(value)`, answered without zod when the value surely fits as it is (then the
 * data is `value` itself). A value that does not is parsed by zod, which says why.
 */
export function quickParse<S extends z.ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.output<S>> {
  if (fitsAsIs(schema, value)) return { success: true, data: value as z.output<S> } as z.ZodSafeParseResult<z.output<S>>;
  return schema.safeParse(value);
}
