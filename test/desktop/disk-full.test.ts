/**
 * No action without a record: a real `mnemo run --json` whose data directory is on a 600 KB tmpfs
 * that fills up during the run, against the scripted OpenAI-compatible server, typing into the
 * instrumented Chromium page on the real display. The run stops at the first write that fails,
 * says why (the disk, the folder) with exit 3, every keystroke the page received is on record, the
 * session reads back `failed` with the steps before, and the memory files are whole.
 *
 * Needs root (mount -t tmpfs), as the tests run in CI.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedReply } from '../fixtures/openai-server';
import { runX } from '../fixtures/desktop/display';
import { screenshotOnFailure, useKioskPage } from '../fixtures/desktop/kiosk-page';
import { centreOf, TARGET_LAYOUT } from '../fixtures/desktop/layout';
import { jsonLines, runMnemo } from '../fixtures/mnemo-cli';

const IMAGE = { width: 960, height: 600 };
const toImage = (p: { x: number; y: number }) => ({ x: Math.round((p.x * IMAGE.width) / 1280), y: Math.round((p.y * IMAGE.height) / 800) });

const scratch = mkdtempSync(join(tmpdir(), 'mnemo-disk-full-'));
const mounted: string[] = [];
const page = useKioskPage({ memoryModel: true });

/** A fresh tmpfs of `size` (e.g. 600k), unmounted in afterAll. */
function smallDisk(size: string): string {
  const dir = mkdtempSync(join(scratch, 'disk-'));
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mount.status !== 0) throw new Error(`mount -t tmpfs failed (these tests need root): ${mount.stderr}`);
  mounted.push(dir);
  return dir;
}

/** Every file under a folder, relative to it. */
function filesUnder(root: string, prefix = ''): string[] {
  return readdirSync(join(root, prefix), { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(root, relative) : [relative];
  });
}

afterAll(() => {
  for (const dir of mounted) spawnSync('umount', [dir]);
  rmSync(scratch, { recursive: true, force: true });
});

interface Outcome {
  dataDir: string;
  directory: string;
  id: string;
  code: number | null;
  stderr: string;
  events: Array<{ type: string; [key: string]: unknown }>;
  requests: number;
}

/**
 * A 60-step task on a 600 KB data directory: step 1 clicks into the field and types, every later
 * step types its number. `fillAt`: while the model thinks about that step, another program takes
 * every free byte of the disk (nothing of the run is being written then).
 */
async function typeSixtyNumbers(options: { fillAt?: number } = {}): Promise<Outcome> {
  await runX(page.display, 'xdotool', ['mousemove', '640', '700']);
  await page.kiosk.focus();
  await page.server.reset();
  page.server.clear();
  const dataDir = smallDisk('600k');
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ image: { maxWidth: IMAGE.width }, memory: { model: { baseUrl: page.memoryModel.url } } }));
  const field = toImage(centreOf(TARGET_LAYOUT.field));
  const model = await startScriptedServer({
    replies: (request): ScriptedReply => {
      const step = request.index + 1;
      if (step === options.fillAt) fillUp(join(dataDir, 'filler'));
      const actions = step === 1 ? [{ type: 'click', ...field }, { type: 'type', text: `s${step}.` }] : [{ type: 'type', text: `s${step}.` }];
      return { toolCalls: [{ name: 'computer', arguments: { thought: `Step ${step}: type.`, actions } }] };
    },
  });
  try {
    const run = await runMnemo(
      ['run', 'Type sixty numbers', '--base-url', model.url, '--model', 'gpt-4.1', '--family', 'tools', '--data-dir', dataDir, '--max-steps', '60', '--json', '--non-interactive'],
      { env: { DISPLAY: page.display, OPENAI_API_KEY: '' } },
    );
    const events = jsonLines(run.stdout);
    const id = String(events[0]?.runId);
    return { dataDir, id, directory: join(dataDir, 'sessions', id), code: run.code, stderr: run.stderr, events, requests: model.requests.length };
  } finally {
    await model.close();
  }
}

