/**
 * inspectStep on a real recorded session: the annotated screenshot, the step's record, and
 * failures (missing screenshot, unknown step) as values.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSession, type SessionRecord } from '../../../src/main/store/session-reader';
import { inspectStep, resultsByAction } from '../../../src/main/replay/inspect';
import { BUTTON_COLOURS } from '../../../src/main/replay/annotate';
import { FIXTURE_STEPS, IMAGE, INJECTED_THOUGHT, recordFixtureSession, type RecordedFixture } from '../../fixtures/session-fixture';

describe('inspectStep', () => {
  let dataDir: string;
  let fixture: RecordedFixture;
  let session: SessionRecord;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mnemo-inspect-'));
    fixture = await recordFixtureSession(dataDir, { missingStep: 5 });
    const read = await readSession(dataDir, fixture.sessionId);
    if (!read.ok) throw new Error(read.message);
    session = read.session;
  });

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('gives the screenshot with the click drawn at its point, and the step record', async () => {
    const inspected = await inspectStep(session, 1);
    if (!inspected.ok) throw new Error(inspected.message);
    const { view } = inspected;
    expect(view.screenshotProblem).toBeNull();
    const png = view.screenshotPng as Buffer;
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([IMAGE.width, IMAGE.height]);
    const at = (x: number, y: number) => Array.from(data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3));
    const orange = [0xff, 0x9f, 0x0a];
    expect(Math.max(...at(120, 90).map((v, i) => Math.abs(v - (orange[i] as number))))).toBeLessThan(40);
    expect(BUTTON_COLOURS.left).toBe('#ff9f0a');
    // Far from the click the screenshot is the recorded one (up to JPEG decoding: identical).
    const original = await sharp(fixture.screenshots.get(1) as Buffer).removeAlpha().raw().toBuffer();
    const offset = (350 * info.width + 600) * info.channels;
    expect(data.subarray(offset, offset + 3)).toEqual(original.subarray(offset, offset + 3));

    expect(view.thought).toBe(INJECTED_THOUGHT);
    expect(view.actions).toEqual(FIXTURE_STEPS[0]?.actions);
    expect(view.results).toEqual([FIXTURE_STEPS[0]?.results[0]]);
    expect(view.usage).toEqual(FIXTURE_STEPS[0]?.usage);
    expect(view.costUsd).toBeCloseTo(0.0013, 10);
    expect([view.previous, view.next]).toEqual([null, 2]);
  });

  it('aligns results with actions past a question', async () => {
    const inspected = await inspectStep(session, 4);
    if (!inspected.ok) throw new Error(inspected.message);
    expect(inspected.view.resultByAction).toEqual([null, FIXTURE_STEPS[3]?.results[1]]);
    expect(inspected.view.questions).toMatchObject([{ kind: 'question', question: 'Which file?', answer: 'report.txt' }]);
    // The reader's in-order list alone would pair the click's result with the question.
    expect(resultsByAction({ events: [] }, session.steps[3] as SessionRecord['steps'][number])[0]).toEqual(FIXTURE_STEPS[3]?.results[1]);
  });

  it('carries notes and memory events', async () => {
    const second = await inspectStep(session, 2);
    const third = await inspectStep(session, 3);
    if (!second.ok || !third.ok) throw new Error('not ok');
    expect(second.view.notes).toEqual(['the screen did not change after the drag']);
    expect(third.view.memory).toHaveLength(1);
    expect(third.view.memory[0]).toMatchObject({ type: 'memory', change: { kind: 'layers', recent: 'typed <the> name' } });
  });

  it('says the screenshot is missing when its file is gone', async () => {
    const inspected = await inspectStep(session, 5);
    if (!inspected.ok) throw new Error(inspected.message);
    expect(inspected.view.screenshotPng).toBeNull();
    expect(inspected.view.screenshotProblem).toBe('screenshot missing');
    expect(inspected.view.screenshot?.path).toMatch(/^screenshots\/step-0005\.jpg$/);
    expect(inspected.view.resultByAction[0]).toMatchObject({ ok: false, error: { kind: 'out_of_bounds' } });
  });

  it('says a screenshot is unreadable when the file is not an image', async () => {
    const path = join(session.directory, (session.steps[5]?.screenshot?.path as string));
    await writeFile(path, 'this is not a JPEG');
    const inspected = await inspectStep(session, 6);
    if (!inspected.ok) throw new Error(inspected.message);
    expect(inspected.view.screenshotPng).toBeNull();
    expect(inspected.view.screenshotProblem).toMatch(/^screenshot unreadable/);
  });

  it('answers an unknown step with a message', async () => {
    const inspected = await inspectStep(session, 99);
    expect(inspected).toEqual({ ok: false, message: `session "${fixture.sessionId}" has no step 99: its steps are 1–6` });
  });
});
