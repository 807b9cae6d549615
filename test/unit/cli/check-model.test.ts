/**
 * `mnemo check-model`: the provider check alone, against the scripted OpenAI-compatible server:
 * the latency, whether the image was accepted, and each way a provider cannot be used.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { imagesIn, startScriptedServer, type ScriptedServer } from '../../fixtures/openai-server';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { anthropicImagesIn, startAnthropicServer, type AnthropicServer } from '../../fixtures/anthropic-server';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-check-model-'));
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function serve(replies: Parameters<typeof startScriptedServer>[0]['replies']): Promise<ScriptedServer> {
  const server = await startScriptedServer({ replies });
  servers.push(server);
  return server;
}

const check = (baseUrl: string, extra: string[] = []) =>
  runMnemo(['check-model', '--base-url', baseUrl, '--model', 'vision-model', '--family', 'tools', '--data-dir', mkdtempSync(join(scratch, 'data-')), ...extra], { env: { OPENAI_API_KEY: '' } });

describe('mnemo check-model', () => {
  it('reports the latency and that the model took the image (one request, with an image)', async () => {
    const server = await serve([{ text: 'OK' }]);
    const run = await check(server.url);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^✓ vision-model at http:\/\/127\.0\.0\.1:\d+\/v1 answered in \d+ ms and accepted the image; it said: "OK"/);
    expect(server.requests).toHaveLength(1);
    expect(imagesIn(server.requests[0]!.body)).toHaveLength(1);
  });

  it('--json prints the result as one object', async () => {
    const server = await serve([{ text: 'OK' }]);
    const run = await check(server.url, ['--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ ok: true, latencyMs: expect.any(Number), imageAccepted: true, reply: 'OK' });
  });

  it('a model that refuses images is reachable but said to be unfit, asked again without the image', async () => {
    const server = await serve([{ status: 400, body: { error: { message: 'This model does not support image_url content', type: 'invalid_request_error' } } }, { text: 'OK' }]);
    const run = await check(server.url, ['--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, imageAccepted: false, note: expect.stringMatching(/refused the image/) });
    expect(imagesIn(server.requests[1]!.body)).toHaveLength(0);
  });

  it('a base URL without /v1: exit 3 with the fix', async () => {
    const server = await serve([]);
    const run = await check(server.origin);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`the base URL has no /v1 — did you mean ${server.origin}/v1?`);
  });

  it('a rejected key: exit 3 naming the key', async () => {
    const server = await serve([{ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } }]);
    const run = await check(server.url, ['--json']);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, status: 401, message: expect.stringMatching(/check the API key/) });
  });

  it('openai-cua: one Responses call with the computer tool a run sends (GPT-5.5: the GA tool); the wrong one refused, with the fix', async () => {
    const server = await serve(() => ({ responseOutput: [{ type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'OK' }] }] }));
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const run = await runMnemo(['check-model', '--base-url', server.url, '--model', 'gpt-5.5', '--data-dir', dataDir], { env: { OPENAI_API_KEY: '' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^✓ gpt-5\.5 at .* answered in \d+ ms and accepted the image; it said: "OK"\n {2}computer tool: computer\n/);
    expect(server.requests[0]).toMatchObject({ path: '/v1/responses', body: { model: 'gpt-5.5', tools: [{ type: 'computer' }] } });
    const preview = await runMnemo(['check-model', '--base-url', server.url, '--model', 'gpt-5.5', '--computer-tool', 'computer_use_preview', '--data-dir', dataDir], { env: { OPENAI_API_KEY: '' } });
    expect(preview.code).toBe(3);
    expect(preview.stderr).toMatch(/try the computer tool: --computer-tool computer\b/);
  });

  it('missing model settings: exit 2 naming what is missing', async () => {
    const run = await runMnemo(['check-model', '--data-dir', mkdtempSync(join(scratch, 'data-'))], { env: { OPENAI_BASE_URL: '', MNEMO_MODEL: '' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/missing .*--model/);
  });
});

describe('mnemo check-model --family anthropic', () => {
  const anthropicServers: AnthropicServer[] = [];
  afterEach(async () => {
    await Promise.all(anthropicServers.splice(0).map((server) => server.close()));
  });
  async function claude(replies: Parameters<typeof startAnthropicServer>[0]['replies']): Promise<AnthropicServer> {
    const server = await startAnthropicServer({ replies });
    anthropicServers.push(server);
    return server;
  }
  const checkClaude = (baseUrl: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) =>
    runMnemo(['check-model', '--base-url', baseUrl, '--model', 'claude-sonnet-4-6', '--family', 'anthropic', '--data-dir', mkdtempSync(join(scratch, 'data-')), ...extra], {
      env: { ANTHROPIC_API_KEY: 'sk-ant-check-5678', ANTHROPIC_BASE_URL: '', ...env },
    });

  it('Claude 5.5: asked with the computer toolset a run sends; the older tool refused, with the fix', async () => {
    const server = await claude(() => ({ content: [{ type: 'text', text: 'OK' }] }));
    const run = await runMnemo(['check-model', '--base-url', server.url, '--model', 'claude-sonnet-5-5', '--data-dir', mkdtempSync(join(scratch, 'data-'))], { env: { ANTHROPIC_API_KEY: 'sk-ant-check-5678', ANTHROPIC_BASE_URL: '' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\n {2}computer tool: computer_toolset_20260801\n/);
    expect(server.requests[0]?.body.tools).toEqual([{ type: 'computer_toolset_20260801' }]);
    expect(server.requests[0]?.headers['anthropic-beta']).toBeUndefined();

    const older = await runMnemo(['check-model', '--base-url', server.url, '--model', 'claude-sonnet-5-5', '--computer-tool', 'computer_20251124', '--json', '--data-dir', mkdtempSync(join(scratch, 'data-'))], {
      env: { ANTHROPIC_API_KEY: 'sk-ant-check-5678', ANTHROPIC_BASE_URL: '' },
    });
    expect(older.code).toBe(3);
    const result = JSON.parse(older.stdout) as { ok: boolean; status: number; message: string; tool: string };
    expect(result).toMatchObject({ ok: false, status: 400, tool: 'computer_20251124' });
    expect(result.message).toMatch(/the model refused the computer_20251124 tool; try the computer_toolset_20260801 tool: --computer-tool computer_toolset_20260801/);
  });

  it('sends one small message with an image through the SDK, with ANTHROPIC_API_KEY', async () => {
    const server = await claude([{ content: [{ type: 'text', text: 'OK' }] }]);
    const run = await checkClaude(server.url);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^✓ claude-sonnet-4-6 at http:\/\/127\.0\.0\.1:\d+ answered in \d+ ms and accepted the image; it said: "OK"/);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.path).toBe('/v1/messages');
    expect(anthropicImagesIn(server.requests[0]?.body)).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]?.headers)).toContain('sk-ant-check-5678');
  });

  it('a rejected key: exit 3 naming the key', async () => {
    const server = await claude([{ status: 401, message: 'invalid x-api-key' }]);
    const refused = await checkClaude(server.url, ['--json']);
    expect(refused.code).toBe(3);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, status: 401, message: expect.stringMatching(/check the API key/) });
  });

  it('an unknown model: exit 3 naming the model', async () => {
    const server = await claude([{ status: 404, message: 'model: claude-sonnet-4-6' }]);
    const unknown = await checkClaude(server.url, ['--json']);
    expect(unknown.code).toBe(3);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ ok: false, status: 404, message: expect.stringContaining('the model "claude-sonnet-4-6" was not found') });
  });

  it('a base URL ending in /v1: exit 3 with the fix', async () => {
    const server = await claude([]);
    const withV1 = await checkClaude(`${server.url}/v1`);
    expect(withV1.code).toBe(3);
    expect(withV1.stderr).toContain(`the base URL is the API root, without /v1 — did you mean ${server.url}?`);
  });
});