/** Writes until the disk has no byte left (the part that fitted stays). */
function fillUp(path: string): void {
  try {
    writeFileSync(path, Buffer.alloc(2 * 1024 * 1024, 7));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
}

/** What every full-disk run must show: the reason, exit 3, the warning first, nothing acted unrecorded. */
async function expectStoppedOnRecord(run: Outcome): Promise<{ reason: string; steps: number }> {
  const finished = run.events.at(-1);
  expect(run.code, run.stderr).toBe(3);
  expect(finished).toMatchObject({ type: 'run-finished', status: 'failed' });
  const reason = String(finished?.reason);
  expect(reason).toContain('the session could not be recorded, so the run stopped before acting');
  expect(reason).toContain(`the disk holding ${join(run.dataDir, 'sessions')} is full`);
  expect(reason).toMatch(/ENOSPC/);
  // Said before the first step: the disk has far less free than the 200 MB default.
  const warning = run.events.findIndex((e) => e.type === 'note' && /only [\d.]+ MB free on the disk holding/.test(String(e.message)));
  expect(warning).toBeGreaterThan(-1);
  expect(warning).toBeLessThan(run.events.findIndex((e) => e.type === 'step-started'));
  const steps = Number(finished?.steps);
  expect(steps).toBeGreaterThan(1);
  expect(steps).toBeLessThan(60);
  expect(run.requests).toBeLessThanOrEqual(steps);

  // Everything the page received is on record: its field holds exactly the text of the type
  // actions in events.jsonl, and nothing came after the failure.
  const recorded = readFileSync(join(run.directory, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { type: string; action?: { type: string; text?: string }; result?: { ok: boolean } });
  const typedOnRecord = recorded.filter((e) => e.type === 'action' && e.action?.type === 'type').map((e) => e.action?.text ?? '');
  expect(typedOnRecord.length).toBeGreaterThan(0);
  await page.server.settle(300, 10_000);
  const state = await page.server.state();
  expect(state.field.value).toBe(typedOnRecord.join(''));
  expect(run.events.filter((e) => e.type === 'action').length).toBe(recorded.filter((e) => e.type === 'action').length);
  return { reason, steps };
}

/** The session as `mnemo show` and `mnemo sessions` read it back. */
async function readBack(run: Outcome): Promise<{ status: string; reason: string; steps: Array<{ step: number; screenshot: string | null; results: unknown[] }> }> {
  const show = await runMnemo(['show', run.id, '--data-dir', run.dataDir, '--json']);
  expect(show.code, show.stderr).toBe(0);
  const listed = await runMnemo(['sessions', '--data-dir', run.dataDir, '--json']);
  expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: run.id, status: 'failed' })]);
  return JSON.parse(show.stdout);
}

/** No half file: no temporary file left, every blackboard line and memory file parses. */
function expectMemoryFilesWhole(dataDir: string): void {
  const files = filesUnder(dataDir);
  expect(files.filter((file) => /\.partial$|\.tmp$/.test(file))).toEqual([]);
  const board = join(dataDir, 'blackboard');
  expect(existsSync(join(board, 'blackboard.jsonl'))).toBe(true);
  for (const line of readFileSync(join(board, 'blackboard.jsonl'), 'utf8').split('\n').filter((l) => l !== '')) expect(() => JSON.parse(line)).not.toThrow();
  if (existsSync(join(board, 'blackboard.json'))) expect(() => JSON.parse(readFileSync(join(board, 'blackboard.json'), 'utf8'))).not.toThrow();
  const conversations = files.filter((f) => f.startsWith('memory/conversations/'));
  expect(conversations.length).toBeGreaterThan(0);
  for (const file of conversations) {
    expect(statSync(join(dataDir, file)).size).toBeGreaterThan(0);
    expect(() => JSON.parse(readFileSync(join(dataDir, file), 'utf8'))).not.toThrow();
  }
}

describe('a data directory whose disk fills up during a run', () => {
  screenshotOnFailure(page, 'disk-full');

  it('filled by its own screenshots: stops at the first failed write, says why, nothing more reaches the page', async () => {
    const run = await typeSixtyNumbers();
    const { reason } = await expectStoppedOnRecord(run);
    const session = await readBack(run);
    expect(session).toMatchObject({ status: 'failed', reason });
    const kept = session.steps.filter((step) => step.screenshot !== null).map((step) => step.step);
    expect(kept.length).toBeGreaterThan(1);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => i + 1));
    expectMemoryFilesWhole(run.dataDir);
  });

  it('filled to the last byte by another program: the ending is read from the space reserved for it', async () => {
    const run = await typeSixtyNumbers({ fillAt: 4 });
    const { reason } = await expectStoppedOnRecord(run);
    // No new file fitted: session.json (written through a new file at the start and the end) is
    // still the one of the start.
    expect(JSON.parse(readFileSync(join(run.directory, 'session.json'), 'utf8'))).toMatchObject({ status: 'running', steps: 0 });
    // The conversation's file could not be rewritten either: said at once, as a note, before the
    // run's end. (The blackboard's log line may still fit in the last block its file holds.)
    const failed = run.events.findIndex((e) => e.type === 'note' && /the conversation memory could not be saved: the disk holding .*conversations is full/.test(String(e.message)));
    expect(failed).toBeGreaterThan(-1);
    expect(failed).toBeLessThan(run.events.length - 1);
    // Read back failed with its reason, not interrupted: steps 1-3 acted, step 4 seen but not acted on
    // (its reply, or its events, could not be written).
    const session = await readBack(run);
    expect(session).toMatchObject({ status: 'failed', reason });
    expect(reason).toMatch(/writing (reply of step 4|events\.jsonl)/);
    expect(session.steps.map((step) => [step.step, step.screenshot !== null, step.results.length])).toEqual([
      [1, true, 2],
      [2, true, 1],
      [3, true, 1],
      [4, true, 0],
    ]);
    expectMemoryFilesWhole(run.dataDir);
  });
});
