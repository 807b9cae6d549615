/**
 * `mnemo serve [--port P] [--host H] [--data-dir DIR]`: the app in a browser, over the same run
 * service as everything else. Prints one line with the URL to open (it carries a new token each
 * start), then serves until Ctrl+C or SIGTERM, which stop a run in progress cleanly (it ends
 * `aborted`). Exit codes: 0 stopped, 1 the server could not start (port taken, no build), 2 bad
 * arguments.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig, type RunFlags } from '../../settings/settings';
import { ExitCode, InvalidInputError } from '../exit-codes';

interface ServeOptions extends Pick<RunFlags, 'dataDir' | 'config'> {
  port: number;
  host: string;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) throw new InvalidArgumentError(`--port must be a port number from 0 to 65535 (0: any free port), got "${value}"`);
  return port;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Serve the app to a browser on this machine (the same window as the desktop app)')
    .option('--port <port>', 'the port (0: any free one)', parsePort, 8765)
    .option('--host <address>', 'the address to listen on; anything but 127.0.0.1 lets other machines reach it', '127.0.0.1')
    .option('--data-dir <dir>', 'where sessions and settings live (default ~/.mnemo)')
    .option('--config <file>', 'a settings file (default <data-dir>/config.json)')
    .action(async (options: ServeOptions) => {
      const config = await loadConfig(options);
      if (!config.ok) throw new InvalidInputError(config.message);
      const log = (line: string) => process.stderr.write(`mnemo serve: ${line}\n`);
      if (!LOOPBACK.has(options.host)) log(`warning: listening on ${options.host}, not only on this machine: anyone who can reach it and has the token can drive this desktop`);
      const [{ RunService }, { openDesktopOperator }, { ensureRendererBuilt }, { startMnemoServer }] = await Promise.all([
        import('../../service/run-service'),
        import('../../service/desktop'),
        import('../../server/renderer-files'),
        import('../../server/mnemo-server'),
      ]);
      const renderer = await ensureRendererBuilt(undefined, log);
      if (!renderer.ok) {
        log(renderer.message);
        process.exitCode = ExitCode.errorResult;
        return;
      }
      const service = new RunService({ config: config.config, openOperator: openDesktopOperator, log });
      let server;
      try {
        server = await startMnemoServer({ service, rendererDir: renderer.dir, host: options.host, port: options.port, log });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        log(code === 'EADDRINUSE' ? `port ${options.port} is in use: choose another with --port (0 picks a free one)` : `cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
        process.exitCode = ExitCode.errorResult;
        return;
      }
      process.stdout.write(`Mnemo is at ${server.url}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          log('stopping (a run in progress ends as aborted)...');
          void server.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
