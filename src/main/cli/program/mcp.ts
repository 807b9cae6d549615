import { InvalidArgumentError, type Command } from 'commander';
import type { McpOptions } from '../commands/mcp';
import { addMemoryStoreOptions, addSettingsOptions, parsePort } from '../options';

function parseToolList(value: string): string[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new InvalidArgumentError(`--tools must name at least one tool, e.g. screenshot,act, got "${value}"`);
  return names;
}

export function registerMcpCommand(program: Command): void {
  const mcp = addSettingsOptions(
    program
      .command('mcp')
      .description('Serve Mnemo to other agents over the Model Context Protocol: stdio (default), or Streamable HTTP at /mcp with --http')
      .option('--http', 'serve MCP over Streamable HTTP at http://<host>:<port>/mcp instead of stdio; a token is required (printed at start, or MNEMO_MCP_TOKEN)')
      .option('--port <port>', 'with --http: the port (0: any free one)', parsePort, 8766)
      .option('--host <address>', 'with --http: the address to listen on; anything but 127.0.0.1 lets other machines reach it', '127.0.0.1')
      .option('--read-only', 'offer only the tools that change nothing (screenshot, list_sessions, get_session, search_facts, list_workflows)')
      .option('--tools <names>', 'offer only these tools, comma-separated (screenshot, act, run_task, list_sessions, get_session, search_facts, save_fact, list_workflows, run_workflow)', parseToolList),
    'run_task: ',
  );
  addMemoryStoreOptions(mcp).action(async (options: McpOptions) => (await import('../commands/mcp')).mcpCommand(options));
}
