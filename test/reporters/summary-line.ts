/**
 * Ends a vitest run with one plain line, `tests: N passed, M failed, K skipped`, the summary form
 * CI tooling reads whatever the runner (vitest's own summary is formatted for people).
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';

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

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    // An error outside any test counts as a failure too: a file that failed to load or whose
    // setup threw (its tests never ran), and an unhandled error.
    const brokenFiles = modules.filter((module) => module.errors().length > 0).length;
    const failed = this.failed + brokenFiles + unhandledErrors.length;
    process.stdout.write(`\ntests: ${this.passed} passed, ${failed} failed, ${this.skipped} skipped\n`);
  }
}
