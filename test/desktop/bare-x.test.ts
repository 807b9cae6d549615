/**
 * The `mnemo` commands on a bare X server: a private Xvfb with no window manager and no
 * `-noreset`, as in most containers and CI images. Such a server resets whenever its last client
 * leaves and kills a client connecting in that moment, which used to make nut-js segfault in
 * about one command out of three. Each command runs 10 times in a row (a one-in-three failure
 * slips through ten runs 2% of the time), each a new process (every exit is a last client
 * leaving); none may die by a signal. Then the X server is killed during a
 * run: the run ends with a message naming the display and an ordinary exit code, and its session
 * reads back.
 *
 * Input effects cannot be checked where they land here: a bare server forgets everything when the
 * command that acted exits. cli.test.ts checks them on the shared display with a window manager.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frame } from '../../src/shared/frame';
import { createIsolatedOperator } from '../../src/main/operator/isolated-operator';
import { startBareXvfb, writeXAuthority, type BareXvfb } from '../fixtures/desktop/bare-xvfb';
import { jsonLines, runMnemo, type CliRun } from '../fixtures/mnemo-cli';
import { startMemoryModelServer, startScriptedServer, type ScriptedReply, type ScriptedServer } from '../fixtures/openai-server';

const RUNS = 10;
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-bare-x-'));

let memoryModel: ScriptedServer;

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
});
afterAll(async () => {
  await memoryModel?.close();
  rmSync(scratch, { recursive: true, force: true });
});

function newDataDir(): string {
  const dir = mkdtempSync(join(scratch, 'data-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ memory: { model: { baseUrl: memoryModel.url } } }));
  return dir;
}

function toolCall(actions: unknown[]): ScriptedReply {
  return { toolCalls: [{ name: 'computer', arguments: { thought: 'next', actions } }] };
}

/** What a failed expectation should show: how the process ended and what it said. */
function ending(run: CliRun): string {
  return `exit ${run.code}, signal ${run.signal}\nstderr: ${run.stderr.trim()}`;
}

/** Runs the command RUNS times in a row; each run must end normally and pass `check`. */
async function repeatedly(args: (i: number) => string[], env: NodeJS.ProcessEnv, check: (run: CliRun, i: number) => Promise<void> | void): Promise<void> {
  for (let i = 0; i < RUNS; i++) {
    const run = await runMnemo(args(i), { env });
    expect(run.signal, `run ${i + 1}: ${ending(run)}`).toBeNull();
    expect(run.code, `run ${i + 1}: ${ending(run)}`).toBe(0);
    await check(run, i);
  }
}

