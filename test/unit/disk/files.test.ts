/**
 * The careful writers of src/main/disk/: what a write that does not fit leaves behind (nothing
 * half-written), the failure in words, and free space. The full disk is a real tmpfs (root).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendWhole, appendWholeToFile, writeTextAtomically } from '../../../src/main/disk/files';
import { formatMegabytes, freeBytes } from '../../../src/main/disk/free-space';
import { describeWriteFailure, displayPath, writeFailureCause } from '../../../src/main/disk/write-failure';
import { canMount, mountSmallDisk, type SmallDisk } from './small-disk';

const disks: SmallDisk[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'mnemo-disk-'));
afterAll(() => {
  for (const disk of disks) disk.release();
  rmSync(scratch, { recursive: true, force: true });
});

function smallDisk(size = '16k'): SmallDisk {
  const disk = mountSmallDisk(size);
  disks.push(disk);
  return disk;
}

const errno = (code: string) => Object.assign(new Error(`${code}: something, write`), { code });

describe('a failed write in words', () => {
  it('names the cause and the folder, with the home folder as ~', () => {
    const place = join(homedir(), '.mnemo', 'sessions');
    expect(writeFailureCause(errno('ENOSPC'), place)).toBe('the disk holding ~/.mnemo/sessions is full');
    expect(writeFailureCause(errno('EDQUOT'), place)).toBe('the disk quota for ~/.mnemo/sessions is used up');
    expect(writeFailureCause(errno('EROFS'), place)).toBe('the disk holding ~/.mnemo/sessions is read-only');
    expect(writeFailureCause(errno('EACCES'), place)).toBe('~/.mnemo/sessions may not be written (permission denied)');
    expect(writeFailureCause(errno('ENOENT'), place)).toBe('~/.mnemo/sessions (or a folder in it) was removed while Mnemo was writing to it');
    expect(writeFailureCause(errno('EIO'), place)).toMatch(/the disk holding ~\/.mnemo\/sessions failed to write/);
    expect(writeFailureCause(new Error('odd'), '/srv/data')).toBe('writing in /srv/data failed');
    expect(describeWriteFailure(errno('ENOSPC'), '/srv/data', 'events.jsonl')).toBe('the disk holding /srv/data is full (writing events.jsonl: ENOSPC: something, write)');
    expect(displayPath('/home/ada/.mnemo', '/home/ada')).toBe('~/.mnemo');
    expect(displayPath('/home/adam/.mnemo', '/home/ada')).toBe('/home/adam/.mnemo');
  });
});

describe('free space', () => {
  it('is measured on the nearest folder that exists', async () => {
    const free = await freeBytes(join(scratch, 'not', 'yet', 'made'));
    expect(free).toBeGreaterThan(0);
    expect(formatMegabytes(600_000)).toBe('0.6 MB');
    expect(formatMegabytes(152_400_000)).toBe('152 MB');
  });

  it.runIf(canMount)('of a full disk is 0', async () => {
    const disk = smallDisk();
    disk.fill();
    expect(await freeBytes(disk.path)).toBe(0);
  });
});

describe.runIf(canMount)('on a disk that fills up', () => {
  it('an append that does not fit is cut back to where it started, never half a line', async () => {
    const disk = smallDisk('8k');
    const path = join(disk.path, 'log.jsonl');
    const line = (n: number) => `${JSON.stringify({ n, pad: 'x'.repeat(900) })}\n`;
    const handle = await open(path, 'a');
    let size = 0;
    let written = 0;
    let failure: NodeJS.ErrnoException | null = null;
    try {
      // Whole lines fit until one is cut by the end of the disk.
      for (let n = 0; n < 20 && failure === null; n++) {
        try {
          size = await appendWhole(handle, size, line(n));
          written++;
        } catch (error) {
          failure = error as NodeJS.ErrnoException;
        }
      }
    } finally {
      await handle.close();
    }
    expect(failure?.code).toBe('ENOSPC');
    const text = readFileSync(path, 'utf8');
    expect(text.length).toBe(size);
    expect(text.split('\n').filter(Boolean).map((l) => JSON.parse(l).n)).toEqual(Array.from({ length: written }, (_, i) => i));
    await expect(appendWholeToFile(path, line(99))).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('a whole-file write that does not fit leaves the old file and no temporary file', async () => {
    const disk = smallDisk('8k');
    const path = join(disk.path, 'memory.json');
    await writeTextAtomically(path, '{"old":true}\n');
    disk.fill();
    await expect(writeTextAtomically(path, JSON.stringify({ big: 'y'.repeat(20_000) }))).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(readFileSync(path, 'utf8')).toBe('{"old":true}\n');
    expect(readdirSync(disk.path).sort()).toEqual(['filler', 'memory.json']);
  });
});

describe('appending where the disk is fine', () => {
  it('returns the new length and creates the file', async () => {
    const path = join(scratch, 'a.txt');
    writeFileSync(path, 'ab');
    const handle = await open(path, 'a');
    expect(await appendWhole(handle, 2, 'cdé')).toBe(6);
    await handle.close();
    await appendWholeToFile(join(scratch, 'b.txt'), 'x');
    expect(readFileSync(path, 'utf8')).toBe('abcdé');
    expect(readFileSync(join(scratch, 'b.txt'), 'utf8')).toBe('x');
  });
});
