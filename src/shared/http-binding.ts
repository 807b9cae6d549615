/**
 * How a window command travels over HTTP (`mnemo serve`): its method, its path template, and
 * where each request field rides. Declared once per command in the contract (contract.ts), and
 * read in both directions from here: the server's router takes a request apart with
 * `commandRequestOf`, the HTTP client puts one together with `wireRequestOf`, so the two cannot
 * disagree on a route.
 *
 * The rules, so a binding needs no more than its method and path:
 * - `:name` in the path is the request field `name`, one segment; `*name` (last) is the rest of
 *   the path, a `/`-separated field (a file inside a session folder).
 * - GET and DELETE: every other field is a query parameter of the same name (`query` renames:
 *   `{ q: 'text' }` carries `text` as `?q=`). A query value is text on the wire; it becomes a
 *   number or a boolean where the request schema says that field is one.
 * - POST and PUT: every other field is in the JSON body; a request whose fields are all in the
 *   path sends no body, and the server reads none.
 * - `download`: the answer is a file the browser saves under that name (`:name`s filled from
 *   the request), not JSON.
 * - `maxBody`: a POST or PUT whose body may be larger than the usual 1 MB.
 *
 * Pure TypeScript + zod: the renderer, the preload and the main process all import it.
 */
import { z } from 'zod';

/** Where the JSON API lives on `mnemo serve`'s origin. */
export const API_PREFIX = '/api';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface BindingOptions {
  /** Query parameters named apart from their request field: wire name → field. */
  readonly query?: Readonly<Record<string, string>>;
  /** Answered with a file to save under this name (`:field`s filled from the request). */
  readonly download?: string;
  /** The largest JSON body it takes, in bytes (default: MAX_BODY); a workflow file to import holds its screenshots. */
  readonly maxBody?: number;
  /** What a route that is not a command answers, in words, for the list of routes (src/main/server/route-table.ts). */
  readonly about?: string;
}

/** The largest JSON body a command takes unless its binding says otherwise. */
export const MAX_BODY = 1024 * 1024;

export interface HttpBinding extends BindingOptions {
  readonly method: HttpMethod;
  /** `/runs/:id/answer`, after API_PREFIX. */
  readonly path: string;
}

/** The declaration helper of one method: `POST('/runs/:id/answer')`, `GET('/facts/search', { query: { q: 'text' } })`. */
function verb<const M extends HttpMethod>(method: M) {
  return <const P extends string, const O extends BindingOptions = Record<never, never>>(path: P, options?: O): { method: M; path: P } & O => {
    segmentsOf(path); // a malformed template is a bug: fail when the contract loads, not on a request
    return { method, path, ...(options ?? ({} as O)) };
  };
}

export const GET = verb('GET');
export const POST = verb('POST');
export const PUT = verb('PUT');
export const DELETE = verb('DELETE');

// ── what a binding may name, checked by the compiler where the contract declares it ─────────────

/** The request fields a path template names: `'/runs/:id/answer'` → `'id'`. */
export type PathFields<P extends string> = P extends `${infer Head}/${infer Tail}`
  ? PathFields<Head> | PathFields<Tail>
  : P extends `:${infer Name}`
    ? Name
    : P extends `*${infer Name}`
      ? Name
      : never;

type RenamedFields<B> = B extends { query: Readonly<Record<string, infer Field>> } ? Field : never;

/** `unknown` when every field `B` names is one of `Fields`; else a type that names the stray ones. */
export type BindingCheck<B extends HttpBinding, Fields extends string> = [PathFields<B['path']> | RenamedFields<B>] extends [Fields]
  ? unknown
  : { 'the binding names fields the request does not have': Exclude<PathFields<B['path']> | RenamedFields<B>, Fields> };

// ── path templates ──────────────────────────────────────────────────────────────────────────────

type Segment = { literal: string } | { field: string; rest: boolean };

const templates = new Map<string, Segment[]>();

/** The parsed template (cached: the router and the client ask for the same few again and again). */
export function segmentsOf(template: string): Segment[] {
  const known = templates.get(template);
  if (known) return known;
  if (!template.startsWith('/')) throw new Error(`a route path starts with /: "${template}"`);
  const segments = template
    .split('/')
    .filter(Boolean)
    .map((part, index, all): Segment => {
      const param = /^([:*])(\w+)$/.exec(part);
      if (!param) {
        if (/[:*]/.test(part)) throw new Error(`"${part}" in "${template}" is neither a literal nor :name or *name`);
        return { literal: part };
      }
      if (param[1] === '*' && index !== all.length - 1) throw new Error(`*${param[2]} must end the path "${template}"`);
      return { field: param[2] as string, rest: param[1] === '*' };
    });
  templates.set(template, segments);
  return segments;
}