describe('on a bare Xvfb, 10 runs of each command in a row', () => {
  let model: ScriptedServer;
  let dataDir: string;
  const task = 'move the mouse, then finish';
  const started: BareXvfb[] = [];

  /** A bare X server of the test's own: the commands run side by side, each with its server. */
  async function bareDisplay(): Promise<NodeJS.ProcessEnv> {
    const xvfb = await startBareXvfb();
    started.push(xvfb);
    return { DISPLAY: xvfb.display, OPENAI_API_KEY: '' };
  }

  beforeAll(async () => {
    model = await startScriptedServer({ replies: [] });
    dataDir = newDataDir();
  });
  afterAll(async () => {
    await model?.close();
    await Promise.all(started.map((xvfb) => xvfb.stop()));
  });

  it.concurrent('mnemo displays', { timeout: 900_000 }, async () => {
    await repeatedly(() => ['displays', '--json'], await bareDisplay(), (run) => {
      expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ bounds: { x: 0, y: 0, width: 1280, height: 800 }, primary: true })]);
    });
  });

  it.concurrent('mnemo screenshot', { timeout: 900_000 }, async () => {
    await repeatedly((i) => ['screenshot', '-o', join(scratch, `shot-${i}.png`), '--max-width', '640'], await bareDisplay(), async (run, i) => {
      const frame = JSON.parse(run.stdout) as Frame;
      expect(frame).toMatchObject({ captured: { width: 1280, height: 800 }, image: { width: 640, height: 400, format: 'png' } });
      const image = await sharp(join(scratch, `shot-${i}.png`)).metadata();
      expect({ width: image.width, height: image.height, format: image.format }).toEqual({ width: 640, height: 400, format: 'png' });
    });
  });

  it.concurrent('mnemo act', { timeout: 900_000 }, async () => {
    const point = (i: number) => ({ x: 100 + i * 20, y: 300 + i * 10 });
    await repeatedly((i) => ['act', '--json', JSON.stringify({ type: 'mouse_move', ...point(i) })], await bareDisplay(), (run, i) => {
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, type: 'mouse_move', points: [point(i)] });
    });
  });

  it.concurrent('mnemo run', { timeout: 900_000 }, async () => {
    await repeatedly(
      () => {
        model.push(toolCall([{ type: 'mouse_move', x: 640, y: 400 }]), toolCall([{ type: 'finished', summary: 'done' }]));
        return ['run', task, '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive'];
      },
      await bareDisplay(),
      (run) => {
        const finished = jsonLines(run.stdout).find((event) => event.type === 'run-finished');
        expect(finished, run.stdout).toMatchObject({ status: 'finished', steps: 2 });
      },
    );
  });

  // After the runs above: it replays one of them.
  it('mnemo replay', { timeout: 900_000 }, async () => {
    const sessions = await runMnemo(['sessions', '--json', '--data-dir', dataDir]);
    const recorded = (JSON.parse(sessions.stdout) as Array<{ id: string; status: string; sample?: boolean }>).find((session) => session.status === 'finished' && !session.sample);
    if (!recorded) throw new Error(`no finished session to replay in ${dataDir} (run the "mnemo run" test first)`);
    await repeatedly(() => ['replay', recorded.id, '--data-dir', dataDir, '--speed', 'max', '--json', '--non-interactive'], await bareDisplay(), (run) => {
      const finished = jsonLines(run.stdout).find((event) => event.type === 'run-finished');
      expect(finished, run.stderr).toMatchObject({ status: 'finished' });
    });
  });
});

describe('the X server killed during a run', () => {
  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    it(`(${signal}): the run ends with a message naming the display, an ordinary exit code, and a readable session`, { timeout: 300_000 }, async () => {
      const xvfb = await startBareXvfb();
      // Moves the mouse back and forth for as long as it is asked.
      let served = 0;
      const model = await startScriptedServer({ replies: () => toolCall([{ type: 'mouse_move', x: 200 + (++served % 2) * 400, y: 300 }]) });
      const dataDir = newDataDir();
      let killed: Promise<void> | undefined;
      let seen = '';
      try {
        const run = await runMnemo(['run', 'move the mouse back and forth', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--json', '--non-interactive'], {
          env: { DISPLAY: xvfb.display, OPENAI_API_KEY: '' },
          onStdout: (chunk) => {
            seen += chunk;
            // Two steps done: kill the server while the run goes on.
            const complete = seen.slice(0, seen.lastIndexOf('\n') + 1);
            if (!killed && jsonLines(complete).some((event) => event.type === 'step-finished' && event.step === 2)) killed = xvfb.stop(signal);
          },
        });
        await killed;
        expect(killed, 'the server was killed during the run').toBeDefined();
        expect(run.signal, ending(run)).toBeNull();
        expect(run.code, ending(run)).toBe(3);
        const events = jsonLines(run.stdout);
        const finished = events.find((event) => event.type === 'run-finished');
        expect(finished, run.stdout).toMatchObject({ status: 'failed' });
        // The message reaches the user: in the run's own account of why it ended.
        expect(`${JSON.stringify(events)}\n${run.stderr}`).toMatch(new RegExp(`Lost the display: the X server at DISPLAY=${xvfb.display} went away .*Start it again`));

        const show = await runMnemo(['show', 'last', '--json', '--data-dir', dataDir]);
        expect(show.code, show.stderr).toBe(0);
        const session = JSON.parse(show.stdout) as { status: string; steps: Array<{ step: number }> };
        expect(session.status).toBe('failed');
        // Complete up to the last step: the two steps before the kill at least, in order.
        expect(session.steps.length).toBeGreaterThanOrEqual(2);
        expect(session.steps.map((step) => step.step)).toEqual(session.steps.map((_, i) => i + 1));
      } finally {
        await model.close();
        await xvfb.stop();
      }
    });
  }
});

