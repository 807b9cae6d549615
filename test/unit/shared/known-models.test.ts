/**
 * The table of known models (src/shared/known-models.ts) against the names providers give today's
 * computer-use models, and docs/models.md kept in step with it row by row.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KNOWN_MODELS, knownModel, settingsOfKnownModel } from '../../../src/shared/known-models';

const DOCS = readFileSync(new URL('../../../docs/models.md', import.meta.url), 'utf8');

describe('the known models: frontier rows', () => {
  it.each<[string, string, string, string]>([
    ['claude-opus-5-5', 'anthropic', 'image', 'Claude (computer use), Claude 5 included'],
    ['claude-sonnet-5-5', 'anthropic', 'image', 'Claude (computer use), Claude 5 included'],
    ['claude-haiku-5-5', 'anthropic', 'image', 'Claude (computer use), Claude 5 included'],
    ['gpt-5.4', 'openai-cua', 'image', 'OpenAI GPT-5.4 and later (computer use)'],
    ['gpt-5.5', 'openai-cua', 'image', 'OpenAI GPT-5.4 and later (computer use)'],
    ['gpt-5.6', 'openai-cua', 'image', 'OpenAI GPT-5.4 and later (computer use)'],
    ['openai/gpt-5.4-2026-03-05', 'openai-cua', 'image', 'OpenAI GPT-5.4 and later (computer use)'],
    ['computer-use-preview', 'openai-cua', 'image', 'OpenAI computer-use-preview'],
    ['gemini-3-pro-preview', 'gemini', 'relative-1000', 'Gemini computer use (2.5 and 3.x)'],
    ['gemini-3.1-pro-preview', 'gemini', 'relative-1000', 'Gemini computer use (2.5 and 3.x)'],
    ['ByteDance-Seed/UI-TARS-2', 'ui-tars', 'relative-1000', 'UI-TARS-2'],
    ['Qwen/Qwen3-VL-235B-A22B-Instruct', 'tools', 'relative-1000', 'Qwen3-VL'],
    ['Qwen/Qwen3.5-35B-A3B', 'tools', 'relative-1000', 'Qwen3.5'],
    ['qwen3.5:9b', 'tools', 'relative-1000', 'Qwen3.5'],
    ['Hcompany/Holo3-35B-A3B', 'tools', 'relative-1000', 'Holo3'],
    ['Hcompany/Holo-3.1-35B-A3B', 'tools', 'relative-1000', 'Holo3'],
    ['holo3-122b-a10b', 'tools', 'relative-1000', 'Holo3'],
    ['Hcompany/Holo2-8B', 'tools', 'relative-1000', 'Holo2'],
    ['xlangai/OpenCUA-72B', 'pyautogui', 'smart-resize', 'OpenCUA'],
    ['Salesforce/GTA1-7B', 'tools', 'smart-resize', 'GTA1'],
    ['HelloKKMe/GTA1-7B-2507', 'tools', 'smart-resize', 'GTA1'],
  ])('%s: %s, %s (%s)', (name, family, coordinates, row) => {
    expect(knownModel(name)).toMatchObject({ name: row, family, coordinates });
  });

  it.each(['gpt-5', 'gpt-5-mini', 'gpt-5.1', 'gpt-5.2', 'gpt-5.3', 'gpt-4.1', 'gpt-5.4-mini', 'gpt-5.5-nano', 'gpt-5.1-codex'])('%s is not an openai-cua model: it stays a tools model', (name) => {
    expect(knownModel(name)).toBeUndefined();
  });

  it("sets GTA1 up with its card's resize bounds", () => {
    const row = knownModel('Salesforce/GTA1-32B');
    expect(row && settingsOfKnownModel(row)).toEqual({ family: 'tools', coordinates: 'smart-resize', smartResize: { factor: 28, minPixels: 3136, maxPixels: 8_847_360 } });
  });

  it('every row says the tool it is asked with', () => {
    for (const row of KNOWN_MODELS) expect(row.tool.trim(), row.name).not.toBe('');
  });
});

/** The cells of docs/models.md's table of models, row by row. */
function docsRows(): string[][] {
  const table = DOCS.slice(DOCS.indexOf('## The table'), DOCS.indexOf("### The vendor's computer tool"));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| model |') && !line.startsWith('| ---'))
    .map((line) => line.slice(1, -1).trim().split(/\s*\|\s*/));
}

const spaced = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

describe('docs/models.md in step with the table', () => {
  const rows = docsRows();
  const uncertainSection = DOCS.slice(DOCS.indexOf('### Where a row is uncertain'), DOCS.indexOf('## Checking a model'));
  const uncertainLabels = [...uncertainSection.matchAll(/^- \*\*(.+?)\*\*/gm)].map((match) => match[1] as string);

  it('lists every row once, in the same order', () => {
    expect(rows.map((cells) => cells[0])).toEqual(KNOWN_MODELS.map((row) => row.name));
  });

  it.each(KNOWN_MODELS.map((row) => [row.name, row] as const))('%s: family, tool, coordinates, resize, source and doubts', (_name, row) => {
    const cells = rows.find((candidate) => candidate[0] === row.name) as string[];
    const [, , family, tool, coordinates, resize, source] = cells;
    expect(family?.startsWith(`\`${row.family}\``)).toBe(true);
    expect(tool).toBe(row.tool);
    expect(coordinates).toBe(`\`${row.coordinates}\``);
    if (row.smartResize) expect(resize).toBe(`${row.smartResize.factor}, ${spaced(row.smartResize.minPixels)}, ${spaced(row.smartResize.maxPixels)}`);
    expect(source).toContain(`(${row.source})`);
    if (row.uncertain !== undefined) {
      expect(source).toContain('*uncertain');
      expect(uncertainLabels.some((label) => row.name.includes(label)), `a "Where a row is uncertain" entry for ${row.name}`).toBe(true);
    }
  });

  it('documents the computer tool setting and its names', () => {
    expect(DOCS).toContain('`model.computerTool`');
    expect(DOCS).toContain('`--computer-tool NAME`');
    expect(DOCS).toContain('`computer_toolset_20260801 | computer_20251124 | computer_20250124`');
    expect(DOCS).toContain('`computer | computer_use_preview`');
  });
});
