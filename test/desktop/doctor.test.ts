/**
 * `mnemo doctor` on the test display: every check there, capture and input really tried; without
 * DISPLAY a failed display check with its fix, exit 1, no crash; a Wayland session warned about;
 * a provider URL without /v1 named with the fix.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDisplay, runX } from '../fixtures/desktop/display';
import { runMnemo } from '../fixtures/mnemo-cli';
import { startScriptedServer, type ScriptedServer } from '../fixtures/openai-server';

interface Check {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix: string;
}

let display: string;
let model: ScriptedServer;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-doctor-'));

beforeAll(async () => {
  display = requireDisplay();
  model = await startScriptedServer({ replies: () => ({ text: 'OK' }) });
  await runX(display, 'xdotool', ['mousemove', '640', '400']);
});
afterAll(async () => {
  await model?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function doctor(env: NodeJS.ProcessEnv, extra: string[] = []) {
  const run = await runMnemo(['doctor', '--json', '--data-dir', mkdtempSync(join(scratch, 'data-')), ...extra], { env: { OPENAI_API_KEY: '', XDG_SESSION_TYPE: 'x11', ...env } });
  const checks = JSON.parse(run.stdout) as Check[];
  return { ...run, checks, byName: new Map(checks.map((check) => [check.check, check])) };
}

describe('mnemo doctor', () => {
  it('on the test display: every check, capture and input work, the provider answers with an image', async () => {
    const run = await doctor({ DISPLAY: display }, ['--base-url', model.url, '--model', 'vision', '--family', 'tools']);
    expect(run.signal).toBeNull();
    expect(run.checks.map((check) => check.check)).toEqual(['display', 'capture', 'input', 'fallback capture', 'clipboard', 'accessibility', 'electron', 'data directory', 'key store', 'provider']);
    expect(run.byName.get('display')).toMatchObject({ status: 'ok', detail: `DISPLAY=${display} answers` });
    expect(run.byName.get('capture')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/^grabbed 1280x800 in \d+ ms/) });
    expect(run.byName.get('input')).toMatchObject({ status: 'ok' });
    expect(run.byName.get('provider')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/answered in \d+ ms and accepted an image/) });
    // A fix goes with every problem, and only with problems.
    for (const check of run.checks) expect(check.fix === '', check.check).toBe(check.status === 'ok');
    // The pointer is back where it was.
    expect(await runX(display, 'xdotool', ['getmouselocation'])).toMatch(/^x:640 y:400 /);
    expect(run.code).toBe(run.checks.some((check) => check.status === 'fail') ? 1 : 0);
  });

  it('without DISPLAY: the display fails with its fix, exit 1, no crash', async () => {
    const run = await doctor({ DISPLAY: '' });
    expect(run.signal).toBeNull();
    expect(run.code).toBe(1);
    expect(run.byName.get('display')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/DISPLAY is not set/), fix: expect.stringMatching(/Xvfb/) });
  });

  it('in a Wayland session: says that only XWayland windows can be driven and how to log in to X11', async () => {
    const run = await doctor({ DISPLAY: display, XDG_SESSION_TYPE: 'wayland' });
    expect(run.byName.get('wayland')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/only windows running under XWayland/), fix: expect.stringMatching(/X11/) });
  });

  it('a provider URL without /v1: the hint', async () => {
    const run = await doctor({ DISPLAY: display }, ['--base-url', model.origin, '--model', 'vision', '--family', 'tools']);
    expect(run.byName.get('provider')).toMatchObject({ status: 'fail', detail: expect.stringContaining(`did you mean ${model.origin}/v1?`) });
    expect(run.code).toBe(1);
  });
});

describe('mnemo doctor on Wayland, private desktops', () => {
  it('says that private desktops work there, and how', async () => {
    const run = await doctor({ DISPLAY: display, XDG_SESSION_TYPE: 'wayland', WAYLAND_DISPLAY: 'wayland-0' });
    expect(run.byName.get('private desktops')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/private desktops work here, on Wayland too.*mnemo run --desktop private --app/) });
    expect(run.byName.get('wayland')?.fix).toMatch(/private desktop/);
  });

  it('without Xvfb on PATH: the same, with how to install it', async () => {
    const run = await doctor({ DISPLAY: display, XDG_SESSION_TYPE: 'wayland', PATH: '/nonexistent' });
    expect(run.byName.get('private desktops')).toMatchObject({ status: 'warn', fix: 'apt install xvfb openbox' });
  });
});
