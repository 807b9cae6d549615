/**
 * npm run bench:desktop — what a private desktop costs.
 *   (a) a bare Xvfb: spawned, up to accepting connections (it writes its number on -displayfd)
 *   (b) a private desktop with one app: Xvfb with its cookie, the window manager, an xterm, up to
 *       the moment the xterm's window shows (what `--desktop private --app xterm` waits for)
 *   Prints medians and b/a, taking turns so the machine's load weighs on both alike.
 * Then the live view's bytes per second through the multipart stream (what `GET /api/runs/<id>/live`
 * sends), at the default 5 frames a second: on a still screen (an idle xterm) and on a busy one
 * (an xterm printing the time every 20 ms).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createIsolatedOperator } from '../src/main/operator/isolated-operator';
import { DEFAULT_LIVE_FPS, LiveFrames } from '../src/main/operator/live-frames';
import { DesktopHost } from '../src/main/operator/private-desktop/desktop-host';
import { liveParts } from '../src/main/service/runs/live-stream';
import { fmt, median, timeRunsInTurn } from './lib/stats';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const LIVE_SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 6);
const FIRST_DISPLAY = Number(process.env.BENCH_FIRST_DISPLAY ?? 200);
const dataDir = mkdtempSync(join(tmpdir(), 'mnemo-bench-desktop-'));
const host = new DesktopHost({ dataDir, firstDisplay: FIRST_DISPLAY });

const stops: Array<() => Promise<void>> = [];

async function bareXvfb(): Promise<void> {
  let number = FIRST_DISPLAY;
  while (existsSync(`/tmp/.X11-unix/X${number}`) || existsSync(`/tmp/.X${number}-lock`)) number++;
  const server = spawn('Xvfb', [`:${number}`, '-screen', '0', '1280x800x24', '-nolisten', 'tcp', '-displayfd', '3'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    (server.stdio[3] as Readable).once('data', () => resolve());
    server.once('exit', (code) => reject(new Error(`Xvfb :${number} exited with code ${code}`)));
  });
  // Stopped after the measurement, as the private desktops are; SIGTERM, so Xvfb removes its socket and lock.
  stops.push(async () => {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  });
}
async function desktopWithApp(app = 'xterm'): Promise<void> {
  const started = await host.start({ size: { width: 1280, height: 800 }, apps: [app] });
  if (!started.ok) throw new Error(started.message);
  // Stopped after the measurement: the start is what is timed.
  stops.push(() => started.desktop.stop());
}

try {
  const [bare = [], desktop = []] = await timeRunsInTurn(RUNS, [bareXvfb, desktopWithApp], 1);
  for (const stop of stops.splice(0)) await stop();
  const a = median(bare);
  const b = median(desktop);
  console.log(`start: bare Xvfb ${fmt(a)} ms, private desktop with one app (xterm) ${fmt(b)} ms (median of ${RUNS})`);
  console.log(`private desktop / bare Xvfb: ${(b / a).toFixed(2)}`);

  for (const [label, app] of [
    ['still screen (an idle xterm)', 'xterm'],
    ['busy screen (an xterm printing the time every 20 ms)', `xterm -e sh -c 'while :; do date +%s.%N; sleep 0.02; done'`],
  ] as const) {
    const started = await host.start({ size: { width: 1280, height: 800 }, apps: [app] });
    if (!started.ok) throw new Error(started.message);
    const operator = await createIsolatedOperator({}, started.desktop.env);
    if (!operator.ok) throw new Error(operator.message);
    const frames = new LiveFrames(operator.operator, { fps: DEFAULT_LIVE_FPS });
    const stop = new AbortController();
    let bytes = 0;
    let parts = 0;
    const reading = (async () => {
      for await (const part of liveParts(frames, stop.signal)) {
        // The first frame is the screen as it is when the viewer comes: not counted.
        if (parts++ > 0) bytes += part.length;
      }
    })();
    // Let the first frame arrive, then count for LIVE_SECONDS.
    while (parts === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const from = performance.now();
    await new Promise((resolve) => setTimeout(resolve, LIVE_SECONDS * 1000));
    const seconds = (performance.now() - from) / 1000;
    const counted = { bytes, frames: parts - 1 };
    stop.abort();
    frames.close();
    await reading;
    await operator.operator.close();
    await started.desktop.stop();
    console.log(`live view, ${label}: ${Math.round(counted.bytes / seconds)} bytes/s, ${(counted.frames / seconds).toFixed(1)} frames/s (at most ${DEFAULT_LIVE_FPS})`);
  }
} finally {
  for (const stop of stops) await stop();
  rmSync(dataDir, { recursive: true, force: true });
}
