/**
 * `mnemo check-model --family gemini`: the real CLI, the official SDK, the scripted Gemini server.
 * One generateContent with the image and the computer-use tool; the latency, or the exact error
 * (a rejected key, an unknown model) with exit 3.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { geminiImagesIn, startGeminiServer, type GeminiServer, type GeminiServerOptions } from '../../fixtures/gemini-server';

const MODEL = 'gemini-2.5-computer-use-preview-10-2025';
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-check-gemini-'));
const servers: GeminiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function serve(options: GeminiServerOptions): Promise<GeminiServer> {
  const server = await startGeminiServer(options);
  servers.push(server);
  return server;
}

const check = (server: GeminiServer, env: NodeJS.ProcessEnv, extra: string[] = []) =>
  runMnemo(['check-model', '--family', 'gemini', '--base-url', server.url, '--model', MODEL, '--data-dir', mkdtempSync(join(scratch, 'data-')), ...extra], {
    env: { GEMINI_API_KEY: '', GOOGLE_API_KEY: '', OPENAI_API_KEY: '', ...env },
  });

describe('mnemo check-model --family gemini', () => {
  it('sends one request with the image and the key from GEMINI_API_KEY, and reports the latency', async () => {
    const server = await serve({ replies: [{ text: 'OK' }], apiKey: 'AIza-check', models: [MODEL] });
    const run = await check(server, { GEMINI_API_KEY: 'AIza-check' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^✓ ${MODEL} at http://127\\.0\\.0\\.1:\\d+ answered in \\d+ ms and accepted the image; it said: "OK"`));
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body.tools[0]).toEqual({ computerUse: { environment: 'ENVIRONMENT_BROWSER', excludedPredefinedFunctions: ['open_web_browser', 'search', 'navigate'] } });
    expect(geminiImagesIn(server.requests[0]?.body)).toHaveLength(1);
  });

  it('--json, with the key from GOOGLE_API_KEY', async () => {
    const server = await serve({ replies: [{ calls: [{ name: 'wait_5_seconds' }] }], apiKey: 'AIza-google' });
    const run = await check(server, { GOOGLE_API_KEY: 'AIza-google' }, ['--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ ok: true, latencyMs: expect.any(Number), imageAccepted: true, reply: '(a call of wait_5_seconds)' });
  });

  it('a rejected key: exit 3 saying so, the key never printed', async () => {
    const server = await serve({ replies: [{ text: 'OK' }], apiKey: 'AIza-right' });
    const run = await check(server, { GEMINI_API_KEY: 'AIza-wrong-key-123' }, ['--json']);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/API key not valid.*check the API key/) });
    expect(run.stdout + run.stderr).not.toContain('AIza-wrong-key-123');
  });

  it('an unknown model: exit 3 naming it', async () => {
    const server = await serve({ replies: [{ text: 'OK' }], models: ['gemini-2.5-flash'] });
    const run = await check(server, { GEMINI_API_KEY: 'k' });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`models/${MODEL} is not found`);
  });
});
