/**
 * The blackboard: the seed's sections and prompt order, the screenshot caps, the dict round trip,
 * and the file-backed store on real files: a restart finds it whole, corrupt log lines are
 * skipped, snapshots are written atomically, and a failed write is a value.
 */
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import {
  Blackboard,
  type BlackboardDict,
  blackboardDirectory,
  FileBlackboardStore,
  type MemoryChange,
  openBlackboard,
  parseBlackboardDict,
  readPromptImage,
} from '../../../src/main/memory';

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

async function dataDir(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'mnemo-blackboard-'));
  directories.push(directory);
  return directory;
}

function texts(blackboard: Blackboard): string[] {
  return blackboard.blackboardToPrompt().map((part) => (part.type === 'text' ? part.text.split('\n')[0]! : `image ${part.path}`));
}

describe('sections and prompt', () => {
  it("renders the seed's sections in its order, only those that are not empty", () => {
    const blackboard = new Blackboard();
    expect(blackboard.isEmpty()).toBe(true);
    expect(blackboard.blackboardToPrompt()).toEqual([]);
    blackboard.addTrajectories({ step: 1, subtask: 'open the form', action: 'click', status: 'success', user_confirmation: null });
    blackboard.addQuestions({ question: 'Which account?', answer: 'The work one' });
    expect(texts(blackboard)).toEqual(['[Blackboard:]', '[Questions & Answers:]', '[Step Trajectories Completed Previously:]']);
    blackboard.addRequests({ request: 'Fill in the expense form' });
    blackboard.addImage('/data/shots/step-2.png', { step: 2, reason: 'the totals before saving' });
    expect(texts(blackboard)).toEqual([
      '[Blackboard:]',
      '[Questions & Answers:]',
      '[Request History:]',
      '[Step Trajectories Completed Previously:]',
      '{"step":2,"reason":"the totals before saving"}',
      'image /data/shots/step-2.png',
    ]);
    const questions = blackboard.blackboardToPrompt()[1];
    expect(questions).toEqual({ type: 'text', text: '[Questions & Answers:]\n [{"question":"Which account?","answer":"The work one"}]' });
    expect(blackboard.isEmpty()).toBe(false);
  });

  it('keeps at most maxScreenshots, and sends at most maxPromptImages (the most recent)', () => {
    const blackboard = new Blackboard({ maxScreenshots: 4, maxPromptImages: 2 });
    for (let n = 1; n <= 6; n++) blackboard.addImage(`shot-${n}.png`, { step: n, reason: `r${n}` });
    expect(blackboard.screenshots.listContent.map((item) => item['image_path'])).toEqual(['shot-3.png', 'shot-4.png', 'shot-5.png', 'shot-6.png']);
    const images = blackboard.blackboardToPrompt().filter((part) => part.type === 'image');
    expect(images.map((part) => part.path)).toEqual(['shot-5.png', 'shot-6.png']);
    expect(blackboard.blackboardToPrompt({ maxImages: 0 }).some((part) => part.type === 'image')).toBe(false);
    expect(blackboard.blackboardToText()).toContain('[Screenshots Kept:]\n [{"metadata":{"step":3,"reason":"r3"},"image_path":"shot-3.png"}');
  });

  it('sends at most maxPromptItems of each text section (the most recent) and keeps them all', () => {
    const blackboard = new Blackboard({ maxPromptItems: 2 });
    for (let n = 1; n <= 5; n++) blackboard.addRequests({ request: `task ${n}` });
    expect(blackboard.blackboardToPrompt()[1]).toEqual({ type: 'text', text: '[Request History:]\n [{"request":"task 4"},{"request":"task 5"}]' });
    expect(blackboard.blackboardToPrompt({ maxItems: null })[1]).toMatchObject({ text: expect.stringContaining('task 1') });
    expect(blackboard.requests.length).toBe(5);
  });

  it('stores a text as {text}, and reports every change with the whole board', () => {
    const changes: MemoryChange[] = [];
    const blackboard = new Blackboard({}, { onChange: (change) => changes.push(change) });
    blackboard.addRequests('Rename the files');
    blackboard.addQuestions({ question: 'Overwrite?', answer: 'yes' });
    blackboard.clear();
    expect(changes.map((change) => (change.kind === 'blackboard' ? [change.snapshot.requests.length, change.snapshot.questions.length] : change.kind))).toEqual([
      [1, 0],
      [1, 1],
      [0, 0],
    ]);
    expect(changes[0]).toEqual({ kind: 'blackboard', snapshot: { questions: [], requests: [{ text: 'Rename the files' }], trajectories: [], screenshots: [] } });
  });

  it('round-trips through blackboardToDict and blackboardFromDict', () => {
    const blackboard = new Blackboard();
    blackboard.addRequests({ request: 'Book a room', priority: 'high' });
    blackboard.addTrajectories({ step: 1, action: 'open_calendar', status: 'success' });
    blackboard.addImage('a.png', { reason: 'free slots' });
    const dict = blackboard.blackboardToDict();
    const copy = new Blackboard();
    copy.blackboardFromDict(JSON.parse(blackboard.blackboardToJson()) as BlackboardDict);
    expect(copy.blackboardToDict()).toEqual(dict);
    expect(copy.blackboardToPrompt()).toEqual(blackboard.blackboardToPrompt());
    copy.blackboardFromDict({ requests: [{ request: 'only this' }] });
    expect(copy.blackboardToDict()).toEqual({ questions: [], requests: [{ request: 'only this' }], trajectories: [], screenshots: [] });
  });

  it('checks a parsed dict and reports what is wrong as a value', () => {
    expect(parseBlackboardDict({ requests: [{ request: 'x' }] })).toEqual({
      ok: true,
      blackboard: { questions: [], requests: [{ request: 'x' }], trajectories: [], screenshots: [] },
    });
    expect(parseBlackboardDict({ requests: 'x' })).toMatchObject({ ok: false });
    expect(parseBlackboardDict([1])).toMatchObject({ ok: false });
  });
});

