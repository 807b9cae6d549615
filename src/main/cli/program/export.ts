import type { Command } from 'commander';
import type { ExportOptions } from '../commands/export';
import { addDataDirOption, addStoreOption } from '../options';

const HELP_AFTER = `
--html FILE  one HTML file that opens offline in any browser: screenshots embedded (as recorded),
             action markers, thoughts, results, costs and a step scrubber (arrow keys work too).
--json FILE  the raw record, pretty-printed: {"meta": <session.json (rebuilt from the events if
             damaged)>, "events": [<every readable event of events.jsonl, in order, as recorded>],
             "warnings": [<what could not be read: skipped lines, missing screenshots, ...>]}.
             Screenshots are not embedded: observation events name them by path, relative to the
             session folder (<data-dir>/sessions/<session-id>/).

Exit codes: 0 written; 1 unknown session, a shared store that cannot be read, or a file could not
be written; 2 bad arguments (neither --html nor --json, or both naming the same file).`;

export function registerExportCommand(program: Command): void {
  const exported = program
    .command('export')
    .description('Write a recorded session as a self-contained HTML report and/or its raw record as JSON')
    .argument('<session-id>', 'the session to export (see the sessions folder of the data directory)')
    .option('--html <file>', 'write the HTML report to this file')
    .option('--json <file>', 'write the raw record (meta, events, warnings) to this file');
  addStoreOption(addDataDirOption(exported), 'a session there is exported as a local one, its screenshots fetched')
    .addHelpText('after', HELP_AFTER)
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'mnemo export: ')) })
    .action(async (sessionId: string, options: ExportOptions) => (await import('../commands/export')).exportCommand(sessionId, options));
}
