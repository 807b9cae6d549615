/**
 * `mnemo teach "<what you will do>" [--display N] [--json]`: a demonstration recorded as a session
 * (the user's own clicks, typing and keys, each with the screen before it), to save as a workflow.
 * Declarations only; the work is in commands/teach.ts, imported when it runs.
 */
import type { Command } from 'commander';
import type { TeachOptions } from '../commands/teach';
import { addDisplayOption, addStorageOptions } from '../options';

const TEACH_HELP = `
Do the task by hand on the display; every click, double click, drag, scroll, text typed into a
field and key or shortcut becomes a step of the session, with the screen from just before it.
Stop with Ctrl+C here or ctrl+alt+shift+s on the display. Text typed into a field labelled as a
password is recorded masked. Then: mnemo workflow save <session> --name NAME --param NAME=VALUE.
Needs the X server's RECORD extension.

Exit codes: 0 recorded (the session id is printed last on stdout); 1 no display, no RECORD
extension, or the recording failed; 2 bad arguments; 3 the display is busy with a run.`;

export function registerTeachCommand(program: Command): void {
  addDisplayOption(
    addStorageOptions(program.command('teach'))
      .description('Record what you do by hand on the display as a session (a demonstration), to save as a workflow')
      .argument('<task>', 'what you will do, in words: the session\'s task and the workflow\'s description'),
    'the display whose screen is recorded',
  )
    .option('--json', 'print the session\'s events as `mnemo run --json` does, one JSON line each')
    .addHelpText('after', TEACH_HELP)
    .action(async (task: string, options: TeachOptions) => (await import('../commands/teach')).teachCommand(task, options));
}
