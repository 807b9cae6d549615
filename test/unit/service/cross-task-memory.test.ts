/**
 * Memory bounded across tasks, through the RunService with the real model clients at scripted
 * servers, the fake operator, real files, a real redis-server and real processes:
 *
 * - after a run, the blackboard folds the task into one line written by the memory model (off the
 *   critical path), and the next task's prompt shows that line, within the configured budget;
 * - a board of thousands of tasks stays within its budget, and the old task the new one names is
 *   found and shown;
 * - `mnemo memory compact` killed with SIGKILL in the middle leaves the board readable and
 *   complete, and the next compaction finishes the rest without writing any summary twice;
 * - a board shared through Redis by two processes stays within its budget in both.
 */
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import { buildMemorySnapshot, type BlackboardDict, type MemoryItemData, type PromptSectionView } from '../../../src/shared/memory';
import { openBlackboard } from '../../../src/main/memory';
import { RedisBlackboardStore } from '../../../src/main/memory/redis-stores';
import { TASK_END_KIND, TASK_SUMMARY_KIND } from '../../../src/main/memory/blackboard-prompt';
import { TASK_SUMMARY_PROMPT } from '../../../src/main/memory/blackboard-summaries';
import { readSession } from '../../../src/main/store/session-reader';
import type { RunService } from '../../../src/main/service/run-service';
import { serviceOnFakeDisplay } from '../../fixtures/fake-display-service';
import { runMnemo, runTsFile, startMnemo } from '../../fixtures/mnemo-cli';
import { startScriptedServer, type RecordedRequest, type ScriptedReply, type ScriptedServer } from '../../fixtures/openai-server';
import { useMemoryStorage } from '../../fixtures/memory-storage';
import { FAST_SETTLE } from '../run/agent-harness';
import { collect } from '../../fixtures/fakes';
import { systemPrompt, toolCall } from './service-harness';
import { systemText, userText } from '../../fixtures/openai-server/request-text';

const storage = useMemoryStorage('cross-task', { redis: true });
/** Servers and services of the test, closed after it. */
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const tempDir = () => storage.tempDir();

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const isSummary = (request: RecordedRequest) => systemText(request) === TASK_SUMMARY_PROMPT;

/** A memory model whose task summaries say which task they fold (`summary` decides, per request). */
async function memoryModelServer(summary: (task: string, index: number) => ScriptedReply | Promise<ScriptedReply> = (task) => ({ text: `Summary of "${task}": done.` })): Promise<ScriptedServer> {
  let summaries = 0;
  const server = await startScriptedServer({
    replies: (request): ScriptedReply | Promise<ScriptedReply> => {
      if (isSummary(request)) return summary(/^Task: (.*)$/m.exec(userText(request))?.[1] ?? '?', summaries++);
      if (systemText(request).startsWith('You pick out lasting facts')) return { text: '[]' };
      if (systemText(request).startsWith('You keep the working memory')) return { text: 'Working through the tasks.' };
      return { text: JSON.stringify({ summary: 'Earlier steps went as planned.' }) };
    },
  });
  cleanups.push(() => server.close());
  return server;
}

const DONE = toolCall([{ type: 'finished', summary: 'Done.' }], 'Done.');

async function serviceFor(model: ScriptedServer, memoryModel: ScriptedServer, memory: Record<string, unknown> = {}): Promise<{ service: RunService; dataDir: string }> {
  const dataDir = await tempDir();
  const { service } = await serviceOnFakeDisplay({ dataDir, config: { memory: { model: { baseUrl: memoryModel.url }, ...memory } }, modelUrl: model.url });
  cleanups.push(() => service.close());
  return { service, dataDir };
}

async function run(service: RunService, task: string): Promise<{ id: string; events: AgentEvent[] }> {
  const started = await service.agentRuns.start({ task, interactive: false, agent: { settle: FAST_SETTLE } });
  if (!started.ok) throw new Error(`${started.error.kind}: ${started.error.message}`);
  await started.value.done;
  return { id: started.value.id, events: await collect(service.records.events(started.value.id)) };
}

/** The board as it is kept in the data directory now. */
async function boardOnDisk(dataDir: string): Promise<{ board: BlackboardDict; warnings: string[] }> {
  const { blackboard, warnings } = await openBlackboard(dataDir);
  return { board: blackboard.blackboardToDict(), warnings };
}

const summariesOf = (board: BlackboardDict) => board.trajectories.filter((item) => item.kind === TASK_SUMMARY_KIND);

