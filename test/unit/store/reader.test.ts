/**
 * The session reader on real, then damaged, files: it never throws, skips what it cannot read
 * with a warning naming the file and line, and keeps everything else.
 */
import { appendFileSync, mkdtempSync, rmSync, readFileSync, writeFileSync, unlinkSync, truncateSync, statSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEventLines, readSession, readSessionEvents, sessionDirectory, type SessionRecord } from '../../../src/main/store/session-reader';
import { recordSession, STEP_COST, releaseOpenRecorders } from './helpers';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-reader-'));
afterAll(async () => {
  await releaseOpenRecorders();
  rmSync(scratch, { recursive: true, force: true });
});

async function recorded(spec: Parameters<typeof recordSession>[1] = {}) {
  const dataDir = mkdtempSync(join(scratch, 'data-'));
  const session = await recordSession(dataDir, spec);
  return { dataDir, ...session, eventsPath: join(session.directory, 'events.jsonl'), metaPath: join(session.directory, 'session.json') };
}

async function read(dataDir: string, id: string): Promise<SessionRecord> {
  const result = await readSession(dataDir, id);
  if (!result.ok) throw new Error(result.message);
  return result.session;
}

describe('an intact session', () => {
  it('reads back every step, with its files, and no warnings', async () => {
    const { dataDir, id, events, directory } = await recorded({ steps: 3, replies: true, fullResolution: true });
    const session = await read(dataDir, id);
    expect(session.warnings).toEqual([]);
    expect(session.events).toEqual(events);
    expect(session.meta).toMatchObject({ id, status: 'finished', steps: 3, costUsd: STEP_COST * 3, usage: { inputTokens: 3000, outputTokens: 60 } });
    expect(session.steps.map((s) => s.step)).toEqual([1, 2, 3]);
    const second = session.steps[1]!;
    expect(second).toMatchObject({
      thought: 'Step 2: move on.',
      actions: [{ type: 'mouse_move', x: 200, y: 50 }],
      results: [{ ok: true }],
      durationMs: 600,
      replyFile: 'replies/step-0002.txt',
      fullResolutionFile: 'screenshots/step-0002.full.png',
    });
    expect(readFileSync(join(directory, second.screenshot!.path))).toEqual(Buffer.alloc(2000, 2));
    expect(JSON.parse(readFileSync(join(directory, second.replyFile!), 'utf8'))).toEqual({ role: 'assistant', step: 2 });
  });
});

describe('only the events (what the window opens a session with)', () => {
  it('reads the events the whole reading reads, corrupt lines skipped alike; no events file is no events; no folder is no session', async () => {
    const { dataDir, id, events, eventsPath, directory } = await recorded({ steps: 3 });
    const whole = await read(dataDir, id);
    expect(await readSessionEvents(directory, id, dataDir)).toEqual({ ok: true, events });
    const lines = readFileSync(eventsPath, 'utf8').split('\n');
    lines[9] = `${lines[9]!.slice(0, 30)}garbage{{`;
    writeFileSync(eventsPath, lines.join('\n'));
    const damaged = await readSessionEvents(directory, id, dataDir);
    expect(damaged).toEqual({ ok: true, events: (await read(dataDir, id)).events });
    expect(damaged.ok && damaged.events.length).toBe(whole.events.length - 1);
    unlinkSync(eventsPath);
    expect(await readSessionEvents(directory, id, dataDir)).toEqual({ ok: true, events: [] });
    const gone = sessionDirectory(dataDir, '20250101-000000-aaaaaa');
    expect(await readSessionEvents(gone, '20250101-000000-aaaaaa', dataDir)).toEqual({ ok: false, message: `no session "20250101-000000-aaaaaa" in ${dataDir}` });
  });
});

