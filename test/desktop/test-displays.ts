/**
 * The desktop-parallel project's global setup: one test display (1280x800, openbox) per worker,
 * started before the first file and stopped after the last. A worker keeps its display for every
 * file it runs (`use-test-display.ts` picks it by VITEST_POOL_ID), so two files never share a
 * mouse, keyboard, clipboard or screen, and no file needs the display in DISPLAY.
 */
import type { TestProject } from 'vitest/node';
import { startTestDisplay, type TestDisplay } from '../fixtures/desktop/test-display';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test displays, one per worker: the worker with VITEST_POOL_ID n uses the n-th. */
    testDisplays: string[];
  }
}

const started: TestDisplay[] = [];

export async function setup(project: TestProject): Promise<void> {
  const workers = project.config.maxWorkers;
  const results = await Promise.allSettled(Array.from({ length: workers }, () => startTestDisplay()));
  for (const result of results) if (result.status === 'fulfilled') started.push(result.value);
  const failure = results.find((result) => result.status === 'rejected');
  if (failure) {
    await teardown();
    throw new Error(`could not start the desktop tests' displays: ${String(failure.reason)}`);
  }
  project.provide('testDisplays', started.map((display) => display.display));
}

export async function teardown(): Promise<void> {
  await Promise.all(started.splice(0).map((display) => display.stop()));
}
