import type { Command } from 'commander';
import type { ShowOptions } from '../commands/show';
import { addDataDirOption, addStoreOption } from '../options';

export function registerShowCommand(program: Command): void {
  const show = program
    .command('show')
    .description('Show a recorded session step by step')
    .argument('<id>', 'a session id, a unique prefix of one, or "last" for the newest')
    .option('--json', 'print {id, task, status, steps: [{step, action, result, thought, screenshot, ...}], ...} (screenshot: an absolute path)');
  addStoreOption(addDataDirOption(show), 'a session there is fetched into <data-dir>/store-cache/ and shown from there')
    .addHelpText(
      'after',
      '\nA session whose recording process is gone (a crash, kill -9) is marked "interrupted" and shows its\nfinished steps. Damaged lines in the record are skipped with a warning on stderr.\nExit codes: 0 shown, 1 no such session (or a prefix matching several, or a store that cannot be read), 2 bad arguments or a malformed id.',
    )
    .action(async (ref: string, options: ShowOptions) => (await import('../commands/show')).showCommand(ref, options));
}
