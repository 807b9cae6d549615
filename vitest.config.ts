import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/reporters/summary-line.ts'],
    // Native modules (nut-js, sharp) and real child processes: run in forked processes.
    pool: 'forks',
    projects: [
      {
        extends: true,
        // Some unit tests run the real CLI in a child process: generous on a slow, busy machine.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000 },
      },
      {
        extends: true,
        test: {
          name: 'desktop',
          include: ['test/desktop/**/*.test.ts'],
          globalSetup: ['test/desktop/global-setup.ts'],
          // One real display, one mouse and keyboard: desktop tests never run side by side.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'ui',
          include: ['test/ui/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
