/**
 * `GET /api/batches/events`: the changes of every batch of the data directory as server-sent
 * events, one `data:` line each (`{batch, rows}`: its summary and the rows that changed), for the
 * window's Batches view. The window reads the batches first (`batches:list`, `batches:get`) and
 * then follows this; a batch run by another process changes here as one run by the server does.
 * A comment line every 15 s keeps proxies from closing an idle stream.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BatchChange } from '../../shared/batch';
import type { RunService } from '../service/run-service';

const KEEPALIVE_MS = 15_000;

export async function streamBatchChanges(request: IncomingMessage, response: ServerResponse, service: RunService): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  response.write(': mnemo batch changes\n\n');
  const keepalive = setInterval(() => response.write(': keepalive\n\n'), KEEPALIVE_MS);
  const stop = service.batches.onChange((change: BatchChange) => response.write(`data: ${JSON.stringify(change)}\n\n`));
  await new Promise<void>((resolve) => {
    request.on('close', () => resolve());
    response.on('close', () => resolve());
  });
  stop();
  clearInterval(keepalive);
  response.end();
}
