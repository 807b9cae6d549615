/**
 * A private Xvfb for benchmarks, so figures do not depend on whatever display the caller has.
 * Returns undefined when Xvfb is not installed (the caller then uses $DISPLAY).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { checkDisplay } from '../../src/main/operator/display-check';

export interface PrivateDisplay {
  display: string;
}

export async function startPrivateXvfb(width: number, height: number): Promise<PrivateDisplay | undefined> {
  if (spawnSync('which', ['Xvfb']).status !== 0) return undefined;
  // MNEMO_BENCH_XVFB_FIRST: where benchmarks of several people share the machine, each its own numbers.
  let number = Number(process.env.MNEMO_BENCH_XVFB_FIRST ?? 140);
  while (existsSync(`/tmp/.X11-unix/X${number}`) || existsSync(`/tmp/.X${number}-lock`)) number++;
  const display = `:${number}`;
  const server: ChildProcess = spawn('Xvfb', [display, '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'], { stdio: 'ignore' });
  // The benchmark's own work decides when the process ends, not this server.
  server.unref();
  const deadline = Date.now() + 10_000;
  // Ready when an X client can open it, not merely when its socket appears.
  while (!(await checkDisplay({ ...process.env, DISPLAY: display })).ok) {
    if (Date.now() > deadline || server.exitCode !== null) {
      server.kill();
      return undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Stop the server only after this process has gone: libnut keeps an X connection open until
  // exit, and Xlib ends a process whose server vanishes under it with exit code 1.
  spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 0.2; done; kill ${server.pid}`], {
    detached: true,
    stdio: 'ignore',
  }).unref();
  return { display };
}
