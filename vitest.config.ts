import { defineConfig } from 'vitest/config';

/**
 * The desktop tests that run on the display in DISPLAY (CI's, or a developer's own), one file at a
 * time (the `desktop` project): the input-fidelity files, which check every kind of input (every
 * action, keys on four layouts, clipboard paste) on the display the machine really has, with its
 * window manager and settings. Every other file under test/desktop/ runs in `desktop-parallel`,
 * on displays of its own.
 */
const SHARED_DISPLAY_TESTS = ['test/desktop/clipboard-paste.test.ts', 'test/desktop/fidelity.test.ts', 'test/desktop/keyboard-layouts.test.ts'];

/**
 * How many desktop-parallel files run at once ($MNEMO_TEST_DESKTOP_WORKERS, default 2). Their work
 * is mostly CPU (Chromium, the CLI, captures): on the 2-core test machine, busy with other work,
 * three workers made each file about 2.7 times slower than one at a time and saved under 10% of
 * the wall time.
 */
const DESKTOP_WORKERS = Number(process.env.MNEMO_TEST_DESKTOP_WORKERS ?? 2);

export default defineConfig({
  test: {
    reporters: ['default', './test/reporters/summary-line.ts'],
    // Native modules (nut-js, sharp) and real child processes: run in forked processes.
    pool: 'forks',
    // Two files at a time where a project allows it (vitest's default is one fewer than the cores:
    // one on a two-core machine). vitest never runs a one-at-a-time project (desktop, ui) beside
    // the others: `npm test` (scripts/test.js) runs the unit tests beside the desktop tests itself.
    maxWorkers: 2,
    // The CLI the tests run is the built one, made fresh first (bin/mnemo.js runs dist/cli/).
    globalSetup: ['test/build-fresh.ts'],
    // expect.poll waits for a condition, never for a time: vitest's default of 1 s is a bet on the
    // machine's speed. 20 s still fails with the poll's message before a unit test's 30 s timeout.
    expect: { poll: { timeout: 20_000 } },
    projects: [
      {
        extends: true,
        // Some unit tests run the real CLI in a child process: generous on a slow, busy machine.
        // The files of a worker share its modules (isolate: false): a quarter less CPU than
        // importing them afresh for each file, on a machine where CI is bound by its two cores.
        // They can: no unit test mocks a module, stubs a global or edits process.env (a lint
        // rule keeps it so, eslint.config.js), and they pass in any order of files.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'desktop',
          include: SHARED_DISPLAY_TESTS,
          globalSetup: ['test/desktop/global-setup.ts'],
          // One real display, one mouse and keyboard: these never run side by side.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'desktop-parallel',
          include: ['test/desktop/**/*.test.ts'],
          // $MNEMO_TEST_DESKTOP_EXCLUDE (comma-separated paths): files `npm test` runs in a lane of their own.
          exclude: [...SHARED_DISPLAY_TESTS, ...(process.env.MNEMO_TEST_DESKTOP_EXCLUDE ?? '').split(',').filter(Boolean)],
          // A display of its own per worker (Xvfb with openbox, started by the global setup and
          // made DISPLAY by the setup file), so several files run at once without sharing a
          // mouse, keyboard, clipboard or screen.
          globalSetup: ['test/desktop/test-displays.ts'],
          setupFiles: ['test/desktop/use-test-display.ts'],
          maxWorkers: DESKTOP_WORKERS,
          // A group of its own: its number of workers may differ from the unit tests'.
          sequence: { groupOrder: 1 },
          // Twice the shared display's: each file shares the cores with its neighbours.
          testTimeout: 120_000,
          hookTimeout: 240_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'ui',
          include: ['test/ui/**/*.test.ts'],
          // In a plain `vitest run`, after the unit tests (a one-at-a-time project needs a group
          // of its own when it is given an order).
          sequence: { groupOrder: 2 },
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          // After the others: it packs the build they use, and installs from the registry.
          sequence: { groupOrder: 3 },
          testTimeout: 120_000,
          hookTimeout: 900_000,
        },
      },
    ],
  },
});
