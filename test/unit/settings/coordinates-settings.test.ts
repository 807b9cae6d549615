/**
 * The coordinate space and the smart resize as settings (`--coordinates`, `model.coordinates`,
 * `model.smartResize`), the families' own defaults, and the table of known models that `--model`
 * alone is looked up in: through the settings resolution, the models built from it, and the real
 * CLI.
 */
import { describe, expect, it } from 'vitest';
import { resolveRunSettings, type RunFlags } from '../../../src/main/settings/settings';
import { createVisionModel } from '../../../src/main/model';
import { gridOf } from '../../../src/main/model/families/coordinates';
import { KNOWN_MODELS, knownModel } from '../../../src/shared/known-models';
import { coordinateSpaceOf } from '../../../src/shared/model-families';
import { dataDirsPerTest } from '../../fixtures/data-dirs';
import { runMnemo } from '../../fixtures/mnemo-cli';

const dataDir = dataDirsPerTest('mnemo-coordinates-');

const image = { width: 1280, height: 800 };
const base = { baseUrl: 'http://127.0.0.1:9/v1' };

async function settingsOf(flags: RunFlags, config?: unknown) {
  const resolved = await resolveRunSettings({ dataDir: dataDir(config), ...flags }, {});
  if (!resolved.ok) throw new Error(resolved.message);
  return resolved.settings.model;
}

describe('coordinate spaces as settings', () => {
  it("each family keeps its own space by default: tools and pyautogui image, UI-TARS 1.0 0-1000, 1.5 its smart resize", async () => {
    const frameOf = async (flags: RunFlags) => createVisionModel(await settingsOf({ ...base, model: 'm', ...flags })).coordinateFrame!(image).space;
    expect(await frameOf({ family: 'tools' })).toBe('image');
    expect(await frameOf({ family: 'pyautogui' })).toBe('image');
    expect(await frameOf({ family: 'ui-tars', modelVersion: '1.0' })).toBe('relative-1000');
    expect(await frameOf({ family: 'ui-tars', modelVersion: '1.5' })).toBe('smart-resize');
    expect(await frameOf({ family: 'ui-tars' })).toBe('smart-resize');
    expect(await frameOf({ family: 'openai-cua' })).toBe('image');
    expect(await frameOf({ family: 'anthropic', baseUrl: 'http://127.0.0.1:9' })).toBe('image');
  });

  it('--coordinates wins over model.coordinates, which wins over the family', async () => {
    const config = { model: { coordinates: 'relative-1', smartResize: { factor: 32, minPixels: 2_000_000, maxPixels: 4_000_000 } } };
    expect(await settingsOf({ ...base, model: 'm', family: 'tools' }, config)).toMatchObject({ coordinates: 'relative-1' });
    const flagged = await settingsOf({ ...base, model: 'm', family: 'tools', coordinates: 'smart-resize' }, config);
    expect(flagged).toMatchObject({ coordinates: 'smart-resize', smartResize: { factor: 32, minPixels: 2_000_000, maxPixels: 4_000_000 } });
    // The resize bounds reach the model: 1280x800 is scaled up to at least 2 MP, sides multiples of 32.
    const frame = createVisionModel(flagged).coordinateFrame!(image);
    expect(frame).toMatchObject({ space: 'smart-resize', image });
    const grid = gridOf(frame);
    expect(grid.width % 32).toBe(0);
    expect(grid.width * grid.height).toBeGreaterThanOrEqual(2_000_000);
  });

  it('refuses coordinates for a family whose protocol fixes them, and bad resize bounds', async () => {
    const fixed = await resolveRunSettings({ dataDir: dataDir(), ...base, model: 'm', family: 'openai-cua', coordinates: 'relative-1000' }, {});
    expect(fixed).toEqual({ ok: false, message: 'model settings: coordinates apply to the families tools, ui-tars, pyautogui; openai-cua answers in image coordinates, as its protocol says' });
    const bounds = await resolveRunSettings({ dataDir: dataDir({ model: { smartResize: { minPixels: 10, maxPixels: 5 } } }), ...base, model: 'm', family: 'tools' }, {});
    expect(bounds).toMatchObject({ ok: false, message: expect.stringMatching(/minPixels must not exceed maxPixels/) });
    const unknown = await resolveRunSettings({ dataDir: dataDir({ model: { coordinates: 'percent' } }), ...base, model: 'm', family: 'tools' }, {});
    expect(unknown).toMatchObject({ ok: false });
  });
});

