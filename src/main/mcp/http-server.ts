/**
 * `mnemo mcp --http`: an HTTP server of its own whose one route is the MCP endpoint at /mcp
 * (http-endpoint.ts: the token, the Origin and Host checks, one session per client).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { hostsOf, tokenProblem, urlHost } from '../http/access';
import { errorReply, send } from '../http/http-io';
import { McpHttpEndpoint, MCP_PATH } from './http-endpoint';

export interface McpHttpServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  token: string;
  newServer: () => McpServer;
  log: (line: string) => void;
}

export interface McpHttpServer {
  /** `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Ends the sessions, then the server. */
  close(): Promise<void>;
}

export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<McpHttpServer> {
  // A configured token is checked where it is read (the CLI); one that slips through is a bug.
  const unusable = tokenProblem(options.token, 'the token');
  if (unusable) throw new Error(unusable);
  let hosts: string[] = [];
  const endpoint = new McpHttpEndpoint({ token: options.token, hosts: () => hosts, newServer: options.newServer, log: options.log });
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const handled = path === MCP_PATH ? endpoint.handle(request, response) : Promise.resolve(send(response, errorReply(404, `nothing at ${path}: MCP is at ${MCP_PATH}`)));
    handled.catch((error: unknown) => {
      options.log(`internal error serving ${request.method} ${request.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      send(response, errorReply(500, `internal error: ${error instanceof Error ? error.message : String(error)}`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  hosts = hostsOf(options.host, port);
  return {
    url: `http://${urlHost(options.host)}:${port}${MCP_PATH}`,
    port,
    async close() {
      await endpoint.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
