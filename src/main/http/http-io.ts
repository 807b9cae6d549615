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

/**
 * A frozen value's JSON and its compressed form, made once: a frozen value cannot change, and the
 * one a front end sends again and again is a session's events (store/recent-events.ts), megabytes
 * of text to make and compress each time the window opens it.
 */
const encoded = new WeakMap<object, { text: string; bytes: number; gzip?: Buffer }>();

function encodingOf(value: unknown): { text: string; bytes: number; gzip?: Buffer } {
  const frozen = typeof value === 'object' && value !== null && Object.isFrozen(value);
  const known = frozen ? encoded.get(value) : undefined;
  if (known) return known;
  const text = value === undefined ? '' : JSON.stringify(value);
  const made = { text, bytes: Buffer.byteLength(text) };
  if (frozen) encoded.set(value, made);
  return made;
}

const gzipOf = (body: string | Buffer, bytes: number) => gzipSync(body, bytes >= FASTEST_FROM ? { level: constants.Z_BEST_SPEED } : {});

export function send(response: ServerResponse, reply: Reply, acceptEncoding = ''): void {
  if (response.headersSent) return;
  const common: Record<string, string> = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...reply.headers };
  const encoding = 'json' in reply ? encodingOf(reply.json) : { text: reply.body, bytes: Buffer.byteLength(reply.body), gzip: undefined as Buffer | undefined };
  const body = encoding.text;
  const contentType = 'json' in reply ? 'application/json; charset=utf-8' : reply.contentType;
  const compressible = /^(text\/|application\/json)/.test(contentType) && encoding.bytes >= COMPRESS_FROM && /\bgzip\b/.test(acceptEncoding);
  const payload = compressible ? (encoding.gzip ??= gzipOf(body, encoding.bytes)) : body;
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
