/**
 * `mnemo mcp [--http [--port P] [--host H]] [--read-only] [--tools a,b]`: Mnemo as an MCP server
 * for other agents (src/main/mcp/), over a run service like every front end. Over stdio (the
 * default) the client starts it and the protocol owns stdout; with --http it prints
 * `MCP at http://127.0.0.1:P/mcp` and its token, and serves until Ctrl+C or SIGTERM. Stopping
 * stops a run in progress cleanly (it ends `aborted`). Exit codes: 0 stopped, 1 the server could
 * not start (port taken), 2 bad arguments.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { loadConfig, type RunFlags } from '../../settings/settings';
import { keychainApiKey } from '../stored-key';
import { ExitCode, InvalidInputError } from '../exit-codes';

export interface McpOptions extends RunFlags {
  http?: boolean;
  port: number;
  host: string;
  readOnly?: boolean;
  tools?: string[];
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export async function mcpCommand(options: McpOptions): Promise<void> {
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  const token = options.http ? await configuredToken() : undefined;
  const log = (line: string) => process.stderr.write(`mnemo mcp: ${line}\n`);
  // Loaded on demand: the SDK, the service and the tools' schemas.
  const [{ chooseTools }, { mcpServerFactory }, { RunService }, { SharedOperator }, { createIsolatedOperator }, { openRunElements }] = await Promise.all([
    import('../../mcp/tools'),
    import('../../mcp/front-end'),
    import('../../service/run-service'),
    import('../../service/desktops/shared-operator'),
    import('../../operator/isolated-operator'),
    import('../../service/runs/run-elements'),
  ]);
  const chosen = chooseTools({ ...(options.readOnly ? { readOnly: true } : {}), ...(options.tools ? { allow: options.tools } : {}) });
  if (!chosen.ok) throw new InvalidInputError(chosen.message);

  const operator = new SharedOperator(() => createIsolatedOperator());
  const service = new RunService({ config: config.config, flags: options, openOperator: operator.openForRun, openElements: openRunElements, log, ...(await keychainApiKey(config.config, options, log)) });
  // First of all: a data directory open to other accounts is tightened, and said in one line.
  await service.open();
  const newServer = mcpServerFactory({ service, operator, tools: chosen.tools });
  try {
    if (token !== undefined) await serveHttp(options, token, newServer, log);
    else {
      const server = newServer();
      // The client closing stdin ends it; so do Ctrl+C and SIGTERM.
      await Promise.race([(await import('../../mcp/stdio')).serveStdio(server), untilSignal(() => server.close())]);
    }
  } finally {
    await service.close();
    await operator.close();
  }
}

/** The token of `--http`: MNEMO_MCP_TOKEN when set, refused (exit 2, the rule in one line) when it could not be sent as a Bearer token; else a new one. */
async function configuredToken(): Promise<string> {
  const { newToken, tokenProblem } = await import('../../http/access');
  const configured = process.env.MNEMO_MCP_TOKEN?.trim();
  if (!configured) return newToken();
  const problem = tokenProblem(configured, 'MNEMO_MCP_TOKEN');
  if (problem) throw new InvalidInputError(problem);
  return configured;
}

async function serveHttp(options: McpOptions, token: string, newServer: () => McpServer, log: (line: string) => void): Promise<void> {
  if (!LOOPBACK.has(options.host)) log(`warning: listening on ${options.host}, not only on this machine: anyone who can reach it and has the token can drive this desktop`);
  const { startMcpHttpServer } = await import('../../mcp/http-server');
  let server;
  try {
    server = await startMcpHttpServer({ host: options.host, port: options.port, token, newServer, log });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    log(code === 'EADDRINUSE' ? `port ${options.port} is in use: choose another with --port (0 picks a free one)` : `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  process.stdout.write(`MCP at ${server.url}\ntoken: ${token}\n(clients that cannot send the header Authorization: Bearer <token> may use ${server.url}?token=${token})\n`);
  await untilSignal(() => {
    log('stopping (a run in progress ends as aborted)...');
    return server.close();
  });
}

/** Waits for Ctrl+C or SIGTERM, then for `stop`. */
function untilSignal(stop: () => Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      void stop().then(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
