/**
 * `mnemo sessions [delete ID | prune]`: the verbs are subcommands; the flag forms they replace
 * (`--delete ID`, `--prune`) stay as aliases, with the same output and exit codes. Either way the
 * remaining sessions are listed after.
 */
import type { Command } from 'commander';
import type { SessionsOptions } from '../commands/sessions';
import type { SessionsUploadOptions } from '../commands/sessions-upload';
import { addStorageOptions, addStoreOption, parsePositiveNumber } from '../options';

const HELP_AFTER =
  '\nSessions whose recording process is gone (a crash, kill -9) are marked "interrupted".\nExit codes: 0 listed (also when there are none), 1 delete failed, 2 bad arguments or a bad "store" section in the config file.\nA data directory without sessions gets the sample session Mnemo ships, to explore; delete it like any other.';


/** What the listing takes, in every form of the command. */
function addListingOptions(command: Command): Command {
  return addStorageOptions(
    addStoreOption(command, 'its sessions are listed with these (a session in both, once); delete and prune change this data directory only')
      .option('--json', 'print a JSON array of {id, task, status, startedAt, steps, cost, store?, waitingForUpload?} (startedAt ISO 8601, cost in USD; store: the shared store a session is read from; waitingForUpload: here until the store has all of it)')
      .option('--search <text>', 'only sessions whose task, status, id or start date (YYYY-MM-DD) contain every word of TEXT, ignoring case'),
    'its store section is what prune applies',
  );
}

function addRetentionOptions(command: Command, prefix: string): Command {
  return command
    .option('--retention-days <n>', `${prefix}delete sessions started more than N days ago`, parsePositiveNumber('--retention-days'))
    .option('--retention-gb <gb>', `${prefix}delete the oldest sessions while all together take more than GB (10^9 bytes)`, parsePositiveNumber('--retention-gb'));
}

const UPLOAD_HELP = `
Without IDs: every session of this data directory waiting for its upload (<data-dir>/pending-uploads/:
a store that could not be reached, a process stopped mid-upload). Each is checked in the store,
file by file, before its local copy goes; one that fails stays here, still waiting. Files an
earlier attempt left in the store as they are here are not sent again. A session of 50 MB or more
says how far it is at each quarter. Ctrl+C stops between files.
Exit codes: 0 every session uploaded (or none waiting), 1 some stay local (each said, with why),
2 no shared store set, a bad store setting, or no such session here, 4 stopped by Ctrl+C.`;

const runSessions = async (options: SessionsOptions) => (await import('../commands/sessions')).sessionsCommand(options);

export function registerSessionsCommand(program: Command): void {
  const sessions = addRetentionOptions(
    addListingOptions(program.command('sessions').description('List the recorded sessions, newest first'))
      .option('--delete <id>', 'first delete this session (an id, a unique prefix, or last); a running one is refused (the same as mnemo sessions delete ID)')
      .option('--prune', 'first delete sessions past the retention settings (store.retentionDays, store.retentionGb in config.json); running sessions are kept (the same as mnemo sessions prune)'),
    'with --prune: ',
  )
    // Options after `delete` or `prune` are theirs (the same names, defined once in options.ts).
    .enablePositionalOptions()
    .addHelpText('after', HELP_AFTER)
    .action(runSessions);

  addListingOptions(sessions.command('delete').description('Delete a session (a running one is refused), then list the sessions left').argument('<id>', 'the session: an id, a unique prefix, or last'))
    .addHelpText('after', HELP_AFTER)
    .action((id: string, _options: SessionsOptions, command: Command) => runSessions({ ...command.optsWithGlobals<SessionsOptions>(), delete: id }));

  addStoreOption(
    addStorageOptions(
      sessions
        .command('upload')
        .description('Upload to the shared store now the sessions waiting for it (or the sessions named); each stays here until the store has all of it')
        .argument('[ids...]', 'sessions of this data directory: ids, unique prefixes or last (default: every session waiting for its upload)'),
    ),
    'where the sessions go',
  )
    .option('--json', 'print a JSON array of {id, status: "uploaded"|"local"|"absent", store, files, bytes, skipped, localCopy, directory, message}')
    .addHelpText('after', UPLOAD_HELP)
    .action(async (ids: string[], _options: SessionsUploadOptions, command: Command) =>
      (await import('../commands/sessions-upload')).sessionsUploadCommand(ids, command.optsWithGlobals<SessionsUploadOptions>()),
    );

  const prune = sessions
    .command('prune')
    .description('Delete the sessions past the retention settings (store.retentionDays, store.retentionGb in config.json, or the flags below; running sessions are kept), then list the sessions left');
  addRetentionOptions(addListingOptions(prune), '')
    .addHelpText('after', HELP_AFTER)
    .action((_options: SessionsOptions, command: Command) => runSessions({ ...command.optsWithGlobals<SessionsOptions>(), prune: true }));
}
