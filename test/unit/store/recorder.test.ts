/**
 * FileRunRecorder on real files: what is on disk while a run goes on and after it ends, and that
 * a failed write becomes a value instead of a rejection.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import { FileRunRecorder, type SessionMeta } from '../../../src/main/store/run-recorder';
import { readIndex } from '../../../src/main/store/session-index';
import { readSessionMeta } from '../../../src/main/store/session-reader';
import { currentWriter } from '../../../src/main/store/writer-identity';
import { recordSession, STEP_COST, releaseOpenRecorders } from './helpers';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-recorder-'));
afterAll(async () => {
  await releaseOpenRecorders();
  rmSync(scratch, { recursive: true, force: true });
});

const metaOf = (directory: string) => JSON.parse(readFileSync(join(directory, 'session.json'), 'utf8')) as SessionMeta;

describe('FileRunRecorder', () => {
  it('while the run goes on: session.json as written at the start, with the writer named; the last finished step read from the events', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const { directory, id } = await recordSession(dataDir, { steps: 2, finish: null });
    const meta = metaOf(directory);
    // Written when the run started, not rewritten per step.
    expect(meta).toMatchObject({ id, status: 'running', steps: 0, costUsd: 0, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 }, endedAt: null });
    const read = await readSessionMeta(directory);
    expect(read.ok && read.meta).toMatchObject({ id, status: 'running', steps: 2, costUsd: STEP_COST * 2, usage: { inputTokens: 2000, outputTokens: 40, costUsd: STEP_COST * 2 }, endedAt: null });
    expect(meta.writer).toEqual(currentWriter());
    expect(meta.writer?.pid).toBe(process.pid);
    // The index knows it from its first moment.
    const index = await readIndex(dataDir);
    expect(index.state === 'read' && index.entries.get(id)).toMatchObject({ status: 'running', task: 'Move the mouse around' });
  });

  it('at the end: the final status, usage and the bytes it wrote, in session.json and the index', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const { directory, id } = await recordSession(dataDir, { steps: 3, finish: 'limit', replies: true, fullResolution: true });
    const meta = metaOf(directory);
    expect(meta).toMatchObject({ status: 'limit', steps: 3, costUsd: STEP_COST * 3, reason: 'it went wrong', usage: { inputTokens: 3000, outputTokens: 60 } });
    const sizeOf = (relative: string) => statSync(join(directory, relative)).size;
    const files = [
      'events.jsonl',
      ...readdirSync(join(directory, 'screenshots')).map((name) => `screenshots/${name}`),
      ...readdirSync(join(directory, 'replies')).map((name) => `replies/${name}`),
    ];
    expect(files).toHaveLength(1 + 6 + 3);
    expect(meta.bytes).toBe(files.reduce((sum, file) => sum + sizeOf(file), 0));
    const index = await readIndex(dataDir);
    expect(index.state === 'read' && index).toMatchObject({ lines: 2, badLines: 0 });
    expect(index.state === 'read' && index.entries.get(id)).toMatchObject({ status: 'limit', steps: 3, bytes: meta.bytes });
  });

  it('closed without a run-finished event: marked interrupted by itself', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const { directory, recorder } = await recordSession(dataDir, { steps: 1, finish: null });
    await recorder.close();
    expect(metaOf(directory)).toMatchObject({ status: 'interrupted', steps: 1, reason: expect.stringMatching(/closed before the run finished/) });
  });

  it('writes events in the order they were recorded, even when nobody waits', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const recorder = await FileRunRecorder.create(dataDir, { task: 't', model: 'm', family: 'tools' });
    for (let i = 0; i < 200; i++) void recorder.record({ type: 'note', step: 1, message: `n${i}`, runId: recorder.sessionId, at: i } as AgentEvent);
    await recorder.close();
    const lines = readFileSync(join(recorder.directory, 'events.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(Array.from({ length: 200 }, (_, i) => `n${i}`));
  });

  it('the last screenshots read back from memory, the older ones from disk: a long run holds only a few', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const recorder = await FileRunRecorder.create(dataDir, { task: 't', model: 'm', family: 'tools' });
    const refs = Array.from({ length: 8 }, (_, i) => recorder.saveScreenshot(i + 1, Buffer.alloc(100, i + 1), 'image/jpeg', { width: 1, height: 1 }));
    await recorder.flush();
    for (const ref of refs) expect(readFileSync(join(recorder.directory, ref.path))).toEqual(Buffer.alloc(100, Number(ref.id.slice(-1))));
    // Gone from disk: only what the recorder still holds reads back.
    rmSync(join(recorder.directory, 'screenshots'), { recursive: true });
    const back = await Promise.all(refs.map((ref) => recorder.readScreenshot(ref).then((data) => data[0], () => null)));
    expect(back).toEqual([null, null, null, null, 5, 6, 7, 8]);
    await recorder.close();
  });

  it('a write that fails is a value (failure), never a rejection', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const recorder = await FileRunRecorder.create(dataDir, { task: 't', model: 'm', family: 'tools' });
    expect(recorder.failure).toBeNull();
    rmSync(recorder.directory, { recursive: true, force: true });
    const ref = await recorder.saveScreenshot(1, Buffer.alloc(10), 'image/png', { width: 1, height: 1 });
    expect(ref).toEqual({ id: 'step-0001', path: 'screenshots/step-0001.png', width: 1, height: 1, mime: 'image/png' });
    await recorder.saveReply(1, 'reply');
    await recorder.record({ type: 'step-finished', step: 1, durationMs: 1, costUsd: 0, runId: recorder.sessionId, at: 1, seq: 1 });
    await recorder.flush();
    await recorder.close();
    expect(recorder.failure).toMatch(/sessions\/[\w-]+ \(or a folder in it\) was removed while Mnemo was writing to it \(writing screenshot screenshots\/step-0001\.png: ENOENT/);
    expect(existsSync(recorder.directory)).toBe(false);
  });
});
