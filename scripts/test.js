#!/usr/bin/env node
/**
 * `npm test`: every test, in three lanes side by side. vitest runs a
 * one-file-at-a-time project after all the others and never beside them, so one vitest process
 * leaves a core idle for most of the run. Here the desktop tests that have displays of their own
 * run in one lane (two files at a time, each worker on its own Xvfb); the few desktop tests that
 * run on the shared display in DISPLAY (one at a time), then the package test (it installs from
 * the registry), then the UI tests (on displays of their own, :174 and :181), then a few desktop
 * files taken off the first lane (the queue's, mostly waiting) in another; the unit tests (two
 * files at a time), then two more desktop files taken off the first lane, in the third.
 *
 * With MNEMO_TEST_ALSO_NODE set to a folder holding another `node` (CI: the current LTS), the
 * unit lane runs the unit tests again on it after.
 *
 * Each lane's output is shown whole, one lane after the other; the run ends with one line,
 * `tests: N passed, M failed, K skipped`, over every part (after a `FAILED …` line per failure),
 * and exits 1 when any part failed.
 * Arguments are passed to one plain `vitest run` instead (`npm test -- test/unit/store`).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');

/** Runs a command from the repository root; resolves with its exit code (1 when a signal ended it). */
function run(command, args, { env = {}, output = 'inherit' } = {}) {
  return new Promise((done) => {
    // An env value of undefined removes the variable.
    const merged = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== undefined));
    const child = spawn(command, args, { cwd: ROOT, env: merged, stdio: ['ignore', output, output] });
    child.on('error', (error) => {
      process.stderr.write(`could not start ${command}: ${error.message}\n`);
      done(1);
    });
    child.on('close', (code) => done(code ?? 1));
  });
}

const extra = process.argv.slice(2);
if (extra.length > 0) process.exit(await run(process.execPath, [VITEST, 'run', ...extra]));

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-test-'));
const summary = join(scratch, 'summary.jsonl');
/** What every vitest process of the run shares: where its reporter adds its counts. */
const summaryEnv = { MNEMO_TEST_SUMMARY_FILE: summary };

/** A vitest run of some projects, its output kept in a file until the lane is shown. */
function vitestPart(name, args, node = process.execPath, env = {}) {
  return { name, command: node, args: [VITEST, 'run', ...args], env: { ...summaryEnv, ...env } };
}

/** Runs parts one after another, the output to `log` (a file) or to the terminal. */
async function lane(parts, log) {
  let failed = false;
  const fd = log ? openSync(log, 'w') : undefined;
  try {
    const say = (text) => (fd !== undefined ? writeSync(fd, text) : process.stdout.write(text));
    for (const part of parts) {
      say(`\n== ${part.name}\n`);
      const began = Date.now();
      const code = await run(part.command, part.args, { env: part.env, output: fd ?? 'inherit' });
      if (code !== 0) failed = true;
      // What each part took, to see which lane is the long pole.
      say(`== ${part.name}: ${Math.round((Date.now() - began) / 1000)} s\n`);
    }
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return failed;
}

let failed = false;
try {
  // The build is made fresh once, before the lanes start (each vitest would check it again).
  failed = (await run(process.execPath, [join(ROOT, 'bin/run-ts.js'), join(ROOT, 'test/build-fresh-now.ts')])) !== 0;
  if (!failed) {
    // The unit tests never touch a display: none beside the desktop tests' one.
    const unitEnv = { DISPLAY: undefined };
    const unitParts = [vitestPart(`unit tests (Node.js ${process.version})`, ['--project', 'unit'], process.execPath, unitEnv)];
    const alsoNode = process.env.MNEMO_TEST_ALSO_NODE;
    if (alsoNode) {
      const node = join(alsoNode, 'node');
      // Its own node first on PATH: the CLI the unit tests start runs on it too.
      unitParts.push(vitestPart(`unit tests (the Node.js in ${alsoNode})`, ['--project', 'unit'], node, { ...unitEnv, PATH: `${alsoNode}${delimiter}${process.env.PATH ?? ''}` }));
    }
    const unitLog = join(scratch, 'unit.log');
    const sharedLog = join(scratch, 'shared-display.log');
    process.stdout.write('The shared-display desktop tests (then the package test and the UI tests) and the unit tests run beside the other desktop tests; their output follows.\n');
    // The package test installs from the registry (mostly waiting on the network) and reads the
    // build without changing it (npm pack --ignore-scripts), so it need not wait for the other
    // lanes; it follows the shared-display tests, since its doctor tries input on DISPLAY. The UI
    // tests follow it: they start displays of fixed numbers (:174, :181), so the desktop tests'
    // displays standing for the user's are taken from :400 up, out of their way.
    const userDisplays = { MNEMO_TEST_USER_DISPLAY: process.env.MNEMO_TEST_USER_DISPLAY ?? '400' };
    // The second lane is otherwise done minutes before the first: it ends with some desktop files
    // taken off the first, the longest (two at a time, as there). The queue's tests mostly wait (on
    // workers taking jobs, stalled-job checks, backoff); two elements files even the lanes out.
    const queueTests = ['test/desktop/batch-queue.test.ts', 'test/desktop/batch-queue-control.test.ts', 'test/desktop/element-actions-gtk.test.ts', 'test/desktop/workflow-elements.test.ts'];
    // The unit lane, a quarter lighter since its files share modules, ends a couple of minutes
    // before the first: it takes two more desktop files off it, one at a time (the other lanes
    // already keep the two cores busy).
    const unitLaneTests = ['test/desktop/bare-x.test.ts', 'test/desktop/computer-tools-run.test.ts'];
    unitParts.push(vitestPart('desktop tests ending the unit lane (displays of their own)', ['--project', 'desktop-parallel', ...unitLaneTests], process.execPath, { ...userDisplays, MNEMO_TEST_DESKTOP_WORKERS: '1' }));
    const lanes = await Promise.all([
      lane([vitestPart('desktop tests (displays of their own)', ['--project', 'desktop-parallel'], process.execPath, { ...userDisplays, MNEMO_TEST_DESKTOP_EXCLUDE: [...queueTests, ...unitLaneTests].join(',') })]),
      lane(
        [
          vitestPart('desktop tests (the shared display)', ['--project', 'desktop']),
          vitestPart('package test', ['--project', 'package']),
          vitestPart('UI tests', ['--project', 'ui']),
          vitestPart('desktop tests ending the second lane (displays of their own)', ['--project', 'desktop-parallel', ...queueTests], process.execPath, userDisplays),
        ],
        sharedLog,
      ),
      lane(unitParts, unitLog),
    ]);
    process.stdout.write(readFileSync(sharedLog, 'utf8'));
    process.stdout.write(readFileSync(unitLog, 'utf8'));
    failed = lanes.includes(true);
  }
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const failures = [];
  let parts = 0;
  try {
    for (const line of readFileSync(summary, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const part = JSON.parse(line);
      parts += 1;
      for (const key of Object.keys(counts)) counts[key] += part[key];
      failures.push(...(part.failures ?? []));
    }
  } catch {
    // No part got as far as its summary: the failure is said above.
  }
  // A part that died before its reporter wrote counts as a failure.
  if (failed && counts.failed === 0) counts.failed = 1;
  // The failures are named again at the end: a long log's tail is often all that is kept.
  process.stdout.write(`\n${parts} test runs\n${failures.map((line) => `${line}\n`).join('')}tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
