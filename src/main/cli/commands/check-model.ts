/**
 * `mnemo check-model`: the provider check alone, with the model flags of `mnemo run`: one small
 * chat request with an image, reporting the latency and whether the model accepted the image.
 * Exit codes: 0 the model answered, 3 it could not be used (the reason on stderr, for a base URL
 * without /v1 with the fix), 2 bad arguments.
 */
import type { Command } from 'commander';
import { addSettingsOptions } from '../options';
import { loadConfig, type RunFlags } from '../../settings/settings';
import { ExitCode, InvalidInputError } from '../exit-codes';

interface CheckOptions extends RunFlags {
  json?: boolean;
}

export function registerCheckModelCommand(program: Command): void {
  addSettingsOptions(program.command('check-model').description('Check the configured model provider: one small request with an image, its latency, and whether the image was accepted'))
    .option('--json', 'print {"ok", "latencyMs", "imageAccepted", "reply", "note"} or {"ok": false, "message", "status"}')
    .action(async (options: CheckOptions) => {
      const config = await loadConfig(options);
      if (!config.ok) throw new InvalidInputError(config.message);
      const [{ RunService }, { openDesktopOperator }] = await Promise.all([import('../../service/run-service'), import('../../service/desktop')]);
      const service = new RunService({ config: config.config, flags: options, openOperator: openDesktopOperator });
      const settings = service.settings();
      if (!settings.ok) throw new InvalidInputError(service.redact(settings.error.message));
      const checked = await service.checkModel();
      if (!checked.ok) throw new InvalidInputError(service.redact(checked.error.message));
      const result = checked.value;
      const { model } = settings.value.model;
      const baseUrl = service.redact(settings.value.model.baseUrl);
      if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else if (result.ok) {
        const image = result.imageAccepted ? 'accepted the image' : 'did NOT accept the image (Mnemo needs a vision model)';
        process.stdout.write(`✓ ${model} at ${baseUrl} answered in ${result.latencyMs} ms and ${image}${result.reply ? `; it said: ${JSON.stringify(result.reply.slice(0, 80))}` : ''}\n`);
        if (result.note) process.stdout.write(`  ${result.note}\n`);
      } else process.stderr.write(`mnemo: ✗ ${model} at ${baseUrl} cannot be used: ${result.message}\n`);
      process.exitCode = result.ok ? ExitCode.ok : ExitCode.runFailed;
    });
}
