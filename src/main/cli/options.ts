/** Parsers for CLI option values; each throws InvalidArgumentError naming the problem (exit 2). */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { MODEL_FAMILIES } from '../../shared/settings';
import type { Size } from '../../shared/frame';

export function parsePositiveInt(name: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value.trim()) || Number(value) <= 0) {
      throw new InvalidArgumentError(`${name} must be a positive integer, got "${value}"`);
    }
    return Number(value);
  };
}

export function parseDisplayIndex(value: string): number | 'all' {
  if (value === 'all') return 'all';
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`--display must be a display index (0, 1, ...) or "all", got "${value}"`);
  return Number(value);
}

export function parseImageSize(value: string): Size {
  const match = /^\s*(\d+)\s*[xX×]\s*(\d+)\s*$/.exec(value);
  if (!match || Number(match[1]) <= 0 || Number(match[2]) <= 0) {
    throw new InvalidArgumentError(`--image must be WIDTHxHEIGHT in positive pixels (for example 1280x800), got "${value}"`);
  }
  return { width: Number(match[1]), height: Number(match[2]) };
}

export function parseQuality(value: string): number {
  const quality = Number(value);
  if (!Number.isInteger(quality) || quality < 1 || quality > 100) {
    throw new InvalidArgumentError(`--quality must be an integer from 1 to 100, got "${value}"`);
  }
  return quality;
}

export function parseDisplayNumber(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`--display must be a display index (0, 1, ...), got "${value}"`);
  return Number(value);
}

/**
 * The flags that say where the settings are and which model to use, as `mnemo run` has them (run,
 * check-model, doctor, and replay for its reground policy, whose descriptions say so through
 * `purpose`).
 */
export function addSettingsOptions(command: Command, purpose = ''): Command {
  return command
    .option('--data-dir <dir>', 'where sessions and settings live (default ~/.mnemo, env MNEMO_DATA_DIR)')
    .option('--config <file>', 'a settings file (default <data-dir>/config.json)')
    .option('--base-url <url>', `${purpose}OpenAI-compatible API root, e.g. http://localhost:11434/v1 (env OPENAI_BASE_URL)`)
    .option('--model <name>', `${purpose}model name (env MNEMO_MODEL)`)
    .addOption(new Option('--family <family>', `${purpose}reply format of the model`).choices(MODEL_FAMILIES))
    .addOption(new Option('--model-version <version>', `${purpose}UI-TARS version`).choices(['1.0', '1.5']))
    .option('--api-key-env <VAR>', `${purpose}read the API key from this environment variable (default OPENAI_API_KEY)`);
}