async function promptSections(dataDir: string, sessionId: string): Promise<Map<string, PromptSectionView>> {
  const read = await readSession(dataDir, sessionId);
  if (!read.ok) throw new Error(read.message);
  const snapshot = buildMemorySnapshot(read.session.events.flatMap((event) => (event.type === 'memory' ? [event.change] : [])));
  return new Map((snapshot.prompt?.sections ?? []).map((section) => [section.name, section]));
}

const CITIES = ['Lisbon', 'Oslo', 'Quito', 'Hanoi', 'Perth', 'Dakar', 'Tallinn', 'Cusco'];

/** Years of use: `tasks` finished tasks with their steps, ends and (most) summaries; one of them about Zephyrine Holdings. */
function yearsOfTasks(tasks: number, prefix = 'old'): BlackboardDict {
  const board: BlackboardDict = { questions: [], requests: [], trajectories: [], screenshots: [] };
  for (let n = 1; n <= tasks; n++) {
    const id = `${prefix}-${n}`;
    const special = n === 42;
    board.requests.push({ request: special ? 'Send the Zephyrine Holdings tax form to Dana' : `Book a train ticket to ${CITIES[n % CITIES.length]} for trip ${n}`, task_id: id });
    for (let step = 1; step <= 4; step++) board.trajectories.push({ step, subtask: `step ${step} of trip ${n}`, action: 'click', status: 'success', task_id: id });
    board.trajectories.push({ kind: TASK_END_KIND, status: 'finished', outcome: special ? 'Sent the form.' : `Booked trip ${n}.`, task_id: id });
    if (special) board.trajectories.push({ kind: TASK_SUMMARY_KIND, task_id: id, summary: 'Sent the Zephyrine Holdings tax form to Dana by mail; she wants a paper copy too.', status: 'finished', steps: 4 });
    else if (n % 4 !== 0) board.trajectories.push({ kind: TASK_SUMMARY_KIND, task_id: id, summary: `Booked the train to ${CITIES[n % CITIES.length]} for trip ${n}.`, status: 'finished', steps: 4 });
  }
  return board;
}

async function seedBoard(dataDir: string, board: BlackboardDict): Promise<void> {
  const opened = await openBlackboard(dataDir);
  opened.blackboard.blackboardFromDict(board);
  const saved = await opened.store.rewrite(opened.blackboard.blackboardToDict());
  if (!saved.ok) throw new Error(saved.error);
}

