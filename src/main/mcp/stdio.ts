/**
 * MCP over stdio (`mnemo mcp`): the client starts Mnemo and speaks JSON-RPC on its stdin and
 * stdout, so nothing else may ever be written to stdout (Mnemo's notices go to stderr).
 * Resolves when the client closes the connection.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

export async function serveStdio(server: McpServer): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    // The transport does not notice the end of its input: the client went away.
    process.stdin.once('end', () => void server.close());
  });
  await server.connect(transport);
  await closed;
}