describe('the table of known models', () => {
  it('every row has a family, a space, and an http(s) source; UI-TARS rows carry their version', () => {
    for (const row of KNOWN_MODELS) {
      expect(row.source).toMatch(/^https:\/\//);
      expect(['image', 'smart-resize', 'relative-1000', 'relative-1']).toContain(row.coordinates);
      if (row.family === 'ui-tars') expect(row.modelVersion).toBeDefined();
    }
  });

  it.each<[string, string, string]>([
    ['ByteDance-Seed/UI-TARS-1.5-7B', 'ui-tars', 'smart-resize'],
    ['ui-tars-1.5-7b', 'ui-tars', 'smart-resize'],
    ['ui-tars-72b-dpo', 'ui-tars', 'relative-1000'],
    ['UI-TARS-2B-SFT', 'ui-tars', 'relative-1000'],
    ['doubao-1-5-ui-tars-250428', 'ui-tars', 'relative-1000'],
    ['qwen2.5vl:7b', 'tools', 'smart-resize'],
    ['Qwen/Qwen2.5-VL-72B-Instruct', 'tools', 'smart-resize'],
    ['qwen3-vl-235b-a22b-instruct', 'tools', 'relative-1000'],
    ['zai-org/GLM-4.5V', 'tools', 'relative-1000'],
    ['glm-4.6v', 'tools', 'relative-1000'],
    ['Hcompany/Holo1.5-7B', 'tools', 'smart-resize'],
    ['Hcompany/Holo2-8B', 'tools', 'relative-1000'],
    ['inclusionAI/UI-Venus-Ground-72B', 'tools', 'smart-resize'],
    ['xlangai/OpenCUA-32B', 'pyautogui', 'smart-resize'],
    ['microsoft/GUI-Actor-7B-Qwen2.5-VL', 'tools', 'relative-1'],
    ['claude-sonnet-4-6', 'anthropic', 'image'],
    ['gemini-2.5-computer-use-preview-10-2025', 'gemini', 'relative-1000'],
    ['computer-use-preview', 'openai-cua', 'image'],
  ])('%s: %s, %s', (name, family, coordinates) => {
    const row = knownModel(name);
    expect(row).toMatchObject({ family, coordinates });
    // The row's space is what a model set up from it answers in.
    expect(coordinateSpaceOf({ family, modelVersion: row?.modelVersion, coordinates: row?.coordinates })).toBe(coordinates);
  });

  it('does not know every model', () => {
    expect(knownModel('gpt-4.1')).toBeUndefined();
    expect(knownModel('llava:13b')).toBeUndefined();
  });

  it('--model alone takes the family, space and resize from the table', async () => {
    expect(await settingsOf({ ...base, model: 'xlangai/OpenCUA-7B' })).toMatchObject({
      family: 'pyautogui',
      coordinates: 'smart-resize',
      smartResize: { factor: 28, minPixels: 3136, maxPixels: 12845056 },
    });
    expect(await settingsOf({ ...base, model: 'ui-tars-7b-dpo' })).toMatchObject({ family: 'ui-tars', modelVersion: '1.0' });
    expect(await settingsOf({ ...base, model: 'qwen3-vl-8b' })).toMatchObject({ family: 'tools', coordinates: 'relative-1000' });
    // Claude: the family's own endpoint and key variable come with it.
    const claude = await resolveRunSettings({ dataDir: dataDir(), model: 'claude-sonnet-4-6' }, { ANTHROPIC_API_KEY: 'sk-ant-table' });
    expect(claude).toMatchObject({ ok: true, settings: { model: { family: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'sk-ant-table' } } });
  });

  it('a family given keeps its own choices; the table fills only what is not set', async () => {
    expect(await settingsOf({ ...base, model: 'qwen3-vl-8b', family: 'tools', coordinates: 'image' })).toMatchObject({ family: 'tools', coordinates: 'image' });
    expect(await settingsOf({ ...base, model: 'qwen3-vl-8b', family: 'pyautogui' })).not.toHaveProperty('coordinates');
    expect(await settingsOf({ ...base, model: 'ui-tars-7b-dpo', family: 'ui-tars', modelVersion: '1.5' })).toMatchObject({ modelVersion: '1.5' });
  });

  it('an unknown model without a family is a clear error', async () => {
    const resolved = await resolveRunSettings({ dataDir: dataDir(), ...base, model: 'my-own-model' }, {});
    expect(resolved).toMatchObject({ ok: false, message: expect.stringMatching(/^Mnemo does not know the model "my-own-model" \(docs\/models\.md lists the ones it does\): give its family with --family \(tools, ui-tars, openai-cua, anthropic, gemini, pyautogui\)/) });
  });
});

describe('through the CLI', { timeout: 60_000 }, () => {
  it('mnemo run --model NAME of an unknown model without --family exits 2 with the reason', async () => {
    const run = await runMnemo(['run', 'a task', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'my-own-model', '--data-dir', dataDir()], { env: { OPENAI_API_KEY: '', MNEMO_MODEL: '' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Mnemo does not know the model "my-own-model"/);
  });

  it('--coordinates is one of the four spaces, and only for the families that take it', async () => {
    const bad = await runMnemo(['run', 'a task', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--family', 'tools', '--coordinates', 'percent', '--data-dir', dataDir()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/option '--coordinates <space>' argument 'percent' is invalid\. Allowed choices are image, smart-resize, relative-1000, relative-1/);
    const fixed = await runMnemo(['run', 'a task', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--family', 'openai-cua', '--coordinates', 'relative-1000', '--data-dir', dataDir()], { env: { OPENAI_API_KEY: '' } });
    expect(fixed.code).toBe(2);
    expect(fixed.stderr).toMatch(/coordinates apply to the families tools, ui-tars, pyautogui/);
  });
});
