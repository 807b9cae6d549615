/**
 * `GET /api/events?since=<seq>`: server-sent events, one `data:` line per event, exactly as
 * `mnemo run --json` prints it (with `seq`, also sent as the SSE `id`). The stream follows every
 * run going on, side by side (runs on private desktops go at once): the newest from `since` (0:
 * from its start), the others and each run started later from their first event;
 * `?session=<id>` follows that one session instead (live or recorded) and ends with it; an id
 * that names no session is a 404. Closing
 * the stream never stops a run. A comment line every 15 s keeps proxies from closing an idle
 * stream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';
import type { AgentEvent } from '../../shared/events';
import type { RunHandle, RunService } from '../service/run-service';
import { errorReply, send as sendReply } from '../http/http-io';

const KEEPALIVE_MS = 15_000;
const FLUSH_EVERY_MS = 40;

export async function streamEvents(request: IncomingMessage, response: ServerResponse, service: RunService, query: URLSearchParams): Promise<void> {
  const since = Number(query.get('since') ?? '0');
  const session = query.get('session');
  if (!Number.isInteger(since) || since < 0) return sendReply(response, errorReply(400, 'since must be a whole number ≥ 0'));
  // A session that is not there (or could not be one) is a 404, not an empty stream.
  if (session !== null) {
    const known = await service.records.known(session);
    if (!known.ok) return sendReply(response, errorReply(404, known.error.message, { kind: 'not_found' }));
  }
  // Compressed when the client takes it, flushed after every event: the same JSON keys in every
  // event shrink to a few bytes, so a window following a run receives a fraction of the text.
  const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')) ? createGzip() : null;
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  gzip?.pipe(response);
  // Events that come together (a step's dozen) are flushed together: one compressed block
  // compresses far better than a dozen tiny ones, and 40 ms is nothing to a person watching.
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  const write = (text: string) => {
    if (!gzip) {
      response.write(text);
      return;
    }
    gzip.write(text);
    flushTimer ??= setTimeout(() => {
      flushTimer = null;
      gzip.flush();
    }, FLUSH_EVERY_MS);
  };
  write(': mnemo events\n\n');
  const closed = new AbortController();
  request.on('close', () => closed.abort());
  const keepalive = setInterval(() => write(': keepalive\n\n'), KEEPALIVE_MS);
  const send = (event: AgentEvent) => {
    if (!closed.signal.aborted) write(`id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  try {
    if (session) {
      for await (const event of service.records.events(session, since)) {
        if (closed.signal.aborted) break;
        send(event);
      }
      return;
    }
    const followed = new Set<string>();
    const follow = (run: RunHandle, from: number) => {
      if (followed.has(run.id)) return;
      followed.add(run.id);
      void (async () => {
        for await (const event of run.events(from)) {
          if (closed.signal.aborted) break;
          send(event);
        }
      })();
    };
    const stopListening = service.runs.onRunStarted((run) => follow(run, 0));
    const newest = service.runs.current();
    for (const run of service.runs.active()) follow(run, run === newest ? since : 0);
    await new Promise<void>((resolve) => closed.signal.addEventListener('abort', () => resolve(), { once: true }));
    stopListening();
  } finally {
    clearInterval(keepalive);
    if (flushTimer) clearTimeout(flushTimer);
    if (gzip) gzip.end();
    else response.end();
  }
}
