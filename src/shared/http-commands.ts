/**
 * The window's commands over HTTP, generated from the contract: one function per command, the
 * same shape as the preload's `window.mnemo`. Each puts its request on the wire as the command's
 * binding says (http-binding.ts) and checks every answer with the command's response schema, as
 * the IPC side does in the main process: an answer the contract does not allow (a malformed body,
 * a field of the wrong type, not JSON at all) is an `invalid_response` error value, never a
 * thrown exception and never a wrong value handed on. Failures of every other sort are values too.
 *
 * Used by the window in a browser (src/renderer/src/api/http-client.ts); it needs only `fetch`,
 * so a script or a test in Node can use it as well.
 */
import { z } from 'zod';
import { commandNames, commands, err, IpcErrorKindSchema, ok, type CommandApi, type CommandName, type IpcErrorKind, type Result } from './contract';
import { fillName, wireRequestOf, type HttpBinding } from './http-binding';
import { quickParse } from './quick-check';

export interface HttpTransport {
  /** Where `mnemo serve` answers: `http://127.0.0.1:4242`; empty (the default) for the page's own origin. */
  origin?: string;
  fetch?: typeof fetch;
  /** Sent with every request: a script's `authorization: Bearer <token>` (the page has its cookie). */
  headers?: Record<string, string>;
  /** Saves a download-bound command's file; the page clicks a link. Absent: such commands are `unavailable`. */
  download?: (url: string, filename: string) => void;
}

/** The kind of a failure whose body does not name one (the server's own 400 and 404, a proxy's 502). */
const STATUS_KINDS: Record<number, IpcErrorKind> = { 400: 'invalid_request', 401: 'forbidden', 403: 'forbidden', 404: 'not_found', 409: 'busy', 503: 'no_display' };

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** `value` as the command's response schema takes it, or `invalid_response` naming what is wrong. */
function checked(name: CommandName, schema: z.ZodType, value: unknown): Result<unknown> {
  // The quick check first: a session's events are 22,000 values that zod would copy one by one.
  const parsed = quickParse(schema, value);
  return parsed.success ? ok(parsed.data) : err('invalid_response', `${name}: ${z.prettifyError(parsed.error)}`);
}

/** A failure answer as an error value: the kind the body names, else the status's. */
function failureOf(status: number, statusText: string, body: unknown): Result<never> {
  const fields = (body !== null && typeof body === 'object' ? body : {}) as { error?: unknown; kind?: unknown; id?: unknown };
  const named = IpcErrorKindSchema.safeParse(fields.kind);
  const kind = named.success ? named.data : (STATUS_KINDS[status] ?? 'internal');
  const message = typeof fields.error === 'string' ? fields.error : `HTTP ${status} ${statusText}`.trim();
  return { ok: false, error: { kind, message, ...(typeof fields.id === 'string' ? { sessionId: fields.id } : {}) } };
}

function commandFunction(name: CommandName, transport: HttpTransport): (request: unknown) => Promise<Result<unknown>> {
  const spec = commands[name] as { request: z.ZodType; response: z.ZodType; http: HttpBinding };
  const origin = transport.origin ?? '';
  return async (request) => {
    // The server checks again; checking here too means the path is never built from a missing field.
    const valid = spec.request.safeParse(request);
    const wire = valid.success ? wireRequestOf(spec.http, spec.request, request) : undefined;
    if (!valid.success || !wire) return err('invalid_request', `${name}: ${valid.success ? 'a path field is empty' : z.prettifyError(valid.error)}`);

    if (spec.http.download !== undefined) {
      if (!transport.download) return err('unavailable', `${name}: nothing here can save a download`);
      const filename = fillName(spec.http.download, valid.data as Record<string, unknown>);
      transport.download(`${origin}${wire.url}`, filename);
      return checked(name, spec.response, { path: filename });
    }

    let status: number;
    let statusText: string;
    let text: string;
    try {
      const response = await (transport.fetch ?? fetch)(`${origin}${wire.url}`, {
        method: wire.method,
        credentials: 'same-origin',
        headers: { ...transport.headers, ...(wire.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(wire.body === undefined ? {} : { body: JSON.stringify(wire.body) }),
      });
      ({ status, statusText } = response);
      text = await response.text();
    } catch (error) {
      return err('unavailable', `mnemo serve cannot be reached: ${describe(error)}`);
    }
    let body: unknown;
    let isJson = true;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      isJson = false;
    }
    if (status < 200 || status > 299) return failureOf(status, statusText, body);
    if (!isJson) return err('invalid_response', `${name}: the answer is not JSON: ${JSON.stringify(text.slice(0, 120))}`);
    return checked(name, spec.response, body);
  };
}

/** One function per contract command, over `mnemo serve`. */
export function createHttpCommands(transport: HttpTransport = {}): CommandApi {
  // The cast is where the generated map meets its mapped type; the keys come from the same list.
  return Object.fromEntries(commandNames.map((name) => [name, commandFunction(name, transport)])) as unknown as CommandApi;
}
