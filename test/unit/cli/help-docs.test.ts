/**
 * docs/cli.md in step with the command: every command and subcommand `mnemo --help` lists (found
 * by following each command's own --help, not from a list kept here) has a section of its own in
 * the page, a heading naming it (### `mnemo workflow save`), and that section mentions every flag
 * its --help lists, as written (`--computer-tool`, `-o`). And no page a user reads names a command
 * that does not exist. Each failure says which command or flag is missing from which page.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { documentationPages, headingsOf, readPage, sectionText } from '../../fixtures/markdown';

const CLI_PAGE = 'docs/cli.md';
/** The developer's map, which also names commands that are only planned. */
const NOT_A_USER_PAGE = 'docs/architecture.md';

interface CommandHelp {
  /** The words after `mnemo`: [] for mnemo itself, ['workflow', 'save'] for `mnemo workflow save`. */
  path: string[];
  /** The flags its --help lists, long and short as written (`--output`, `-o`), --help and -h left out. */
  flags: string[];
  /** The names of its subcommands (commander's own `help` left out). */
  subcommands: string[];
}

/** The lines of one section of a --help (`Options:`, `Commands:`), up to the blank line that ends it. */
function helpSection(help: string, title: string): string[] {
  const lines = help.split('\n');
  const start = lines.findIndex((line) => line === `${title}:`);
  if (start < 0) return [];
  const end = lines.findIndex((line, index) => index > start && line.trim() === '');
  return lines.slice(start + 1, end < 0 ? lines.length : end);
}

/** A command's flags and subcommands as its --help lists them; an entry starts two spaces in, its wrapped lines further. */
function parseHelp(path: string[], help: string): CommandHelp {
  const flags: string[] = [];
  for (const line of helpSection(help, 'Options')) {
    const entry = /^ {2}(?:(-[A-Za-z]), )?(--[a-z][\w-]*)/.exec(line);
    if (!entry) continue;
    if (entry[2] === '--help') continue;
    if (entry[1]) flags.push(entry[1]);
    flags.push(entry[2] as string);
  }
  const subcommands = helpSection(help, 'Commands')
    .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
  return { path, flags, subcommands };
}

/** `mnemo …path --help`, then the same for each subcommand it lists, all the way down. */
async function discover(path: string[]): Promise<CommandHelp[]> {
  const run = await runMnemo([...path, '--help']);
  const shown = ['mnemo', ...path, '--help'].join(' ');
  if (run.code !== 0) throw new Error(`${shown} exited ${run.code}: ${run.stderr}`);
  const command = parseHelp(path, run.stdout);
  if (command.flags.length === 0 && command.subcommands.length === 0 && path.length === 0) throw new Error(`${shown} listed no command and no flag:\n${run.stdout}`);
  const below = await Promise.all(command.subcommands.map((name) => discover([...path, name])));
  return [command, ...below.flat()];
}

const named = (path: string[]) => ['mnemo', ...path].join(' ');
const parentHelp = (path: string[]) => `${named(path.slice(0, -1))} --help`;

/** Whether the text mentions the flag as a word of its own (`--desktop` is not found in `--desktop-size`). */
function mentionsFlag(text: string, flag: string): boolean {
  const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w-])${escaped}(?![\\w-])`).test(text);
}

/**
 * The command lines a page names: `mnemo` followed by words (`mnemo workflow run form` → ['workflow',
 * 'run', 'form']); a word that runs on into a URL or a path (`mnemo http://…`) is no command.
 */
function commandsNamed(markdown: string): Array<{ words: string[]; line: number }> {
  const found: Array<{ words: string[]; line: number }> = [];
  markdown.split('\n').forEach((text, line) => {
    for (const match of text.matchAll(/(?<![\w/.-])mnemo((?: [a-z][a-z-]*(?![\w:/.-]))+)/g)) {
      found.push({ words: (match[1] as string).trim().split(' '), line: line + 1 });
    }
  });
  return found;
}

let commands: CommandHelp[] = [];
let page = '';

beforeAll(async () => {
  commands = await discover([]);
  page = readPage(CLI_PAGE);
}, 120_000);

/** The section of docs/cli.md whose heading names the command in code (### `mnemo workflow save`). */
function sectionOf(path: string[]): string | undefined {
  const heading = headingsOf(page).find((candidate) => candidate.text.includes(`\`${named(path)}\``));
  return heading ? sectionText(page, heading) : undefined;
}

describe(`${CLI_PAGE} and the commands' --help`, () => {
  it('finds the commands by following --help (a sanity check of the parsing)', () => {
    const names = commands.map((command) => named(command.path));
    expect(names).toEqual(expect.arrayContaining(['mnemo', 'mnemo run', 'mnemo workflow', 'mnemo workflow save', 'mnemo sessions prune', 'mnemo facts check', 'mnemo memory working']));
    expect(commands.find((command) => command.path.join(' ') === 'run')?.flags).toEqual(expect.arrayContaining(['--computer-tool', '--desktop', '--desktop-size', '--json']));
    expect(commands.find((command) => command.path.join(' ') === 'screenshot')?.flags).toEqual(expect.arrayContaining(['-o', '--output']));
  });

  it('has a section for every command and subcommand', () => {
    const missing = commands
      .filter((command) => command.path.length > 0 && sectionOf(command.path) === undefined)
      .map((command) => `${CLI_PAGE} has no section for \`${named(command.path)}\` (listed by \`${parentHelp(command.path)}\`): add a heading naming it, e.g. ### \`${named(command.path)}\``);
    expect(missing).toEqual([]);
  });

  it("mentions every flag of each command in that command's section", () => {
    const missing: string[] = [];
    for (const command of commands) {
      const text = command.path.length === 0 ? page : sectionOf(command.path);
      if (text === undefined) continue; // said by the test above
      const where = command.path.length === 0 ? CLI_PAGE : `${CLI_PAGE}, section \`${named(command.path)}\`,`;
      for (const flag of command.flags) {
        if (!mentionsFlag(text, flag)) missing.push(`${where} does not mention ${flag} (listed by \`${named(command.path)} --help\`)`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the pages name only commands that exist', () => {
  it.each(documentationPages().filter((file) => file !== NOT_A_USER_PAGE))('%s', (file) => {
    const known = new Map(commands.map((command) => [command.path.join(' '), command]));
    const unknown: string[] = [];
    for (const { words, line } of commandsNamed(readPage(file))) {
      const top = words[0] as string;
      const command = known.get(top);
      if (!command) {
        unknown.push(`${file}:${line} names \`mnemo ${top}\`, which \`mnemo --help\` does not list`);
        continue;
      }
      // A command with subcommands: the next word, where there is one, must be one of them.
      const next = words[1];
      if (command.subcommands.length > 0 && next !== undefined && !command.subcommands.includes(next)) {
        unknown.push(`${file}:${line} names \`mnemo ${top} ${next}\`, which \`mnemo ${top} --help\` does not list`);
      }
    }
    expect(unknown).toEqual([]);
  });
});
