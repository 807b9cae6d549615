/**
 * Facts and working memory in real runs: the RunService with the real model clients against
 * scripted servers, the fake operator, real files and a real redis-server.
 *
 * - facts bearing on the task go into the prompt; `save_fact` saves; auto-detection saves what the
 *   memory model finds (prose and fences tolerated); a reply that does not parse is retried once,
 *   then reported as a memory event and a note;
 * - the conversation's working memory is rewritten after each task and the next task's prompt has it;
 * - two processes with different data directories share the facts, the blackboard and the working
 *   memory through Redis;
 * - Redis stopped mid-run: the failed writes are shown, the run ends normally, and the memory works
 *   again once Redis is back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import type { MemoryChange } from '../../../src/shared/memory';
import type { RunHandle, RunService } from '../../../src/main/service/run-service';
import { serviceOnFakeDisplay } from '../../fixtures/fake-display-service';
import { runTsFile, type CliRun } from '../../fixtures/mnemo-cli';
import { startScriptedServer, type RecordedRequest, type ScriptedReply, type ScriptedServer } from '../../fixtures/openai-server';
import { startRedis, type TestRedis } from '../../fixtures/redis-server';
import { FAST_SETTLE } from '../run/agent-harness';
import { collect, ofType } from '../../fixtures/fakes';
import { systemPrompt, toolCall } from './service-harness';

let redis: TestRedis;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function systemOf(request: RecordedRequest): string {
  return ((request.body as { messages: Array<{ role: string; content: string }> }).messages.find((message) => message.role === 'system')?.content ?? '') as string;
}

const isDetection = (request: RecordedRequest) => systemOf(request).startsWith('You pick out lasting facts');
const isWorking = (request: RecordedRequest) => systemOf(request).startsWith('You keep the working memory');

interface MemoryScript {
  detection?: (index: number) => string;
  working?: (index: number) => string;
}

/** A memory model that answers detection, working memory and summaries, each by its own script. */
async function memoryModelServer(script: MemoryScript): Promise<ScriptedServer> {
  let detections = 0;
  let workings = 0;
  const server = await startScriptedServer({
    replies: (request): ScriptedReply => {
      if (isDetection(request)) return { text: script.detection?.(detections++) ?? '[]' };
      if (isWorking(request)) return { text: script.working?.(workings++) ?? 'Nothing yet.' };
      return { text: JSON.stringify({ summary: 'Earlier steps went as planned.' }) };
    },
  });
  cleanups.push(() => server.close());
  return server;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mnemo-memory-run-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function serviceFor(model: ScriptedServer, memoryModel: ScriptedServer, memory: Record<string, unknown> = {}): Promise<{ service: RunService; dataDir: string; log: string[] }> {
  const dataDir = await tempDir();
  const log: string[] = [];
  const { service } = await serviceOnFakeDisplay({
    dataDir,
    config: { memory: { model: { baseUrl: memoryModel.url }, ...memory } },
    modelUrl: model.url,
    deps: { log: (line) => log.push(line) },
  });
  cleanups.push(() => service.close());
  return { service, dataDir, log };
}

async function run(service: RunService, task: string, conversationId?: string): Promise<{ handle: RunHandle; events: AgentEvent[] }> {
  const started = await service.agentRuns.start({ task, interactive: false, agent: { settle: FAST_SETTLE }, ...(conversationId ? { conversationId } : {}) });
  if (!started.ok) throw new Error(`${started.error.kind}: ${started.error.message}`);
  await started.value.done;
  return { handle: started.value, events: await collect(service.records.events(started.value.id)) };
}

function memoryChanges<K extends MemoryChange['kind']>(events: readonly AgentEvent[], kind: K): Array<Extract<MemoryChange, { kind: K }>> {
  return ofType(events, 'memory')
    .map((event) => event.change)
    .filter((change): change is Extract<MemoryChange, { kind: K }> => change.kind === kind);
}

const SAVE_FACT = { type: 'save_fact', keyword: 'report-folder', description: 'Where the user keeps reports', value: 'Documents/Reports' };
const DONE = toolCall([{ type: 'finished', summary: 'Done.' }], 'Done.');

describe('facts and working memory in a run', () => {
  it('loads the facts that bear on the task, saves by save_fact and by auto-detection, and carries the working memory to the next task', { timeout: 240_000 }, async () => {
    const model = await startScriptedServer({ replies: [toolCall([SAVE_FACT], 'I will remember the folder.'), DONE, DONE] });
    cleanups.push(() => model.close());
    const memoryModel = await memoryModelServer({
      detection: () => 'Here is what I found:\n```json\n[{"subject": "user", "keyword": "preferred-editor", "description": "The editor the user prefers", "value": "Helix"}, {"subject": "machine", "keyword": "installed-shells", "description": "Shells", "values": ["bash", "fish"]}]\n```\nThat is all.',
      working: (index) => (index === 0 ? 'The user saves reports in Documents/Reports and prefers Helix.' : 'Second task done as well.'),
    });
    const { service } = await serviceFor(model, memoryModel);
    const memory = await service.memoryHost.memoryService();
    if (!memory.ok) throw new Error(memory.error.message);
    await memory.value.addFact({ subject: 'user', scope: 'product:mnemo', keyword: 'report-format', description: 'The format the user wants reports in', values: ['PDF'] });
    await memory.value.addFact({ subject: 'everything', scope: 'product:mnemo', keyword: 'report-format', description: 'The usual report format', values: ['Word'] });

    const first = await run(service, 'Save the quarterly report');
    expect(first.handle.conversationId).toMatch(/^conv-/);
    const prompt = systemPrompt(model.requests[0]);
    expect(prompt).toContain('[Facts remembered from earlier tasks:]');
    // The more specific subject wins: the user's PDF, not everything's Word.
    expect(prompt).toContain('- [user] report-format (The format the user wants reports in): PDF');
    expect(prompt).not.toContain('Word');

    const facts = memoryChanges(first.events, 'facts');
    expect(facts.map((change) => `${change.op}/${change.source}`)).toEqual(['loaded/prompt', 'saved/save_fact', 'saved/auto-detect']);
    expect(facts[0]?.facts.map((fact) => fact.keyword)).toEqual(['report-format']);
    expect(facts[1]?.facts).toMatchObject([{ keyword: 'report-folder', subject: 'user', scope: 'product:mnemo', values: ['Documents/Reports'], change: 'added' }]);
    expect(facts[2]?.facts.map((fact) => `${fact.subject}:${fact.keyword}=${fact.values.join(',')}`)).toEqual(['user:preferred-editor=Helix', `machine:installed-shells=bash,fish`]);
    expect(facts[2]?.facts[1]?.scope).toMatch(/^agent:mnemo@/);
    expect(ofType(first.events, 'note').map((note) => note.message)).toContain('Saved the fact report-folder about the user (added).');
    const working = memoryChanges(first.events, 'working-memory');
    expect(working.map((change) => `${change.op}:${change.status}`)).toEqual(['loaded:null', 'updated:success']);
    expect(working[1]?.memory).toBe('The user saves reports in Documents/Reports and prefers Helix.');
    const detectionRequest = memoryModel.requests.find(isDetection) as RecordedRequest;
    expect(JSON.stringify(detectionRequest.body)).toContain('Save the quarterly report');

    const listed = await memory.value.listFacts();
    expect(listed.ok && listed.value.map((fact) => fact.keyword).sort()).toEqual(['installed-shells', 'preferred-editor', 'report-folder', 'report-format', 'report-format']);

    await run(service, 'Now email it', first.handle.conversationId as string);
    const second = systemPrompt(model.requests[2]);
    expect(second).toContain('[Working memory of this conversation:]\nThe user saves reports in Documents/Reports and prefers Helix.');
    expect(second).toContain('report-folder');
    const workingRequests = memoryModel.requests.filter(isWorking);
    expect(JSON.stringify(workingRequests[1]?.body)).toContain('The user saves reports in Documents/Reports and prefers Helix.');
    const stored = await memory.value.workingMemory(first.handle.conversationId as string);
    expect(stored).toMatchObject({ ok: true, value: { memory: 'Second task done as well.' } });
  });

  it('a detection reply that does not parse is asked once more; a second failure is a memory event and a note, never silent', { timeout: 240_000 }, async () => {
    const model = await startScriptedServer({ replies: [DONE, DONE] });
    cleanups.push(() => model.close());
    let round = 0;
    const memoryModel = await memoryModelServer({
      detection: (index) => {
        // First run: junk, then a valid array. Second run: junk twice.
        if (round === 0) return index === 0 ? 'I think the user likes tea, but I am not sure.' : '[{"subject":"user","keyword":"drink","description":"What the user drinks","value":"tea"}]';
        return index < 3 ? 'Sorry, no JSON today.' : 'Still none.';
      },
    });
    const { service } = await serviceFor(model, memoryModel);
    const first = await run(service, 'Make a note about tea');
    expect(memoryModel.requests.filter(isDetection)).toHaveLength(2);
    expect(memoryChanges(first.events, 'facts').at(-1)).toMatchObject({ source: 'auto-detect', error: null, facts: [{ keyword: 'drink', values: ['tea'] }] });
    const retry = memoryModel.requests.filter(isDetection)[1]?.body as { messages: Array<{ role: string; content: string }> };
    expect(retry.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);

    round = 1;
    const second = await run(service, 'Another task');
    expect(memoryModel.requests.filter(isDetection)).toHaveLength(4);
    const failed = memoryChanges(second.events, 'facts').at(-1);
    expect(failed).toMatchObject({ op: 'saved', source: 'auto-detect', facts: [] });
    expect(failed?.error).toContain("the memory model's reply could not be read twice: the reply holds no JSON array of facts");
    expect(ofType(second.events, 'note').map((note) => note.message).join('\n')).toContain('memory: no facts were taken from this run');
    expect(ofType(second.events, 'run-finished')[0]).toMatchObject({ status: 'finished' });
  });
});

describe('one memory for several machines', () => {
  /** memory-peer.ts: another Mnemo process, on a data directory of its own, running one task. */
  function peer(input: Record<string, unknown>): Promise<CliRun> {
    return runTsFile('test/fixtures/memory-peer.ts', [JSON.stringify(input)]);
  }

  it('two processes with different data directories share facts, the blackboard and the working memory through Redis', { timeout: 240_000 }, async () => {
    const model = await startScriptedServer({ replies: [toolCall([SAVE_FACT], 'Remember the folder.'), DONE, DONE] });
    cleanups.push(() => model.close());
    const memoryModel = await memoryModelServer({ working: (index) => (index === 0 ? 'Machine A learned: reports go to Documents/Reports.' : 'Machine B continued.') });
    const [dirA, dirB] = [await tempDir(), await tempDir()];
    const common = { modelUrl: model.url, memoryModelUrl: memoryModel.url, redisUrl: redis.url };
    const a = await peer({ ...common, dataDir: dirA, task: 'File the report from machine A' });
    expect(a.code, a.stderr).toBe(0);
    const outA = JSON.parse(a.stdout.trim().split('\n').at(-1) as string) as { conversationId: string; status: string };
    expect(outA.status).toBe('finished');

    const b = await peer({ ...common, dataDir: dirB, task: 'Continue on machine B', conversationId: outA.conversationId });
    expect(b.code, b.stderr).toBe(0);
    const prompt = systemPrompt(model.requests[2]);
    expect(prompt).toContain('report-folder');
    expect(prompt).toContain('Documents/Reports');
    expect(prompt).toContain('File the report from machine A');
    expect(prompt).toContain('[Working memory of this conversation:]\nMachine A learned: reports go to Documents/Reports.');
    // Machine B's data directory holds none of it: it came through Redis.
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(join(dirB, 'memory')).catch(() => [])).not.toContain('facts');
  });

  it('Redis unreachable at start: the run is refused with a clear memory error, or runs on local files where the settings allow', { timeout: 240_000 }, async () => {
    const model = await startScriptedServer({ replies: [DONE] });
    cleanups.push(() => model.close());
    const memoryModel = await memoryModelServer({});
    const strict = await serviceFor(model, memoryModel, { redisUrl: 'redis://127.0.0.1:1' });
    const refused = await strict.service.agentRuns.start({ task: 'Anything', interactive: false });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'memory' } });
    expect(!refused.ok && refused.error.message).toMatch(/^cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*set memory\.redisFallback to "local"/);
    expect(model.requests).toHaveLength(0);

    const lenient = await serviceFor(model, memoryModel, { redisUrl: 'redis://127.0.0.1:1', redisFallback: 'local' });
    const { events } = await run(lenient.service, 'Anything');
    expect(ofType(events, 'run-finished')[0]).toMatchObject({ status: 'finished' });
    expect(lenient.log.join('\n')).toContain('warning: cannot reach Redis at redis://127.0.0.1:1');
  });

  it('Redis stopped mid-run: each failed write is shown, the run ends normally; back again, the memory works', { timeout: 240_000 }, async () => {
    const own = await startRedis();
    cleanups.push(() => own.stop());
    const model = await startScriptedServer({
      replies: async (request) => {
        // The second step's request: Redis goes away before the model answers with save_fact.
        if (request.index === 1) await own.stop();
        if (request.index === 0) return toolCall([{ type: 'click', x: 10, y: 10 }], 'Click.');
        if (request.index === 1) return toolCall([SAVE_FACT], 'Remember.');
        return DONE;
      },
    });
    cleanups.push(() => model.close());
    const memoryModel = await memoryModelServer({ detection: () => '[{"subject":"user","keyword":"k","description":"d","value":"v"}]', working: () => 'memory text' });
    const { service } = await serviceFor(model, memoryModel, { redisUrl: own.url });
    const { events } = await run(service, 'Work while Redis goes away');
    expect(ofType(events, 'run-finished')[0]).toMatchObject({ status: 'finished' });
    const notes = ofType(events, 'note').map((note) => note.message);
    const redisNamed = `Redis at ${own.url}`;
    expect(notes.find((note) => note.startsWith('memory: the fact report-folder was not saved'))).toContain(redisNamed);
    expect(notes.find((note) => note.startsWith('a blackboard change was not saved'))).toContain(redisNamed);
    expect(notes.find((note) => note.startsWith('memory: the facts found in this run were not saved'))).toContain(redisNamed);
    expect(notes.find((note) => note.startsWith('memory: the working memory of'))).toContain('error: storage failed - ');
    const facts = memoryChanges(events, 'facts');
    expect(facts.filter((change) => change.op === 'saved').every((change) => change.error !== null)).toBe(true);

    await own.restart();
    const memory = await service.memoryHost.memoryService();
    if (!memory.ok) throw new Error(memory.error.message);
    // The client reconnects on its own; poll with a generous deadline.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const added = await memory.value.addFact({ subject: 'user', scope: 'product:mnemo', keyword: 'back', description: 'Redis is back', values: ['yes'] });
      if (added.ok) break;
      if (Date.now() > deadline) throw new Error(`Redis did not come back: ${added.error.message}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const listed = await memory.value.listFacts();
    expect(listed.ok && listed.value.map((fact) => fact.keyword)).toEqual(['back']);
  });
});
