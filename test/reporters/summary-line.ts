/**
 * Ends a vitest run with one plain line, `tests: N passed, M failed, K skipped`, the summary form
 * CI tooling reads whatever the runner (vitest's own summary is formatted for people), preceded by
 * one `FAILED <file> > <test>: <first line of the error>` line per failure: the end of a long CI log
 * is often all that is kept, and it must name what failed.
 */
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { inspect } from 'node:util';
import type { Reporter, TestCase, TestModule } from 'vitest/node';

interface Summary {
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
}

/**
 * An unhandled error as vitest hands it over: serialized from the worker, so a plain object with a
 * message (which may have no toString at all), seldom an Error.
 */
function describeUnhandled(error: unknown): string {
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
  return typeof error === 'string' ? error : inspect(error, { depth: 2 });
}

function firstLine(message: string | undefined): string {
  return (message ?? '').split('\n')[0]!.slice(0, 300);
}

export default class SummaryLineReporter implements Reporter {
  private passed = 0;
  private failed = 0;
  private skipped = 0;
  private readonly failures: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const result = testCase.result();
    if (result.state === 'passed') this.passed++;
    else if (result.state === 'failed') {
      this.failed++;
      const file = relative(process.cwd(), testCase.module.moduleId);
      this.failures.push(`FAILED ${file} > ${testCase.fullName}: ${firstLine(result.errors?.[0]?.message)}`);
    } else this.skipped++;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    // An error outside any test counts as a failure too: a file that failed to load or whose
    // setup threw (its tests never ran), and an unhandled error.
    const broken = modules.filter((module) => module.errors().length > 0);
    for (const module of broken) {
      this.failures.push(`FAILED ${relative(process.cwd(), module.moduleId)}: ${firstLine(module.errors()[0]?.message)}`);
    }
    for (const error of unhandledErrors) {
      this.failures.push(`FAILED (unhandled error): ${firstLine(describeUnhandled(error))}`);
    }
    const summary: Summary = {
      passed: this.passed,
      failed: this.failed + broken.length + unhandledErrors.length,
      skipped: this.skipped,
      failures: this.failures,
    };
    // Under scripts/test.js (several vitest runs) the counts go to its file; it prints the lines.
    const file = process.env.MNEMO_TEST_SUMMARY_FILE;
    if (file) appendFileSync(file, `${JSON.stringify(summary)}\n`);
    else process.stdout.write(`\n${summaryLines(summary)}`);
  }
}

/** The failures, one per line, then the counts line. */
function summaryLines(summary: Summary): string {
  const failures = summary.failures.map((line) => `${line}\n`).join('');
  return `${failures}tests: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped\n`;
}
