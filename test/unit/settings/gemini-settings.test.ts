/**
 * `--family gemini` takes its endpoint and key where Google's tools do: the Gemini API root by
 * default, the key from GOOGLE_API_KEY or GEMINI_API_KEY (GOOGLE_API_KEY first, as the SDK reads
 * them) or the variable --api-key-env names; never the OpenAI variables, nor the endpoint and key
 * of a config file written for another family. Every key variable is masked in what is recorded.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveRunSettings } from '../../../src/main/settings/settings';
import { configuredSecrets } from '../../../src/main/settings/secrets';

const dirs: string[] = [];
function dataDir(config?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'mnemo-gemini-settings-'));
  dirs.push(dir);
  if (config !== undefined) writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const openAiConfig = { model: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4.1', family: 'tools', apiKey: 'sk-file-key' } };

describe('settings of --family gemini', () => {
  it('defaults to the Gemini API root and reads GEMINI_API_KEY', async () => {
    const resolved = await resolveRunSettings({ dataDir: dataDir(), family: 'gemini', model: 'gemini-2.5-computer-use-preview-10-2025' }, { GEMINI_API_KEY: 'AIza-gemini', OPENAI_API_KEY: 'sk-openai', OPENAI_BASE_URL: 'http://localhost:11434/v1' });
    expect(resolved).toMatchObject({ ok: true, settings: { model: { baseUrl: 'https://generativelanguage.googleapis.com', family: 'gemini', apiKey: 'AIza-gemini' } } });
  });

  it('prefers GOOGLE_API_KEY when both are set, as the SDK does; --api-key-env wins over both', async () => {
    const env = { GEMINI_API_KEY: 'AIza-gemini', GOOGLE_API_KEY: 'AIza-google', MY_KEY: 'AIza-mine' };
    expect(await resolveRunSettings({ dataDir: dataDir(), family: 'gemini', model: 'm' }, env)).toMatchObject({ ok: true, settings: { model: { apiKey: 'AIza-google' } } });
    expect(await resolveRunSettings({ dataDir: dataDir(), family: 'gemini', model: 'm', apiKeyEnv: 'MY_KEY' }, env)).toMatchObject({ ok: true, settings: { model: { apiKey: 'AIza-mine' } } });
  });

  it('does not take the endpoint and key of a config written for another family', async () => {
    const resolved = await resolveRunSettings({ dataDir: dataDir(openAiConfig), family: 'gemini', model: 'm' }, {});
    expect(resolved).toMatchObject({ ok: true, settings: { model: { baseUrl: 'https://generativelanguage.googleapis.com', family: 'gemini' } } });
    if (resolved.ok) expect(resolved.settings.model.apiKey).toBeUndefined();
  });

  it('takes them from a config written for gemini, and a --base-url over all', async () => {
    const config = { model: { baseUrl: 'https://proxy.example/gemini', model: 'gemini-3-flash-preview', family: 'gemini', apiKey: 'AIza-file', gemini: { environment: 'desktop' } } };
    const fromFile = await resolveRunSettings({ dataDir: dataDir(config) }, {});
    expect(fromFile).toMatchObject({ ok: true, settings: { model: { baseUrl: 'https://proxy.example/gemini', apiKey: 'AIza-file', model: 'gemini-3-flash-preview', gemini: { environment: 'desktop' } } } });
    const fromFlag = await resolveRunSettings({ dataDir: dataDir(config), baseUrl: 'http://127.0.0.1:9999' }, {});
    expect(fromFlag).toMatchObject({ ok: true, settings: { model: { baseUrl: 'http://127.0.0.1:9999' } } });
  });

  it('leaves the other families as they were: OPENAI_BASE_URL and OPENAI_API_KEY', async () => {
    const resolved = await resolveRunSettings({ dataDir: dataDir(openAiConfig), family: 'ui-tars' }, { OPENAI_API_KEY: 'sk-env', GEMINI_API_KEY: 'AIza-gemini', OPENAI_BASE_URL: 'http://localhost:11434/v1' });
    expect(resolved).toMatchObject({ ok: true, settings: { model: { baseUrl: 'http://localhost:11434/v1', apiKey: 'sk-env', family: 'ui-tars' } } });
  });

  it('refuses an unknown gemini option, naming it', async () => {
    const resolved = await resolveRunSettings({ dataDir: dataDir({ model: { family: 'gemini', model: 'm', gemini: { environment: 'phone' } } }) }, {});
    expect(resolved).toMatchObject({ ok: false, message: expect.stringContaining('model.gemini.environment') });
  });

  it('masks GEMINI_API_KEY and GOOGLE_API_KEY like OPENAI_API_KEY', () => {
    expect(configuredSecrets({}, {}, { GEMINI_API_KEY: 'AIza-secret-one', GOOGLE_API_KEY: 'AIza-secret-two' })).toEqual(expect.arrayContaining(['AIza-secret-one', 'AIza-secret-two']));
  });
});
