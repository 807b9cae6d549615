/**
 * npm run bench:store — the session store against plain file I/O of the same bytes, measured in
 * the same run (the machine is noisy, so the ratios are the figures, the absolute times context):
 *
 *   write  a 2,000-step session with FileRunRecorder (events, screenshot, raw reply per step,
 *          everything fsynced at each step end; session.json at the start and the end) vs appendFile/writeFile
 *          of the same bytes, with and without an fdatasync per step;
 *   read   readSession (parse, check, fold into steps) vs readFile + JSON.parse of every line;
 *   list   1,000 sessions through the index, and with the index rebuilt, vs reading every
 *          session.json (the naive listing) and vs reading the index file alone.
 *
 * Options: --dir DIR (default: the OS temp dir; fsync costs depend on the disk), --rounds N (3).
 */
import { appendFile, mkdir, mkdtemp, open, readFile, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { screenPoint } from '../src/shared/actions';
import type { AgentEvent, AgentEventInput } from '../src/shared/events';
import type { Frame } from '../src/shared/frame';
import { FileRunRecorder } from '../src/main/store/run-recorder';
import { readSession } from '../src/main/store/session-reader';
import { indexPath } from '../src/main/store/session-index';
import { SessionStore } from '../src/main/store/session-store';
import { median, timeRuns } from './lib/stats';

const STEPS = 2000;
const SESSIONS = 1000;
const SCREENSHOT_BYTES = 60_000;

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
const rounds = Number(option('--rounds') ?? 3);
const root = await mkdtemp(join(option('--dir') ?? tmpdir(), 'mnemo-bench-store-'));

const frame: Frame = {
  displayId: '0',
  bounds: { x: 0, y: 0, width: 1920, height: 1080 },
  scaleFactor: 1,
  captured: { width: 1920, height: 1080 },
  image: { width: 1280, height: 720, format: 'jpeg' },
};
// Incompressible like a JPEG; one buffer reused, so the bench measures I/O, not random numbers.
const screenshot = randomBytes(SCREENSHOT_BYTES);
const reply = JSON.stringify({ role: 'assistant', content: 'I click the Save button in the toolbar. '.repeat(8), tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'computer', arguments: '{"actions":[{"type":"click","x":640,"y":40}]}' } }] });

/** The events of one step, as the loop emits them. */
function stepEvents(runId: string, step: number, at: number): AgentEvent[] {
  const action = { type: 'click' as const, x: 100 + (step % 900), y: 200, button: 'left' as const };
  const events: AgentEventInput[] = [
    { type: 'step-started', step },
    { type: 'observation', step, screenshot: { id: `step-${step}`, path: `screenshots/step-${String(step).padStart(4, '0')}.jpg`, width: 1280, height: 720, mime: 'image/jpeg' }, frame },
    { type: 'prediction', step, thought: `Step ${step}: the dialog is open; I click Save to keep the changes, then check the title bar.`, actions: [action], usage: { inputTokens: 1800, outputTokens: 60, costUsd: 0.0041 }, attempts: 1 },
    { type: 'action', step, index: 0, action },
    { type: 'action-result', step, index: 0, action, result: { ok: true, type: 'click', points: [screenPoint({ x: action.x * 1.5, y: 300 })], durationMs: 14 } },
    { type: 'step-finished', step, durationMs: 2100, costUsd: 0.0041 * step, usage: { inputTokens: 1800, outputTokens: 60, costUsd: 0.0041 } },
  ];
  // After run-started (seq 1), six events per step.
  return events.map((event, index) => ({ ...event, runId, at, seq: 2 + (step - 1) * events.length + index }) as AgentEvent);
}

interface WriteOutcome {
  ms: number;
  bytes: number;
  dataDir: string;
  id: string;
}

