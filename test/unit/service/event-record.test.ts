/**
 * A real run through the run service (the real model client against the scripted OpenAI server,
 * the real recorder on disk, the fake operator), asking a question: the answer names its question,
 * each step carries its own usage beside the run's cost so far, session.json is written when the
 * run starts and when it ends and not in between, a listing mid-run shows the steps and the cost
 * from the events, and the recorder, the CLI and the window give the same totals.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { sumUsage, ZERO_USAGE, type AgentEvent, type UsageSummary } from '../../../src/shared/events';
import { totalsOf } from '../../../src/shared/run-totals';
import { TerminalView } from '../../../src/main/cli/terminal-view';
import { readSession } from '../../../src/main/store/session-reader';
import { SessionStore } from '../../../src/main/store/session-store';
import { emptySession, withEvents } from '../../../src/renderer/src/store/session-fold';
import { startMemoryModelServer, type RecordedRequest, type ScriptedReply } from '../../fixtures/openai-server';
import { runMnemo } from '../../fixtures/mnemo-cli';
import { FAST_SETTLE } from '../run/agent-harness';
import { collect, gate, ofType } from '../../fixtures/fakes';
import { startService, toolCall } from './service-harness';

const open: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of open.splice(0).reverse()) await server.close();
});

/** session.json as it is on disk: its inode, its time and its text. */
function sessionFile(directory: string): { ino: number; mtimeMs: number; text: string } {
  const path = join(directory, 'session.json');
  const { ino, mtimeMs } = statSync(path);
  return { ino, mtimeMs, text: readFileSync(path, 'utf8') };
}

describe('the events of a run, as recorded', () => {
  it('an answer names its question; steps carry their usage; session.json only at the start and the end; one set of totals everywhere', async () => {
    const thirdCall = gate();
    const goOn = gate();
    const script: ScriptedReply[] = [
      // Not JSON: the step fails to parse, yet its tokens are paid for.
      { text: 'Clicking.', toolCalls: [{ name: 'computer', arguments: '{"thought": "Clicking.", "actions": [' }], usage: { prompt_tokens: 1000, completion_tokens: 30 } },
      toolCall([{ type: 'ask_user', question: 'Which colour?' }], 'I need to know the colour.'),
      toolCall([{ type: 'click', x: 100, y: 80 }], 'Teal it is.'),
      toolCall([{ type: 'finished', summary: 'Picked teal.' }], 'Done.'),
    ];
    const memoryModel = await startMemoryModelServer();
    open.push(memoryModel);
    const setup = await startService(async (request: RecordedRequest) => {
      if (request.index === 2) {
        // Steps 1 and 2 are finished and on disk: the test looks before the third reply goes out.
        thirdCall.open();
        await goOn.opened;
      }
      return script[request.index];
    }, memoryModel.url);
    open.push(setup);
    const { service, dataDir } = setup;

    const started = await service.agentRuns.start({ task: 'Pick a colour', agent: { settle: FAST_SETTLE } });
    if (!started.ok) throw new Error(started.error.message);
    const handle = started.value;
    const atStart = sessionFile(handle.directory);
    expect(JSON.parse(atStart.text)).toMatchObject({ id: handle.id, status: 'running', steps: 0, costUsd: 0 });

    const events = collect(handle.events(0), (event) => {
      if (event.type === 'ask-user') queueMicrotask(() => handle.answer(event.seq, 'teal'));
    });

    await thirdCall.opened;
    // Mid-run: session.json untouched since the start, the listing's progress from the events.
    expect(sessionFile(handle.directory)).toEqual(atStart);
    const soFar = totalsOf(await handle.eventsSoFar(0));
    expect(soFar.steps).toBe(2);
    expect(soFar.usage.costUsd).toBeGreaterThan(0);
    const listing = await new SessionStore(dataDir).list();
    expect(listing.sessions).toEqual([expect.objectContaining({ id: handle.id, status: 'running', steps: 2, costUsd: soFar.usage.costUsd })]);
    const cli = await runMnemo(['sessions', '--json', '--data-dir', dataDir]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual([expect.objectContaining({ id: handle.id, status: 'running', steps: 2, cost: soFar.usage.costUsd })]);
    const shownMidRun = await readSession(dataDir, handle.id);
    expect(shownMidRun.ok && shownMidRun.session.meta).toMatchObject({ status: 'running', steps: 2, costUsd: soFar.usage.costUsd });
    expect(sessionFile(handle.directory)).toEqual(atStart);
    goOn.open();

    const all = await events;
    const outcome = await handle.done;
    expect(outcome).toMatchObject({ status: 'finished', steps: 4, recordFailure: null });

    // The answer names its question: the seq of the ask-user event.
    const [asked] = ofType(all, 'ask-user');
    expect(ofType(all, 'user-answer')).toEqual([expect.objectContaining({ step: 2, kind: 'question', answer: 'teal', questionId: asked?.seq })]);
    // A step error with its kind from the enum.
    expect(ofType(all, 'model-error')).toEqual([expect.objectContaining({ step: 1, kind: 'parse' })]);

    // Each step's own usage, the failed reply's included, and the run's cost so far beside it.
    const finished = ofType(all, 'step-finished');
    expect(finished.map((event) => event.usage?.inputTokens)).toEqual([1000, 1200, 1200, 1200]);
    let sum: UsageSummary = ZERO_USAGE;
    for (const event of finished) {
      expect(event.usage?.costUsd).toBeGreaterThan(0);
      sum = sumUsage(sum, event.usage as UsageSummary);
      expect(event.costUsd).toBe(sum.costUsd);
    }
    const end = all.at(-1) as AgentEvent;
    expect(end).toMatchObject({ type: 'run-finished', steps: 4, usage: sum });

    // session.json: rewritten at the end, with the totals of the one fold.
    const atEnd = sessionFile(handle.directory);
    expect(atEnd.text).not.toBe(atStart.text);
    const meta = JSON.parse(atEnd.text) as { status: string; steps: number; costUsd: number; usage: UsageSummary };
    expect(meta).toMatchObject({ status: 'finished', steps: 4, costUsd: sum.costUsd, usage: sum });

    // The record read back, the window and the terminal view: the same totals.
    const read = await readSession(dataDir, handle.id);
    if (!read.ok) throw new Error(read.message);
    expect(totalsOf(read.session.events)).toMatchObject({ steps: 4, usage: sum });
    expect(withEvents(emptySession(handle.id), read.session.events).run.totals.usage).toEqual(sum);
    const out = new PassThrough();
    let printed = '';
    out.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const view = new TerminalView(out);
    for (const event of all) view.show(event);
    expect(printed.trim().split('\n').at(-1)).toBe(`4 steps, ${sum.inputTokens} in / ${sum.outputTokens} out tokens, $${sum.costUsd.toFixed(4)}`);
    expect(read.session.steps.map((step) => step.usage)).toEqual(finished.map((event) => event.usage));
    expect(read.session.steps[1]?.questions).toEqual([{ id: asked?.seq, kind: 'question', question: 'Which colour?', answer: 'teal', answered: true }]);

    // What `mnemo run --json` prints: the recorded lines, step-finished with its cost so far and its usage.
    const lines = readFileSync(join(handle.directory, 'events.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.type === 'step-finished').map((line) => Object.keys(line).sort())).toEqual(
      Array(4).fill(['at', 'costUsd', 'durationMs', 'runId', 'seq', 'step', 'timings', 'type', 'usage']),
    );
  });
});
