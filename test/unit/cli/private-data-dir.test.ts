/**
 * A data directory open to other accounts (made by hand, by an older version, under a loose
 * umask) is made owner-only by the commands that read it, as a run does: `mnemo sessions` (and
 * `show`, `memory show`), with everything in it, and one line on stderr says so. Real files, the
 * real CLI in a child process.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mnemo } from '../store/helpers';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-private-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** A data directory as another tool or an older version might leave it: 755 folders, 644 files. */
function wideDataDir(): { dataDir: string; file: string; folder: string; inner: string } {
  const dataDir = join(mkdtempSync(join(scratch, 'home-')), 'data');
  const folder = join(dataDir, 'notes');
  mkdirSync(folder, { recursive: true });
  const file = join(dataDir, 'config.json');
  const inner = join(folder, 'todo.txt');
  writeFileSync(file, '{}');
  writeFileSync(inner, 'private');
  chmodSync(dataDir, 0o755);
  chmodSync(folder, 0o755);
  chmodSync(file, 0o644);
  chmodSync(inner, 0o644);
  return { dataDir, file, folder, inner };
}

const tightened = (dataDir: string) => `mnemo: the data directory ${dataDir} could be read by other accounts (mode 755); it is now owner-only (folders 700, files 600)\n`;

describe.skipIf(process.platform === 'win32')('a wide data directory', { timeout: 60_000, concurrent: true }, () => {
  it('is made owner-only by mnemo sessions, everything in it, and said in one line', async () => {
    const { dataDir, file, folder, inner } = wideDataDir();
    const listed = await mnemo(['sessions', '--json', '--data-dir', dataDir]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe(tightened(dataDir));
    expect({ dataDir: mode(dataDir), file: mode(file), folder: mode(folder), inner: mode(inner) }).toEqual({ dataDir: '700', file: '600', folder: '700', inner: '600' });
    // What it made there afterwards (the sample session) is owner-only too.
    const [sample] = JSON.parse(listed.stdout) as Array<{ id: string }>;
    expect(mode(join(dataDir, 'sessions', sample?.id ?? ''))).toBe('700');

    // Said once: the second time there is nothing to tighten.
    const again = await mnemo(['sessions', '--data-dir', dataDir]);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
  });

  it('is made owner-only by mnemo show and mnemo memory show too', async () => {
    for (const command of [['show', 'last'], ['memory', 'show', 'last']]) {
      const { dataDir, inner } = wideDataDir();
      const shown = await mnemo([...command, '--data-dir', dataDir]);
      // No sessions there: exit 1 with the reason, after the data directory was tightened.
      expect(shown.code).toBe(1);
      expect(shown.stderr.startsWith(tightened(dataDir)), shown.stderr).toBe(true);
      expect([mode(dataDir), mode(inner)]).toEqual(['700', '600']);
    }
  });

  it('a data directory that does not exist is not made by a command that only reads', async () => {
    const dataDir = join(scratch, 'nowhere', 'data');
    const shown = await mnemo(['show', 'last', '--data-dir', dataDir]);
    expect(shown.code).toBe(1);
    expect(() => statSync(dataDir)).toThrow();
  });
});
