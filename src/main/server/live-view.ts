/**
 * `GET /api/runs/<id>/live`: the run's display as `multipart/x-mixed-replace` JPEG frames, for an
 * `<img>`. A frame only when the screen changed, at most the live view's frames a second; the
 * response ends when the run ends. A reader that cannot keep up skips frames (it gets the newest
 * when it is ready) rather than queueing them in the server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveFrames } from '../operator/live-frames';
import { LIVE_CONTENT_TYPE, liveParts } from '../service/runs/live-stream';
import { API_PREFIX, matchPath, otherRoutes } from '../../shared/http-binding';
import { errorReply, send } from '../http/http-io';

/** The run whose live view a path asks for (`/api/runs/<id>/live`, otherRoutes.runLive), or null. */
export function liveViewRun(pathname: string): string | null {
  if (!pathname.startsWith(API_PREFIX)) return null;
  let segments: string[];
  try {
    segments = pathname.slice(API_PREFIX.length).split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
  const id = matchPath(otherRoutes.runLive.path, segments)?.id;
  return typeof id === 'string' ? id : null;
}

export async function streamLiveView(request: IncomingMessage, response: ServerResponse, id: string, frames: LiveFrames | null | undefined): Promise<void> {
  if (frames === undefined) return send(response, errorReply(404, `no live run ${id}: the run has ended, or never ran here (its record is in /api/sessions/${id})`));
  if (frames === null) return send(response, errorReply(409, `run ${id} has no live view: its operator cannot watch the display`));
  const left = new AbortController();
  request.once('close', () => left.abort());
  response.once('close', () => left.abort());
  response.writeHead(200, {
    'content-type': LIVE_CONTENT_TYPE,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    connection: 'close',
  });
  response.socket?.setNoDelay(true);
  for await (const part of liveParts(frames, left.signal)) {
    if (left.signal.aborted) break;
    if (!response.write(part)) await new Promise<void>((resolve) => {
      const done = () => {
        response.off('drain', done);
        left.signal.removeEventListener('abort', done);
        resolve();
      };
      response.once('drain', done);
      left.signal.addEventListener('abort', done, { once: true });
    });
  }
  response.end();
}