async function writeWithRecorder(): Promise<WriteOutcome> {
  const dataDir = await mkdtemp(join(root, 'rec-'));
  const started = performance.now();
  const recorder = await FileRunRecorder.create(dataDir, { task: 'bench: a long session', model: 'gpt-4.1', family: 'tools' });
  const runId = recorder.sessionId;
  void recorder.record({ runId, at: Date.now(), seq: 1, type: 'run-started', task: 'bench', model: 'gpt-4.1', family: 'tools', limits: { maxSteps: STEPS, maxCostUsd: null } });
  for (let step = 1; step <= STEPS; step++) {
    const [started_, observation, ...rest] = stepEvents(runId, step, Date.now());
    void recorder.record(started_!);
    await recorder.saveScreenshot(step, screenshot, 'image/jpeg', { width: 1280, height: 720 });
    void recorder.record(observation!);
    void recorder.saveReply(step, reply);
    for (const event of rest) void recorder.record(event);
    await recorder.flush();
  }
  void recorder.record({ runId, at: Date.now(), seq: 2 + STEPS * 6, type: 'run-finished', status: 'finished', reason: 'done', summary: null, steps: STEPS, usage: { inputTokens: 1, outputTokens: 1, costUsd: 1 } });
  await recorder.close();
  const ms = performance.now() - started;
  if (recorder.failure) throw new Error(recorder.failure);
  const bytes = (await readFile(join(recorder.directory, 'events.jsonl'))).length + STEPS * (SCREENSHOT_BYTES + Buffer.byteLength(reply));
  return { ms, bytes, dataDir, id: recorder.sessionId };
}

/** The same bytes with plain appendFile / writeFile: the floor, with or without durability. */
async function writePlain(sync: boolean): Promise<number> {
  const dir = await mkdtemp(join(root, sync ? 'plain-sync-' : 'plain-'));
  await writeFile(join(dir, 'events.jsonl'), '');
  await mkdir(join(dir, 'screenshots'));
  await mkdir(join(dir, 'replies'));
  const started = performance.now();
  const events = await open(join(dir, 'events.jsonl'), 'a');
  for (let step = 1; step <= STEPS; step++) {
    const lines = stepEvents('bench', step, Date.now()).map((event) => `${JSON.stringify(event)}\n`).join('');
    const name = `step-${String(step).padStart(4, '0')}`;
    if (sync) {
      const shot = await open(join(dir, 'screenshots', `${name}.jpg`), 'w');
      await shot.writeFile(screenshot);
      const text = await open(join(dir, 'replies', `${name}.txt`), 'w');
      await text.writeFile(reply);
      await events.appendFile(lines);
      await Promise.all([events.datasync(), shot.datasync(), text.datasync()]);
      await Promise.all([shot.close(), text.close()]);
    } else {
      await writeFile(join(dir, 'screenshots', `${name}.jpg`), screenshot);
      await writeFile(join(dir, 'replies', `${name}.txt`), reply);
      await appendFile(join(dir, 'events.jsonl'), lines);
    }
  }
  await events.close();
  return performance.now() - started;
}

/** Writes back dirty pages (coreutils `sync`), so one measurement does not pay for another's. */
function settleDisk(): void {
  spawnSync('sync', { stdio: 'ignore' });
}

const fmtMs = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 0)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

