/** Small HTTP helpers for Mnemo's HTTP front ends (`mnemo serve`, `mnemo mcp --http`): JSON in and out, bodies within their cap, errors as JSON. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants, gzipSync } from 'node:zlib';
import { MAX_BODY } from '../../shared/http-binding';
import { parseJsonWithin } from '../../shared/json';
import { formatBinaryMegabytes, readStreamWithin } from '../disk/bounded-read';

/** An answer as a value: the router sends it; handlers never write to the response themselves. */
export type Reply = { status: number; json: unknown; headers?: Record<string, string> } | { status: number; body: Buffer | string; contentType: string; headers?: Record<string, string> };

export function json(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return { status, json: value, ...(headers ? { headers } : {}) };
}

/** `{ "error": message }`, plus anything a client may act on (the running session's id). */
export function errorReply(status: number, message: string, extra: Record<string, unknown> = {}): Reply {
  return json(status, { error: message, ...extra });
}

/** Text worth compressing: a session's events or report run to megabytes of repeated keys. */
const COMPRESS_FROM = 2048;
/**
 * From this size the fastest level: a 2,000-step session's 5 MB of events take a quarter of the
 * default level's time for a sixth more bytes, and the window waits for them.
 */
const FASTEST_FROM = 256 * 1024;

export function send(response: ServerResponse, reply: Reply, acceptEncoding = ''): void {
  if (response.headersSent) return;
  const common: Record<string, string> = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...reply.headers };
  const [body, contentType] = 'json' in reply ? [reply.json === undefined ? '' : JSON.stringify(reply.json), 'application/json; charset=utf-8'] : [reply.body, reply.contentType];
  const bytes = Buffer.byteLength(body);
  const compressible = /^(text\/|application\/json)/.test(contentType) && bytes >= COMPRESS_FROM && /\bgzip\b/.test(acceptEncoding);
  const payload = compressible ? gzipSync(body, bytes >= FASTEST_FROM ? { level: constants.Z_BEST_SPEED } : {}) : body;
  if (compressible) common['content-encoding'] = 'gzip';
  response.writeHead(reply.status, { ...common, 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }).end(payload);
}

/** A request body as JSON, or why not: 413 for one too large, 400 for one that is not JSON Mnemo takes. */
export type BodyRead = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

/**
 * The request's JSON body, at most `maxBytes`; a value, never a throw. A body announced larger
 * (Content-Length) is refused before a byte is read, one that grows past the limit as it streams
 * is refused there; in both cases the rest is left to Node, which discards it once the answer is
 * sent, so the client reads the 413 instead of a reset connection. The JSON passes the one guard
 * for JSON from outside (`parseJsonWithin`: depth, `__proto__`).
 */
export async function readJson(request: IncomingMessage, maxBytes = MAX_BODY): Promise<BodyRead> {
  const tooLarge = { ok: false as const, status: 413 as const, message: `the request body is larger than ${formatBinaryMegabytes(maxBytes)}` };
  const announced = Number(request.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(announced) && announced > maxBytes) return tooLarge;
  const body = await readStreamWithin(request, maxBytes);
  if (!body.ok) return tooLarge;
  const text = body.bytes.toString('utf8');
  if (text.trim() === '') return { ok: true, value: {} };
  const read = parseJsonWithin(text);
  return read.ok ? read : { ok: false, status: 400, message: `the request body is not JSON Mnemo takes: ${read.message}` };
}
