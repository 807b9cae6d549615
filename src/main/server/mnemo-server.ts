/**
 * `mnemo serve`: the app in any browser, over HTTP and server-sent events, with the real core
 * behind it (the run service). Binds 127.0.0.1 unless told otherwise; every request needs the
 * token printed at start (access.ts); the API is api.ts, the event stream event-stream.ts, the
 * renderer renderer-files.ts. Stopping the server stops its runs cleanly (they end `aborted`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX, otherRoutes, urlOf } from '../../shared/http-binding';
import { AppBackend, configFileKeyStore } from '../service/app-backend';
import type { RunService } from '../service/run-service';
import { foreignRequest, hasToken, newToken, tokenCookie } from './access';
import { createApi } from './api';
import { streamEvents } from './event-stream';
import { failure, readJson, send } from './http-io';
import { rendererFile } from './renderer-files';

export interface MnemoServerOptions {
  service: RunService;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Default: a new random token. */
  token?: string;
  log?: (line: string) => void;
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

export async function startMnemoServer(options: MnemoServerOptions): Promise<MnemoServer> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? newToken();
  // Browser mode keeps the API key where the CLI reads it: config.json.
  const api = createApi(new AppBackend(options.service, configFileKeyStore(options.service)));
  let hosts: string[] = [];

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const foreign = foreignRequest(request, hosts);
    if (foreign) return send(response, failure(403, `forbidden: ${foreign}`));

    // Opening the printed URL: the token becomes a cookie and leaves the address bar.
    const offered = url.searchParams.get('token');
    if (offered !== null && request.method === 'GET' && !url.pathname.startsWith('/api/')) {
      if (offered !== token) return send(response, failure(401, 'this token is not the one mnemo serve printed at start'));
      url.searchParams.delete('token');
      return send(response, { status: 303, body: '', contentType: 'text/plain', headers: { 'set-cookie': tokenCookie(token), location: `${url.pathname}${url.search}` } });
    }
    if (!hasToken(request, token)) {
      return send(response, failure(401, 'unauthorized: open the URL mnemo serve printed (it carries the token), or send Authorization: Bearer <token>'));
    }

    if (url.pathname === urlOf(otherRoutes.events, {}) && request.method === otherRoutes.events.method) return streamEvents(request, response, options.service, url.searchParams);
    if (url.pathname.startsWith(`${API_PREFIX}/`)) {
      const path = url.pathname.slice(API_PREFIX.length);
      const reply = await api({ method: request.method ?? 'GET', path, query: url.searchParams, body: () => readJson(request) });
      return send(response, reply, String(request.headers['accept-encoding'] ?? ''));
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, failure(405, `${request.method} is not served here`));
    return send(response, await rendererFile(options.rendererDir, url.pathname), String(request.headers['accept-encoding'] ?? ''));
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      options.log?.(`internal error serving ${request.method} ${request.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      send(response, failure(500, `internal error: ${error instanceof Error ? error.message : String(error)}`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  hosts = [...new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${shownHost}:${port}`].map((h) => h.toLowerCase()))];
  const origin = `http://${shownHost}:${port}`;

  return {
    url: `${origin}/?token=${token}`,
    origin,
    port,
    token,
    async close() {
      await options.service.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