try {
  console.log(`bench:store in ${root} (${rounds} rounds, medians; ratios against plain file I/O of the same bytes in the same run)\n`);

  // --- write ---------------------------------------------------------------------------------
  const recorded: WriteOutcome[] = [];
  const plain: number[] = [];
  const plainSync: number[] = [];
  // Each measurement starts with no dirty pages left by the one before; the order rotates.
  const measurements = [
    async () => recorded.push(await writeWithRecorder()),
    async () => plain.push(await writePlain(false)),
    async () => plainSync.push(await writePlain(true)),
  ];
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < measurements.length; i++) {
      settleDisk();
      await measurements[(round + i) % measurements.length]!();
    }
  }
  const write = median(recorded.map((r) => r.ms));
  const bytes = recorded[0]!.bytes;
  console.log(`write ${STEPS} steps (${(bytes / 1e6).toFixed(1)} MB: events, ${SCREENSHOT_BYTES / 1000} kB screenshot and raw reply per step)`);
  console.log(`  recorder (fsync per step)     ${fmtMs(write)}  ${(STEPS / (write / 1000)).toFixed(0)} steps/s  ${(bytes / 1e6 / (write / 1000)).toFixed(1)} MB/s`);
  console.log(`  plain writes, no fsync        ${fmtMs(median(plain))}`);
  console.log(`  plain writes + fdatasync/step ${fmtMs(median(plainSync))}`);
  console.log(`  ratio recorder / plain+fsync: ${ratio(write, median(plainSync))}   recorder / plain: ${ratio(write, median(plain))}`);
  console.log(`  per step: recorder ${fmtMs(write / STEPS)}, plain+fsync ${fmtMs(median(plainSync) / STEPS)}\n`);

  // --- read ----------------------------------------------------------------------------------
  const { dataDir, id } = recorded[0]!;
  const eventsFile = join(dataDir, 'sessions', id, 'events.jsonl');
  const eventBytes = (await readFile(eventsFile)).length;
  settleDisk();
  const readTimes = await timeRuns(rounds * 3, async () => {
    const read = await readSession(dataDir, id);
    if (!read.ok || read.session.steps.length !== STEPS || read.session.warnings.length > 0) throw new Error('bench: the session did not read back whole');
  });
  const parseTimes = await timeRuns(rounds * 3, async () => {
    const text = await readFile(eventsFile, 'utf8');
    let count = 0;
    for (const line of text.split('\n')) if (line) count += JSON.parse(line) ? 1 : 0;
    if (count < STEPS) throw new Error('bench: short read');
  });
  const read = median(readTimes);
  console.log(`read ${STEPS} steps (${(eventBytes / 1e6).toFixed(1)} MB of events)`);
  console.log(`  readSession (parse, check, steps) ${fmtMs(read)}  ${(STEPS / (read / 1000)).toFixed(0)} steps/s  ${(eventBytes / 1e6 / (read / 1000)).toFixed(0)} MB/s`);
  console.log(`  readFile + JSON.parse per line    ${fmtMs(median(parseTimes))}`);
  console.log(`  ratio: ${ratio(read, median(parseTimes))}\n`);

  // --- list ----------------------------------------------------------------------------------
  const many = await mkdtemp(join(root, 'many-'));
  const tasks = ['Fill in the expense form', 'Rename the photos in Downloads', 'Send the weekly report', 'Book a meeting room', 'Update the spreadsheet totals'];
  const start = Date.now() - SESSIONS * 60_000;
  for (let i = 0; i < SESSIONS; i++) {
    const recorder = await FileRunRecorder.create(many, { task: `${tasks[i % tasks.length]} #${i}`, model: 'gpt-4.1', family: 'tools' }, start + i * 60_000);
    const at = start + i * 60_000;
    await recorder.record({ runId: recorder.sessionId, at, seq: 1, type: 'run-finished', status: i % 7 === 0 ? 'failed' : 'finished', reason: 'done', summary: null, steps: 1 + (i % 20), usage: { inputTokens: 1000, outputTokens: 50, costUsd: 0.01 * (i % 5) } });
    await recorder.close();
  }
  settleDisk();
  const store = new SessionStore(many);
  const check = (n: number) => {
    if (n !== SESSIONS) throw new Error(`bench: listed ${n} sessions`);
  };
  const listTimes = await timeRuns(rounds * 5, async () => check((await store.list()).sessions.length));
  const searchTimes = await timeRuns(rounds * 5, async () => {
    if ((await store.list({ search: 'weekly report' })).sessions.length !== SESSIONS / tasks.length) throw new Error('bench: search');
  });
  const rebuildTimes = await timeRuns(rounds, async () => {
    await unlink(indexPath(many));
    check((await store.list()).sessions.length);
  }, 0);
  const naiveTimes = await timeRuns(rounds * 2, async () => {
    const root_ = join(many, 'sessions');
    const names = (await readdir(root_)).filter((name) => !name.endsWith('.jsonl'));
    const metas = await Promise.all(names.map(async (name) => JSON.parse(await readFile(join(root_, name, 'session.json'), 'utf8')) as { startedAt: number }));
    metas.sort((a, b) => b.startedAt - a.startedAt);
    check(metas.length);
  });
  const indexOnlyTimes = await timeRuns(rounds * 5, async () => {
    const text = await readFile(indexPath(many), 'utf8');
    let count = 0;
    for (const line of text.split('\n')) if (line) count += JSON.parse(line) ? 1 : 0;
    if (count < SESSIONS) throw new Error('bench: index');
  });
  const list = median(listTimes);
  console.log(`list ${SESSIONS} sessions`);
  console.log(`  SessionStore.list (index)         ${fmtMs(list)}`);
  console.log(`  SessionStore.list, search         ${fmtMs(median(searchTimes))}`);
  console.log(`  SessionStore.list, index rebuilt  ${fmtMs(median(rebuildTimes))}`);
  console.log(`  naive: read every session.json    ${fmtMs(median(naiveTimes))}`);
  console.log(`  floor: readFile + parse the index ${fmtMs(median(indexOnlyTimes))}`);
  console.log(`  ratio list / naive: ${ratio(list, median(naiveTimes))}   list / floor: ${ratio(list, median(indexOnlyTimes))}   rebuild / naive: ${ratio(median(rebuildTimes), median(naiveTimes))}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
