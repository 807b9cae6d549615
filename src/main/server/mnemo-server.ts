/**
 * `mnemo serve`: the app in any browser, over HTTP and server-sent events, with the real core
 * behind it (the run service). Binds 127.0.0.1 unless told otherwise; every request needs the
 * token printed at start (access.ts); the API is api.ts, the event stream event-stream.ts, the batches' changes batch-stream.ts, the
 * renderer renderer-files.ts; MCP for other agents at /mcp when asked (src/main/mcp/). Stopping
 * the server stops its runs cleanly (they end `aborted`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX, otherRoutes, urlOf } from '../../shared/http-binding';
import { AppBackend, configFileKeyStore } from '../service/front-ends/app-backend';
import type { RunService } from '../service/run-service';
import { foreignRequest, hasToken, hostsOf, newToken, tokenCookie, tokenProblem, urlHost } from '../http/access';
import type { KeyStore } from '../settings/key-store';
import { createApi } from './api';
import { streamBatchChanges } from './batch-stream';
import { streamEvents } from './event-stream';
import { liveViewRun, streamLiveView } from './live-view';
import { errorReply, readJson, send } from '../http/http-io';
import { rendererFile } from './renderer-files';

export interface MnemoServerOptions {
  service: RunService;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Default: a new random token; one given must pass `tokenProblem` (32 characters or more, Bearer characters). */
  token?: string;
  log?: (line: string) => void;
  /** Where the API key saved in Settings is kept (`mnemo serve`: the OS keychain of the data directory, else config.json); default config.json. */
  keys?: KeyStore;
  /**
   * Endpoints of their own at a path (the CLI mounts MCP's at /mcp: src/main/mcp/), made with the
   * server's token and the hosts it answers to; each does its own checks and is closed with it.
   */
  mounts?: (access: MountAccess) => Mount[];
}

/** What a mounted endpoint checks its requests with: the server's token, the hosts it answers to. */
export interface MountAccess {
  token: string;
  hosts: () => readonly string[];
}

/** An endpoint mounted at one path: it answers its own requests, and closes with the server. */
export interface Mount {
  readonly path: string;
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  close(): Promise<void>;
}

export interface MnemoServer {
  /** The URL to open, with the token: `http://127.0.0.1:<port>/?token=<token>`. */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  readonly token: string;
  /** Stops the runs (they end `aborted`), then the server. */
  close(): Promise<void>;
}

/** Whether every %-escape of the path decodes (a malformed one is the client's mistake: 400, not a 500). */
function decodablePath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

export async function startMnemoServer(options: MnemoServerOptions): Promise<MnemoServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? newToken();
  // A configured token is checked where it is read (the CLI); one that slips through is a bug.
  const unusable = tokenProblem(token, 'the token');
  if (unusable) throw new Error(unusable);
  const api = createApi(new AppBackend(options.service, options.keys ?? configFileKeyStore(options.service)));
  let hosts: string[] = [];
  const mounts = options.mounts?.({ token, hosts: () => hosts }) ?? [];

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    // Its own checks (the same token and origins; MCP takes ?token= on every request rather than a cookie).
    const mounted = mounts.find((mount) => mount.path === url.pathname);
    if (mounted) return mounted.handle(request, response);
    const foreign = foreignRequest(request, hosts);
    if (foreign) return send(response, errorReply(403, `forbidden: ${foreign}`));

    // Opening the printed URL: the token becomes a cookie and leaves the address bar.
    const offered = url.searchParams.get('token');
    if (offered !== null && request.method === 'GET' && !url.pathname.startsWith('/api/')) {
      if (offered !== token) return send(response, errorReply(401, 'this token is not the one mnemo serve printed at start'));
      url.searchParams.delete('token');
      // Always to the app itself: a path taken from the request could be `//evil.example` (an open redirect).
      return send(response, { status: 303, body: '', contentType: 'text/plain', headers: { 'set-cookie': tokenCookie(token), location: `/${url.search}` } });
    }
    if (!hasToken(request, token)) {
      return send(response, errorReply(401, 'unauthorized: open the URL mnemo serve printed (it carries the token), or send Authorization: Bearer <token>'));
    }
    if (!decodablePath(url.pathname)) return send(response, errorReply(400, `the path ${url.pathname} is not valid percent-encoding`));

    if (url.pathname === urlOf(otherRoutes.events, {}) && request.method === otherRoutes.events.method) return streamEvents(request, response, options.service, url.searchParams);
    if (url.pathname === urlOf(otherRoutes.batchEvents, {}) && request.method === otherRoutes.batchEvents.method) return streamBatchChanges(request, response, options.service);
    const liveRun = request.method === otherRoutes.runLive.method ? liveViewRun(url.pathname) : null;
    if (liveRun !== null) return streamLiveView(request, response, liveRun, options.service.runs.get(liveRun)?.live);
    if (url.pathname.startsWith(`${API_PREFIX}/`)) {
      const path = url.pathname.slice(API_PREFIX.length);
      const reply = await api({ method: request.method ?? 'GET', path, query: url.searchParams, body: (maxBytes) => readJson(request, maxBytes) });
      return send(response, reply, String(request.headers['accept-encoding'] ?? ''));
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, errorReply(405, `${request.method} is not served here`));
    return send(response, await rendererFile(options.rendererDir, url.pathname), String(request.headers['accept-encoding'] ?? ''));
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.log?.(`internal error serving ${request.method} ${request.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      send(response, errorReply(500, `internal error: ${error instanceof Error ? error.message : String(error)}`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  hosts = hostsOf(host, port);
  const origin = `http://${urlHost(host)}:${port}`;

  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    async close() {
      await Promise.all(mounts.map((mount) => mount.close()));
      await options.service.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
