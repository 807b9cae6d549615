import type { Command } from 'commander';
import type { DoctorOptions } from '../commands/doctor';
import { addSettingsOptions, addStoreOption } from '../options';

export function registerDoctorCommand(program: Command): void {
  addStoreOption(
    addSettingsOptions(program.command('doctor').description('Check everything a run needs: display, capture, input, clipboard, the accessibility bus, Electron, the data directory, the key store, the shared session store, the provider'), 'the provider to check: '),
    'checked: it answers, and how many sessions wait for it',
  )
    .option('--json', 'print [{"check", "status": "ok"|"warn"|"fail", "detail", "fix"}]')
    .action(async (options: DoctorOptions) => (await import('../commands/doctor')).doctorCommand(options));
}
