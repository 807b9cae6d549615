/** Small HTTP helpers for `mnemo serve`: JSON in and out, errors as JSON. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { MAX_BODY } from '../../shared/http-binding';

/** An answer as a value: the router sends it; handlers never write to the response themselves. */
export type Reply = { status: number; json: unknown; headers?: Record<string, string> } | { status: number; body: Buffer | string; contentType: string; headers?: Record<string, string> };

export function json(status: number, value: unknown, headers?: Record<string, string>): Reply {
  return { status, json: value, ...(headers ? { headers } : {}) };
}

/** `{ "error": message }`, plus anything a client may act on (the running session's id). */
export function failure(status: number, message: string, extra: Record<string, unknown> = {}): Reply {
  return json(status, { error: message, ...extra });
}

/** Text worth compressing: a session's events or report run to megabytes of repeated keys. */
const COMPRESS_FROM = 2048;

export function send(response: ServerResponse, reply: Reply, acceptEncoding = ''): void {
  if (response.headersSent) return;
  const common: Record<string, string> = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...reply.headers };
  const [body, contentType] = 'json' in reply ? [reply.json === undefined ? '' : JSON.stringify(reply.json), 'application/json; charset=utf-8'] : [reply.body, reply.contentType];
  const compressible = /^(text\/|application\/json)/.test(contentType) && Buffer.byteLength(body) >= COMPRESS_FROM && /\bgzip\b/.test(acceptEncoding);
  const payload = compressible ? gzipSync(body) : body;
  if (compressible) common['content-encoding'] = 'gzip';
  response.writeHead(reply.status, { ...common, 'content-type': contentType, 'content-length': Buffer.byteLength(payload) }).end(payload);
}

/** The request's JSON body, at most `maxBytes`; a value, never a throw (too big, not JSON). */
export async function readJson(request: IncomingMessage, maxBytes = MAX_BODY): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return { ok: false, message: `the request body is larger than ${Math.round(maxBytes / (1024 * 1024))} MB` };
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: `the request body is not JSON: ${(error as Error).message}` };
  }
}
