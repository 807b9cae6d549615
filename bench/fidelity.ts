/**
 * npm run bench:fidelity — runs the action-fidelity suite (test/desktop/fidelity.test.ts) on the
 * real display and prints per-test timings, then, as its last line, `fidelity: N passed, M failed`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{ assertionResults: Array<{ fullName: string; status: string; duration?: number; failureMessages?: string[] }> }>;
}

const dir = mkdtempSync(join(tmpdir(), 'mnemo-fidelity-'));
const output = join(dir, 'report.json');
try {
  const run = spawnSync(
    process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run', '--project', 'desktop', 'test/desktop/fidelity.test.ts', '--reporter=json', `--outputFile=${output}`],
    { stdio: ['ignore', 'ignore', 'inherit'], env: process.env },
  );
  let report: JsonReport;
  try {
    report = JSON.parse(readFileSync(output, 'utf8')) as JsonReport;
  } catch {
    console.error(`bench:fidelity: the suite did not produce a report (vitest exited ${run.status})`);
    console.log('fidelity: 0 passed, 1 failed');
    process.exit(1);
  }
  for (const file of report.testResults) {
    for (const test of file.assertionResults) {
      const mark = test.status === 'passed' ? 'ok  ' : test.status === 'failed' ? 'FAIL' : 'skip';
      console.log(`${mark} ${String(Math.round(test.duration ?? 0)).padStart(6)} ms  ${test.fullName}`);
      if (test.status === 'failed') console.log(`       ${(test.failureMessages?.[0] ?? '').split('\n')[0]}`);
    }
  }
  console.log(`fidelity: ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
  process.exitCode = report.numFailedTests === 0 ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
