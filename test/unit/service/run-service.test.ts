/**
 * The RunService end to end without a display: the real model client against a scripted
 * OpenAI-compatible server, the real recorder in a temporary data directory, the fake operator.
 * One run per display, catching up on events from any seq, questions, stop, pause, conversations,
 * reading a finished session, and replaying it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/shared/events';
import type { RunHandle } from '../../../src/main/service/run-service';
import { startMemoryModelServer, type ScriptedServer } from '../../fixtures/openai-server';
import { FAST_SETTLE } from '../run/agent-harness';
import { collect, ofType, oneToN, waitFor } from '../../fixtures/fakes';
import { seqs, startService, systemPrompt, toolCall, type ServiceSetup } from './service-harness';

let memoryModel: ScriptedServer;
let setup: ServiceSetup | undefined;

beforeAll(async () => {
  memoryModel = await startMemoryModelServer();
});
afterAll(async () => {
  await memoryModel?.close();
});
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

type Turn = Parameters<typeof toolCall>;

/** A service whose model answers these turns, in order. */
async function serviceWith(...turns: Turn[]): Promise<ServiceSetup> {
  setup = await startService(
    turns.map((turn) => toolCall(...turn)),
    memoryModel.url,
  );
  return setup;
}

const FINISHED: Turn = [[{ type: 'finished', summary: 'Done.' }], 'All done.'];
/** Two clicks around a question, then done. */
const WITH_QUESTION: Turn[] = [
  [[{ type: 'click', x: 100, y: 100 }], 'Open the menu.'],
  [[{ type: 'ask_user', question: 'Which folder?' }], 'I need to know where.'],
  [[{ type: 'click', x: 200, y: 120 }], 'Pick it.'],
  FINISHED,
];

async function started(setup: ServiceSetup, task = 'Save the report', extra: Partial<Parameters<ServiceSetup['service']['agentRuns']['start']>[0]> = {}): Promise<RunHandle> {
  const result = await setup.service.agentRuns.start({ task, agent: { settle: FAST_SETTLE }, ...extra });
  if (!result.ok) throw new Error(`start failed: ${result.error.kind}: ${result.error.message}`);
  return result.value;
}

describe('one run per display', () => {
  it('a second start while a run goes on is busy, naming the running session; the question is answered by its id', async () => {
    const s = await serviceWith(...WITH_QUESTION);
    const first = await started(s);
    await waitFor(() => first.pendingQuestion !== null, 'the question');

    const second = await s.service.agentRuns.start({ task: 'Something else', agent: { settle: FAST_SETTLE } });
    expect(second.ok).toBe(false);
    if (second.ok) return;
    expect(second.error).toMatchObject({ kind: 'busy', sessionId: first.id });
    expect(second.error.message).toContain(`session ${first.id} is running on it`);

    const question = first.pendingQuestion;
    expect(question).toMatchObject({ kind: 'question', question: 'Which folder?' });
    expect(first.answer((question?.id ?? 0) + 1000, 'Documents')).toBe(false);
    expect(first.answer(question?.id, 'Documents')).toBe(true);
    expect(first.answer(question?.id, 'Documents')).toBe(false);

    const outcome = await first.done;
    expect(outcome).toMatchObject({ status: 'finished', steps: 4, recordFailure: null });
    const events = await collect(s.service.records.events(first.id));
    expect(ofType(events, 'ask-user').map((event) => event.seq)).toEqual([question?.id]);
    expect(ofType(events, 'user-answer')).toMatchObject([{ answer: 'Documents' }]);
    expect(s.server.requests[2]?.rawBody).toContain('The user answered your question \\"Which folder?\\": Documents');
    expect(s.server.probes).toHaveLength(1);
    expect(s.operator.executedTypes).toEqual(['click', 'click']);

    // The display is free again.
    s.server.push(toolCall(...FINISHED));
    const third = await started(s, 'One more');
    expect((await third.done).status).toBe('finished');
  });
});

