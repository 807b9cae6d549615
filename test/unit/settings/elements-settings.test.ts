/**
 * The elements aid as a setting: `--elements` on `mnemo run` wins over config.json's
 * model.elements, which is off when neither says; the real CLI refuses a mode it does not know.
 */
import { describe, expect, it } from 'vitest';
import { resolveRunSettings, type RunFlags } from '../../../src/main/settings/settings';
import { dataDirsPerTest } from '../../fixtures/data-dirs';
import { runMnemo } from '../../fixtures/mnemo-cli';

const dataDir = dataDirsPerTest('mnemo-elements-settings-');
const base = { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', family: 'tools' };

async function elementsOf(flags: RunFlags, config?: unknown) {
  const resolved = await resolveRunSettings({ dataDir: dataDir(config), ...base, ...flags }, {});
  if (!resolved.ok) throw new Error(resolved.message);
  return resolved.settings.model.elements ?? 'off';
}

describe('the elements aid setting', () => {
  it('--elements wins over model.elements, which wins over off', async () => {
    expect(await elementsOf({})).toBe('off');
    expect(await elementsOf({}, { model: { elements: 'list' } })).toBe('list');
    expect(await elementsOf({ elements: 'marks' }, { model: { elements: 'list' } })).toBe('marks');
    expect(await elementsOf({ elements: 'off' }, { model: { elements: 'marks' } })).toBe('off');
  });

  it('mnemo run takes off, list and marks only', async () => {
    const bad = await runMnemo(['run', 'a task', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--family', 'tools', '--elements', 'boxes', '--data-dir', dataDir()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/option '--elements <mode>' argument 'boxes' is invalid\. Allowed choices are off, list, marks/);
    const help = await runMnemo(['run', '--help']);
    expect(help.stdout).toMatch(/--elements <mode>/);
  });
});
