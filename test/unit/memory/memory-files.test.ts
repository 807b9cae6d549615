/**
 * The memory files when a write fails: the blackboard's log and the conversation's file. A failed
 * write is said at once (not when the run ends), leaves no half file, and the file catches up once
 * the disk has room. The failures are real: /dev/full behind the log's name (every write ENOSPC),
 * a full tmpfs (root) for the conversation.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openBlackboard, ConversationFile, TieredMemory, WriteFailureReports } from '../../../src/main/memory';
import { canMount, mountSmallDisk, type SmallDisk } from '../disk/small-disk';

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-memory-files-'));
const disks: SmallDisk[] = [];
afterAll(() => {
  for (const disk of disks) disk.release();
  rmSync(scratch, { recursive: true, force: true });
});

/** Resolves with the first report, and keeps every one. */
function listen(): { reports: string[]; first: Promise<string>; listener: (message: string) => void } {
  const reports: string[] = [];
  let resolve!: (message: string) => void;
  const first = new Promise<string>((r) => (resolve = r));
  return {
    reports,
    first,
    listener: (message) => {
      reports.push(message);
      resolve(message);
    },
  };
}

describe('the blackboard file when a write fails', () => {
  it('says it at once, once, and writes the whole board once the disk has room', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const heard = listen();
    const { blackboard, store } = await openBlackboard(dataDir, { onWriteFailure: heard.listener });
    blackboard.addRequests({ request: 'first' });
    expect(await blackboard.flush()).toEqual({ ok: true });

    unlinkSync(store.logPath);
    symlinkSync('/dev/full', store.logPath);
    blackboard.addRequests({ request: 'second' });
    blackboard.addRequests({ request: 'third' });
    // Heard without waiting for the end: the first failed write reports it.
    expect(await heard.first).toMatch(new RegExp(`^the blackboard could not be saved: the disk holding ${store.directory} is full \\(writing blackboard.jsonl: ENOSPC`));
    const outcome = await blackboard.flush();
    expect(outcome.ok).toBe(false);
    expect(heard.reports).toHaveLength(1);

    // Room again: the next change writes the whole board, and a new start finds all of it.
    unlinkSync(store.logPath);
    blackboard.addRequests({ request: 'fourth' });
    expect(await blackboard.flush()).toEqual({ ok: true });
    const reopened = await openBlackboard(dataDir);
    expect(reopened.warnings).toEqual([]);
    expect(reopened.blackboard.blackboardToDict().requests).toEqual([{ request: 'first' }, { request: 'second' }, { request: 'third' }, { request: 'fourth' }]);
  });
});

describe.runIf(canMount)('the conversation file on a disk that fills up', () => {
  it('says it at once, keeps the last whole file, and catches up once the disk has room', async () => {
    const disk = mountSmallDisk('64k');
    disks.push(disk);
    const path = join(disk.path, 'memory', 'conversations', 'conv-1.json');
    await mkdir(join(disk.path, 'memory', 'conversations'), { recursive: true });
    const conversation = new TieredMemory();
    const heard = listen();
    const file = new ConversationFile(path, conversation, { onWriteFailure: heard.listener });
    await conversation.addTask('first task');
    expect(await file.flush()).toEqual({ ok: true });
    const before = readFileSync(path, 'utf8');
    expect(JSON.parse(before).context.map((m: { content: string }) => m.content)).toEqual(['first task']);

    disk.fill();
    await conversation.addTask(`second task ${'x'.repeat(8000)}`);
    expect(await heard.first).toMatch(new RegExp(`^the conversation memory could not be saved: the disk holding ${join(disk.path, 'memory', 'conversations')} is full \\(writing conv-1.json: ENOSPC`));
    expect((await file.flush()).ok).toBe(false);
    // The last whole file, and no temporary file beside it.
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(readdirSync(join(disk.path, 'memory', 'conversations'))).toEqual(['conv-1.json']);

    rmSync(join(disk.path, 'filler'));
    await conversation.addTask('third task');
    expect(await file.flush()).toEqual({ ok: true });
    expect(JSON.parse(readFileSync(path, 'utf8')).context).toHaveLength(3);
    expect(heard.reports).toHaveLength(1);
    file.close();
  });
});

describe('write failures nobody listens to', () => {
  it('are kept for the end; heard ones are not', () => {
    const reports = new WriteFailureReports();
    reports.report('before the run');
    const heard: string[] = [];
    const stop = reports.subscribe((message) => heard.push(message));
    reports.report('during the run');
    stop();
    reports.report('after the run');
    expect(heard).toEqual(['during the run']);
    expect(reports.takeUnheard()).toEqual(['before the run', 'after the run']);
    expect(reports.takeUnheard()).toEqual([]);
  });
});
