import { InvalidArgumentError, type Command } from 'commander';
import type { RunOptions } from '../commands/run';
import { addDesktopOptions, addDisplayOption, addMemoryStoreOptions, addSettingsOptions, addStoreOption, elementsOption, parsePositiveInt } from '../options';

function parseCost(value: string): number {
  const cost = Number(value);
  if (!Number.isFinite(cost) || cost <= 0) throw new InvalidArgumentError(`--max-cost must be a positive number of US dollars, got "${value}"`);
  return cost;
}

export function registerRunCommand(program: Command): void {
  const run = addSettingsOptions(program.command('run').description('Carry out a task on the desktop with a vision model').argument('<task>', 'the task, in plain language'))
    .option('--max-steps <n>', 'stop after this many steps (default 50)', parsePositiveInt('--max-steps'))
    .option('--max-cost <usd>', 'stop once the run has cost this much', parseCost)
    .addOption(elementsOption('the elements aid: off (the screenshot only), list (a numbered list of the active window\'s interactive elements in each step\'s prompt), marks (the list, and the numbers drawn on the screenshot) (default off; config model.elements; docs/elements.md)'));
  addStoreOption(addDesktopOptions(addMemoryStoreOptions(addDisplayOption(run, 'the display to work on')), 'run'), 'its session goes there once the run ends (it stays here until the store has all of it)')
    .option('--conversation <id>', 'continue this conversation (its memory carries over); mnemo run prints the id of each')
    .option('--non-interactive', 'never ask: a question from the model fails the run')
    .option('--json', 'print one JSON event per line on stdout')
    .action(async (task: string, options: RunOptions) => (await import('../commands/run')).runCommand(task, options));
}
