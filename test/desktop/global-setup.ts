/**
 * Gives the desktop tests a display: the one in DISPLAY when it answers (CI starts Xvfb and a
 * window manager itself), otherwise a private Xvfb 1280x800 with openbox, started here and
 * stopped at the end, so `npm test` works on a machine that has Xvfb but no running display.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { displayProblem } from '../fixtures/desktop/display';

const started: ChildProcess[] = [];

function has(command: string): boolean {
  return spawnSync('which', [command], { stdio: 'ignore' }).status === 0;
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

export async function setup(): Promise<void> {
  const current = process.env.DISPLAY?.trim();
  if (current && displayProblem(current) === null) return;
  if (!has('Xvfb')) return; // requireDisplay() in each file explains what is missing.
  let number = 99;
  while (existsSync(`/tmp/.X11-unix/X${number}`) || existsSync(`/tmp/.X${number}-lock`)) number++;
  const display = `:${number}`;
  const xvfb = spawn('Xvfb', [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  started.push(xvfb);
  if (!(await waitFor(() => existsSync(`/tmp/.X11-unix/X${number}`), 10_000))) return;
  process.env.DISPLAY = display;
  if (has('openbox')) {
    started.push(spawn('openbox', [], { stdio: 'ignore', env: { ...process.env, DISPLAY: display } }));
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

export function teardown(): void {
  for (const child of started.reverse()) child.kill();
}
