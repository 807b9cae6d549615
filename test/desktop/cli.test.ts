/**
 * The `mnemo displays`, `mnemo screenshot` and `mnemo act` commands, run as separate processes on
 * the real display, with their effects checked on the instrumented page and on disk.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runX } from '../fixtures/desktop/display';
import { screenshotOnFailure, useKioskPage } from '../fixtures/desktop/kiosk-page';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';

const MNEMO = resolve('bin/mnemo.js');
const page = useKioskPage();
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-cli-'));

function mnemo(args: string[], env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: page.display }) {
  const run = spawnSync(process.execPath, [MNEMO, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

screenshotOnFailure(page, 'cli');
beforeEach(async () => {
  // Away from the fail-safe corner, whatever an earlier test left.
  await runX(page.display, 'xdotool', ['mousemove', '640', '600']);
  await page.kiosk.focus();
  await page.server.reset();
  page.server.clear();
});

describe('mnemo displays', () => {
  it('prints the displays as JSON', () => {
    const run = mnemo(['displays', '--json']);
    expect(run.code).toBe(0);
    const displays = JSON.parse(run.stdout);
    expect(displays).toEqual([
      { index: 0, id: expect.any(String), name: expect.any(String), bounds: { x: 0, y: 0, width: 1280, height: 800 }, scaleFactor: 1, primary: true },
    ]);
  });
});

describe('mnemo screenshot', () => {
  it('writes the model-ready image and prints its frame', async () => {
    const file = join(scratch, 'shot.jpg');
    const run = mnemo(['screenshot', '--max-width', '640', '-o', file]);
    expect(run.code, run.stderr).toBe(0);
    const frame = JSON.parse(run.stdout);
    expect(frame).toMatchObject({ bounds: { x: 0, y: 0, width: 1280, height: 800 }, captured: { width: 1280, height: 800 }, image: { width: 640, height: 400, format: 'jpeg' } });
    const meta = await sharp(readFileSync(file)).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 640, height: 400 });
  });

  it('captures what is on screen, in the right colours', async () => {
    const file = join(scratch, 'shot.png');
    const run = mnemo(['screenshot', '--format', 'png', '--max-height', '800', '-o', file]);
    expect(run.code, run.stderr).toBe(0);
    const { data, info } = await sharp(readFileSync(file)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(info).toMatchObject({ width: 1280, height: 800 });
    // btn-center is painted #f4e3c0; a pixel inside its edge, away from the label, must read
    // as that colour in RGB order (the raw grab is BGRA).
    const expected = [0xf4, 0xe3, 0xc0];
    const inside = { x: TARGET_LAYOUT['btn-center'].x + 6, y: TARGET_LAYOUT['btn-center'].y + 6 };
    const offset = (inside.y * info.width + inside.x) * 3;
    const pixel = [data[offset], data[offset + 1], data[offset + 2]];
    for (let i = 0; i < 3; i++) expect(Math.abs((pixel[i] as number) - (expected[i] as number))).toBeLessThanOrEqual(2);
  });

  it('rejects bad flags with exit 2', () => {
    const run = mnemo(['screenshot', '--format', 'gif', '-o', join(scratch, 'x.gif')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/gif/);
  });
});

describe('mnemo act', () => {
  it('clicks in screen coordinates and prints the result', async () => {
    const target = centreOf(TARGET_LAYOUT['btn-center']);
    const run = mnemo(['act', '--json', JSON.stringify({ type: 'click', ...target })]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, type: 'click', points: [target] });
    await page.server.waitForType('click', (e) => e.target === 'btn-center' && e.clientX === target.x && e.clientY === target.y);
  });

  it('maps --image coordinates onto the display', async () => {
    // btn-tr's centre (1220, 30) in a 640x400 image is (610, 15).
    const run = mnemo(['act', '--image', '640x400', '--json', '{"type":"click","x":610,"y":15}']);
    expect(run.code, run.stderr).toBe(0);
    await page.server.waitForType('click', (e) => e.target === 'btn-tr');
  });

  it('types into the field', async () => {
    await page.server.focus('field');
    const text = 'CLI: ¡Hola! #1 → ok';
    const run = mnemo(['act', '--json', JSON.stringify({ type: 'type', text })]);
    expect(run.code, run.stderr).toBe(0);
    await expect.poll(async () => (await page.server.state()).field.value, { timeout: 30_000 }).toBe(text);
  });

  it('keeps a key held by key_down after the command exits, until key_up', async () => {
    expect(mnemo(['act', '--json', '{"type":"key_down","keys":["shift"]}']).code).toBe(0);
    expect(mnemo(['act', '--json', '{"type":"click","x":300,"y":200}']).code).toBe(0);
    expect(await page.server.waitForType('click', (e) => e.clientX === 300)).toMatchObject({ shiftKey: true });
    expect(mnemo(['act', '--json', '{"type":"key_up","keys":["shift"]}']).code).toBe(0);
    expect(mnemo(['act', '--json', '{"type":"click","x":310,"y":200}']).code).toBe(0);
    expect(await page.server.waitForType('click', (e) => e.clientX === 310)).toMatchObject({ shiftKey: false });
  });

  it('keeps a button held by mouse_down after the command exits, until mouse_up', async () => {
    expect(mnemo(['act', '--json', '{"type":"mouse_down","x":200,"y":100}']).code).toBe(0);
    expect(mnemo(['act', '--json', '{"type":"mouse_move","x":400,"y":300}']).code).toBe(0);
    const move = await page.server.waitForType('mousemove', (e) => e.clientX === 400 && e.clientY === 300);
    expect(move.buttons).toBe(1);
    expect(mnemo(['act', '--json', '{"type":"mouse_up","x":400,"y":300}']).code).toBe(0);
    await page.server.waitForType('mouseup', (e) => e.clientX === 400 && e.button === 0);
  });

  it('an error result exits 1 and clicks nothing', async () => {
    const run = mnemo(['act', '--json', '{"type":"click","x":5000,"y":10}']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, error: { kind: 'out_of_bounds', message: expect.stringMatching(/5000/) } });
    await page.server.settle(200);
    expect(page.server.events().filter((e) => e.type === 'mousedown')).toEqual([]);
  });

  it('refuses every action while the mouse is in the fail-safe corner (exit 1, user_abort)', async () => {
    expect(mnemo(['act', '--json', '{"type":"mouse_move","x":0,"y":0}']).code).toBe(0);
    const run = mnemo(['act', '--json', '{"type":"click","x":300,"y":200}']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, error: { kind: 'user_abort' } });
    await page.server.settle(200);
    expect(page.server.events().filter((e) => e.type === 'click')).toEqual([]);
  });

  const invalid: Array<[string[], RegExp]> = [
    [['act', '--json', '{"type":"click",'], /not valid JSON/],
    [['act', '--json', '{"type":"hotkey","keys":["ctrl","hyperspace"]}'], /unknown key "hyperspace"/],
    [['act', '--json', '{"type":"click","x":10}'], /y: missing required field/],
    [['act', '--json', '{"type":"teleport"}'], /unknown action type "teleport"/],
    [['act', '--json', '{"type":"click","x":1,"y":1}', '--image', '0x10'], /--image/],
    [['act'], /--json/],
  ];
  for (const [args, message] of invalid) {
    it(`invalid input exits 2: ${args.slice(1).join(' ')}`, async () => {
      const run = mnemo(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('');
    });
  }
});

describe('without a display', () => {
  for (const [name, env] of [
    ['DISPLAY unset', { DISPLAY: '' }],
    ['DISPLAY pointing nowhere', { DISPLAY: ':87' }],
  ] as const) {
    for (const args of [['displays', '--json'], ['screenshot', '-o', join(scratch, 'none.png')], ['act', '--json', '{"type":"click","x":1,"y":1}']]) {
      it(`${args[0]} with ${name}: a clear message, a non-zero exit, no crash`, () => {
        const run = mnemo(args, { ...process.env, ...env });
        expect(run.signal).toBeNull();
        expect(run.code).not.toBe(0);
        expect(run.code).toBeLessThan(128);
        expect(run.stderr).toMatch(/DISPLAY/);
      });
    }
  }
});
