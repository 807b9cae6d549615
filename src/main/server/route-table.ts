/**
 * Every route of `mnemo serve`'s JSON API, listed from the contract itself (the commands with
 * their HTTP bindings, src/shared/contract.ts, and the routes that are not commands,
 * `otherRoutes` in src/shared/http-binding.ts): the same declarations the router is built from,
 * so the list cannot drift from what is served. docs/app.md shows it (`routeTableMarkdown`), and
 * a test keeps that page and the server in step with it.
 */
import { z } from 'zod';
import { commandNames, commands } from '../../shared/contract';
import { API_PREFIX, hasBody, otherRoutes, pathFieldsOf, segmentsOf, wireNameOf, type HttpBinding, type HttpMethod } from '../../shared/http-binding';

export interface RouteRow {
  method: HttpMethod;
  /** The path as a person writes it: `/api/runs/<id>/answer`. */
  path: string;
  /** The query parameters (`?since=`) of a GET or DELETE, else ''. */
  query: string;
  /** The JSON body's fields (`{"text", "questionId"?}`; `?`: may be left out), else ''. */
  body: string;
  /** The command it carries (`run:answer`), or what a route that is not a command answers, in words. */
  serves: string;
  /** A window command (`serves` names it), or another route. */
  command: boolean;
  /** Answered with a file to save, not JSON (a download-bound command). */
  download: boolean;
}

/** `/runs/:id/answer` → `/api/runs/<id>/answer`. */
function shownPath(template: string): string {
  const parts = segmentsOf(template).map((segment) => ('literal' in segment ? segment.literal : `<${segment.field}>`));
  return `${API_PREFIX}/${parts.join('/')}`;
}

/** The request's fields that ride outside the path, with whether each may be left out. */
function otherFields(binding: HttpBinding, schema: z.ZodType): Array<{ name: string; optional: boolean }> {
  if (!(schema instanceof z.ZodObject)) return [];
  const inPath = new Set(pathFieldsOf(binding.path));
  const shape = schema.shape as Record<string, z.ZodType>;
  return Object.entries(shape)
    .filter(([field]) => !inPath.has(field))
    .map(([field, fieldSchema]) => ({ name: wireNameOf(binding, field), optional: fieldSchema.safeParse(undefined).success }));
}

function commandRow(name: (typeof commandNames)[number]): RouteRow {
  const spec = commands[name] as { request: z.ZodType; http: HttpBinding };
  const binding = spec.http;
  const fields = otherFields(binding, spec.request);
  const withBody = hasBody(binding, spec.request);
  return {
    method: binding.method,
    path: shownPath(binding.path),
    query: withBody || fields.length === 0 ? '' : `?${fields.map((field) => `${field.name}=`).join('&')}`,
    body: withBody ? `{${fields.map((field) => `"${field.name}"${field.optional ? '?' : ''}`).join(', ')}}` : '',
    serves: name,
    command: true,
    download: binding.download !== undefined,
  };
}

/** Every route: the commands in the contract's order, then the others. */
export function routeTable(): RouteRow[] {
  const others = Object.values(otherRoutes).map((binding): RouteRow => ({ method: binding.method, path: shownPath(binding.path), query: '', body: '', serves: binding.about, command: false, download: false }));
  return [...commandNames.map(commandRow), ...others];
}

/** The table as docs/app.md shows it. */
export function routeTableMarkdown(rows: readonly RouteRow[] = routeTable()): string {
  const code = (text: string) => (text === '' ? '' : `\`${text}\``);
  const lines = rows.map((row) => {
    const serves = row.command ? `\`${row.serves}\`${row.download ? ' (a download)' : ''}` : row.serves;
    return `| ${row.method} | ${code(`${row.path}${row.query}`)} | ${code(row.body)} | ${serves} |`;
  });
  return ['| method | path | JSON body | command, or what it answers |', '| --- | --- | --- | --- |', ...lines].join('\n');
}
