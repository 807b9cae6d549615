import type { Command } from 'commander';
import type { ServeOptions } from '../commands/serve';
import { addLiveFpsOption, addStorageOptions, addStoreOption, parsePort } from '../options';

export function registerServeCommand(program: Command): void {
  const serve = program
    .command('serve')
    .description('Serve the app to a browser on this machine (the same window as the desktop app)')
    .option('--port <port>', 'the port (0: any free one)', parsePort, 8765)
    .option('--host <address>', 'the address to listen on; anything but 127.0.0.1 lets other machines reach it', '127.0.0.1');
  addStoreOption(addLiveFpsOption(addStorageOptions(serve)), "the window lists and shows its sessions with these; each run's session goes there once it ends").action(
    async (options: ServeOptions) => (await import('../commands/serve')).serveCommand(options),
  );
}
