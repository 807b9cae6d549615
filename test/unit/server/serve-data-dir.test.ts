/**
 * `mnemo serve` keeps the data directory private as a run does: the real command, started on a
 * data directory open to other accounts (0755, a session file 0644 inside), tightens it before it
 * serves anything (folders 0700, files 0600) and says so in one line; on a private one it says
 * nothing.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMnemo, type StartedMnemo } from '../../fixtures/mnemo-cli';
import { waitFor } from '../../fixtures/fakes';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-serve-dir-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const privacyLines = (stderr: string) => stderr.split('\n').filter((line) => line.includes('other accounts'));

/** `mnemo serve` until it has said what it says at start (its URL, or why it cannot serve), then stopped. */
async function serveAndStop(dataDir: string): Promise<string> {
  const served: StartedMnemo = startMnemo(['serve', '--port', '0', '--data-dir', dataDir], { env: { DISPLAY: ':140' } });
  await waitFor(() => served.child.exitCode !== null || /Mnemo is at /.test(served.output().stdout), 'mnemo serve to start', 300_000);
  if (served.child.exitCode === null) served.child.kill('SIGTERM');
  const result = await served.result;
  return result.stderr;
}

describe.skipIf(process.platform === 'win32')('mnemo serve on a data directory open to other accounts', () => {
  it('tightens it before serving (folders 700, files 600) and says so in one line; the next start says nothing', { timeout: 600_000 }, async () => {
    const dataDir = join(mkdtempSync(join(scratch, 'wide-')), 'data');
    const session = join(dataDir, 'sessions', '20260101-120000-abcdef');
    mkdirSync(session, { recursive: true });
    writeFileSync(join(session, 'session.json'), '{}\n', { mode: 0o644 });
    for (const folder of [dataDir, join(dataDir, 'sessions'), session]) chmodSync(folder, 0o755);
    chmodSync(join(session, 'session.json'), 0o644);

    const stderr = await serveAndStop(dataDir);
    expect(privacyLines(stderr)).toEqual([`mnemo serve: the data directory ${dataDir} could be read by other accounts (mode 755); it is now owner-only (folders 700, files 600)`]);
    expect([mode(dataDir), mode(join(dataDir, 'sessions')), mode(session), mode(join(session, 'session.json'))]).toEqual(['700', '700', '700', '600']);

    expect(privacyLines(await serveAndStop(dataDir))).toEqual([]);
  });
});
