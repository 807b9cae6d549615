import type { Command } from 'commander';

export function registerDisplaysCommand(program: Command): void {
  program
    .command('displays')
    .description('List the displays with their bounds (logical px) and scale factors')
    .option('--json', 'print a JSON array')
    .action(async (options: { json?: boolean }) => (await import('../commands/displays')).displaysCommand(options));
}
