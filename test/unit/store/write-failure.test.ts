/**
 * A session whose writes fail part-way: the recorder says why in words, leaves no half file, and
 * writes the ending where a full disk still lets it through; the reader and the store then read
 * the session as `failed` with its reason, never as `interrupted`. The full disk is a real tmpfs
 * (root), or /dev/full behind a file name, which fails every write with ENOSPC.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import { readSession } from '../../../src/main/store/session-reader';
import { SessionStore } from '../../../src/main/store/session-store';
import { ENDING_BYTES, encodeEnding } from '../../../src/main/store/session-ending';
import { SessionBuilder } from '../../fixtures/session-builder';
import { canMount, mountSmallDisk, type SmallDisk } from '../disk/small-disk';
import { FRAME, recordSession, releaseOpenRecorders } from './helpers';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-write-failure-'));
const disks: SmallDisk[] = [];
afterAll(async () => {
  await releaseOpenRecorders();
  for (const disk of disks) disk.release();
  rmSync(scratch, { recursive: true, force: true });
});

const deadWriters = (dataDir: string) => new SessionStore(dataDir, { liveness: () => 'dead' });
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

/** A session with one whole step, as the loop records it, left open for more. */
async function oneStep(dataDir: string): Promise<SessionBuilder> {
  const session = await SessionBuilder.create(dataDir, { task: 'Type', model: 'gpt-4.1', family: 'tools' });
  await session.record({ type: 'run-started', task: 'Type', model: 'gpt-4.1', family: 'tools', limits: { maxSteps: 50, maxCostUsd: null } });
  await session.record({ type: 'step-started', step: 1 });
  const screenshot = session.recorder.saveScreenshot(1, Buffer.alloc(3000, 1), 'image/jpeg', { width: 640, height: 400 });
  await session.record({ type: 'observation', step: 1, screenshot, frame: FRAME });
  await session.record({ type: 'step-finished', step: 1, durationMs: 10, costUsd: 0 });
  await session.recorder.flush();
  return session;
}

const runFinished = (reason: string): Record<string, unknown> => ({
  type: 'run-finished',
  status: 'failed',
  reason,
  summary: null,
  steps: 2,
  usage: { inputTokens: 10, outputTokens: 2, costUsd: 0 },
});

describe('the recorder on a disk that fills up', () => {
  it('/dev/full behind a screenshot: the failure in words, no half file, the marker and the ending written at once', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const session = await oneStep(dataDir);
    const { recorder } = session;
    symlinkSync('/dev/full', join(recorder.directory, 'screenshots', 'step-0002.jpg'));
    recorder.saveScreenshot(2, Buffer.alloc(3000, 2), 'image/jpeg', { width: 640, height: 400 });
    await recorder.written();

    expect(recorder.failure).toBe(
      `the disk holding ${join(dataDir, 'sessions')} is full (writing screenshot screenshots/step-0002.jpg: ENOSPC: no space left on device, write)`,
    );
    expect(existsSync(join(recorder.directory, 'screenshots', 'step-0002.jpg'))).toBe(false);
    expect(existsSync(join(recorder.directory, 'write-failed'))).toBe(true);
    // Said on disk before the run ends, in the space reserved for it.
    expect(statSync(join(recorder.directory, 'ending.json')).size).toBe(ENDING_BYTES);
    expect(readJson(join(recorder.directory, 'ending.json'))).toMatchObject({ status: 'failed', reason: `the session could not be recorded, so the run stopped: ${recorder.failure}`, steps: 1 });

    // The run's own ending replaces it, and the session reads back failed with its one step.
    await session.record(runFinished(`the session could not be recorded, so the run stopped before acting: ${recorder.failure}`));
    await recorder.close();
    const read = await readSession(dataDir, recorder.sessionId);
    expect(read.ok && read.session.meta).toMatchObject({ status: 'failed', reason: expect.stringContaining('stopped before acting: the disk holding') });
    expect(read.ok && read.session.steps.map((step) => step.step)).toEqual([1]);
  });

  it.runIf(canMount)('a real full disk: session.json stays at the last step, yet the session reads back failed, not interrupted', async () => {
    const disk = mountSmallDisk('200k');
    disks.push(disk);
    const session = await oneStep(disk.path);
    const { recorder } = session;
    disk.fill();
    recorder.saveScreenshot(2, Buffer.alloc(30_000, 2), 'image/jpeg', { width: 640, height: 400 });
    await session.record({ type: 'observation', step: 2, screenshot: { id: 'step-0002', path: 'screenshots/step-0002.jpg', width: 640, height: 400, mime: 'image/jpeg' }, frame: FRAME });
    await recorder.written();
    expect(recorder.failure).toMatch(new RegExp(`^the disk holding ${join(disk.path, 'sessions')} is full \\(writing screenshot screenshots/step-0002\\.jpg: ENOSPC`));
    const reason = `the session could not be recorded, so the run stopped before acting: ${recorder.failure}`;
    await session.record(runFinished(reason));
    await recorder.close();

    // No new file fitted: session.json is the one written at the start (it is not rewritten per
    // step). Whole lines only in the events (a line may still fit in the last block the file holds).
    expect(readJson(join(recorder.directory, 'session.json'))).toMatchObject({ status: 'running', steps: 0 });
    const lines = readFileSync(join(recorder.directory, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line) as AgentEvent).not.toThrow();

    const read = await readSession(disk.path, recorder.sessionId);
    expect(read.ok && read.session.meta).toMatchObject({ status: 'failed', reason, steps: 2 });
    // Whoever starts next does not take the dead writer for a crash.
    const listing = await deadWriters(disk.path).list();
    expect(listing.interrupted).toEqual([]);
    expect(listing.sessions).toEqual([expect.objectContaining({ id: recorder.sessionId, status: 'failed', steps: 2 })]);
  });
});

