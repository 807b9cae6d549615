/**
 * Ends a vitest run with one plain line, `tests: N passed, M failed, K skipped`, the summary form
 * CI tooling reads whatever the runner (vitest's own summary is formatted for people).
 */
import type { Reporter, TestCase } from 'vitest/node';

export default class SummaryLineReporter implements Reporter {
  private passed = 0;
  private failed = 0;
  private skipped = 0;

  onTestCaseResult(testCase: TestCase): void {
    const state = testCase.result().state;
    if (state === 'passed') this.passed++;
    else if (state === 'failed') this.failed++;
    else this.skipped++;
  }

  onTestRunEnd(_modules: unknown, unhandledErrors: ReadonlyArray<unknown>): void {
    // An error outside any test (a crashed file, a failed hook) counts as a failure too.
    const failed = this.failed + unhandledErrors.length;
    process.stdout.write(`\ntests: ${this.passed} passed, ${failed} failed, ${this.skipped} skipped\n`);
  }
}
