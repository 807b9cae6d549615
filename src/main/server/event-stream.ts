/**
 * `GET /api/events?since=<seq>`: server-sent events, one `data:` line per event, exactly as
 * `mnemo run --json` prints it (with `seq`, also sent as the SSE `id`). The stream follows the
 * current run from `since` (0: from its start) and then each run started after it, from its
 * first event; `?session=<id>` follows that one session instead (live or recorded) and ends with
 * it. Closing the stream never stops a run. A comment line every 15 s keeps proxies from closing
 * an idle stream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';
import type { AgentEvent } from '../../shared/events';
import type { RunHandle, RunService } from '../service/run-service';

const KEEPALIVE_MS = 15_000;

export async function streamEvents(request: IncomingMessage, response: ServerResponse, service: RunService, query: URLSearchParams): Promise<void> {
  const since = Number(query.get('since') ?? '0');
  const session = query.get('session');
  if (!Number.isInteger(since) || since < 0) {
    response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'since must be a whole number ≥ 0' }));
    return;
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
  const write = (text: string) => {
    if (gzip) {
      gzip.write(text);
      gzip.flush();
    } else response.write(text);
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
      for await (const event of service.events(session, since)) {
        if (closed.signal.aborted) break;
        send(event);
      }
      return;
    }
    let from = since;
    let run: RunHandle | undefined = service.current();
    while (!closed.signal.aborted) {
      if (!run) run = await nextRun(service, closed.signal);
      if (!run) break;
      for await (const event of run.events(from)) {
        if (closed.signal.aborted) break;
        send(event);
      }
      // Every later run is followed from its first event.
      from = 0;
      const finished = run;
      run = service.current();
      if (run === finished) run = undefined;
    }
  } finally {
    clearInterval(keepalive);
    if (gzip) gzip.end();
    else response.end();
  }
}

/** The next run this service starts, or undefined once `signal` aborts. */
function nextRun(service: RunService, signal: AbortSignal): Promise<RunHandle | undefined> {
  return new Promise((resolve) => {
    const stop = service.onRunStarted((run) => {
      cleanup();
      resolve(run);
    });
    const onAbort = () => {
      cleanup();
      resolve(undefined);
    };
    const cleanup = () => {
      stop();
      signal.removeEventListener('abort', onAbort);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