describe('damaged events.jsonl', () => {
  it('a corrupt line in the middle is skipped with a warning; the lines after it still read', async () => {
    const { dataDir, id, eventsPath } = await recorded({ steps: 3 });
    const lines = readFileSync(eventsPath, 'utf8').split('\n');
    // Line 10 is step 2's prediction: half of it overwritten with garbage.
    expect(JSON.parse(lines[9]!)).toMatchObject({ type: 'prediction', step: 2 });
    lines[9] = `${lines[9]!.slice(0, 30)}\u0000\u0000garbage{{`;
    writeFileSync(eventsPath, lines.join('\n'));

    const session = await read(dataDir, id);
    expect(session.warnings).toEqual([{ file: 'events.jsonl', line: 10, message: expect.stringMatching(/^corrupt line skipped/) }]);
    expect(session.steps.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(session.steps[1]).toMatchObject({ thought: null, actions: [], results: [{ ok: true }], durationMs: 600 });
    expect(session.steps[2]).toMatchObject({ thought: 'Step 3: move on.', durationMs: 600 });
    expect(session.meta.status).toBe('finished');
  });

  it('a truncated last line (a crash mid-write) is skipped as truncated', async () => {
    const { dataDir, id, eventsPath } = await recorded({ steps: 2, finish: null });
    appendFileSync(eventsPath, '{"type":"step-started","step":3,"runId":"x","at":1');
    const session = await read(dataDir, id);
    expect(session.warnings).toEqual([{ file: 'events.jsonl', line: 14, message: expect.stringMatching(/^truncated line skipped/) }]);
    expect(session.steps.map((s) => [s.step, s.durationMs])).toEqual([
      [1, 600],
      [2, 600],
    ]);
  });

  it('a file cut in the middle of a line reads up to the cut', async () => {
    const { dataDir, id, eventsPath } = await recorded({ steps: 3 });
    const size = statSync(eventsPath).size;
    truncateSync(eventsPath, size - 40);
    const session = await read(dataDir, id);
    expect(session.warnings).toHaveLength(1);
    expect(session.warnings[0]!.message).toMatch(/^truncated/);
    expect(session.events.at(-1)?.type).toBe('step-finished');
  });

  it('lines that parse but are not events of the right shape are skipped, never trusted', async () => {
    const { dataDir, id, eventsPath } = await recorded({ steps: 1 });
    const bad = [
      '42',
      'null',
      '["type","note"]',
      '{"no":"type"}',
      '{"type":"prediction","step":1,"thought":"x"}',
      '{"runId":"r","at":1,"type":"observation","step":1,"screenshot":{"id":"s","path":"../../etc/passwd","width":1,"height":1,"mime":"image/jpeg"},"frame":{"displayId":"0","bounds":{"x":0,"y":0,"width":1,"height":1},"scaleFactor":1,"captured":{"width":1,"height":1},"image":{"width":1,"height":1,"format":"jpeg"}}}',
      '{"type":"action-result","step":"one","action":{"type":"wait"},"result":{"ok":true}}',
      '{"type":"step-finished","step":1}',
    ];
    appendFileSync(eventsPath, `${bad.join('\n')}\n`);
    const session = await read(dataDir, id);
    expect(session.warnings).toHaveLength(bad.length);
    expect(session.warnings.map((w) => w.line)).toEqual(bad.map((_, i) => 9 + i));
    expect(session.warnings[5]!.message).toMatch(/invalid observation event: screenshot\.path: the screenshot path must stay inside the session folder/);
    expect(session.steps).toHaveLength(1);
    expect(session.steps[0]).toMatchObject({ thought: 'Step 1: move on.', actions: [{ type: 'mouse_move' }], durationMs: 600 });
    expect(session.steps[0]!.screenshot?.path).toBe('screenshots/step-0001.jpg');
  });

  it('an empty events.jsonl: no steps, a warning', async () => {
    const { dataDir, id, eventsPath } = await recorded({ steps: 2 });
    writeFileSync(eventsPath, '');
    const session = await read(dataDir, id);
    expect(session.steps).toEqual([]);
    expect(session.warnings).toEqual([{ file: 'events.jsonl', line: 0, message: expect.stringMatching(/empty/) }]);
    expect(session.meta).toMatchObject({ id, status: 'finished', steps: 2 });
  });

  it('a missing events.jsonl: no steps, a warning', async () => {
    const { dataDir, id, eventsPath } = await recorded({ steps: 2 });
    unlinkSync(eventsPath);
    const session = await read(dataDir, id);
    expect(session.steps).toEqual([]);
    expect(session.warnings).toEqual([{ file: 'events.jsonl', line: 0, message: expect.stringMatching(/missing/) }]);
  });

  it('parseEventLines alone: blank lines are fine, a CRLF-free binary blob is one warning', () => {
    const note = (message: string) => JSON.stringify({ type: 'note', step: 1, message, runId: 'r', at: 1 });
    const text = `${note('a')}\n\n\u00ff\u00fe\u0001\n${note('b')}\n`;
    const { events, warnings } = parseEventLines(text);
    expect(events).toHaveLength(2);
    expect(warnings).toEqual([{ file: 'events.jsonl', line: 3, message: expect.stringMatching(/^corrupt/) }]);
  });
});

describe('damaged session.json', () => {
  it('garbage: the metadata is rebuilt from the events, with a warning', async () => {
    const { dataDir, id, metaPath } = await recorded({ steps: 3, task: 'Rebuild me' });
    writeFileSync(metaPath, '\u0000\u0000{"id": "trunc');
    const session = await read(dataDir, id);
    expect(session.warnings[0]).toEqual({ file: 'session.json', line: 0, message: expect.stringMatching(/not valid JSON.*rebuilt from the events/) });
    expect(session.meta).toMatchObject({ id, task: 'Rebuild me', status: 'finished', steps: 3, costUsd: STEP_COST * 3, model: 'gpt-4.1', family: 'tools' });
    expect(session.steps).toHaveLength(3);
  });

  it('valid JSON with wrong fields: the good fields are kept, the rest rebuilt', async () => {
    const { dataDir, id, metaPath } = await recorded({ steps: 2, finish: null, task: 'Half broken' });
    const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
    writeFileSync(metaPath, JSON.stringify({ ...meta, task: 42, steps: 'two', startedAt: null }));
    const session = await read(dataDir, id);
    expect(session.warnings[0]!.message).toMatch(/task, startedAt, steps missing or invalid/);
    expect(session.meta).toMatchObject({ id, task: 'Half broken', status: 'running', steps: 2, model: 'gpt-4.1' });
    expect(typeof session.meta.startedAt).toBe('number');
  });

  it('missing, and no run-finished: rebuilt as interrupted', async () => {
    const { dataDir, id, metaPath } = await recorded({ steps: 2, finish: null });
    unlinkSync(metaPath);
    const session = await read(dataDir, id);
    expect(session.warnings[0]).toMatchObject({ file: 'session.json', message: expect.stringMatching(/missing/) });
    expect(session.meta).toMatchObject({ status: 'interrupted', steps: 2, costUsd: STEP_COST * 2 });
  });

  it('both files gone: still a record (empty), with both warnings', async () => {
    const { dataDir, id, metaPath, eventsPath } = await recorded({ steps: 1, finish: null });
    unlinkSync(metaPath);
    unlinkSync(eventsPath);
    const session = await read(dataDir, id);
    expect(session.warnings.map((w) => w.file)).toEqual(['session.json', 'events.jsonl']);
    expect(session.meta).toMatchObject({ id, task: '(unknown task)', status: 'interrupted', steps: 0 });
  });

  it('both files gone after the run ended: the end is still read from the space reserved for it', async () => {
    const { dataDir, id, metaPath, eventsPath } = await recorded({ steps: 1 });
    unlinkSync(metaPath);
    unlinkSync(eventsPath);
    const session = await read(dataDir, id);
    expect(session.warnings.map((w) => w.file)).toEqual(['session.json', 'events.jsonl', 'ending.json']);
    expect(session.meta).toMatchObject({ id, status: 'finished', steps: 1 });
  });
});

describe('missing files and bad ids', () => {
  it('a screenshot file gone: the reference stays, flagged missing, with a warning', async () => {
    const { dataDir, id, directory } = await recorded({ steps: 2 });
    unlinkSync(join(directory, 'screenshots', 'step-0002.jpg'));
    const session = await read(dataDir, id);
    expect(session.warnings).toEqual([{ file: 'screenshots/step-0002.jpg', line: 0, message: 'the screenshot of step 2 is missing' }]);
    expect(session.steps[1]!.screenshotMissing).toBe(true);
    expect(session.steps[0]!.screenshotMissing).toBeUndefined();
  });

  it('an unknown session and ids that could leave the folder are messages, not throws', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    mkdirSync(join(dataDir, 'sessions'));
    expect(await readSession(dataDir, '20260101-000000-abcdef')).toEqual({ ok: false, message: expect.stringMatching(/^no session "20260101-000000-abcdef"/) });
    for (const id of ['..', '.', '../x', 'a/b', '', '.hidden']) {
      expect(await readSession(dataDir, id)).toEqual({ ok: false, message: `"${id}" is not a session id` });
    }
  });
});
