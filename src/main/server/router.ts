/**
 * The router of `mnemo serve`'s JSON API. The window's commands are generated from the
 * contract's HTTP bindings (src/shared/contract.ts, src/shared/http-binding.ts): each request is
 * taken apart as its binding says, validated with the command's request schema (a 400 naming
 * what is wrong, by the names it was sent under), served by the same handlers as IPC, and its
 * answer checked against the response schema before it leaves (a 500 `invalid_response`
 * otherwise, never an answer the contract does not allow). A failure is its kind's status with
 * `{ "error", "kind" }`; a success the bare value. Routes that are not commands use the same
 * path templates and the same matching.
 */
import { z } from 'zod';
import { describeConfigIssues } from '../../shared/config';
import { commandNames, commands, HTTP_STATUS_OF, type CommandName, type DownloadCommand, type Handler, type IpcError, type ParsedRequestOf, type Result } from '../../shared/contract';
import { commandRequestOf, fillName, hasBody, literalCount, matchPath, pathFieldsOf, segmentsOf, wireNameOf, type HttpBinding, type HttpMethod, type PathValues } from '../../shared/http-binding';
import { checkOnce } from '../../shared/checked-once';
import { errorReply, json, type BodyRead, type Reply } from '../http/http-io';

export interface ApiRequest {
  method: string;
  /** The path after `/api`, as sent (still percent-encoded): `/sessions/<id>`. */
  path: string;
  query: URLSearchParams;
  /** The JSON body, read up to `maxBytes` (default: 1 MB): 413 past it, 400 for JSON Mnemo does not take. */
  body: (maxBytes?: number) => Promise<BodyRead>;
}

export interface RouteRequest {
  /** The path's fields, decoded. */
  path: PathValues;
  query: URLSearchParams;
  body: ApiRequest['body'];
}

export interface Route {
  readonly method: HttpMethod;
  /** A template as the bindings write them: `/sessions/:id/files/*path`. */
  readonly path: string;
  handle(request: RouteRequest): Promise<Reply>;
}

/** A file to save: what a download-bound command answers with over HTTP. */
export interface Download {
  body: string | Buffer;
  contentType: string;
}

/** One handler per command, as IPC has, except that a download-bound command answers with a file. */
export type HttpHandlers = { [C in Exclude<CommandName, DownloadCommand>]: Handler<C> } & {
  [C in DownloadCommand]: (request: ParsedRequestOf<C>) => Promise<Result<Download>>;
};

/** A failed Result as HTTP: its kind's status, `{ "error", "kind" }`, and the session holding a busy display as `id`. */
export function failed(error: IpcError): Reply {
  return errorReply(HTTP_STATUS_OF[error.kind], error.message, { kind: error.kind, ...(error.sessionId ? { id: error.sessionId } : {}) });
}

/** Zod's issues named as the request was sent (`?conversation=`, not `conversationId`); a field not sent is "missing". */
function describeRequestIssues(binding: HttpBinding, issues: readonly z.core.$ZodIssue[], sent: unknown): string {
  const fields = sent !== null && typeof sent === 'object' ? (sent as Record<string, unknown>) : {};
  return describeConfigIssues(
    issues.map((issue) => {
      const [field, ...rest] = issue.path;
      if (typeof field !== 'string') return issue;
      const missing = rest.length === 0 && fields[field] === undefined;
      return { ...issue, path: [wireNameOf(binding, field), ...rest], ...(missing ? { message: 'missing' } : {}) };
    }),
  );
}

function commandRoute<C extends CommandName>(name: C, handlers: HttpHandlers): Route {
  const spec = commands[name] as { request: z.ZodType; response: z.ZodType; http: HttpBinding };
  const binding = spec.http;
  // The map type pairs each command with its handler; TypeScript cannot follow a union key.
  const handler = handlers[name] as (request: unknown) => Promise<Result<unknown>>;
  const inPath = new Set(pathFieldsOf(binding.path));
  return {
    method: binding.method,
    path: binding.path,
    async handle({ path, query, body }) {
      let sent: unknown;
      if (hasBody(binding, spec.request)) {
        const read = await body(binding.maxBody);
        if (!read.ok) return errorReply(read.status, read.message);
        sent = read.value;
      }
      const raw = commandRequestOf(binding, spec.request, { path, query, body: sent });
      const request = spec.request.safeParse(raw);
      if (!request.success) {
        // A path names a thing: one that could not be a session (or a workflow, a run) names none, like one that is not there.
        const namesNothing = request.error.issues.some((issue) => typeof issue.path[0] === 'string' && inPath.has(issue.path[0]));
        const message = describeRequestIssues(binding, request.error.issues, raw);
        return namesNothing ? errorReply(404, message, { kind: 'not_found' }) : errorReply(400, message);
      }
      const answer = await handler(request.data);
      if (!answer.ok) return failed(answer.error);
      if (binding.download !== undefined) {
        const file = answer.value as Download;
        const name = fillName(binding.download, request.data as Record<string, unknown>);
        return { status: 200, body: file.body, contentType: file.contentType, headers: { 'content-disposition': `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"` } };
      }
      const response = checkOnce(spec.response, answer.value);
      if (!response.success) return failed({ kind: 'invalid_response', message: `${name}: ${z.prettifyError(response.error)}` });
      return json(200, response.data);
    },
  };
}

/** A route per contract command, as its binding declares it. */
export function commandRoutes(handlers: HttpHandlers): Route[] {
  return commandNames.map((name) => commandRoute(name, handlers));
}

/** Two routes one request could not tell apart are a bug: found when the router is built. */
function checkDistinct(routes: readonly Route[]): void {
  const seen = new Map<string, string>();
  for (const route of routes) {
    const shape = `${route.method} ${segmentsOf(route.path)
      .map((segment) => ('literal' in segment ? segment.literal : segment.rest ? '*' : ':'))
      .join('/')}`;
    const other = seen.get(shape);
    if (other !== undefined) throw new Error(`the routes ${route.method} ${other} and ${route.path} match the same requests`);
    seen.set(shape, route.path);
  }
}

/** The router over `routes`: where two fit a path, the one with more literal segments answers. */
export function createRouter(routes: readonly Route[]): (request: ApiRequest) => Promise<Reply> {
  checkDistinct(routes);
  return async (request) => {
    let segments: string[];
    try {
      segments = request.path.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      return errorReply(400, `the path /api${request.path} is not valid percent-encoding`);
    }
    let best: { route: Route; path: PathValues; literals: number } | undefined;
    for (const route of routes) {
      if (route.method !== request.method) continue;
      const path = matchPath(route.path, segments);
      const literals = path ? literalCount(route.path) : -1;
      if (path && (!best || literals > best.literals)) best = { route, path, literals };
    }
    if (!best) return errorReply(404, `no route ${request.method} /api${request.path}`);
    return best.route.handle({ path: best.path, query: request.query, body: request.body });
  };
}