describe('the blackboard across tasks', () => {
  it('folds each finished task into one line after its run, and the next prompt shows that line within the budget', { timeout: 240_000 }, async () => {
    const model = await startScriptedServer({ replies: [toolCall([{ type: 'click', x: 10, y: 10 }], 'Open the form.'), DONE, DONE, DONE] });
    cleanups.push(() => model.close());
    const memoryModel = await memoryModelServer();
    const { service, dataDir } = await serviceFor(model, memoryModel, { budgets: { blackboard: 300, conversation: 200 } });

    const first = await run(service, 'Fill in the travel expense form');
    // After the run, off the critical path: one summary line for the task, kept with its id.
    const afterFirst = await until('the summary of the first task', async () => {
      const { board } = await boardOnDisk(dataDir);
      return summariesOf(board).length === 1 ? board : undefined;
    });
    expect(summariesOf(afterFirst)).toEqual([{ kind: TASK_SUMMARY_KIND, task_id: first.id, summary: 'Summary of "Fill in the travel expense form": done.', status: 'finished', steps: 2 }]);
    // Nothing was removed: the request, both steps and the end are still there, each with the task's id.
    expect(afterFirst.requests).toEqual([{ request: 'Fill in the travel expense form', task_id: first.id }]);
    expect(afterFirst.trajectories.filter((item) => item.task_id === first.id).map((item) => item.kind ?? `step ${item.step}`)).toEqual(['step 1', 'step 2', TASK_END_KIND, TASK_SUMMARY_KIND]);
    const summaryRequest = memoryModel.requests.find(isSummary) as RecordedRequest;
    expect(userText(summaryRequest)).toContain('Task: Fill in the travel expense form\nEnded: finished: Done.\nSteps:\n- step 1: Open the form. [click] (success)');

    const second = await run(service, 'Send the expense form to accounting');
    const prompt = systemPrompt(model.requests.at(-1));
    expect(prompt).toContain('[Step Trajectories Completed Previously:]\n- Summary of "Fill in the travel expense form": done. [finished]');
    const sections = await promptSections(dataDir, second.id);
    expect([...sections.keys()]).toEqual(['layers', 'blackboard', 'conversation', 'workingMemory', 'facts']);
    expect(sections.get('blackboard')).toMatchObject({ budgetTokens: 300, shown: 1, omitted: 0 });
    expect(sections.get('blackboard')?.usedTokens).toBeLessThanOrEqual(300);
    expect(sections.get('conversation')?.budgetTokens).toBe(200);
    expect(sections.get('facts')?.budgetTokens).toBe(600);
  });

  it('stays within its budget with thousands of tasks on the board, and shows the old one the task names', { timeout: 240_000 }, async () => {
    const model = await startScriptedServer({ replies: [DONE] });
    cleanups.push(() => model.close());
    const memoryModel = await memoryModelServer();
    const { service, dataDir } = await serviceFor(model, memoryModel, { budgets: { blackboard: 500 } });
    await seedBoard(dataDir, yearsOfTasks(3000));

    const { id } = await run(service, 'Print another copy of the Zephyrine Holdings tax form for Dana');
    const prompt = systemPrompt(model.requests[0]);
    expect(prompt).toContain('- Sent the Zephyrine Holdings tax form to Dana by mail; she wants a paper copy too. [finished]');
    // The most recent tasks too, and a note of what was left out.
    expect(prompt).toContain('- Booked the train to Cusco for trip 2999. [finished]');
    expect(prompt).toMatch(/\(\d+ older blackboard entries are not shown: \d+ tasks\. They are kept; a task that names them brings them back\.\)/);
    expect(prompt).not.toContain('step 3 of trip 2999');
    const blackboard = (await promptSections(dataDir, id)).get('blackboard') as PromptSectionView;
    expect(blackboard.usedTokens).toBeLessThanOrEqual(500);
    expect(blackboard.shown + blackboard.omitted).toBe(3000);
    expect(blackboard.leftOut).toBe(`${blackboard.omitted} tasks`);
    // The memory show of the session says the same.
    const shown = await runMnemo(['memory', 'show', id, '--data-dir', dataDir, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const snapshot = JSON.parse(shown.stdout) as { prompt: { sections: PromptSectionView[]; totalTokens: number } };
    expect(snapshot.prompt.sections.find((section) => section.name === 'blackboard')).toMatchObject({ budgetTokens: 500, omitted: blackboard.omitted, leftOut: blackboard.leftOut });
    const text = await runMnemo(['memory', 'show', id, '--data-dir', dataDir]);
    expect(text.stdout).toMatch(new RegExp(`memory in the last prompt \\(~\\d+ tokens\\)\\n  layers: ~\\d+ tokens \\(own limits\\); \\d shown\\n  blackboard: ~\\d+ tokens \\(budget 500\\); \\d+ shown; left out ${blackboard.omitted}: ${blackboard.omitted} tasks`));
  });
});

describe('mnemo memory compact', () => {
  it('killed with SIGKILL in the middle leaves the board readable and complete; run again, it finishes without writing a summary twice', { timeout: 240_000 }, async () => {
    const dataDir = await tempDir();
    const pending = yearsOfTasks(12, 'crash');
    // No summaries yet: twelve finished tasks wait for one.
    pending.trajectories = pending.trajectories.filter((item) => item.kind !== TASK_SUMMARY_KIND);
    await seedBoard(dataDir, pending);
    const before = (await boardOnDisk(dataDir)).board;

    // The memory model answers three summaries, never answers the fourth, then answers again.
    const memoryModel = await memoryModelServer((task, index) => (index === 3 ? new Promise<ScriptedReply>(() => undefined) : { text: `Folded: ${task}` }));
    await writeFile(join(dataDir, 'config.json'), JSON.stringify({ model: { baseUrl: memoryModel.url, model: 'gpt-4.1-mini', family: 'tools', timeoutMs: 600_000 } }));
    const compacting = startMnemo(['memory', 'compact', '--data-dir', dataDir]);
    await until('three summaries on disk', async () => (summariesOf((await boardOnDisk(dataDir)).board).length === 3 ? true : undefined));
    await until('the fourth summary asked for', async () => (memoryModel.requests.filter(isSummary).length >= 4 ? true : undefined));
    compacting.child.kill('SIGKILL');
    const killed = await compacting.result;
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stderr).toMatch(/\[1\/12\] crash-12: Folded: Book a train ticket to Perth for trip 12/);

    // Readable (no warning) and complete: every item that was there is there, plus three summaries.
    const { board, warnings } = await boardOnDisk(dataDir);
    expect(warnings).toEqual([]);
    for (const section of ['questions', 'requests', 'screenshots'] as const) expect(board[section]).toEqual(before[section]);
    expect(board.trajectories.slice(0, before.trajectories.length)).toEqual(before.trajectories);
    expect(summariesOf(board).map((item) => item.task_id)).toEqual(['crash-12', 'crash-11', 'crash-10']);

    // A torn last line (a crash mid-write on another filesystem) is skipped, and what comes after it is kept.
    await appendFile(join(dataDir, 'blackboard', 'blackboard.jsonl'), '{"seq": 99999, "op": "add", "section": "traj');
    expect((await boardOnDisk(dataDir)).warnings).toEqual([expect.stringMatching(/blackboard\.jsonl line 4 is corrupt and was skipped/)]);
    const again = await compactJson(dataDir);
    expect(again).toMatchObject({ pending: 9, summarised: 9, failed: [], stopped: false, writeError: null });
    const after = await boardOnDisk(dataDir);
    // Only the torn line is lost: the summary written after it starts on a line of its own.
    expect(after.warnings).toEqual([expect.stringMatching(/blackboard\.jsonl line 4 is corrupt and was skipped/)]);
    const ids = summariesOf(after.board).map((item) => item.task_id as string);
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
    const nothingLeft = await compactJson(dataDir);
    expect(nothingLeft).toMatchObject({ pending: 0, summarised: 0 });
  });

  async function compactJson(dataDir: string): Promise<Record<string, unknown>> {
    const result = await runMnemo(['memory', 'compact', '--data-dir', dataDir, '--json']);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }
});

describe('a blackboard shared through Redis', () => {
  it('stays within its budget in both processes, each seeing what the other did', { timeout: 300_000 }, async () => {
    // Years of use already in Redis, under an organisation of this test's own.
    const organisation = storage.newOrganisation();
    const connection = await storage.connect({ organisation });
    const seeded = await openBlackboard('', {}, { store: new RedisBlackboardStore(connection) });
    seeded.blackboard.blackboardFromDict(yearsOfTasks(2000, 'redis'));
    const flushed = await seeded.store.flush();
    expect(flushed.ok).toBe(true);

    const model = await startScriptedServer({ replies: () => DONE });
    cleanups.push(() => model.close());
    const memoryModel = await memoryModelServer();
    const [dirA, dirB] = [await tempDir(), await tempDir()];
    const common = { modelUrl: model.url, memoryModelUrl: memoryModel.url, redisUrl: storage.redis.url, memory: { facts: { scopes: { organisation } }, budgets: { blackboard: 400 } } };
    const a = await runTsFile('test/fixtures/memory-peer.ts', [JSON.stringify({ ...common, dataDir: dirA, task: 'Renew the Quokka Labs domain name on machine A' })]);
    expect(a.code, a.stderr).toBe(0);
    const outA = JSON.parse(a.stdout.trim().split('\n').at(-1) as string) as { sessionId: string };
    const b = await runTsFile('test/fixtures/memory-peer.ts', [JSON.stringify({ ...common, dataDir: dirB, task: 'Check that the Quokka Labs domain renewal went through' })]);
    expect(b.code, b.stderr).toBe(0);
    const outB = JSON.parse(b.stdout.trim().split('\n').at(-1) as string) as { sessionId: string };

    // B's prompt has A's task (folded by A's process after its run, through Redis).
    expect(systemPrompt(model.requests.at(-1))).toContain('Summary of "Renew the Quokka Labs domain name on machine A": done. [finished]');
    for (const [dir, id] of [[dirA, outA.sessionId], [dirB, outB.sessionId]] as const) {
      const blackboard = (await promptSections(dir, id)).get('blackboard') as PromptSectionView;
      expect(blackboard.budgetTokens).toBe(400);
      expect(blackboard.usedTokens).toBeLessThanOrEqual(400);
      expect(blackboard.omitted).toBeGreaterThan(1900);
    }
    // Both processes' tasks and summaries are in Redis, next to the 2,000 from before.
    const shared = await openBlackboard('', {}, { store: new RedisBlackboardStore(connection) });
    const items: MemoryItemData[] = shared.blackboard.blackboardToDict().trajectories;
    expect(items.filter((item) => item.kind === TASK_SUMMARY_KIND && [outA.sessionId, outB.sessionId].includes(item.task_id as string))).toHaveLength(2);
  });
});
