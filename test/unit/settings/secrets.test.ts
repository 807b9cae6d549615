/** The secrets of the settings, found wherever they are configured. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configuredSecrets } from '../../../src/main/settings/secrets';
import { secretsOfDataDir } from '../../../src/main/settings/redaction';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-secrets-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('configuredSecrets', () => {
  it('finds the keys, credential headers, URL passwords and secret-named fields', () => {
    const file = {
      model: { apiKey: 'sk-file-key-0123456789', baseUrl: 'https://user:url-pass-9876@proxy.example/v1', headers: { Authorization: 'Bearer hdr-token-55555', 'X-Title': 'Mnemo app' } },
      memory: { model: { apiKey: 'sk-memory-key-abcdef' }, redisUrl: 'redis://:redis%2Fpass-42@redis.example:6379', encryptionKey: 'enc-key-XYZ-000111' },
      agent: { maxSteps: 10 },
    };
    const secrets = configuredSecrets(file, { apiKeyEnv: 'MY_KEY' }, { MY_KEY: 'sk-env-named-777777', OPENAI_API_KEY: 'sk-env-default-8888', OPENAI_BASE_URL: 'http://u2:env-url-pass@h/v1' });
    expect(secrets).toEqual(
      expect.arrayContaining([
        'sk-file-key-0123456789',
        'url-pass-9876',
        'Bearer hdr-token-55555',
        'hdr-token-55555',
        'sk-memory-key-abcdef',
        'redis%2Fpass-42',
        'redis/pass-42',
        'enc-key-XYZ-000111',
        'sk-env-named-777777',
        'sk-env-default-8888',
        'env-url-pass',
      ]),
    );
    expect(secrets).not.toContain('Mnemo app');
  });

  it("masks every family's key variable, ANTHROPIC_API_KEY among them", () => {
    expect(configuredSecrets({}, {}, { ANTHROPIC_API_KEY: 'sk-ant-api03-secret-1234' })).toEqual(['sk-ant-api03-secret-1234']);
  });

  it('reads a config file that does not validate, or none', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    expect(await secretsOfDataDir(dataDir, undefined, { OPENAI_API_KEY: 'sk-only-env-123456' })).toEqual(['sk-only-env-123456']);
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ model: { apiKey: 'sk-in-a-bad-config-1', family: 'not a family' } }));
    expect(await secretsOfDataDir(dataDir, undefined, {})).toEqual(['sk-in-a-bad-config-1']);
  });
});
