/**
 * `mnemo sessions --json` and `mnemo show --json` name the desktop a run used, as its
 * session.json records it: the user's display, or a private one with its size and apps. The real
 * CLI in a child process over sessions written by the real recorder.
 */
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDesktop } from '../../../src/shared/desktop';
import { indexPath } from '../../../src/main/store/session-index';
import { mnemo, recordSession, type Recorded } from './helpers';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-store-desktop-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PRIVATE: RunDesktop = { private: true, size: '1024x768', apps: ['xterm -title notes', 'chromium --app=http://127.0.0.1:9/form'], display: ':201' };
const USERS: RunDesktop = { private: false, display: ':0' };

let dataDir: string;
let onPrivate: Recorded;
let onUsers: Recorded;
let unrecorded: Recorded;

beforeAll(async () => {
  dataDir = mkdtempSync(join(scratch, 'data-'));
  const now = Date.now();
  unrecorded = await recordSession(dataDir, { task: 'Before desktops were recorded', startedAt: now - 3000, steps: 1 });
  onUsers = await recordSession(dataDir, { task: 'On the user display', startedAt: now - 2000, steps: 1, desktop: USERS });
  onPrivate = await recordSession(dataDir, { task: 'On a private desktop', startedAt: now - 1000, steps: 2, desktop: PRIVATE });
});

function json<T>(run: { code: number | null; stdout: string; stderr: string }): T {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

describe('the desktop a run used', { timeout: 60_000 }, () => {
  it('is in session.json as the recorder wrote it', () => {
    expect(JSON.parse(readFileSync(join(onPrivate.directory, 'session.json'), 'utf8')).desktop).toEqual(PRIVATE);
  });

  it('mnemo sessions --json: each session with its desktop; none for one that did not record it', async () => {
    const listed = json<Array<{ id: string; desktop?: unknown }>>(await mnemo(['sessions', '--json', '--data-dir', dataDir]));
    expect(listed.map(({ id, desktop }) => ({ id, desktop }))).toEqual([
      { id: onPrivate.id, desktop: PRIVATE },
      { id: onUsers.id, desktop: USERS },
      { id: unrecorded.id, desktop: undefined },
    ]);
    expect(Object.keys(listed[2] as object)).not.toContain('desktop');
  });

  it('mnemo show --json: the desktop, private or not, with its size and apps; null when not recorded', async () => {
    expect(json<{ desktop: unknown }>(await mnemo(['show', onPrivate.id, '--json', '--data-dir', dataDir])).desktop).toEqual(PRIVATE);
    expect(json<{ desktop: unknown }>(await mnemo(['show', onUsers.id, '--json', '--data-dir', dataDir])).desktop).toEqual(USERS);
    expect(json<{ desktop: unknown }>(await mnemo(['show', unrecorded.id, '--json', '--data-dir', dataDir])).desktop).toBeNull();
  });

  it('a session index written before desktops were listed is read again from the session folders', async () => {
    const oldDir = mkdtempSync(join(scratch, 'old-index-'));
    const session = await recordSession(oldDir, { task: 'Listed by an older mnemo', steps: 1, desktop: PRIVATE });
    // The index as Mnemo wrote it before: the same summary, without the desktop.
    const meta = JSON.parse(readFileSync(join(session.directory, 'session.json'), 'utf8')) as Record<string, unknown>;
    const { desktop: _left, ...withoutDesktop } = meta;
    writeFileSync(indexPath(oldDir), `${JSON.stringify({ v: 1, ...withoutDesktop })}\n`);

    const listed = json<Array<{ id: string; desktop?: unknown }>>(await mnemo(['sessions', '--json', '--data-dir', oldDir]));
    expect(listed).toEqual([expect.objectContaining({ id: session.id, task: 'Listed by an older mnemo', desktop: PRIVATE })]);
    // Rewritten with the desktop, so the next listing reads the index alone.
    const lines = readFileSync(indexPath(oldDir), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { v: number; desktop?: unknown });
    expect(lines).toEqual([expect.objectContaining({ v: 1, desktop: PRIVATE })]);
  });
});
