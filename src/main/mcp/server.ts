/**
 * One MCP server for one client connection (the stdio session, or one HTTP session): the chosen
 * tools, the session files they link to, and the connection's own state, so nothing one client
 * does (its latest screenshot, its answers) reaches another.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { callContext, ConnectionState, type McpServices } from './connection';
import type { McpTool } from './tool';
import { registerSessionFiles } from './tools/sessions';

/** The version clients are told (the CLI's `--version`). */
export const MCP_SERVER_VERSION = '0.1.0';

const INSTRUCTIONS = [
  'Mnemo operates this computer: it takes screenshots, acts with the mouse and keyboard (exact typing on any layout), records every action and run as a session, and remembers facts.',
  'To act yourself: call screenshot, then act with coordinates in pixels of that screenshot; pass screenshotAfter: true to see the effect.',
  'To hand over a whole task: run_task runs it with Mnemo\'s own vision model and memory.',
  'Moving the mouse into the top-left corner of the screen stops every action (the fail-safe).',
].join('\n');

export interface McpServerOptions {
  tools: readonly McpTool[];
  services: McpServices;
}

export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer({ name: 'mnemo', title: 'Mnemo', version: MCP_SERVER_VERSION }, { instructions: INSTRUCTIONS, capabilities: { logging: {} } });
  const callOf = callContext(server, options.services, new ConnectionState());
  for (const tool of options.tools) tool.register(server, callOf);
  registerSessionFiles(server, options.services);
  return server;
}
