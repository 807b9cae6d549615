/**
 * The MCP front end put together over a run service: the services the tools work through, built
 * once, and a new server for each client connection. `mnemo mcp` (stdio or --http) and
 * `mnemo serve` (its /mcp endpoint) both start from here.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { DirectDesktop } from '../service/desktops/direct-desktop';
import type { RunService } from '../service/run-service';
import { SessionFiles } from '../service/sessions/session-files';
import type { SharedOperator } from '../service/desktops/shared-operator';
import type { McpServices } from './connection';
import { createMcpServer } from './server';
import type { McpTool } from './tool';
import { MCP_TOOLS } from './tools';

export interface McpFrontEndDeps {
  service: RunService;
  /** The operator screenshots are taken with, kept open between calls. */
  operator: SharedOperator;
  /** Default: every tool. */
  tools?: readonly McpTool[];
}

/** A server for each new connection, all over the same services. */
export function mcpServerFactory(deps: McpFrontEndDeps): () => McpServer {
  const services: McpServices = {
    service: deps.service,
    desktop: new DirectDesktop({ service: deps.service, operator: () => deps.operator.get() }),
    files: new SessionFiles(deps.service),
  };
  const tools = deps.tools ?? MCP_TOOLS;
  return () => createMcpServer({ tools, services });
}