/** The request fields the path carries. */
export function pathFieldsOf(template: string): string[] {
  return segmentsOf(template).flatMap((segment) => ('field' in segment ? [segment.field] : []));
}

export type PathValues = Record<string, string | string[]>;

/**
 * The path's fields when `segments` (decoded) fit `template`, else null. A `*rest` field is the
 * list of its segments, each split again at `/` so an encoded slash cannot smuggle in a `..`.
 */
export function matchPath(template: string, segments: readonly string[]): PathValues | null {
  const parts = segmentsOf(template);
  const values: PathValues = {};
  for (const [index, part] of parts.entries()) {
    if ('literal' in part) {
      if (segments[index] !== part.literal) return null;
    } else if (part.rest) {
      const rest = segments.slice(index).flatMap((segment) => segment.split('/'));
      if (rest.length === 0) return null;
      values[part.field] = rest;
      return values;
    } else {
      const value = segments[index];
      if (value === undefined || value === '') return null;
      values[part.field] = value;
    }
  }
  return segments.length === parts.length ? values : null;
}

/** How many literal segments a template has: a literal beats a `:field` where both fit. */
export function literalCount(template: string): number {
  return segmentsOf(template).filter((segment) => 'literal' in segment).length;
}

/** `template` with its fields filled in and encoded; undefined when one is missing or empty. */
export function fillPath(template: string, values: Readonly<Record<string, unknown>>): string | undefined {
  const parts: string[] = [];
  for (const segment of segmentsOf(template)) {
    if ('literal' in segment) {
      parts.push(segment.literal);
      continue;
    }
    const value = values[segment.field];
    const text = Array.isArray(value) ? value.join('/') : value === undefined || value === null ? '' : String(value);
    if (text === '') return undefined;
    parts.push(segment.rest ? text.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(text));
  }
  return `/${parts.join('/')}`;
}

/** A download's file name: `mnemo-:id.html` with the request's `id`. */
export function fillName(template: string, values: Readonly<Record<string, unknown>>): string {
  return template.replace(/:(\w+)/g, (_whole, field: string) => String(values[field] ?? ''));
}

// ── a command's request on the wire, both ways ──────────────────────────────────────────────────

/** The fields of an object request schema; none for `z.void()` and other non-objects. */
function fieldsOf(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** What a field's schema is once optional, default and nullable are unwrapped. */
function baseType(schema: z.ZodType, field: string): string | undefined {
  if (!(schema instanceof z.ZodObject)) return undefined;
  let def = (schema.shape as Record<string, z.ZodType | undefined>)[field]?._zod.def as { type: string; innerType?: z.ZodType } | undefined;
  while (def?.innerType) def = def.innerType._zod.def as { type: string; innerType?: z.ZodType };
  return def?.type;
}

/** Text from a path or a query string as the field's schema takes it (zod says what is wrong). */
function fromText(schema: z.ZodType, field: string, text: string): unknown {
  switch (baseType(schema, field)) {
    case 'number':
      return text.trim() === '' ? Number.NaN : Number(text);
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    default:
      return text;
  }
}

const bodyMethod = (binding: HttpBinding) => binding.method === 'POST' || binding.method === 'PUT';

/** The wire name of a request field in the query string. */
function queryNameOf(binding: HttpBinding, field: string): string {
  return Object.entries(binding.query ?? {}).find(([, renamed]) => renamed === field)?.[0] ?? field;
}

/** Whether the request has a JSON body: POST or PUT with fields the path does not carry. */
export function hasBody(binding: HttpBinding, schema: z.ZodType): boolean {
  if (!bodyMethod(binding)) return false;
  if (!(schema instanceof z.ZodObject)) return !(schema instanceof z.ZodVoid) && !(schema instanceof z.ZodUndefined);
  const inPath = new Set(pathFieldsOf(binding.path));
  return fieldsOf(schema).some((field) => !inPath.has(field));
}

/** The wire name each request field arrives under (for error messages that name what was sent). */
export function wireNameOf(binding: HttpBinding, field: string): string {
  return pathFieldsOf(binding.path).includes(field) || bodyMethod(binding) ? field : queryNameOf(binding, field);
}

/**
 * The command's request as the server received it, before validation: the path's fields, then
 * the query's (GET, DELETE) or the body's (POST, PUT). The path wins over a body that names the
 * same field. `undefined` for a command that takes no request.
 */
export function commandRequestOf(binding: HttpBinding, schema: z.ZodType, wire: { path: PathValues; query: URLSearchParams; body?: unknown }): unknown {
  const fromPath = Object.fromEntries(Object.entries(wire.path).map(([field, value]) => [field, Array.isArray(value) ? value.join('/') : fromText(schema, field, value)]));
  if (hasBody(binding, schema)) {
    const body = wire.body;
    if (Object.keys(fromPath).length === 0) return body;
    return body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body, ...fromPath } : body;
  }
  const fields = fieldsOf(schema);
  if (fields.length === 0) return Object.keys(fromPath).length > 0 ? fromPath : undefined;
  const fromQuery: Record<string, unknown> = {};
  if (!bodyMethod(binding)) {
    for (const field of fields) {
      const name = queryNameOf(binding, field);
      if (field in fromPath || !wire.query.has(name)) continue;
      fromQuery[field] = fromText(schema, field, wire.query.get(name) as string);
    }
  }
  return { ...fromQuery, ...fromPath };
}

