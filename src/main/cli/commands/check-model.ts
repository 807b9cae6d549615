/**
 * `mnemo check-model`: the provider check alone, with the model flags of `mnemo run`: one small
 * chat request with an image (and, for anthropic and openai-cua, the computer tool a run would
 * send), reporting the latency, the tool and whether the model accepted the image.
 * Exit codes: 0 the model answered, 3 it could not be used (the reason on stderr, for a base URL
 * without /v1 with the fix), 2 bad arguments.
 *
 * With `--grounding`: the grounding check (model/grounding-check.ts). Exit 0 when the model
 * answers in the configured space and hits at least 80% of the targets, 3 otherwise; the
 * provider's failures as above.
 */
import type { GroundingCheckOutcome } from '../../model/grounding-check';
import { groundingPassed } from '../../../shared/grounding';
import { loadConfig, type RunFlags } from '../../settings/settings';
import { keychainApiKey } from '../stored-key';
import type { RunService } from '../../service/run-service';
import { ExitCode, InvalidInputError } from '../exit-codes';

export interface CheckOptions extends RunFlags {
  json?: boolean;
  grounding?: boolean;
  targets?: number;
}

export async function checkModelCommand(options: CheckOptions): Promise<void> {
  const config = await loadConfig(options);
  if (!config.ok) throw new InvalidInputError(config.message);
  if (options.targets !== undefined && !options.grounding) throw new InvalidInputError('--targets applies to --grounding only');
  const [{ RunService }, { openDesktopOperator }] = await Promise.all([import('../../service/run-service'), import('../../service/desktops/desktop')]);
  const service = new RunService({ config: config.config, flags: options, openOperator: openDesktopOperator, ...(await keychainApiKey(config.config, options, (line) => process.stderr.write(`mnemo: ${line}\n`))) });
  const settings = service.config.runSettings();
  if (!settings.ok) throw new InvalidInputError(settings.error.message);
  if (options.grounding) {
    await checkGrounding(service, options);
    return;
  }
  const checked = await service.checks.model();
  if (!checked.ok) throw new InvalidInputError(checked.error.message);
  const result = checked.value;
  const { model } = settings.value.model;
  const baseUrl = service.config.redact(settings.value.model.baseUrl);
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else if (result.ok) {
    const image = result.imageAccepted ? 'accepted the image' : 'did NOT accept the image (Mnemo needs a vision model)';
    process.stdout.write(`✓ ${model} at ${baseUrl} answered in ${result.latencyMs} ms and ${image}${result.reply ? `; it said: ${JSON.stringify(result.reply.slice(0, 80))}` : ''}\n`);
    if (result.tool) process.stdout.write(`  computer tool: ${result.tool}\n`);
    if (result.note) process.stdout.write(`  ${result.note}\n`);
  } else process.stderr.write(`mnemo: ✗ ${model} at ${baseUrl} cannot be used: ${result.message}\n`);
  process.exitCode = result.ok ? ExitCode.ok : ExitCode.runFailed;
}

async function checkGrounding(service: RunService, options: CheckOptions): Promise<void> {
  const settings = service.config.runSettings();
  if (!settings.ok) throw new InvalidInputError(settings.error.message);
  const { model, family } = settings.value.model;
  const baseUrl = service.config.redact(settings.value.model.baseUrl);
  const checked = await service.checks.grounding({}, options.targets !== undefined ? { targets: options.targets } : {});
  if (!checked.ok) throw new InvalidInputError(checked.error.message);
  const outcome = checked.value;
  if (!outcome.ok) {
    if (options.json) process.stdout.write(`${JSON.stringify(outcome)}\n`);
    else process.stderr.write(`mnemo: ✗ ${model} at ${baseUrl} cannot be used: ${outcome.message}\n`);
    process.exitCode = ExitCode.runFailed;
    return;
  }
  const passed = groundingPassed(outcome.report);
  if (options.json) process.stdout.write(`${JSON.stringify(outcome.report)}\n`);
  else process.stdout.write(describeGrounding(outcome, `${model} (${family})`, service.config.loaded.path));
  process.exitCode = passed ? ExitCode.ok : ExitCode.runFailed;
}

/** The check in words: both spaces with their hits and errors, the verdict, and the fix. */
export function describeGrounding(outcome: Extract<GroundingCheckOutcome, { ok: true }>, model: string, configPath: string): string {
  const { report } = outcome;
  const px = (value: number | null) => (value === null ? 'no answer' : `mean error ${Math.round(value)} px`);
  const size = (value: { width: number; height: number }) => `${value.width}x${value.height}`;
  const line = (label: string, space: string, error: number | null) => `  ${label.padEnd(10)}  ${space.padEnd(13)}  ${report.hits[space as keyof typeof report.hits]}/${report.targets} hit, ${px(error)}\n`;
  let text = `Grounding of ${model} on ${report.targets} targets, ${size(outcome.image)} images of a ${size(outcome.screen)} screen:\n`;
  text += line('configured', report.configured, outcome.configuredMeanErrorPx);
  if (report.detected !== report.configured) text += line('detected', report.detected, report.meanErrorPx);
  if (groundingPassed(report)) text += `✓ the model answers in ${report.configured} coordinates, as configured\n`;
  else if (report.detected !== report.configured) {
    text += `✗ the model answers in ${report.detected} coordinates, not in ${report.configured} as configured: every click would miss\n`;
    text += outcome.fix
      ? `  fix: run with ${outcome.fix.flag}, or set in ${configPath}: ${outcome.fix.config}\n`
      : `  the family's protocol fixes its coordinates (${report.configured}): this model does not answer as the protocol says; check the model name and the family\n`;
  } else text += `✗ only ${report.hits[report.configured]} of ${report.targets} targets hit in ${report.configured} coordinates, the configured ones: the model does not find the targets reliably\n`;
  if (outcome.note) text += `  note: ${outcome.note}\n`;
  return text;
}
