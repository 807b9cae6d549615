/**
 * SessionStore on real data directories: the index (kept, rebuilt, repaired), search, marking
 * sessions whose process is gone as interrupted (a real process killed with SIGKILL among them),
 * and retention by age and by size.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionMeta } from '../../../src/main/store/run-recorder';
import { indexPath, readIndex } from '../../../src/main/store/session-index';
import { matchesSearch, SessionStore } from '../../../src/main/store/session-store';
import { currentWriter } from '../../../src/main/store/writer-identity';
import { deadPid, recordSession, repoRoot, STEP_COST, releaseOpenRecorders } from './helpers';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-store-'));
afterAll(async () => {
  await releaseOpenRecorders();
  rmSync(scratch, { recursive: true, force: true });
});

const DAY = 86_400_000;
const newDataDir = () => mkdtempSync(join(scratch, 'data-'));
const metaOf = (directory: string) => JSON.parse(readFileSync(join(directory, 'session.json'), 'utf8')) as SessionMeta;
const indexLines = (dataDir: string) => readFileSync(indexPath(dataDir), 'utf8').trim().split('\n');

async function threeSessions(dataDir: string) {
  const now = Date.now();
  const a = await recordSession(dataDir, { task: 'Open the Settings window', startedAt: now - 3 * DAY, steps: 2 });
  const b = await recordSession(dataDir, { task: 'Fill in the FORM with Ada', startedAt: now - 2 * DAY, steps: 4, finish: 'failed' });
  const c = await recordSession(dataDir, { task: 'Send the weekly report', startedAt: now - DAY, steps: 1 });
  return { a, b, c };
}

describe('listing through the index', () => {
  it('lists newest first with the index, without reading session folders', async () => {
    const dataDir = newDataDir();
    const { a, b, c } = await threeSessions(dataDir);
    const listing = await new SessionStore(dataDir).list();
    expect(listing.warnings).toEqual([]);
    expect(listing.sessions.map((s) => s.id)).toEqual([c.id, b.id, a.id]);
    expect(listing.sessions[1]).toMatchObject({ task: 'Fill in the FORM with Ada', status: 'failed', steps: 4, costUsd: STEP_COST * 4, model: 'gpt-4.1' });
    // The list comes from the index: a session.json edited behind its back does not show.
    writeFileSync(join(b.directory, 'session.json'), JSON.stringify({ ...metaOf(b.directory), task: 'edited' }));
    expect((await new SessionStore(dataDir).list()).sessions[1]!.task).toBe('Fill in the FORM with Ada');
  });

  it('an empty or absent data directory lists nothing and creates nothing', async () => {
    const dataDir = join(scratch, 'nothing-here');
    expect(await new SessionStore(dataDir).list()).toEqual({ sessions: [], interrupted: [], warnings: [] });
    expect(existsSync(dataDir)).toBe(false);
  });

  it('a missing index is rebuilt from the session folders', async () => {
    const dataDir = newDataDir();
    const { a, b, c } = await threeSessions(dataDir);
    unlinkSync(indexPath(dataDir));
    const listing = await new SessionStore(dataDir).list();
    expect(listing.sessions.map((s) => [s.id, s.status])).toEqual([
      [c.id, 'finished'],
      [b.id, 'failed'],
      [a.id, 'finished'],
    ]);
    expect(listing.warnings).toEqual([]);
    expect(indexLines(dataDir)).toHaveLength(3);
  });

  it('rebuildIndex replaces whatever is there', async () => {
    const dataDir = newDataDir();
    await threeSessions(dataDir);
    writeFileSync(indexPath(dataDir), 'not an index at all\n');
    expect((await new SessionStore(dataDir).rebuildIndex()).sessions).toBe(3);
    expect(indexLines(dataDir).map((line) => JSON.parse(line).task)).toEqual(['Open the Settings window', 'Fill in the FORM with Ada', 'Send the weekly report']);
  });

  it('damaged index lines: a warning, the list repaired from the folders, the index rewritten clean', async () => {
    const dataDir = newDataDir();
    const { a, b, c } = await threeSessions(dataDir);
    const lines = indexLines(dataDir);
    // b's lines are damaged: its start line cut short, its finish line garbage.
    const damaged = lines.map((line) => (line.includes(b.id) ? line.slice(0, 25) : line));
    writeFileSync(indexPath(dataDir), `${damaged.join('\n')}\n{"v":1,"id":"x","task":\n`);
    const first = await new SessionStore(dataDir).list();
    expect(first.warnings).toEqual([{ message: 'the session index had 3 damaged line(s); repaired from the session folders' }]);
    expect(first.sessions.map((s) => s.id)).toEqual([c.id, b.id, a.id]);
    expect(first.sessions[1]).toMatchObject({ status: 'failed', steps: 4 });
    const second = await new SessionStore(dataDir).list();
    expect(second.warnings).toEqual([]);
    expect(second.sessions).toEqual(first.sessions);
  });

  it('a folder the index does not know is added; an entry whose folder is gone is dropped', async () => {
    const dataDir = newDataDir();
    const { a, b, c } = await threeSessions(dataDir);
    writeFileSync(indexPath(dataDir), indexLines(dataDir).filter((line) => !line.includes(a.id)).join('\n') + '\n');
    rmSync(c.directory, { recursive: true });
    const listing = await new SessionStore(dataDir).list();
    expect(listing.sessions.map((s) => s.id)).toEqual([b.id, a.id]);
    // a is in the index again.
    const index = await readIndex(dataDir);
    expect(index.state === 'read' && index.entries.get(a.id)).toMatchObject({ status: 'finished', task: 'Open the Settings window' });
  });

  it('a folder with a garbage session.json is listed from its events, with a warning', async () => {
    const dataDir = newDataDir();
    const { b } = await threeSessions(dataDir);
    writeFileSync(join(b.directory, 'session.json'), '{{{');
    unlinkSync(indexPath(dataDir));
    const listing = await new SessionStore(dataDir).list();
    expect(listing.sessions.find((s) => s.id === b.id)).toMatchObject({ task: 'Fill in the FORM with Ada', status: 'failed', steps: 4 });
    expect(listing.warnings).toEqual([{ id: b.id, message: expect.stringMatching(/session.json is not valid JSON .*; listed from its events$/) }]);
  });

  it('a folder being created right now (no session.json yet) is left alone', async () => {
    const dataDir = newDataDir();
    await threeSessions(dataDir);
    mkdirSync(join(dataDir, 'sessions', '20991231-000000-aaaaaa'));
    const listing = await new SessionStore(dataDir).list();
    expect(listing.sessions).toHaveLength(3);
    expect(listing.warnings).toEqual([]);
  });

  it('an index still saying running for a session that finished (its last line lost) is corrected', async () => {
    const dataDir = newDataDir();
    const { c } = await threeSessions(dataDir);
    writeFileSync(indexPath(dataDir), indexLines(dataDir).slice(0, -1).join('\n') + '\n');
    const listing = await new SessionStore(dataDir).list();
    expect(listing.sessions[0]).toMatchObject({ id: c.id, status: 'finished' });
    expect(listing.interrupted).toEqual([]);
  });
});

describe('search', () => {
  it('matches every word, ignoring case, in the task, status, id or start date', async () => {
    const dataDir = newDataDir();
    const { a, b, c } = await threeSessions(dataDir);
    const store = new SessionStore(dataDir);
    const ids = async (search: string) => (await store.list({ search })).sessions.map((s) => s.id);
    expect(await ids('form')).toEqual([b.id]);
    expect(await ids('ADA fill')).toEqual([b.id]);
    expect(await ids('the')).toEqual([c.id, b.id, a.id]);
    expect(await ids('failed')).toEqual([b.id]);
    expect(await ids(a.id.slice(-6))).toEqual([a.id]);
    const aStart = (await store.list()).sessions.find((s) => s.id === a.id)!.startedAt;
    expect(await ids(new Date(aStart).toISOString().slice(0, 10))).toEqual([a.id]);
    expect(await ids('weekly settings')).toEqual([]);
    expect(await ids('   ')).toEqual([c.id, b.id, a.id]);
  });

  it('matchesSearch alone', () => {
    const summary = { id: '20260102-030405-abcdef', task: 'Open Ünïcode Files', status: 'interrupted' as const, startedAt: Date.UTC(2026, 0, 2, 3, 4, 5), endedAt: null, steps: 0, costUsd: 0, model: '', family: '', bytes: null };
    expect(matchesSearch(summary, 'ünïcode')).toBe(true);
    expect(matchesSearch(summary, 'INTERRUPTED files')).toBe(true);
    expect(matchesSearch(summary, '2026-01-02')).toBe(true);
    expect(matchesSearch(summary, 'closed')).toBe(false);
  });
});

describe('sessions whose recording process is gone', () => {
  it('a dead writer: marked interrupted with the progress of its events, once', async () => {
    const dataDir = newDataDir();
    const pid = deadPid();
    const { id, directory, events } = await recordSession(dataDir, { steps: 2, finish: null, writer: { ...currentWriter(), pid } });
    const store = new SessionStore(dataDir);
    const listing = await store.list();
    expect(listing.interrupted).toEqual([id]);
    expect(listing.sessions[0]).toMatchObject({ id, status: 'interrupted', steps: 2, costUsd: STEP_COST * 2 });
    const meta = metaOf(directory);
    expect(meta).toMatchObject({ status: 'interrupted', steps: 2, endedAt: events.at(-1)!.at, usage: { inputTokens: 2000, outputTokens: 40 } });
    expect(meta.reason).toMatch(new RegExp(`pid ${pid} .*ended before the run finished.*2 steps completed`));
    expect(meta.bytes).toBeGreaterThan(4000);
    const again = await store.list();
    expect(again.interrupted).toEqual([]);
    expect(again.sessions[0]!.status).toBe('interrupted');
  });

  it('a live writer (this process): still running, with its current progress', async () => {
    const dataDir = newDataDir();
    const { id, recorder } = await recordSession(dataDir, { steps: 1, finish: null });
    const store = new SessionStore(dataDir);
    expect((await store.list()).sessions[0]).toMatchObject({ id, status: 'running', steps: 1 });
    await recorder.record({ type: 'step-finished', step: 2, durationMs: 1, costUsd: 1.5, runId: id, at: Date.now(), seq: 1000 });
    await recorder.flush();
    const listing = await store.list();
    expect(listing.interrupted).toEqual([]);
    expect(listing.sessions[0]).toMatchObject({ id, status: 'running', steps: 2, costUsd: 1.5 });
    await recorder.close();
  });

  it('a reused pid (same pid, another start time) or a reboot counts as dead; another host is left alone', async () => {
    const dataDir = newDataDir();
    const me = currentWriter();
    const reused = await recordSession(dataDir, { steps: 1, finish: null, writer: { ...me, startTicks: (me.startTicks ?? 0) + 12345 } });
    const rebooted = await recordSession(dataDir, { steps: 1, finish: null, writer: { ...me, bootId: 'another-boot' } });
    const remote = await recordSession(dataDir, { steps: 1, finish: null, writer: { ...me, hostname: `${me.hostname}-elsewhere`, pid: deadPid() } });
    const listing = await new SessionStore(dataDir).list();
    // Start time and boot id come from /proc: on Linux they are always there.
    if (process.platform === 'linux') expect([me.startTicks, me.bootId].map((v) => typeof v)).toEqual(['number', 'string']);
    expect(listing.interrupted).toEqual(me.startTicks !== undefined ? [reused.id, rebooted.id].sort() : []);
    expect(listing.sessions.find((s) => s.id === remote.id)!.status).toBe('running');
    for (const session of [reused, rebooted, remote]) await session.recorder.close();
  });

  it('read() marks the session it reads', async () => {
    const dataDir = newDataDir();
    const { id } = await recordSession(dataDir, { steps: 3, finish: null, writer: { ...currentWriter(), pid: deadPid() } });
    const read = await new SessionStore(dataDir).read(id.slice(0, 18));
    expect(read.ok && read.session.meta.status).toBe('interrupted');
    expect(read.interrupted).toBe(true);
    const index = await readIndex(dataDir);
    expect(index.state === 'read' && index.entries.get(id)?.status).toBe('interrupted');
  });

  it('a real process killed with SIGKILL mid-step: its finished steps read back, the session interrupted', async () => {
    const dataDir = newDataDir();
    const child = spawn(process.execPath, ['bin/run-ts.js', 'test/unit/store/fixtures/record-and-hang.ts', dataDir, '3'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    const id = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.on('exit', (code) => reject(new Error(`the recording process ended early (${code})`)));
    });
    const store = new SessionStore(dataDir);
    // Alive: left running.
    expect((await store.list()).sessions[0]).toMatchObject({ id, status: 'running', steps: 3 });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const listing = await store.list();
    expect(listing.interrupted).toEqual([id]);
    expect(listing.sessions[0]).toMatchObject({ id, status: 'interrupted', steps: 3, task: 'Killed in the middle' });
    const read = await store.read(id);
    if (!read.ok) throw new Error(read.message);
    const { session } = read;
    expect(session.warnings).toEqual([]);
    expect(session.steps.map((s) => [s.step, s.durationMs !== null])).toEqual([
      [1, true],
      [2, true],
      [3, true],
      [4, false],
    ]);
    for (const step of session.steps.slice(0, 3)) {
      expect(step).toMatchObject({ actions: [{ type: 'mouse_move', x: 100 * step.step }], results: [{ ok: true }], thought: `Step ${step.step}: move on.` });
      expect(existsSync(join(session.directory, step.screenshot!.path))).toBe(true);
    }
  }, 30_000);
});

describe('retention', () => {
  it('by age: sessions started before the cutoff are deleted, a running one never', async () => {
    const dataDir = newDataDir();
    const now = Date.now();
    const old = await recordSession(dataDir, { startedAt: now - 40 * DAY, task: 'old' });
    const oldRunning = await recordSession(dataDir, { startedAt: now - 41 * DAY, task: 'old but running', finish: null });
    await recordSession(dataDir, { startedAt: now - 10 * DAY, task: 'recent' });
    const oldBytes = metaOf(old.directory).bytes;
    const store = new SessionStore(dataDir);
    const pruned = await store.prune({ maxAgeDays: 30, maxBytes: null });
    expect(pruned.deleted).toEqual([{ id: old.id, why: 'age', bytes: oldBytes }]);
    expect(pruned.keptBytes).toBeNull();
    expect(existsSync(old.directory)).toBe(false);
    expect(existsSync(oldRunning.directory)).toBe(true);
    expect(readdirSync(join(dataDir, 'sessions')).filter((name) => name.startsWith('.'))).toEqual([]);
    expect((await store.list()).sessions.map((s) => s.task)).toEqual(['recent', 'old but running']);
    expect(indexLines(dataDir).at(-1)).toBe(JSON.stringify({ v: 1, id: old.id, deleted: true }));
    await oldRunning.recorder.close();
  });

  it('by size: the oldest are deleted until all fit; running ones count but stay', async () => {
    const dataDir = newDataDir();
    const now = Date.now();
    const spec = { steps: 3, screenshotBytes: 100_000 };
    const running = await recordSession(dataDir, { ...spec, startedAt: now - 50_000, finish: null, task: 's0 running' });
    const finished = [];
    for (let i = 1; i <= 4; i++) finished.push(await recordSession(dataDir, { ...spec, startedAt: now - 50_000 + i * 1000, task: `s${i}` }));
    // One session's size is unknown to the index and session.json: measured on disk.
    const meta = metaOf(finished[1]!.directory);
    delete meta.bytes;
    writeFileSync(join(finished[1]!.directory, 'session.json'), JSON.stringify(meta));
    unlinkSync(indexPath(dataDir));

    const pruned = await new SessionStore(dataDir).prune({ maxAgeDays: null, maxBytes: 700_000 });
    expect(pruned.deleted.map((d) => [d.id, d.why])).toEqual([
      [finished[0]!.id, 'size'],
      [finished[1]!.id, 'size'],
      [finished[2]!.id, 'size'],
    ]);
    expect(pruned.deleted[1]!.bytes).toBeGreaterThan(300_000);
    expect(pruned.keptBytes).toBeLessThanOrEqual(700_000);
    expect(pruned.keptBytes).toBeGreaterThan(600_000);
    expect((await new SessionStore(dataDir).list()).sessions.map((s) => s.task)).toEqual(['s4', 's0 running']);
    await running.recorder.close();
  });

  it('nothing to do within the limits; a folder left half-deleted by a crash is cleaned up', async () => {
    const dataDir = newDataDir();
    await threeSessions(dataDir);
    mkdirSync(join(dataDir, 'sessions', '.deleting-0badc0de', 'screenshots'), { recursive: true });
    appendFileSync(join(dataDir, 'sessions', '.deleting-0badc0de', 'events.jsonl'), '{}\n');
    const pruned = await new SessionStore(dataDir).prune({ maxAgeDays: 30, maxBytes: 1e9 });
    expect(pruned.deleted).toEqual([]);
    expect(pruned.warnings).toEqual([]);
    expect(readdirSync(join(dataDir, 'sessions')).sort()).toHaveLength(4);
    expect(existsSync(join(dataDir, 'sessions', '.deleting-0badc0de'))).toBe(false);
  });
});
