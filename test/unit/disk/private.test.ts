/**
 * Owner-only at rest: what the helpers of src/main/disk/ create is 0700 / 0600 under the most
 * permissive umask, a file found wider is set right, and a data directory open to other accounts
 * is tightened (or, when it belongs to another account, said and left).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { appendPrivate, appendWholeToFile, makePrivateDir, openPrivate, writeEmptyPrivate, writeTextAtomically } from '../../../src/main/disk/files';
import { keepDataDirPrivate } from '../../../src/main/disk/private-dir';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-private-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

let umask: number;
beforeEach(() => {
  umask = process.umask(0);
});
afterEach(() => {
  process.umask(umask);
});

describe.skipIf(process.platform === 'win32')('under umask 000', () => {
  it('folders come out 0700, the missing ones above included', async () => {
    const base = mkdtempSync(join(scratch, 'dirs-'));
    await makePrivateDir(join(base, 'data', 'sessions', 'one', 'screenshots'));
    for (const dir of ['data', 'data/sessions', 'data/sessions/one', 'data/sessions/one/screenshots']) expect(modeOf(join(base, dir)), dir).toBe('700');
    await makePrivateDir(join(base, 'data', 'replies'), { recursive: false });
    expect(modeOf(join(base, 'data', 'replies'))).toBe('700');
  });

  it('files come out 0600, however they are written, and one found wider is set right', async () => {
    const base = mkdtempSync(join(scratch, 'files-'));
    await writeTextAtomically(join(base, 'a.json'), '{}');
    await appendWholeToFile(join(base, 'b.jsonl'), 'x\n');
    await appendPrivate(join(base, 'c.jsonl'), 'y\n');
    await writeEmptyPrivate(join(base, 'd'));
    await (await openPrivate(join(base, 'e.jpg'), 'w')).close();
    writeFileSync(join(base, 'old.jsonl'), 'from an older version\n', { mode: 0o644 });
    await appendPrivate(join(base, 'old.jsonl'), 'z\n');
    for (const file of ['a.json', 'b.jsonl', 'c.jsonl', 'd', 'e.jpg', 'old.jsonl']) expect(modeOf(join(base, file)), file).toBe('600');
  });

  it('a device behind a file name is not touched', async () => {
    const base = mkdtempSync(join(scratch, 'device-'));
    symlinkSync('/dev/null', join(base, 'null'));
    const before = modeOf('/dev/null');
    await (await openPrivate(join(base, 'null'), 'a')).close();
    expect(modeOf('/dev/null')).toBe(before);
  });
});

describe.skipIf(process.platform === 'win32')('the data directory at start', () => {
  it('open to other accounts: tightened, with everything in it, and said in one line', async () => {
    const dataDir = join(mkdtempSync(join(scratch, 'wide-')), 'data');
    mkdirSync(join(dataDir, 'sessions', 'one'), { recursive: true, mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'sessions', 'one', 'events.jsonl'), '{}\n', { mode: 0o644 });
    writeFileSync(join(dataDir, 'config.json'), '{}', { mode: 0o664 });
    symlinkSync('/dev/null', join(dataDir, 'link'));
    const line = await keepDataDirPrivate(dataDir);
    expect(line).toBe(`the data directory ${dataDir} could be read by other accounts (mode 755); it is now owner-only (folders 700, files 600)`);
    expect([dataDir, join(dataDir, 'sessions'), join(dataDir, 'sessions', 'one')].map(modeOf)).toEqual(['700', '700', '700']);
    expect([join(dataDir, 'sessions', 'one', 'events.jsonl'), join(dataDir, 'config.json')].map(modeOf)).toEqual(['600', '600']);
    expect(modeOf('/dev/null')).toBe('666');
    // Private already: nothing to say.
    expect(await keepDataDirPrivate(dataDir)).toBeNull();
  });

  it('missing: made 0700, nothing to say', async () => {
    const dataDir = join(mkdtempSync(join(scratch, 'new-')), 'a', 'data');
    expect(await keepDataDirPrivate(dataDir)).toBeNull();
    expect(modeOf(dataDir)).toBe('700');
  });

  it.runIf(process.getuid?.() === 0 && typeof process.seteuid === 'function')('owned by another account: said, and left as it is', async () => {
    // Beside the scratch folder (0700, which "nobody" could not enter).
    const parent = mkdtempSync(join(tmpdir(), 'mnemo-private-theirs-'));
    chmodSync(parent, 0o755);
    onTestFinished(() => rmSync(parent, { recursive: true, force: true }));
    const dataDir = join(parent, 'data');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    // This process acts as "nobody" for the check: the folder is root's.
    process.seteuid!(65534);
    let line: string | null;
    try {
      line = await keepDataDirPrivate(dataDir);
    } finally {
      process.seteuid!(0);
    }
    expect(line).toBe(`warning: the data directory ${dataDir} can be read by other accounts (mode 755) and cannot be made owner-only: it belongs to another account (uid 0); going on`);
    expect(modeOf(dataDir)).toBe('755');
  });
});