export interface WireRequest {
  method: HttpMethod;
  /** API_PREFIX, the path and the query string: `/api/facts/search?q=editor`. */
  url: string;
  /** The JSON body, when the request has one. */
  body?: unknown;
}

/** The HTTP request that carries `request` (the command's request as the caller gives it); undefined when a path field is missing. */
export function wireRequestOf(binding: HttpBinding, schema: z.ZodType, request: unknown): WireRequest | undefined {
  const values = request !== null && typeof request === 'object' && !Array.isArray(request) ? (request as Record<string, unknown>) : {};
  const path = fillPath(binding.path, values);
  if (path === undefined) return undefined;
  const inPath = new Set(pathFieldsOf(binding.path));
  const rest = Object.entries(values).filter(([field]) => !inPath.has(field));
  if (hasBody(binding, schema)) {
    const body = schema instanceof z.ZodObject ? Object.fromEntries(rest) : request;
    return { method: binding.method, url: `${API_PREFIX}${path}`, body };
  }
  const query = new URLSearchParams();
  for (const [field, value] of rest) if (value !== undefined && !bodyMethod(binding)) query.set(queryNameOf(binding, field), String(value));
  return { method: binding.method, url: `${API_PREFIX}${path}${query.size > 0 ? `?${query}` : ''}` };
}

/** The URL of a route that is not a command (a session file, the event stream). */
export function urlOf(binding: HttpBinding, path: Readonly<Record<string, unknown>>, query: Readonly<Record<string, string | number | undefined>> = {}): string {
  const filled = fillPath(binding.path, path);
  if (filled === undefined) throw new Error(`${binding.path} needs ${pathFieldsOf(binding.path).join(', ')}`);
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  return `${API_PREFIX}${filled}${search.size > 0 ? `?${search}` : ''}`;
}

// ── routes that are not window commands ─────────────────────────────────────────────────────────

/**
 * What `mnemo serve` answers besides the commands, declared here so the server and the clients
 * build the same paths. Their answers are not Results: a session as `mnemo show --json` prints
 * it, its memory, a file's bytes, an event stream.
 */
export const otherRoutes = {
  session: GET('/sessions/:id', { about: 'what `mnemo show <id> --json` prints, with the files as URL paths' }),
  sessionMemory: GET('/sessions/:id/memory', { about: "the memory a session's events rebuild (`mnemo memory show <id>`)" }),
  sessionFile: GET('/sessions/:id/files/*path', { about: 'a file of a session folder (a screenshot, a raw reply); `?thumb=W`: a JPEG W pixels wide' }),
  /** src/main/server/event-stream.ts */
  events: GET('/events', { about: 'the events of every run as server-sent events: `?since=<seq>`, `?session=<id>` for one session' }),
  /** src/main/server/batch-stream.ts */
  batchEvents: GET('/batches/events', { about: 'the changes of every batch as server-sent events, each `{batch, rows}`: its summary and the rows that changed' }),
  /** src/main/server/live-view.ts */
  runLive: GET('/runs/:id/live', { about: "a live run's display, multipart/x-mixed-replace JPEG frames" }),
  workflowFile: GET('/workflows/:name/files/*path', { about: 'an image a workflow refers to (`anchors/…`, `screens/…`: its patches and recorded screens)' }),
} as const;
