/**
 * The event schema: the memory change inferred from its zod schema (one schema, no cast), step
 * errors with an enumerated kind, an answer naming its question, a step's own usage on
 * step-finished, and lines written by earlier versions read through the normalisation instead of
 * being skipped.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  AgentEventSchema,
  parseAgentEvent,
  STEP_ERROR_KINDS,
  type AgentEvent,
  type AgentEventOf,
  type StepErrorKind,
  type UsageSummary,
} from '../../../src/shared/events';
import {
  emptyMemorySnapshot,
  MemoryDeltaEncoder,
  MemoryChangeSchema,
  MemorySnapshotSchema,
  parseMemoryChange,
  type MemoryChange,
  type MemoryItemData,
  type MemorySnapshot,
} from '../../../src/shared/memory';
import { parseEventLines } from '../../../src/main/store/session-reader';

const stamp = { runId: '20261201-000000-abcdef', at: 1_000, seq: 7 };

describe('the memory change is inferred from its schema', () => {
  it('the types are the schemas’ (checked by the compiler), and the memory event carries the very schema', () => {
    expectTypeOf<MemoryChange>().toEqualTypeOf<z.infer<typeof MemoryChangeSchema>>();
    expectTypeOf<MemorySnapshot>().toEqualTypeOf<z.infer<typeof MemorySnapshotSchema>>();
    expectTypeOf<AgentEventOf<'memory'>['change']>().toEqualTypeOf<MemoryChange>();
    expectTypeOf<AgentEventOf<'model-error'>['kind']>().toEqualTypeOf<StepErrorKind>();
    expectTypeOf<AgentEventOf<'user-answer'>['questionId']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<AgentEventOf<'step-finished'>['usage']>().toEqualTypeOf<UsageSummary | undefined>();
    const memory = AgentEventSchema.options.find((option) => option.shape.type.value === 'memory');
    expect(memory && 'change' in memory.shape ? memory.shape.change : null).toBe(MemoryChangeSchema);
  });

  it('every change the compactor emits reads back through the event schema unchanged', () => {
    const compactor = new MemoryDeltaEncoder();
    const item: MemoryItemData = { step: 2, subtask: 'Open the menu', action: 'click', status: 'success', user_confirmation: null };
    const changes: MemoryChange[] = [
      { kind: 'trace', op: 'add', step: 2, item, length: 2, dropped: 0 },
      { kind: 'layers', pending: 'Step 3', recent: 'Step 1\nStep 2', summary: '', compressing: false, lastError: null },
      { kind: 'pruning', prunedSteps: [1], droppedSteps: [], imagesKept: 3, estimatedTokens: 900, thresholdTokens: 1000, hardLimitApplied: false },
      { kind: 'blackboard', snapshot: { questions: [{ question: 'Which?', answer: 'That one' }], requests: [], trajectories: [item], screenshots: [] } },
      { kind: 'prompt', sections: [{ name: 'facts', budgetTokens: 600, usedTokens: 12, shown: 1, omitted: 0, leftOut: '', text: 'a fact' }], totalTokens: 12 },
      { kind: 'conversation', context: [{ role: 'user', content: 'Hi', kind: 'task' }], shortTerm: ['s'], longTerm: [], compressing: true, lastError: 'slow' },
      { kind: 'facts', op: 'saved', source: 'save_fact', facts: [{ id: 'f1', subject: 'User', scope: 'cross-product', keyword: 'colour', values: ['teal'], change: 'added' }], tokens: 0, error: null },
      { kind: 'working-memory', op: 'updated', conversationId: 'conv-1', memory: 'likes teal', status: 'success', error: null },
    ];
    for (const change of changes) {
      const emitted = compactor.delta(change);
      if (emitted === null) continue;
      const line = JSON.parse(JSON.stringify({ type: 'memory', step: 2, change: emitted, ...stamp })) as unknown;
      const parsed = parseAgentEvent(line);
      expect(parsed, change.kind).toEqual({ ok: true, event: line });
      expect(parseMemoryChange(emitted)).toEqual(JSON.parse(JSON.stringify(emitted)));
    }
    expect(MemorySnapshotSchema.safeParse(emptyMemorySnapshot()).success).toBe(true);
  });

  it('a change that does not match is refused, naming where', () => {
    const parsed = parseAgentEvent({ type: 'memory', step: 1, change: { kind: 'layers', pending: 3 }, ...stamp });
    expect(parsed).toEqual({ ok: false, message: expect.stringMatching(/^invalid memory event: change\.pending: /) });
    expect(parseMemoryChange({ kind: 'nothing' })).toBeNull();
  });
});

describe('step errors have an enumerated kind', () => {
  const modelError = (kind: unknown, message = 'it went wrong') => ({ type: 'model-error', step: 1, kind, message, consecutive: 1, limit: 3, ...stamp });

  it('every kind of the enum reads as itself', () => {
    expect(STEP_ERROR_KINDS).toEqual(expect.arrayContaining(['capture', 'parse', 'http', 'timeout', 'network', 'auth', 'not_found', 'aborted', 'action', 'record', 'reground', 'other']));
    for (const kind of STEP_ERROR_KINDS) expect(parseAgentEvent(modelError(kind))).toEqual({ ok: true, event: modelError(kind) });
  });

  it('a kind this version does not know reads as other, the recorded word kept in the message', () => {
    expect(parseAgentEvent(modelError('display-lost', 'the X server went away'))).toEqual({ ok: true, event: modelError('other', 'display-lost: the X server went away') });
    expect(parseAgentEvent(modelError('', 'no kind given'))).toEqual({ ok: true, event: modelError('other', 'no kind given') });
    // Not a word at all: damage, not another version.
    expect(parseAgentEvent(modelError(42))).toEqual({ ok: false, message: expect.stringMatching(/^invalid model-error event: kind: /) });
  });

  it('the event schema itself takes only the enum: what a run emits is checked by the compiler and at the boundary', () => {
    expect(AgentEventSchema.safeParse(modelError('display-lost')).success).toBe(false);
    expect(AgentEventSchema.safeParse(modelError('capture')).success).toBe(true);
  });
});

describe('lines written before the schema was tightened', () => {
  // As a run of the earlier version wrote them (samples/first-session and test/fixtures/sessions-v1 hold whole sessions).
  const lines = [
    { type: 'run-started', task: 't', model: 'gpt-4.1', family: 'tools', limits: { maxSteps: 50, maxCostUsd: null } },
    { type: 'step-started', step: 1 },
    { type: 'model-error', step: 1, kind: 'display', message: 'the display went away', consecutive: 1, limit: 3 },
    { type: 'step-finished', step: 1, durationMs: 10, costUsd: 0.001 },
    { type: 'step-started', step: 2 },
    { type: 'ask-user', step: 2, kind: 'question', question: 'Which colour?' },
    { type: 'user-answer', step: 2, kind: 'question', answer: 'teal' },
    { type: 'step-finished', step: 2, durationMs: 10, costUsd: 0.003, timings: { observe: 1 } },
  ].map((line, index) => ({ ...line, runId: stamp.runId, at: 1_000 + index, seq: index + 1 }));

  it('every line reads, none skipped: the unknown kind as other, the answer without its id, the step without its usage', () => {
    const { events, warnings } = parseEventLines(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    expect(warnings).toEqual([]);
    expect(events).toHaveLength(lines.length);
    expect(events[2]).toMatchObject({ type: 'model-error', kind: 'other', message: 'display: the display went away' });
    const answer = events[6] as AgentEvent;
    expect(answer).toEqual(lines[6]);
    expect('questionId' in answer).toBe(false);
    expect(events[7]).toEqual(lines[7]);
  });

  it('today’s lines carry the answer’s question and the step’s usage beside the run’s cost', () => {
    const answer = { type: 'user-answer', step: 2, kind: 'question', answer: 'teal', questionId: 6, ...stamp };
    const finished = { type: 'step-finished', step: 2, durationMs: 10, costUsd: 0.003, usage: { inputTokens: 1200, outputTokens: 40, costUsd: 0.002 }, ...stamp };
    expect(parseAgentEvent(answer)).toEqual({ ok: true, event: answer });
    expect(parseAgentEvent(finished)).toEqual({ ok: true, event: finished });
    expect(parseAgentEvent({ ...answer, questionId: 0 })).toMatchObject({ ok: false, message: expect.stringContaining('questionId') });
    expect(parseAgentEvent({ ...finished, usage: { inputTokens: 1 } })).toMatchObject({ ok: false, message: expect.stringContaining('usage') });
  });
});