describe('reading a session that ended on a write failure', () => {
  it('with only the marker (the ending could not be written either): failed, and says so, rather than a crash', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const { directory, id, recorder } = await recordSession(dataDir, { steps: 2, finish: null });
    await recorder.flush();
    writeFileSync(join(directory, 'write-failed'), '');
    const read = await readSession(dataDir, id);
    expect(read.ok && read.session.meta).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^the run ended on a write failure: .*\(2 steps recorded\)/),
      steps: 2,
    });
    expect(read.ok && read.session.meta.endedAt).toBe(read.ok ? read.session.events.at(-1)?.at : -1);
    expect(read.ok && read.session.warnings).toEqual([{ line: 0, file: 'write-failed', message: "the record stops before the run's end (writing failed, most likely); the end was read from write-failed" }]);
    const listing = await deadWriters(dataDir).list();
    expect(listing.interrupted).toEqual([]);
    expect(listing.sessions[0]).toMatchObject({ id, status: 'failed' });
  });

  it('without marker or ending: a writer that died is still a crash (interrupted)', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const { id, recorder } = await recordSession(dataDir, { steps: 2, finish: null });
    await recorder.flush();
    const listing = await deadWriters(dataDir).list();
    expect(listing.interrupted).toEqual([id]);
    expect(listing.sessions[0]).toMatchObject({ id, status: 'interrupted' });
  });

  it('a damaged session.json still takes the ending from the reserved space', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const { directory, id, recorder } = await recordSession(dataDir, { steps: 1, finish: null });
    await recorder.flush();
    writeFileSync(join(directory, 'ending.json'), encodeEnding({ status: 'failed', reason: 'the disk holding ~/.mnemo/sessions is full', endedAt: 5, steps: 1, usage: { inputTokens: 1, outputTokens: 1, costUsd: 0 } }));
    writeFileSync(join(directory, 'session.json'), '{"id": "trunc');
    const read = await readSession(dataDir, id);
    expect(read.ok && read.session.meta).toMatchObject({ status: 'failed', reason: 'the disk holding ~/.mnemo/sessions is full', endedAt: 5 });
  });
});

describe('the reserved ending', () => {
  it('always takes exactly its reserved bytes: a reason too long is shortened', () => {
    const usage = { inputTokens: 1, outputTokens: 1, costUsd: 0 };
    const long = encodeEnding({ status: 'failed', reason: `é${'x'.repeat(10_000)}`, endedAt: 1, steps: 3, usage });
    expect(long.length).toBe(ENDING_BYTES);
    const parsed = JSON.parse(long.toString('utf8')) as { reason: string; steps: number };
    expect(parsed.reason.endsWith('…')).toBe(true);
    expect(parsed.steps).toBe(3);
    const short = encodeEnding({ status: 'finished', reason: 'done', endedAt: 1, steps: 1, usage });
    expect(short.length).toBe(ENDING_BYTES);
    expect(JSON.parse(short.toString('utf8'))).toMatchObject({ status: 'finished', reason: 'done' });
  });
});
