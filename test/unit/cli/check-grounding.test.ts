/**
 * `mnemo check-model --grounding` end to end: the real CLI against the scripted OpenAI-compatible
 * server, whose model finds the button on each screenshot it is sent and answers in one of the
 * four coordinate spaces. The check must name each space, say the fix, and exit 0 only when the
 * model answers in the configured space. Without a display the screen is taken to be 1280x800.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { decodeDataUrl, imagesIn, startScriptedServer, type ScriptedServer } from '../../fixtures/openai-server';
import { groundingModel, type GroundingModelOptions } from '../../fixtures/grounding-model';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { COORDINATE_SPACES, type CoordinateSpace } from '../../../src/main/model/families/coordinates';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-check-grounding-'));
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** UI-Venus's resize bounds: 1280x800 is seen at about twice its size, so its pixels are not the image's. */
const SMART_RESIZE = { factor: 28, minPixels: 2_000_000, maxPixels: 4_800_000 };

async function model(options: GroundingModelOptions): Promise<ScriptedServer> {
  const server = await startScriptedServer({ replies: groundingModel(options) });
  servers.push(server);
  return server;
}

function dataDir(config: Record<string, unknown> = { model: { smartResize: SMART_RESIZE } }): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

const grounding = (server: ScriptedServer, family: string, extra: string[] = [], dir = dataDir()) =>
  runMnemo(['check-model', '--grounding', '--base-url', server.url, '--model', 'grounding-model', '--family', family, '--data-dir', dir, ...extra], { env: { OPENAI_API_KEY: '', DISPLAY: '' } });

describe('mnemo check-model --grounding', { timeout: 120_000 }, () => {
  it.each(COORDINATE_SPACES.map((space) => [space]))('names a tools model that answers in %s', async (space: CoordinateSpace) => {
    const meant: Array<{ x: number; y: number }> = [];
    const server = await model({ space, format: 'tools', ...(space === 'smart-resize' ? { smartResize: SMART_RESIZE } : {}), meant });
    const run = await grounding(server, 'tools', ['--json', '--targets', '4']);
    const report = JSON.parse(run.stdout);
    expect(Object.keys(report)).toEqual(['configured', 'detected', 'targets', 'hits', 'meanErrorPx', 'samples']);
    expect(Object.keys(report.hits)).toEqual(['image', 'smart-resize', 'relative-1000', 'relative-1']);
    expect(report).toMatchObject({ configured: 'image', detected: space, targets: 4 });
    expect(report.hits[space]).toBe(4);
    expect(report.meanErrorPx).toBeLessThan(2);
    expect(report.samples).toHaveLength(4);
    report.samples.forEach((sample: { target: { x: number; y: number; width: number; height: number }; answer: { x: number; y: number } }, index: number) => {
      // The answer, in pixels of the image sent, is where the model meant: the button's centre.
      expect(Math.abs(sample.answer.x - meant[index]!.x)).toBeLessThanOrEqual(1);
      expect(Math.abs(sample.answer.y - meant[index]!.y)).toBeLessThanOrEqual(1);
      expect(sample.answer.x).toBeGreaterThanOrEqual(sample.target.x);
      expect(sample.answer.x).toBeLessThanOrEqual(sample.target.x + sample.target.width);
    });
    // Images of the run's size (no display here: a 1280x800 screen sent at the default 1280 wide), each asked once.
    expect(server.requests).toHaveLength(4);
    for (const request of server.requests) {
      const images = imagesIn(request.body);
      expect(images).toHaveLength(1);
      expect(await decodeDataUrl(images[0]!)).toMatchObject({ width: 1280, height: 800 });
      expect(JSON.stringify(request.body.messages)).toMatch(/Click the button labelled/);
    }
    expect(run.code, run.stderr).toBe(space === 'image' ? 0 : 3);
  });

  it('says the fix in words, and passes once the model is set up in its space', async () => {
    const server = await model({ space: 'relative-1000', format: 'pyautogui' });
    const wrong = await grounding(server, 'pyautogui');
    expect(wrong.code).toBe(3);
    expect(wrong.stdout).toMatch(/^Grounding of grounding-model \(pyautogui\) on 5 targets, 1280x800 images of a 1280x800 screen:/);
    expect(wrong.stdout).toMatch(/configured\s+image\s+[0-5]\/5 hit/);
    expect(wrong.stdout).toMatch(/detected\s+relative-1000\s+5\/5 hit, mean error \d+ px/);
    expect(wrong.stdout).toContain('✗ the model answers in relative-1000 coordinates, not in image as configured');
    expect(wrong.stdout).toMatch(/fix: run with --coordinates relative-1000, or set in .*config\.json: "model": \{ "coordinates": "relative-1000" \}/);
    expect(wrong.stdout).toMatch(/note: no screen could be captured/);

    const flagged = await grounding(server, 'pyautogui', ['--coordinates', 'relative-1000']);
    expect(flagged.code, flagged.stdout).toBe(0);
    expect(flagged.stdout).toContain('✓ the model answers in relative-1000 coordinates, as configured');
    const configured = await grounding(server, 'pyautogui', ['--json'], dataDir({ model: { coordinates: 'relative-1000' } }));
    expect(configured.code).toBe(0);
    expect(JSON.parse(configured.stdout)).toMatchObject({ configured: 'relative-1000', detected: 'relative-1000', hits: { 'relative-1000': 5 } });
  });

  it('UI-TARS 1.5 answering in its smart resize passes as configured', async () => {
    const server = await model({ space: 'smart-resize', format: 'ui-tars' });
    const run = await grounding(server, 'ui-tars', ['--json', '--targets', '3'], dataDir({}));
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ configured: 'smart-resize', detected: 'smart-resize', hits: { 'smart-resize': 3 } });
  });

  it('a model that misses in its own space: exit 3, nothing to fix', async () => {
    // It answers the same corner whatever it is shown.
    const server = await startScriptedServer({ replies: () => ({ toolCalls: [{ name: 'computer', arguments: { actions: [{ type: 'click', x: 1, y: 1 }] } }] }) });
    servers.push(server);
    const run = await grounding(server, 'tools', ['--targets', '3']);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/✗ only 0 of 3 targets hit in image coordinates/);
  });

  it('provider errors as check-model: a rejected key exits 3 with the reason', async () => {
    const server = await startScriptedServer({ replies: () => ({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } }) });
    servers.push(server);
    const json = await grounding(server, 'tools', ['--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, status: 401, message: expect.stringMatching(/API key/) });
    expect(server.requests).toHaveLength(1);
    const words = await grounding(server, 'tools');
    expect(words.code).toBe(3);
    expect(words.stderr).toMatch(/^mnemo: ✗ grounding-model at http:\/\/127\.0\.0\.1:\d+\/v1 cannot be used: .*API key/);
  });

  it('--targets needs --grounding', async () => {
    const run = await runMnemo(['check-model', '--targets', '3', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--family', 'tools', '--data-dir', dataDir()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--targets applies to --grounding only/);
  });
});
