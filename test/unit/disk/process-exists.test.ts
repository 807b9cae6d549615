/** Whether a pid names a running process, as the memory lock and the session store both ask. */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processExists } from '../../../src/main/disk/process-exists';

describe('processExists', () => {
  it('is true for this process and false for one that has exited', async () => {
    expect(processExists(process.pid)).toBe(true);
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid as number;
    await new Promise((resolve) => child.on('exit', resolve));
    expect(processExists(pid)).toBe(false);
  });
});
