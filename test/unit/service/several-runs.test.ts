/**
 * Several runs at once in one service, one per desktop: each takes its own desktop's lock and
 * operator, the registry lists them all ({id, kind, task, status, desktop}) and finds the one on a
 * desktop, a third start on a desktop in use is `busy` naming the run there, and each run is
 * answered, recorded and ended on its own.
 */
import { describe, expect, it } from 'vitest';
import type { RunHandle } from '../../../src/main/service/run-service';
import { startMemoryModelServer } from '../../fixtures/openai-server';
import { collect, ofType, waitFor } from '../../fixtures/fakes';
import { FAST_SETTLE } from '../run/agent-harness';
import { serviceSuite, toolCall } from './service-harness';

const suite = serviceSuite(startMemoryModelServer);

const ASK = toolCall([{ type: 'ask_user', question: 'Which folder?' }], 'I need to know where.');
const DONE = toolCall([{ type: 'finished', summary: 'Done.' }], 'All done.');

describe('several runs at once', () => {
  it('go side by side on different desktops, each listed with its desktop; a desktop in use is busy', { timeout: 120_000 }, async () => {
    const { service } = await suite.start([ASK, ASK, DONE, DONE], { deps: { env: { DISPLAY: ':140' } } });
    const start = async (task: string, display: number): Promise<RunHandle> => {
      const started = await service.agentRuns.start({ task, display, agent: { settle: FAST_SETTLE } });
      if (!started.ok) throw new Error(`${started.error.kind}: ${started.error.message}`);
      return started.value;
    };
    const heard: string[] = [];
    service.runs.onRunStarted((run) => heard.push(run.id));

    const first = await start('Save the report', 0);
    const second = await start('Print the invoice', 1);
    await waitFor(() => first.pendingQuestion !== null && second.pendingQuestion !== null, 'both questions');

    expect(heard).toEqual([first.id, second.id]);
    expect(service.runs.list()).toEqual([
      { id: first.id, kind: 'run', task: 'Save the report', status: 'asking', desktop: { private: false, display: ':140 display 0' } },
      { id: second.id, kind: 'run', task: 'Print the invoice', status: 'asking', desktop: { private: false, display: ':140 display 1' } },
    ]);
    expect(service.runs.onDesktop(':140 display 1')?.id).toBe(second.id);
    expect(service.runs.current()?.id).toBe(second.id);

    const third = await service.agentRuns.start({ task: 'Another', display: 1, agent: { settle: FAST_SETTLE } });
    expect(third).toMatchObject({ ok: false, error: { kind: 'busy', sessionId: second.id } });

    expect(second.answer(undefined, 'Documents')).toBe(true);
    expect((await second.done).status).toBe('finished');
    expect(service.runs.list().map((run) => run.id)).toEqual([first.id]);

    expect(first.answer(undefined, 'Reports')).toBe(true);
    expect((await first.done).status).toBe('finished');
    expect(service.runs.list()).toEqual([]);

    // Each recorded its own answer.
    const answers = async (run: RunHandle) => ofType(await collect(service.records.events(run.id)), 'user-answer').map((event) => event.answer);
    expect(await answers(first)).toEqual(['Reports']);
    expect(await answers(second)).toEqual(['Documents']);
  });
});