describe('the file-backed store', () => {
  it('finds the board whole after a restart', async () => {
    const dir = await dataDir();
    const first = await openBlackboard(dir, { maxScreenshots: 2 });
    expect(first.warnings).toEqual([]);
    first.blackboard.addRequests({ request: 'Send the report' });
    first.blackboard.addQuestions({ question: 'To whom?', answer: 'Dana' });
    first.blackboard.addTrajectories({ step: 1, subtask: 'open mail', action: 'click', status: 'success' });
    first.blackboard.trajectories.deleteMemoryByStep(1);
    first.blackboard.addTrajectories({ step: 2, subtask: 'attach', action: 'drag', status: 'success', user_confirmation: 'yes' });
    for (let n = 1; n <= 3; n++) first.blackboard.addImage(`/shots/${n}.png`, { step: n, reason: 'kept' });
    expect(await first.blackboard.flush()).toEqual({ ok: true });
    const expected = first.blackboard.blackboardToDict();
    expect(expected.screenshots).toHaveLength(2);

    const second = await openBlackboard(dir, { maxScreenshots: 2 });
    expect(second.warnings).toEqual([]);
    expect(second.blackboard.blackboardToDict()).toEqual(expected);

    // Changes after the restart go on from there.
    second.blackboard.clear();
    second.blackboard.addRequests({ request: 'After the clear' });
    await second.blackboard.flush();
    const third = await openBlackboard(dir);
    expect(third.blackboard.blackboardToDict()).toEqual({ questions: [], requests: [{ request: 'After the clear' }], trajectories: [], screenshots: [] });
  });

  it('skips corrupt log lines (a crash mid-write) and keeps the rest', async () => {
    const dir = await dataDir();
    const opened = await openBlackboard(dir);
    opened.blackboard.addRequests({ request: 'one' });
    opened.blackboard.addRequests({ request: 'two' });
    await opened.blackboard.flush();
    const log = join(blackboardDirectory(dir), 'blackboard.jsonl');
    const lines = (await readFile(log, 'utf8')).trimEnd().split('\n');
    await writeFile(log, [lines[0], 'garbage', '{"seq": 9, "op": "add"}', lines[1], '{"seq": 3, "at": 1, "op": "add", "section": "requests", "item": {"req'].join('\n'));

    const reopened = await openBlackboard(dir);
    expect(reopened.blackboard.requests.listContent).toEqual([{ request: 'one' }, { request: 'two' }]);
    expect(reopened.warnings).toEqual([
      'blackboard.jsonl line 2 is corrupt and was skipped',
      'blackboard.jsonl line 3 is corrupt and was skipped',
      'blackboard.jsonl line 5 is corrupt and was skipped',
    ]);
  });

  it('writes a snapshot every rewriteEvery changes and empties the log, atomically', async () => {
    const dir = await dataDir();
    const opened = await openBlackboard(dir, { rewriteEvery: 3 });
    for (let n = 1; n <= 7; n++) opened.blackboard.addTrajectories({ step: n, action: 'click' });
    await opened.blackboard.flush();
    const directory = blackboardDirectory(dir);
    const snapshot = JSON.parse(await readFile(join(directory, 'blackboard.json'), 'utf8')) as { seq: number; blackboard: BlackboardDict };
    expect(snapshot.seq).toBe(6);
    expect(snapshot.blackboard.trajectories).toHaveLength(6);
    expect((await readFile(join(directory, 'blackboard.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(1);
    expect((await readdir(directory)).sort()).toEqual(['blackboard.json', 'blackboard.jsonl']);

    const reopened = await openBlackboard(dir, { rewriteEvery: 3 });
    expect(reopened.blackboard.trajectories.listContent.map((item) => item['step'])).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('ignores log lines the snapshot already holds (a crash between the snapshot and emptying the log)', async () => {
    const dir = await dataDir();
    const directory = blackboardDirectory(dir);
    await mkdir(directory, { recursive: true });
    const board: BlackboardDict = { questions: [], requests: [{ request: 'a' }, { request: 'b' }], trajectories: [], screenshots: [] };
    await writeFile(join(directory, 'blackboard.json'), JSON.stringify({ version: 1, seq: 2, savedAt: 0, blackboard: board }));
    const line = (seq: number, request: string) => JSON.stringify({ seq, at: 0, op: 'add', section: 'requests', item: { request } });
    await writeFile(join(directory, 'blackboard.jsonl'), `${line(1, 'a')}\n${line(2, 'b')}\n${line(3, 'c')}\n`);
    const store = new FileBlackboardStore(dir);
    const loaded = await store.load();
    expect(loaded.blackboard.requests).toEqual([{ request: 'a' }, { request: 'b' }, { request: 'c' }]);

    // The next change continues the numbering.
    const blackboard = new Blackboard({}, { persistence: store, initial: loaded.blackboard });
    blackboard.addRequests({ request: 'd' });
    await blackboard.flush();
    const last = (await readFile(join(directory, 'blackboard.jsonl'), 'utf8')).trimEnd().split('\n').at(-1)!;
    expect(JSON.parse(last)).toMatchObject({ seq: 4, op: 'add', item: { request: 'd' } });
  });

  it('warns about a corrupt snapshot and still loads the log', async () => {
    const dir = await dataDir();
    const directory = blackboardDirectory(dir);
    await mkdir(directory, { recursive: true });
    await writeFile(join(directory, 'blackboard.json'), '{"version": 1, "seq":');
    await writeFile(join(directory, 'blackboard.jsonl'), `${JSON.stringify({ seq: 5, at: 0, op: 'add', section: 'questions', item: { question: 'q', answer: 'a' } })}\n`);
    const opened = await openBlackboard(dir);
    expect(opened.warnings).toEqual(['blackboard.json is corrupt and was ignored; only the changes in blackboard.jsonl were loaded']);
    expect(opened.blackboard.questions.listContent).toEqual([{ question: 'q', answer: 'a' }]);
  });

  it('reports a failed write as a value', async () => {
    const dir = await dataDir();
    // The data directory's `blackboard` is a file: the store cannot create its folder.
    await writeFile(join(dir, 'blackboard'), 'not a folder');
    const opened = await openBlackboard(dir);
    opened.blackboard.addRequests({ request: 'lost?' });
    const outcome = await opened.blackboard.flush();
    expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining('the blackboard could not be saved') });
    // The board itself still holds the change.
    expect(opened.blackboard.requests.length).toBe(1);
  });
});

describe('readPromptImage', () => {
  it('reads a kept screenshot with its size, and reports a missing one as a value', async () => {
    const dir = await dataDir();
    const path = join(dir, 'shot.png');
    await writeFile(path, await sharp({ create: { width: 64, height: 32, channels: 3, background: '#336699' } }).png().toBuffer());
    const read = await readPromptImage(path);
    expect(read).toMatchObject({ ok: true, image: { mime: 'image/png', width: 64, height: 32 } });
    expect(await readPromptImage(join(dir, 'missing.png'))).toMatchObject({ ok: false, error: expect.stringContaining('cannot read the screenshot') });
  });
});
