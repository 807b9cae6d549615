/**
 * Where `mnemo run` takes its settings from: flags, then OPENAI_BASE_URL / OPENAI_API_KEY /
 * MNEMO_MODEL (or the variable --api-key-env names), then the config file, then defaults.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveRunSettings } from '../../../src/main/settings/settings';

const dirs: string[] = [];
function dataDir(config?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'mnemo-settings-'));
  dirs.push(dir);
  if (config !== undefined) writeFileSync(join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('resolveRunSettings', () => {
  const config = { model: { baseUrl: 'http://config.example/v1', model: 'config-model', family: 'ui-tars', apiKey: 'config-key' }, agent: { maxSteps: 7 } };

  it('takes the config file when nothing else is given', async () => {
    const resolved = await resolveRunSettings({ dataDir: dataDir(config) }, {});
    expect(resolved).toMatchObject({ ok: true, settings: { model: { baseUrl: 'http://config.example/v1', model: 'config-model', family: 'ui-tars', apiKey: 'config-key' }, maxSteps: 7, maxCostUsd: null } });
  });

  it('lets the environment override the config file, and flags override both', async () => {
    const env = { OPENAI_BASE_URL: 'http://env.example/v1', OPENAI_API_KEY: 'env-key', MNEMO_MODEL: 'env-model' };
    const fromEnv = await resolveRunSettings({ dataDir: dataDir(config) }, env);
    expect(fromEnv).toMatchObject({ ok: true, settings: { model: { baseUrl: 'http://env.example/v1', model: 'env-model', apiKey: 'env-key', family: 'ui-tars' } } });
    const fromFlags = await resolveRunSettings({ dataDir: dataDir(config), baseUrl: 'http://flag.example/v1', model: 'flag-model', family: 'tools', maxSteps: 3, maxCost: 0.5 }, env);
    expect(fromFlags).toMatchObject({ ok: true, settings: { model: { baseUrl: 'http://flag.example/v1', model: 'flag-model', family: 'tools' }, maxSteps: 3, maxCostUsd: 0.5 } });
  });

  it('reads the API key from the variable --api-key-env names, and says when it is not set', async () => {
    const named = await resolveRunSettings({ dataDir: dataDir(config), apiKeyEnv: 'MY_KEY' }, { MY_KEY: 'named-key', OPENAI_API_KEY: 'other' });
    expect(named).toMatchObject({ ok: true, settings: { model: { apiKey: 'named-key' } } });
    expect(await resolveRunSettings({ dataDir: dataDir(config), apiKeyEnv: 'MISSING_KEY' }, {})).toEqual({
      ok: false,
      message: '--api-key-env MISSING_KEY: that environment variable is not set',
    });
  });

  it('names what is missing and where it may come from', async () => {
    const resolved = await resolveRunSettings({ dataDir: dataDir() }, {});
    expect(resolved).toMatchObject({ ok: false, message: expect.stringMatching(/missing --base-url \(or OPENAI_BASE_URL\), --model \(or MNEMO_MODEL\), --family/) });
  });

  it('anthropic: the API root by default, ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, never the OpenAI variables', async () => {
    const env = { OPENAI_BASE_URL: 'http://openai.example/v1', OPENAI_API_KEY: 'sk-openai', ANTHROPIC_API_KEY: 'sk-ant-env' };
    const resolved = await resolveRunSettings({ dataDir: dataDir(), family: 'anthropic', model: 'claude-sonnet-4-6' }, env);
    expect(resolved).toMatchObject({ ok: true, settings: { model: { baseUrl: 'https://api.anthropic.com', apiKey: 'sk-ant-env', family: 'anthropic' } } });
    // Old screenshots go in chunks, so the prompt cache keeps matching.
    expect(resolved.ok && resolved.settings.memory.pruning.cacheFriendly).toBe(true);
    const proxied = await resolveRunSettings({ dataDir: dataDir(), family: 'anthropic', model: 'claude-sonnet-4-6' }, { ...env, ANTHROPIC_BASE_URL: 'http://proxy.example' });
    expect(proxied).toMatchObject({ ok: true, settings: { model: { baseUrl: 'http://proxy.example' } } });
    const named = await resolveRunSettings({ dataDir: dataDir(), family: 'anthropic', model: 'claude-sonnet-4-6', apiKeyEnv: 'MY_CLAUDE_KEY' }, { ...env, MY_CLAUDE_KEY: 'sk-ant-named' });
    expect(named).toMatchObject({ ok: true, settings: { model: { apiKey: 'sk-ant-named' } } });
    const tools = await resolveRunSettings({ dataDir: dataDir(), family: 'tools', model: 'gpt-4.1' }, env);
    expect(tools).toMatchObject({ ok: true, settings: { model: { baseUrl: 'http://openai.example/v1', apiKey: 'sk-openai' } } });
    expect(tools.ok && tools.settings.memory.pruning.cacheFriendly).toBeUndefined();
  });

  it('anthropic settings: the tool version, thinking budget and zoom are checked', async () => {
    const good = await resolveRunSettings({ dataDir: dataDir({ model: { family: 'anthropic', model: 'claude-opus-4-6', anthropic: { toolVersion: 'computer_20250124', thinking: { budgetTokens: 4096 }, zoom: false } } }) }, {});
    expect(good).toMatchObject({ ok: true, settings: { model: { anthropic: { toolVersion: 'computer_20250124', thinking: { budgetTokens: 4096 }, zoom: false } } } });
    const bad = await resolveRunSettings({ dataDir: dataDir({ model: { family: 'anthropic', model: 'claude-opus-4-6', anthropic: { toolVersion: 'computer_2099', thinking: { budgetTokens: 10 } } } }) }, {});
    expect(bad).toMatchObject({ ok: false, message: expect.stringMatching(/model\.anthropic\.toolVersion.*model\.anthropic\.thinking\.budgetTokens/) });
  });

  it('explains a broken config file instead of ignoring it', async () => {
    expect(await resolveRunSettings({ dataDir: dataDir('{ not json') }, {})).toMatchObject({ ok: false, message: expect.stringMatching(/config\.json is not valid JSON/) });
    expect(await resolveRunSettings({ dataDir: dataDir({ agent: { maxSteps: -1 } }) }, {})).toMatchObject({ ok: false, message: expect.stringMatching(/agent\.maxSteps/) });
    expect(await resolveRunSettings({ config: join(tmpdir(), 'no-such-mnemo-config.json') }, {})).toMatchObject({ ok: false, message: expect.stringMatching(/cannot read the config file/) });
  });

  it('uses the main model for memory unless the config names another', async () => {
    const same = await resolveRunSettings({ dataDir: dataDir(config) }, {});
    expect(same.ok && same.settings.memory.model.model).toBe('config-model');
    const cheaper = await resolveRunSettings({ dataDir: dataDir({ ...config, memory: { model: { model: 'small-model' }, recentBudget: 800 } }) }, {});
    expect(cheaper).toMatchObject({ ok: true, settings: { memory: { model: { model: 'small-model', baseUrl: 'http://config.example/v1' }, layers: { recentBudget: 800 } } } });
  });
});
