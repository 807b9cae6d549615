/**
 * `mnemo serve [--port P] [--host H] [--data-dir DIR]`: the app in a browser, over the same run
 * service as everything else, and MCP for other agents at /mcp. Prints the URL to open (it carries
 * a new token each start) and the MCP endpoint's, then serves until Ctrl+C or SIGTERM, which stop
 * a run in progress cleanly (it ends `aborted`). An API key saved in Settings is kept in the OS
 * keychain of the data directory (the Secret Service, the macOS Keychain, the Windows Credential
 * Manager), or in config.json (owner-only) where none can keep it; one line at start says which.
 * Exit codes: 0 stopped, 1 the server could not start (port taken, no build), 2 bad
 * arguments.
 */
import type { MountAccess } from '../../server/mnemo-server';
import { loadConfig, type RunFlags } from '../../settings/settings';
import { ExitCode, InvalidInputError } from '../exit-codes';

export interface ServeOptions extends Pick<RunFlags, 'dataDir' | 'config' | 'liveFps' | 'store'> {
  port: number;
  host: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export async function serveCommand(options: ServeOptions): Promise<void> {
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  const log = (line: string) => process.stderr.write(`mnemo serve: ${line}\n`);
  if (!LOOPBACK.has(options.host)) log(`warning: listening on ${options.host}, not only on this machine: anyone who can reach it and has the token can drive this desktop`);
  const [{ RunService }, { openDesktopOperator }, { ensureRendererBuilt }, { startMnemoServer }, { SharedOperator }, { createIsolatedOperator }, { mcpServerFactory }, { McpHttpEndpoint }, { dataDirKeyStoreOf }, { openRunElements }] = await Promise.all([
    import('../../service/run-service'),
    import('../../service/desktops/desktop'),
    import('../../server/renderer-files'),
    import('../../server/mnemo-server'),
    import('../../service/desktops/shared-operator'),
    import('../../operator/isolated-operator'),
    import('../../mcp/front-end'),
    import('../../mcp/http-endpoint'),
    import('../../settings/data-dir-key-store'),
    import('../../service/runs/run-elements'),
  ]);
  const keys = dataDirKeyStoreOf(config.config, { log });
  const service = new RunService({
    config: config.config,
    flags: { ...(options.liveFps !== undefined ? { liveFps: options.liveFps } : {}), ...(options.store !== undefined ? { store: options.store } : {}) },
    openOperator: openDesktopOperator,
    openElements: openRunElements,
    // The keychain's key, after the environment's and config.json's, as everywhere.
    storedApiKey: () => keys.get(),
    log,
  });
  // First of all: a data directory open to other accounts is tightened, and said in one line.
  await service.open();
  // The keychain may show its unlock prompt on the desktop now, once, rather than at the first run.
  await keys.load({ interactive: true });
  const store = keys.status(service.config.loaded.file.model?.apiKey || undefined);
  log(`key store: ${store.detail}${store.fix ? ` (${store.fix})` : ''}`);
  const renderer = await ensureRendererBuilt(undefined, log);
  if (!renderer.ok) {
    log(renderer.message);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  // The MCP endpoint's screenshots: one operator host, started at the first.
  const operator = new SharedOperator(() => createIsolatedOperator());
  let server;
  try {
    // MCP for other agents at /mcp, with the server's token: a new MCP server per client.
    const newServer = mcpServerFactory({ service, operator });
    const mounts = ({ token, hosts }: MountAccess) => [new McpHttpEndpoint({ token, hosts, newServer, log })];
    server = await startMnemoServer({ service, rendererDir: renderer.dir, host: options.host, port: options.port, log, keys, mounts });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    log(code === 'EADDRINUSE' ? `port ${options.port} is in use: choose another with --port (0 picks a free one)` : `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
    process.exitCode = ExitCode.errorResult;
    return;
  }
  // While the window is open, the local schedules fire here (as `mnemo worker` fires them), each firing once.
  service.batches.fireSchedules();
  process.stdout.write(`Mnemo is at ${server.url}\nMCP at ${server.origin}/mcp (the same token: Authorization: Bearer <token>, or ?token=<token>)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      log('stopping (a run in progress ends as aborted)...');
      void server.close().then(() => operator.close()).then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