describe('events(since)', () => {
  it('gives every event exactly once, in seq order, up to run-finished, from any seq and at any moment of the run', async () => {
    const s = await serviceWith(...WITH_QUESTION);
    const handle = await started(s);
    const subscriptions: Array<{ since: number; events: Promise<AgentEvent[]> }> = [];
    const subscribe = (since: number, via: 'handle' | 'service') =>
      subscriptions.push({ since, events: collect(via === 'handle' ? handle.events(since) : s.service.records.events(handle.id, since)) });

    // A new subscriber at every event the first one sees: from 0, from the middle, from just before.
    const all = collect(handle.events(0), (event) => {
      subscribe(0, 'handle');
      subscribe(Math.floor(event.seq / 2), 'service');
      subscribe(Math.max(0, event.seq - 1), 'handle');
      subscribe(event.seq, 'handle');
      if (event.type === 'ask-user') queueMicrotask(() => handle.answer(event.seq, 'Documents'));
    });
    const events = await all;
    await handle.done;

    const n = events.length;
    expect(seqs(events)).toEqual(oneToN(n));
    expect(events.at(-1)?.type).toBe('run-finished');
    expect(subscriptions.length).toBeGreaterThan(4 * 10);
    for (const { since, events: pending } of subscriptions) {
      const got = await pending;
      expect(seqs(got), `since ${since}`).toEqual(oneToN(n).slice(since));
      expect(got.map((event) => event.type)).toEqual(events.slice(since).map((event) => event.type));
    }
  });

  it('reads a finished session from its record', async () => {
    const s = await serviceWith([[{ type: 'click', x: 100, y: 100 }], 'Click.'], FINISHED);
    const handle = await started(s);
    const live = await collect(handle.events());
    await handle.done;
    expect(s.service.runs.get(handle.id)).toBeUndefined();

    const recorded = await collect(s.service.records.events(handle.id, 0));
    expect(recorded).toEqual(live);
    const fromMiddle = await collect(s.service.records.events(handle.id, 5));
    expect(seqs(fromMiddle)).toEqual(oneToN(live.length).slice(5));
    expect(await collect(s.service.records.events(handle.id, live.length))).toEqual([]);
  });
});

describe('controls', () => {
  it('stop() during a model call ends the run aborted and frees the display', async () => {
    const s = await serviceWith();
    s.server.push({ delayMs: 60_000, text: 'too late' });
    const handle = await started(s);
    await waitFor(() => s.server.requests.length === 1, 'the model request');
    handle.stop();
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: 'aborted', reason: 'stopped by the user during a model call' });
    expect(s.operator.executed).toEqual([]);
    s.server.push(toolCall(...FINISHED));
    expect((await (await started(s, 'Again')).done).status).toBe('finished');
  });

  it('quit() ends the record at once: aborted, with every event before it, and nothing the engine does after', async () => {
    const s = await serviceWith();
    s.server.push({ delayMs: 60_000, text: 'too late' });
    const handle = await started(s);
    await waitFor(() => s.server.requests.length === 1, 'the model request');
    await handle.quit();
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: 'aborted', reason: 'quit by the user before the run could wind down' });
    const recorded = await collect(s.service.records.events(handle.id, 0));
    expect(seqs(recorded)).toEqual(oneToN(recorded.length));
    expect(recorded.map((event) => event.type)).toEqual(expect.arrayContaining(['run-started', 'step-started', 'observation']));
    expect(ofType(recorded, 'run-finished')).toEqual([expect.objectContaining({ status: 'aborted', reason: 'quit by the user before the run could wind down', steps: 0 })]);
    expect(JSON.parse(await readFile(join(handle.directory, 'session.json'), 'utf8'))).toMatchObject({ status: 'aborted', steps: 0 });
    expect(s.operator.executed).toEqual([]);
  });

  it('stop() while a question waits ends the run aborted', async () => {
    const s = await serviceWith(...WITH_QUESTION);
    const handle = await started(s);
    await waitFor(() => handle.pendingQuestion !== null, 'the question');
    handle.stop();
    const outcome = await handle.done;
    expect(handle.pendingQuestion).toBeNull();
    expect(outcome.status, outcome.reason).toBe('aborted');
  });

  it('pause() holds the run at the next step boundary; resume() lets it go on', async () => {
    const s = await serviceWith([[{ type: 'click', x: 100, y: 100 }], 'Click.'], FINISHED);
    const handle = await started(s);
    handle.pause();
    expect(handle.paused).toBe(true);
    let requestsWhilePaused = -1;
    const events = await collect(handle.events(), (event) => {
      if (event.type === 'paused') {
        requestsWhilePaused = s.server.requests.length;
        handle.resume();
      }
    });
    expect(requestsWhilePaused).toBe(0);
    expect(handle.paused).toBe(false);
    expect(events.map((event) => event.type)).toContain('resumed');
    expect(events.findIndex((event) => event.type === 'resumed')).toBeLessThan(events.findIndex((event) => event.type === 'step-started'));
    expect((await handle.done).status).toBe('finished');
  });

  it('stop() while paused ends the run aborted', async () => {
    const s = await serviceWith(FINISHED);
    const handle = await started(s);
    handle.pause();
    await collect(handle.events(), (event) => {
      if (event.type === 'paused') handle.stop();
    });
    expect(await handle.done).toMatchObject({ status: 'aborted', reason: 'stopped by the user', steps: 0 });
    expect(s.server.requests).toHaveLength(0);
  });
});