describe('an X server with access control (as xvfb-run starts one), bare', () => {
  let xvfb: BareXvfb;
  const cookie = Buffer.from('5f3c1a9e0d7b4c2a8e6f1d3b5a7c9e0f', 'hex');
  let authFile: string;

  beforeAll(async () => {
    authFile = writeXAuthority(join(scratch, 'Xauthority'), cookie);
    xvfb = await startBareXvfb({ authFile });
  });
  afterAll(async () => {
    await xvfb?.stop();
  });

  it('is opened with the cookie from XAUTHORITY', async () => {
    const run = await runMnemo(['displays', '--json'], { env: { DISPLAY: xvfb.display, XAUTHORITY: authFile } });
    expect(run.signal, ending(run)).toBeNull();
    expect(run.code, ending(run)).toBe(0);
  });

  it('refuses without it: a message naming the display and what to check, exit 1, no signal', async () => {
    const wrong = writeXAuthority(join(scratch, 'Xauthority-wrong'), Buffer.alloc(16, 7));
    for (const args of [['displays', '--json'], ['screenshot', '-o', join(scratch, 'refused.png')], ['act', '--json', '{"type":"mouse_move","x":5,"y":5}']]) {
      const run = await runMnemo(args, { env: { DISPLAY: xvfb.display, XAUTHORITY: wrong } });
      expect(run.signal, ending(run)).toBeNull();
      expect(run.code, ending(run)).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`the X server at DISPLAY=${xvfb.display} refused the connection \\(.+\\)\\. Check access to it \\(XAUTHORITY, xhost\\)`));
    }
  });
});

describe('the operator host on a bare Xvfb', () => {
  it('is started again when killed by a signal, and reports the X server killed as no_display', { timeout: 120_000 }, async () => {
    const xvfb = await startBareXvfb();
    const loaded = await createIsolatedOperator({}, { ...process.env, DISPLAY: xvfb.display });
    if (!loaded.ok) throw new Error(loaded.message);
    const operator = loaded.operator;
    try {
      const first = operator.hostPid as number;
      process.kill(first, 'SIGSEGV');
      const observed = await operator.observe({ maxWidth: 320 });
      expect(observed.ok && observed.observation.frame.image).toEqual({ width: 320, height: 200, format: 'jpeg' });
      expect(operator.hostPid).not.toBe(first);
      const displays = await operator.displays();
      if (!displays.ok) throw new Error(displays.message);
      const frame: Frame = { displayId: 'all', bounds: displays.displays[0]!.bounds, scaleFactor: 1, captured: { width: 1280, height: 800 }, image: { width: 1280, height: 800, format: 'jpeg' } };
      expect(await operator.execute({ type: 'mouse_move', x: 321, y: 123 }, frame)).toMatchObject({ ok: true });
      // Seen through the same connection the action went through: a bare server keeps nothing longer.
      expect(await operator.pointerPosition()).toEqual({ ok: true, point: { x: 321, y: 123 } });

      await xvfb.stop('SIGKILL');
      const message = new RegExp(`^Lost the display: the X server at DISPLAY=${xvfb.display} went away`);
      expect(await operator.observe()).toMatchObject({ ok: false, kind: 'no_display', message: expect.stringMatching(message) });
      expect(await operator.execute({ type: 'mouse_move', x: 10, y: 10 }, frame)).toMatchObject({ ok: false, error: { kind: 'no_display' } });
    } finally {
      await operator.close();
      await xvfb.stop();
    }
  });
});
