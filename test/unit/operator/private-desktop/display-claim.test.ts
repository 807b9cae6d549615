/**
 * A display number claimed among the Mnemos sharing a data directory (records.ts claimDisplay), on
 * real files: a second claim of a held number is refused, a claim whose owner is gone is taken
 * over, and the claim goes with the desktop's other files.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { currentWriter } from '../../../../src/main/disk/process-identity';
import { claimDisplay, removeDesktopFiles } from '../../../../src/main/operator/private-desktop/records';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-claim-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('claimDisplay', () => {
  it('gives a number to one claimer only, until the desktop files are removed', async () => {
    const dir = mkdtempSync(join(scratch, 'desktops-'));
    const [first, second] = await Promise.all([claimDisplay(dir, 301), claimDisplay(dir, 301)]);
    expect([first, second].sort()).toEqual([false, true]);
    expect(await claimDisplay(dir, 302)).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'display-301.claim'), 'utf8'))).toMatchObject({ pid: process.pid });
    await removeDesktopFiles(dir, 301);
    expect(existsSync(join(dir, 'display-301.claim'))).toBe(false);
    expect(await claimDisplay(dir, 301)).toBe(true);
  });

  it('takes over the claim of a process that is gone; leaves a live one alone', async () => {
    const dir = mkdtempSync(join(scratch, 'desktops-'));
    // A pid no process has (above the kernel's pid_max default range used here).
    const gone = { ...currentWriter(), pid: 4_194_000, startTicks: 1 };
    writeFileSync(join(dir, 'display-310.claim'), JSON.stringify(gone));
    expect(await claimDisplay(dir, 310)).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'display-310.claim'), 'utf8'))).toMatchObject({ pid: process.pid });
    // The parent of this test is alive: its claim holds.
    writeFileSync(join(dir, 'display-311.claim'), JSON.stringify(currentWriter(process.ppid)));
    expect(await claimDisplay(dir, 311)).toBe(false);
  });
});
