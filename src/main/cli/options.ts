/**
 * The flags several commands share, each defined here once (its name, argument, parser and
 * meaning), and the parsers of option values, each throwing InvalidArgumentError naming the
 * problem (exit 2). Loaded at every start of `mnemo`: it imports nothing but commander.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { COMPUTER_TOOL_CHOICES, COORDINATE_FAMILIES, COORDINATE_SPACES, MODEL_FAMILIES, UI_TARS_VERSIONS } from '../../shared/model-families';
import { parseStoreLocation } from '../../shared/store-location';
import type { Size } from '../../shared/frame';
import type { ElementsAidMode } from '../../shared/settings';

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

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value.trim()) || port > 65535) throw new InvalidArgumentError(`--port must be a port number from 0 to 65535 (0: any free port), got "${value}"`);
  return port;
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

export function parsePositiveNumber(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number <= 0) throw new InvalidArgumentError(`${name} must be a positive number, got "${value}"`);
    return number;
  };
}

/** A repeatable option's values in order (`--set A=1 --set B=2`). */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `--speed`: recorded pauses divided by this; 0 or "max": none. */
export function parseSpeed(value: string): number {
  if (value.trim().toLowerCase() === 'max') return 0;
  const speed = Number(value);
  if (value.trim() === '' || !Number.isFinite(speed) || speed < 0) {
    throw new InvalidArgumentError(`--speed must be a number ≥ 0 (0 or "max": no pauses), got "${value}"`);
  }
  return speed;
}

/** A shared flag's meaning, with what it means to this command after it. */
const meaning = (base: string, note?: string) => (note ? `${base}; ${note}` : base);

/** `--data-dir`: every command that reads or writes what Mnemo keeps. */
export function addDataDirOption(command: Command, note?: string): Command {
  return command.option('--data-dir <dir>', meaning('where sessions, settings and memory live (default ~/.mnemo, env MNEMO_DATA_DIR)', note));
}

/** `--store`: s3://BUCKET/PREFIX or a folder, checked as it is read. */
export function parseStore(value: string): string {
  const parsed = parseStoreLocation(value);
  if (!parsed.ok) throw new InvalidArgumentError(`--store: ${parsed.message}`);
  return value;
}

/**
 * `--store`: the shared session store, for every command that records or reads sessions (run,
 * workflow run, replay, sessions, show, export, serve). `note` says what it does in this command.
 */
export function addStoreOption(command: Command, note?: string): Command {
  return command.option(
    '--store <where>',
    meaning(
      'a shared session store: s3://BUCKET/PREFIX (endpoint, region and credentials from AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) or a folder on a shared mount (env MNEMO_STORE; config store.shared)',
      note,
    ),
    parseStore,
  );
}

/** `--data-dir` and `--config`: the commands that also read the settings. */
export function addStorageOptions(command: Command, configNote?: string): Command {
  return addDataDirOption(command).option('--config <file>', meaning('a settings file (default <data-dir>/config.json)', configNote));
}

/** The model flags, as `mnemo run` has them; `purpose` says what the model is for where it is not the run. */
export function addModelOptions(command: Command, purpose = ''): Command {
  return command
    .option(
      '--base-url <url>',
      `${purpose}API root, e.g. http://localhost:11434/v1 (env OPENAI_BASE_URL); for --family anthropic and gemini the root their SDK takes, default https://api.anthropic.com (env ANTHROPIC_BASE_URL) and https://generativelanguage.googleapis.com (env GOOGLE_GEMINI_BASE_URL)`,
    )
    .option('--model <name>', `${purpose}model name (env MNEMO_MODEL); a model Mnemo knows (docs/models.md) needs no --family`)
    .addOption(new Option('--family <family>', `${purpose}reply format of the model`).choices(MODEL_FAMILIES))
    .addOption(new Option('--model-version <version>', `${purpose}UI-TARS version`).choices(UI_TARS_VERSIONS))
    .addOption(coordinatesOption(`${purpose}the space the model writes points in, for --family ${COORDINATE_FAMILIES.join(', ')} (default: the family's own; config model.coordinates)`))
    .addOption(computerToolOption(`${purpose}the vendor's computer tool, for --family anthropic and openai-cua (default auto: from the model's name, docs/models.md; config model.computerTool)`))
    .option('--api-key-env <VAR>', `${purpose}read the API key from this environment variable (default OPENAI_API_KEY; ANTHROPIC_API_KEY for --family anthropic, GOOGLE_API_KEY or GEMINI_API_KEY for --family gemini)`);
}

