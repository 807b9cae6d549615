/**
 * Memory events carry what changed: list deltas and the compactor that turns the full states the
 * memory parts report into them. Folding the compacted changes gives the same snapshot as folding
 * the full ones, and the events stay small however large the memory grows.
 */
import { describe, expect, it } from 'vitest';
import { applyListDelta, BLACKBOARD_VIEW_ITEMS, buildMemorySnapshot, listDelta, MemoryDeltaEncoder, type BlackboardDict, type MemoryChange } from '../../../src/shared/memory';

describe('listDelta', () => {
  it.each([
    [[], [1, 2], { drop: 0, add: [1, 2] }],
    [[1, 2], [1, 2, 3], { drop: 0, add: [3] }],
    [[1, 2, 3], [2, 3, 4], { drop: 1, add: [4] }],
    [[1, 2, 3], [], { drop: 3, add: [] }],
    [[1, 2], [9], { drop: 2, add: [9] }],
    [[1, 2, 3], [3, 1], { drop: 2, add: [1] }],
  ])('%j → %j is %j, and applying it gives the new list', (before, after, delta) => {
    expect(listDelta(before, after)).toEqual(delta);
    expect(applyListDelta(before, delta)).toEqual(after);
  });

  it('is null when nothing changed', () => {
    expect(listDelta([{ a: 1 }], [{ a: 1 }])).toBeNull();
  });
});

const board = (trajectories: number): BlackboardDict => ({
  questions: [],
  requests: [{ request: 'the task' }],
  trajectories: Array.from({ length: trajectories }, (_, i) => ({ step: i + 1, subtask: `step ${i + 1}`, status: 'success' })),
  screenshots: [],
});

describe('MemoryDeltaEncoder', () => {
  it('sends the whole state once, then only what changed; the folded snapshot is the same', () => {
    const full: MemoryChange[] = [];
    for (let step = 1; step <= 200; step++) {
      const recent = Array.from({ length: Math.min(step, 5) }, (_, i) => `Step ${step - i} | Eval: success | Goal: go on`).reverse().join('\n');
      full.push({ kind: 'layers', pending: `Step ${step} | Goal: go on`, recent, summary: step > 100 ? 'half way' : '', compressing: false, lastError: null });
      full.push({ kind: 'pruning', prunedSteps: Array.from({ length: Math.max(0, step - 3) }, (_, i) => i + 1), droppedSteps: [], imagesKept: 3, estimatedTokens: 1000 + step, thresholdTokens: 115_200, hardLimitApplied: false });
      full.push({ kind: 'blackboard', snapshot: board(Math.min(step, 150)) });
      full.push({ kind: 'conversation', context: [{ role: 'user', content: `task ${Math.floor(step / 50)}`, kind: 'task' }], shortTerm: [], longTerm: [], compressing: false, lastError: null });
    }
    const compactor = new MemoryDeltaEncoder();
    const compacted = full.map((change) => compactor.delta(change)).filter((change): change is MemoryChange => change !== null);
    // The same, except that a run's events carry the newest BLACKBOARD_VIEW_ITEMS of a section and
    // how many came before (a board kept for years holds thousands; they stay on disk).
    const whole = buildMemorySnapshot(full);
    expect(buildMemorySnapshot(compacted)).toEqual({
      ...whole,
      blackboard: { ...whole.blackboard, trajectories: whole.blackboard.trajectories.slice(-BLACKBOARD_VIEW_ITEMS) },
      blackboardEarlier: { trajectories: 150 - BLACKBOARD_VIEW_ITEMS },
    });
    // Flat: a late blackboard change is as small as an early one, while the full snapshot grew.
    const boardEvents = compacted.filter((change) => change.kind === 'blackboard-delta');
    const size = (value: unknown) => JSON.stringify(value).length;
    expect(size(boardEvents[140])).toBeLessThan(size(boardEvents[10]) + 40);
    expect(size(full.filter((c) => c.kind === 'blackboard')[140])).toBeGreaterThan(10 * size(boardEvents[140]));
    // The recent layer and the pruned steps travel as what was added, not the whole again.
    const layerEvents = compacted.filter((change) => change.kind === 'layers-delta');
    expect(layerEvents.slice(10).every((change) => change.recent === undefined)).toBe(true);
    const pruning = compacted.filter((change) => change.kind === 'pruning-delta');
    expect(size(pruning[190])).toBeLessThanOrEqual(size(pruning[10]) + 10);
    // A conversation that did not change is not sent again.
    expect(compacted.filter((change) => change.kind === 'conversation-delta')).toHaveLength(5);
  });

  it('says a trace item was added without repeating it (the step\'s own events carry it)', () => {
    const compacted = new MemoryDeltaEncoder().delta({ kind: 'trace', op: 'add', step: 1, item: { step: 1, response: 'a long thought', action: 'click' }, length: 1, dropped: 0 });
    expect(compacted).toEqual({ kind: 'trace', op: 'add', step: 1, item: null, length: 1, dropped: 0 });
  });
});

describe('applyListDelta', () => {
  it('adds copies of the items, as structuredClone makes them: nothing shared with the event, an own "__proto__" kept as a field', () => {
    const add = JSON.parse('[{ "step": 1, "nested": { "list": [1, { "a": null }] }, "__proto__": { "x": 1 } }, "text", 3]') as unknown[];
    const applied = applyListDelta(['kept', 'dropped'].slice(0), { drop: 1, add });
    expect(applied).toEqual(['dropped', ...structuredClone(add)]);
    expect(applied.slice(1)).toStrictEqual(structuredClone(add));
    const [item] = applied.slice(1) as Array<{ nested: { list: unknown[] } }>;
    expect(item).not.toBe(add[0]);
    expect(item?.nested.list).not.toBe((add[0] as { nested: { list: unknown[] } }).nested.list);
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.hasOwn(item as object, '__proto__')).toBe(true);
  });
});
