/**
 * MCP over Streamable HTTP at `/mcp`, for `mnemo mcp --http` and `mnemo serve` alike. A request
 * needs the token, as `Authorization: Bearer <token>` (or the cookie `mnemo serve` sets), or as
 * `?token=<token>` for clients that cannot send headers: 401 without it. Another Origin or Host
 * (a web page calling 127.0.0.1, DNS rebinding) gets 403, as everywhere in `mnemo serve`.
 *
 * Each client's initialize starts a session of its own (the `Mcp-Session-Id` the SDK's transport
 * hands out) with its own server and state: answers never cross between clients. A session ends
 * when its client deletes it, or when the endpoint closes.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { foreignRequest, hasToken, tokenMatches } from '../http/access';
import { errorReply, json, readJson, send } from '../http/http-io';

export const MCP_PATH = '/mcp';

/** The largest message a client may send (the SDK's own limit, 4 MB). */
const MCP_MAX_BODY = 4 * 1024 * 1024;
const JSON_TYPE = /^application\/json\s*(;|$)/i;

export interface McpHttpEndpointOptions {
  token: string;
  /** The Host values the server answers to (known once it listens). */
  hosts: () => readonly string[];
  /** A server for a new session. */
  newServer: () => McpServer;
  log?: (line: string) => void;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
}

export class McpHttpEndpoint {
  /** Where the endpoint is mounted: `mnemo serve`'s /mcp, and `mnemo mcp --http`'s. */
  readonly path = MCP_PATH;
  private readonly sessions = new Map<string, Session>();
  private closed = false;

  constructor(private readonly options: McpHttpEndpointOptions) {}

  /** Clients connected now. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const foreign = foreignRequest(request, this.options.hosts());
    if (foreign) return send(response, errorReply(403, `forbidden: ${foreign}`));
    const offered = new URL(request.url ?? '/', 'http://localhost').searchParams.get('token');
    if (!hasToken(request, this.options.token) && !tokenMatches(offered, this.options.token)) {
      return send(response, {
        ...errorReply(401, 'unauthorized: send the token mnemo printed at start as Authorization: Bearer <token>, or as ?token=<token> in the URL'),
        headers: { 'www-authenticate': 'Bearer realm="mnemo"' },
      });
    }
    if (this.closed) return send(response, errorReply(503, 'the MCP endpoint is shutting down'));

    // A JSON body is read by the guard every route of Mnemo shares (its size, its depth, no
    // `__proto__`), then handed to the SDK's transport already parsed.
    let body: { parsed: unknown } | undefined;
    if (request.method === 'POST' && JSON_TYPE.test(String(request.headers['content-type'] ?? ''))) {
      const read = await readJson(request, MCP_MAX_BODY);
      if (!read.ok) return send(response, json(read.status, { jsonrpc: '2.0', error: { code: read.status === 413 ? -32000 : -32700, message: read.message }, id: null }));
      body = { parsed: read.value };
    }

    const id = request.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = this.sessions.get(id);
      // 404 tells the client to start a new session (the MCP transport's rule).
      if (!session) return send(response, json(404, { jsonrpc: '2.0', error: { code: -32001, message: `no session ${id} (it ended): initialize again` }, id: null }));
      return session.transport.handleRequest(request, response, body?.parsed);
    }
    if (request.method !== 'POST') return send(response, errorReply(400, 'no Mcp-Session-Id header: start a session with an initialize request (POST)'));
    await this.open(request, response, body?.parsed);
  }

  /** A request without a session: an initialize starts one; anything else gets the transport's error and leaves nothing behind. */
  private async open(request: IncomingMessage, response: ServerResponse, parsed: unknown): Promise<void> {
    const server = this.options.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(request, response, parsed);
    if (transport.sessionId === undefined || !this.sessions.has(transport.sessionId)) await server.close();
  }

  /** Ends every session (their calls in progress are cancelled). */
  async close(): Promise<void> {
    this.closed = true;
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map(({ server }) => server.close().catch((error: unknown) => this.options.log?.(`closing an MCP session: ${String(error)}`))));
  }
}
