/**
 * Runs before each file of the desktop-parallel project: this worker's own test display becomes
 * DISPLAY (test-displays.ts started one per worker), before the file loads nut-js or asks for a
 * display.
 */
import { inject } from 'vitest';

const displays = inject('testDisplays');
const slot = Number(process.env.VITEST_POOL_ID);
const display = displays[slot - 1];
if (!display) throw new Error(`no test display for worker ${process.env.VITEST_POOL_ID ?? '(none)'} of ${displays.length}: the project's maxWorkers and its global setup disagree`);
process.env.DISPLAY = display;