/** The conversation part of a system prompt (the blackboard, shared by every run, lists past tasks too). */
function conversationIn(system: string): string {
  const at = system.indexOf('Conversation so far:');
  return at < 0 ? '' : system.slice(at);
}

describe('conversations', () => {
  it('a follow-up task sees the first task in its conversation memory; a new task does not', async () => {
    const s = await serviceWith(FINISHED, FINISHED, FINISHED);
    const first = await started(s, 'Write the weekly report for Ada');
    expect((await first.done).status).toBe('finished');
    expect(first.conversationId).toMatch(/^conv-/);

    const followUp = await started(s, 'Now mail it to Grace', { conversationId: first.conversationId ?? '' });
    expect(followUp.conversationId).toBe(first.conversationId);
    expect((await followUp.done).status).toBe('finished');
    const conversation = conversationIn(systemPrompt(s.server.requests[1]));
    expect(conversation).toContain('user (task): Write the weekly report for Ada');
    expect(conversation).toContain('user (task): Now mail it to Grace');
    expect(ofType(await collect(s.service.records.events(followUp.id)), 'run-started')).toMatchObject([{ conversationId: first.conversationId }]);

    const unrelated = await started(s, 'Open the calendar');
    expect(unrelated.conversationId).not.toBe(first.conversationId);
    expect((await unrelated.done).status).toBe('finished');
    expect(conversationIn(systemPrompt(s.server.requests[2]))).not.toContain('weekly report');
  });

  it('an unknown conversation id is a settings error, and the display stays free', async () => {
    const s = await serviceWith(FINISHED);
    const result = await s.service.agentRuns.start({ task: 'Go on', conversationId: 'conv-00000000' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.kind).toBe('settings');
    expect(result.error.message).toMatch(/^no conversation "conv-00000000" in /);
    expect((await (await started(s)).done).status).toBe('finished');
  });
});

describe('replay', () => {
  it('replays a recorded session through the service, recorded as a new session', async () => {
    const s = await serviceWith([[{ type: 'click', x: 100, y: 100 }], 'Click.'], [[{ type: 'type', text: 'Ada' }], 'Type.'], FINISHED);
    const run = await started(s);
    expect((await run.done).status).toBe('finished');
    const recorded = s.operator.executed.map((entry) => entry.action);

    const result = await s.service.replays.start({ session: run.id, policy: 'stop', speed: 0 });
    if (!result.ok) throw new Error(result.error.message);
    const replay = result.value;
    expect(replay.kind).toBe('replay');
    const outcome = await replay.done;
    expect(outcome.status, outcome.reason).toBe('finished');
    expect(s.operator.executed.map((entry) => entry.action)).toEqual([...recorded, ...recorded]);

    const session = await s.service.records.session(replay.id);
    if (!session.ok) throw new Error(session.error.message);
    expect(session.value.meta).toMatchObject({ replayOf: run.id, status: 'finished' });
    expect(seqs(session.value.events)).toEqual(oneToN(session.value.events.length));
  });

  it('an unknown session is not_found', async () => {
    const s = await serviceWith();
    const result = await s.service.replays.start({ session: '20990101-000000-nothing', policy: 'stop', speed: 0 });
    expect(result).toMatchObject({ ok: false, error: { kind: 'not_found' } });
  });
});

describe('a disk nearly full', () => {
  const lowDisk = async (free: number, config: Record<string, unknown> = {}) => {
    setup = await startService([toolCall(...FINISHED)], memoryModel.url, { deps: { freeBytes: async () => free }, config });
    const handle = await started(setup);
    const events = await collect(handle.events());
    await handle.done;
    return ofType(events, 'note').filter((note) => /free on the disk holding/.test(note.message));
  };

  it('is said before the first step, below store.minFreeMb (default 200 MB)', async () => {
    const [warning] = await lowDisk(150e6);
    expect(warning).toMatchObject({ step: 0, message: expect.stringMatching(/^warning: only 150 MB free on the disk holding .*mnemo-service-.* \(less than store\.minFreeMb, 200 MB\)/) });
    expect(warning!.seq).toBe(2);
  });

  it('is not said above the threshold, nor when the setting is 0', async () => {
    expect(await lowDisk(250e6)).toEqual([]);
    await setup?.close();
    expect(await lowDisk(1e6, { store: { minFreeMb: 0 } })).toEqual([]);
  });
});
