/**
 * The files `mnemo export` writes where the user asks hold screenshots and what was typed: under
 * `umask 000` they are still owner-only (0600; a file there before, 0644, is replaced by one that
 * is), the data directory the command made is 0700, and a file that cannot be written is one line
 * naming it and why, never a stack trace. The real CLI in a child process, real files.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFixtureSession, type RecordedFixture } from '../../fixtures/session-fixture';
import { runMnemo } from '../../fixtures/mnemo-cli';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-user-files-'));
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

let umask: number;
let dataDir: string;
let fixture: RecordedFixture;

beforeAll(async () => {
  // The children inherit it: every file they make would be 0666, every folder 0777, unless Mnemo says otherwise.
  umask = process.umask(0);
  dataDir = join(scratch, 'data');
  fixture = await recordFixtureSession(dataDir, { missingStep: null });
});
afterAll(() => {
  process.umask(umask);
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(process.platform === 'win32')('mnemo export under umask 000', { timeout: 60_000, concurrent: true }, () => {
  it('writes the HTML report and the raw record 0600, and leaves no temporary file', async () => {
    const out = mkdtempSync(join(scratch, 'out-'));
    const html = join(out, 'report.html');
    const json = join(out, 'record.json');
    // A file there before, readable by everyone, is replaced by an owner-only one.
    writeFileSync(json, 'old', { mode: 0o644 });
    const run = await runMnemo(['export', fixture.sessionId, '--html', html, '--json', json, '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
    expect({ html: mode(html), json: mode(json) }).toEqual({ html: '600', json: '600' });
    expect(readdirSync(out).sort()).toEqual(['record.json', 'report.html']);
  });

  it('leaves every folder of the data directory 0700 and every file 0600', async () => {
    const run = await runMnemo(['export', fixture.sessionId, '--html', join(mkdtempSync(join(scratch, 'out-')), 'r.html'), '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
    const wrong: string[] = [];
    const visit = (folder: string) => {
      if (mode(folder) !== '700') wrong.push(`${folder} ${mode(folder)}`);
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) visit(path);
        else if (mode(path) !== '600') wrong.push(`${path} ${mode(path)}`);
      }
    };
    visit(dataDir);
    expect(wrong).toEqual([]);
  });

  it('says a file it cannot write in one line naming it and the cause', async () => {
    const missing = join(scratch, 'missing', 'dir');
    for (const [flag, file] of [
      ['--html', join(missing, 'report.html')],
      ['--json', join(missing, 'record.json')],
    ] as const) {
      const run = await runMnemo(['export', fixture.sessionId, flag, file, '--data-dir', dataDir]);
      expect(run.code, flag).toBe(1);
      expect(run.stderr, flag).toBe(`mnemo export: cannot write ${file}: the folder ${missing} does not exist (ENOENT)\n`);
    }
    const folder = join(scratch, 'a-folder');
    mkdirSync(folder);
    const run = await runMnemo(['export', fixture.sessionId, '--json', folder, '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^mnemo export: cannot write ${folder}: [^\\n]+\\n$`));
  });
});
