/**
 * The isolated operator with a scripted host process (test/fixtures/fake-operator-host.mjs): real
 * child processes, real IPC, real signals. The "display" is a TCP listener on 127.0.0.1 (DISPLAY
 * "127.0.0.1:N" is port 6000+N): listening means the X server is there, a closed port that it went away.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Frame } from '../../../src/shared/frame';
import { createIsolatedOperator, type IsolatedOperator } from '../../../src/main/operator/isolated-operator';
import { defaultHostLaunch } from '../../../src/main/operator/host-process';

const FAKE_HOST = fileURLToPath(new URL('../../fixtures/fake-operator-host.mjs', import.meta.url));
const launch = { command: process.execPath, args: [FAKE_HOST] };
const FRAME: Frame = { displayId: 'fake', bounds: { x: 0, y: 0, width: 4, height: 2 }, scaleFactor: 1, captured: { width: 4, height: 2 }, image: { width: 4, height: 2, format: 'jpeg' } };

let listening: Server;
/** A display whose "server" listens. */
let present: string;
/** A display nothing listens on. */
let gone: string;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-isolated-'));
const operators: IsolatedOperator[] = [];

async function listen(): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
const displayOf = (server: Server) => `127.0.0.1:${(server.address() as { port: number }).port - 6000}`;

beforeAll(async () => {
  listening = await listen();
  present = displayOf(listening);
  const closed = await listen();
  gone = displayOf(closed);
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});
afterEach(async () => {
  for (const operator of operators.splice(0)) await operator.close();
});
afterAll(async () => {
  await new Promise<void>((resolve) => listening.close(() => resolve()));
  rmSync(scratch, { recursive: true, force: true });
});

async function operatorWith(env: NodeJS.ProcessEnv): Promise<IsolatedOperator> {
  const loaded = await createIsolatedOperator({ launch }, { ...process.env, ...env });
  if (!loaded.ok) throw new Error(loaded.message);
  operators.push(loaded.operator);
  return loaded.operator;
}

function counter(): { env: { FAKE_HOST_COUNTER: string }; starts: () => number } {
  const path = join(mkdtempSync(join(scratch, 'starts-')), 'count');
  return { env: { FAKE_HOST_COUNTER: path }, starts: () => Number(readFileSync(path, 'utf8')) };
}

describe('calls through the host', () => {
  it('brings the observation back with its image as a Buffer, and the options there', async () => {
    const operator = await operatorWith({ DISPLAY: present });
    const observed = await operator.observe({ maxWidth: 640 });
    if (!observed.ok) throw new Error(observed.message);
    expect(Buffer.isBuffer(observed.observation.image)).toBe(true);
    expect([...observed.observation.image]).toEqual([0xff, 0xd8, 1]);
    expect(observed.observation.frame).toEqual(FRAME);
    expect(observed.observation).toMatchObject({ options: { maxWidth: 640 } });
    expect(await operator.displays()).toMatchObject({ ok: true, displays: [{ id: 'fake', primary: true }] });
    expect(await operator.execute({ type: 'mouse_move', x: 1, y: 1 }, FRAME)).toMatchObject({ ok: true, type: 'mouse_move' });
  });

  it('forwards cancellation to a running action', async () => {
    const operator = await operatorWith({ DISPLAY: present });
    const stop = new AbortController();
    const running = operator.execute({ type: 'wait', ms: 60_000 }, FRAME, stop.signal);
    stop.abort();
    expect(await running).toMatchObject({ ok: false, error: { kind: 'aborted' } });
  });

  it('turns a throw in the host into a failure value', async () => {
    const operator = await operatorWith({ DISPLAY: present });
    expect(await operator.pointerPosition()).toEqual({ ok: false, message: 'scripted failure' });
  });

  it('refuses calls once closed', async () => {
    const operator = await operatorWith({ DISPLAY: present });
    const pid = operator.hostPid;
    await operator.close();
    expect(pid).toBeGreaterThan(0);
    expect(operator.hostPid).toBeUndefined();
    expect(await operator.observe()).toMatchObject({ ok: false, message: 'the operator is closed' });
  });
});

