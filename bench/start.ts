/**
 * npm run bench:start — how fast `mnemo` starts, as scripts and the MCP server call it in loops.
 * Whole processes, started in turn with a bare `node -e 0` (the baseline, measured in the same
 * run), wall time from spawn to exit:
 *   mnemo --help                                  the start itself (goal: ≤ 2 × bare node)
 *   mnemo act --json '{"type":"nope"}'            act's own start: its command loaded, the action
 *                                                 checked and refused (exit 2) before any display
 *   mnemo act --json '{"type":"wait","ms":0}'     a no-op action: start, the operator host, the display
 *   mnemo screenshot -o FILE                      a capture, whole
 * and beside them the capture alone, in an operator host already running (what `act` and
 * `screenshot` pay once started). Runs on $DISPLAY when it answers, else on a private 1280x800 Xvfb.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkDisplay } from '../src/main/operator/display-check';
import { createIsolatedOperator } from '../src/main/operator/isolated-operator';
import { ensureCliBuilt } from '../scripts/build-cli.js';
import { fmt, median, timeRuns, timeRunsInTurn } from './lib/stats';
import { startPrivateXvfb } from './lib/xvfb';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const MNEMO = fileURLToPath(new URL('../bin/mnemo.js', import.meta.url));

const built = await ensureCliBuilt();
if (!built.ok) {
  console.error(`bench:start: the CLI does not build:\n${built.message}`);
  process.exit(1);
}
if (!(await checkDisplay(process.env)).ok) {
  const xvfb = await startPrivateXvfb(1280, 800);
  if (!xvfb) {
    console.error('bench:start: no display: set DISPLAY or install Xvfb');
    process.exit(1);
  }
  process.env.DISPLAY = xvfb.display;
}

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-bench-start-'));
const shot = join(scratch, 'screen.jpg');

/** Runs `node ARGS` to its end; rejects on another exit code than `expected`, which would time a failure. */
function node(args: readonly string[], expected = 0): () => Promise<void> {
  return () =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === expected ? resolve() : reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`))));
    });
}

const [bare = [], help = [], actStart = [], act = [], screenshot = []] = await timeRunsInTurn(RUNS, [
  node(['-e', '0']),
  node([MNEMO, '--help']),
  node([MNEMO, 'act', '--json', '{"type":"nope"}'], 2),
  node([MNEMO, 'act', '--json', '{"type":"wait","ms":0}']),
  node([MNEMO, 'screenshot', '-o', shot]),
]);

// The capture alone: what `mnemo screenshot` does once its operator host is up.
const host = await createIsolatedOperator();
if (!host.ok) throw new Error(host.message);
const capture = await timeRuns(RUNS, async () => {
  const observed = await host.operator.observe({ maxWidth: 1280, format: 'jpeg' });
  if (!observed.ok) throw new Error(observed.message);
});
await host.operator.close();
rmSync(scratch, { recursive: true, force: true });

const baseline = median(bare);
const ratio = (times: number[]) => (median(times) / baseline).toFixed(2);
console.log(`display ${process.env.DISPLAY}, ${RUNS} runs each, in turn (medians, whole processes)`);
console.log(`node -e 0 (bare node):              ${fmt(baseline)} ms`);
console.log(`mnemo --help:                       ${fmt(median(help))} ms`);
console.log(`mnemo act, refused before a display: ${fmt(median(actStart))} ms`);
console.log(`mnemo act, a no-op (wait 0 ms):     ${fmt(median(act))} ms`);
console.log(`mnemo screenshot:                   ${fmt(median(screenshot))} ms`);
console.log(`the capture alone (host running):   ${fmt(median(capture))} ms`);
console.log(`cli start / bare node: ${ratio(help)} (mnemo --help; goal ≤ 2)`);
console.log(`act start / bare node: ${ratio(actStart)} (its command and the action check, before the operator host)`);
console.log(`act / bare node: ${ratio(act)}; act / capture: ${(median(act) / median(capture)).toFixed(2)} (a no-op action, whole process, against one capture)`);
console.log(`screenshot / bare node: ${ratio(screenshot)}; screenshot / capture: ${(median(screenshot) / median(capture)).toFixed(2)}`);
