/**
 * The redaction policy is built from the settings as resolved: the keychain's key, every provider's
 * key in config.json, the memory model's key, the memory key and Redis credentials from the
 * environment; and the run service's policy follows the settings as they change.
 */
import { describe, expect, it } from 'vitest';
import { MASK } from '../../../src/shared/describe-action';
import { ServiceConfig } from '../../../src/main/service/service-config';
import { policySecrets } from '../../../src/main/settings/redaction';
import { runSettingsOf, type LoadedConfig } from '../../../src/main/settings/settings';

const config = (file: Record<string, unknown>): LoadedConfig => ({ dataDir: '/tmp/mnemo-redaction-unused', path: '/tmp/mnemo-redaction-unused/config.json', file });

describe('policySecrets', () => {
  it('covers the keychain key, every provider, the memory model, the memory key and Redis', () => {
    const file = {
      model: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', family: 'tools' },
      memory: { model: { apiKey: 'sk-memory-model-1234' } },
      providers: { other: { apiKey: 'sk-other-provider-5678' } },
    };
    const env = { MNEMO_MEMORY_KEY: 'memory-key-from-env-9', MNEMO_REDIS_URL: 'redis://:redis-pass-4242@h:6379' };
    const stored = ' sk-from-the-keychain-77\n';
    const resolved = runSettingsOf(config(file), {}, env, stored);
    expect(resolved.ok).toBe(true);
    const secrets = policySecrets({ file, env, storedApiKey: stored, settings: resolved.ok ? resolved.settings : null });
    expect(secrets).toEqual(expect.arrayContaining(['sk-from-the-keychain-77', 'sk-memory-model-1234', 'sk-other-provider-5678', 'memory-key-from-env-9', 'redis-pass-4242']));
  });
});

describe("the run service's policy", () => {
  it('follows a key that appears in the keychain, and settings saved after start', () => {
    let stored: string | undefined = undefined;
    const owner = new ServiceConfig({ config: config({}), env: {}, storedApiKey: () => stored });
    const policy = owner.redaction();
    expect(policy.text('key sk-keychain-later-0001')).toBe('key sk-keychain-later-0001');
    stored = 'sk-keychain-later-0001';
    expect(policy.text('key sk-keychain-later-0001')).toBe(`key ${MASK}`);

    owner.use(config({ model: { apiKey: 'sk-saved-in-settings-02' } }));
    expect(policy.text('key sk-saved-in-settings-02')).toBe(`key ${MASK}`);
    expect(owner.storeWriter.text('key sk-saved-in-settings-02')).toBe(`key ${MASK}`);
    // A run's own flags add theirs: another variable holding the key.
    const run = owner.redaction({ apiKeyEnv: 'RUN_KEY' });
    expect(run.text('sk-run-flag-key-0003')).toBe('sk-run-flag-key-0003');
    const withVariable = new ServiceConfig({ config: config({}), env: { RUN_KEY: 'sk-run-flag-key-0003' } });
    expect(withVariable.redaction({ apiKeyEnv: 'RUN_KEY' }).text('sk-run-flag-key-0003')).toBe(MASK);
  });
});