describe('starting the host', () => {
  it('passes on why the display cannot be opened', async () => {
    const loaded = await createIsolatedOperator({ launch }, { ...process.env, DISPLAY: present, FAKE_HOST_START: 'cannot-open' });
    expect(loaded).toEqual({ ok: false, message: 'No display: scripted refusal' });
  });

  it('starts again a host killed by a signal while the display is there (a reset)', async () => {
    const starts = counter();
    const operator = await operatorWith({ DISPLAY: present, FAKE_HOST_CRASHES: '2', ...starts.env });
    expect(starts.starts()).toBe(3);
    const observed = await operator.observe();
    expect(observed.ok && observed.observation.image[2]).toBe(3);
  });

  it('gives up on a host that keeps crashing, naming the display and the signal', async () => {
    const loaded = await createIsolatedOperator({ launch }, { ...process.env, DISPLAY: present, FAKE_HOST_CRASHES: '100', ...counter().env });
    expect(loaded).toMatchObject({ ok: false, message: expect.stringMatching(new RegExp(`DISPLAY=${present.replace(/\./g, '\\.')} answers, but opening it failed 5 times .*SIGSEGV`)) });
  });

  it('says the display is not there when the host dies and nothing listens', async () => {
    const loaded = await createIsolatedOperator({ launch }, { ...process.env, DISPLAY: gone, FAKE_HOST_CRASHES: '1', ...counter().env });
    expect(loaded).toMatchObject({ ok: false, message: expect.stringMatching(/^No display: cannot connect to the X server at DISPLAY=127\.0\.0\.1:\d+/) });
  });
});

describe('a host that dies during a call', () => {
  it('repeats an observation on a new host when the display is still there', async () => {
    const starts = counter();
    const operator = await operatorWith({ DISPLAY: present, ...starts.env });
    const first = operator.hostPid;
    process.kill(first as number, 'SIGSEGV');
    const observed = await operator.observe();
    expect(observed.ok).toBe(true);
    expect(operator.hostPid).not.toBe(first);
    expect(starts.starts()).toBe(2);
  });

  it('never repeats an action: it fails, naming the signal, and the next one gets a new host', async () => {
    const operator = await operatorWith({ DISPLAY: present });
    const crashed = await operator.execute({ type: 'hotkey', keys: ['ctrl', 'a'] }, FRAME);
    expect(crashed).toMatchObject({ ok: false, type: 'hotkey', error: { kind: 'input_failed', message: expect.stringMatching(/killed by SIGSEGV/) } });
    expect(await operator.execute({ type: 'mouse_move', x: 1, y: 1 }, FRAME)).toMatchObject({ ok: true });
  });

  it('reports a lost display as no_display, naming DISPLAY and what to do', async () => {
    const operator = await operatorWith({ DISPLAY: present });
    const lost = await operator.execute({ type: 'key_down', keys: ['shift'] }, FRAME);
    expect(lost).toMatchObject({ ok: false, error: { kind: 'no_display', message: expect.stringMatching(/Lost the display: the X server at DISPLAY=127\.0\.0\.1:\d+ went away .*Start it again/) } });
  });

  it('reads Xlib’s last words as a lost display', async () => {
    const operator = await operatorWith({ DISPLAY: present });
    expect(await operator.execute({ type: 'key_up', keys: ['shift'] }, FRAME)).toMatchObject({ ok: false, error: { kind: 'no_display' } });
  });

  it('after a loss, fails at once while the display is gone, and starts a host again once it is back', async () => {
    const server = await listen();
    const display = displayOf(server);
    const operator = await operatorWith({ DISPLAY: display });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await operator.execute({ type: 'key_down', keys: ['shift'] }, FRAME);
    expect(await operator.observe()).toMatchObject({ ok: false, kind: 'no_display', message: expect.stringMatching(/^Lost the display/) });
    expect(operator.hostPid).toBeUndefined();
    const back = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => back.listen(Number(display.split(':')[1]) + 6000, '127.0.0.1', resolve));
    try {
      expect((await operator.observe()).ok).toBe(true);
    } finally {
      await new Promise<void>((resolve) => back.close(() => resolve()));
    }
  });
});

describe('where the host is', () => {
  it('from the sources: its TypeScript, through bin/run-ts.js', () => {
    const launch = defaultHostLaunch(pathToFileURL('/repo/src/main/operator/host-process.ts').href);
    expect(launch).toEqual({ command: process.execPath, args: ['/repo/bin/run-ts.js', '/repo/src/main/operator/operator-host.ts'] });
  });
  it('from the build: operator-host.js beside the main bundle, even seen from a chunk, run by Electron as Node', () => {
    const out = join(mkdtempSync(join(scratch, 'out-')), 'main');
    mkdirSync(join(out, 'chunks'), { recursive: true });
    writeFileSync(join(out, 'operator-host.js'), '');
    const expected = { command: process.execPath, args: [join(out, 'operator-host.js')], env: { ELECTRON_RUN_AS_NODE: '1' } };
    expect(defaultHostLaunch(pathToFileURL(join(out, 'index.js')).href)).toEqual(expected);
    expect(defaultHostLaunch(pathToFileURL(join(out, 'chunks', 'isolated-operator-x1.js')).href)).toEqual(expected);
  });
});