/** `--computer-tool <name>`: the vendor's computer tool a model is asked with (Claude's toolset or older tool, OpenAI's GA or preview tool). */
export function computerToolOption(description: string): Option {
  return new Option('--computer-tool <name>', description).choices(COMPUTER_TOOL_CHOICES);
}

/** ELEMENTS_AID_MODES, spelled here: this module loads at every start and imports no schema (zod) for it. */
const ELEMENTS_AID_CHOICES: readonly ElementsAidMode[] = ['off', 'list', 'marks'];

/** `--elements <mode>`: the elements aid, the accessibility tree's elements given to the model (docs/elements.md). */
export function elementsOption(description: string): Option {
  return new Option('--elements <mode>', description).choices(ELEMENTS_AID_CHOICES);
}

/** `--coordinates <space>`: the coordinate space a model writes points in. */
export function coordinatesOption(description: string): Option {
  return new Option('--coordinates <space>', description).choices(COORDINATE_SPACES);
}

/**
 * Where the settings are and which model to use (run, check-model, doctor, and replay for its
 * reground policy, whose descriptions say so through `purpose`).
 */
export function addSettingsOptions(command: Command, purpose = ''): Command {
  return addModelOptions(addStorageOptions(command), purpose);
}

/** Where the long-lived memory is kept: Redis, and the key of the encrypted files. */
export function addMemoryStoreOptions(command: Command, note?: string): Command {
  return command
    .option('--redis-url <url>', meaning('keep the shared memory (blackboard, facts, working memory) in Redis, e.g. redis://127.0.0.1:6379 (env MNEMO_REDIS_URL)', note))
    .option('--memory-key-file <file>', meaning('the key of the encrypted memory files, read from this file (env MNEMO_MEMORY_KEY)', note));
}

/**
 * `--display <n>`: a display index; with `all`, also "all" (the whole virtual desktop).
 * `what` says what the display is for in this command.
 */
export function addDisplayOption(command: Command, what: string, options: { all?: boolean } = {}): Command {
  return options.all
    ? command.option('--display <n>', `${what}: a display index, or "all" (default: the primary display)`, parseDisplayIndex)
    : command.option('--display <n>', `${what}: a display index (default: the primary display)`, parseDisplayNumber);
}

export function parseLiveFps(value: string): number {
  const fps = Number(value);
  if (value.trim() === '' || !Number.isFinite(fps) || fps <= 0 || fps > 30) throw new InvalidArgumentError(`--live-fps must be a number of frames a second above 0, at most 30, got "${value}"`);
  return fps;
}

/** The live view's pace, for every command that runs or serves runs. */
export function addLiveFpsOption(command: Command): Command {
  return command.option('--live-fps <n>', 'frames a second of the live view at most, sent only when the screen changed (default 5; desktop.liveFps)', parseLiveFps);
}

/** `--desktop private [--desktop-size WxH] [--app "CMD" …] [--keep-desktop]` and `--live-fps`, for run, replay and workflow run. */
export function addDesktopOptions(command: Command, what: string): Command {
  return addLiveFpsOption(
    command
      .addOption(new Option('--desktop <where>', `where to ${what}: "private" starts an X display of its own (your pointer, keys and clipboard stay yours), "user" your display`).choices(['private', 'user']))
      .option('--desktop-size <WxH>', "the private desktop's size (default 1280x800; desktop.size)")
      .option('--app <command>', 'a program to start on the private desktop before the task (repeatable); its window must show first', (value: string, previous: string[] = []) => {
        if (value.trim() === '') throw new InvalidArgumentError('--app needs a command, e.g. --app "chromium --user-data-dir=/tmp/profile"');
        return [...previous, value];
      })
      .option('--keep-desktop', 'leave the private desktop running afterwards, and print its DISPLAY'),
  );
}
