/**
 * Memory changes as values: each part reports its changes, the snapshot `mnemo memory show` prints
 * is built from them alone, and a recorded change reads back through its schema.
 */
import { describe, expect, it } from 'vitest';
import {
  Blackboard,
  buildMemorySnapshot,
  emptyMemorySnapshot,
  fanOut,
  type MemoryChange,
  LayeredMemory,
  MemorySnapshotSchema,
  MemorySnapshotTracker,
  parseMemoryChange,
  ScreenshotPruner,
  TieredMemory,
  MemoryItemList,
} from '../../../src/main/memory';
import { jpeg, record } from './helpers';

describe('the memory snapshot', () => {
  it('is the state at the end of a run, built from its changes; the last change of each kind wins', async () => {
    const changes: MemoryChange[] = [];
    const tracker = new MemorySnapshotTracker();
    const listener = fanOut((change) => changes.push(change), tracker.listener, undefined);
    const trace = new MemoryItemList({ onChange: listener });
    const layers = new LayeredMemory({}, { onChange: listener });
    const pruner = new ScreenshotPruner({}, { onChange: listener });
    const blackboard = new Blackboard({}, { onChange: listener });
    const conversation = new TieredMemory({}, { onChange: listener });

    await conversation.addTask('Archive the old invoices');
    blackboard.addRequests({ request: 'Archive the old invoices' });
    layers.addPendingStep(1, 'open the invoices folder');
    trace.addMemoryItem({ step: 1, action: 'double_click', screenshot: 'screenshots/step-0001.jpg' });
    await layers.finalizeStep(1, 'success');
    layers.addPendingStep(2, 'select the 2019 invoices');
    const image = await jpeg();
    pruner.prune({ history: [1, 2, 3, 4].map((n) => record(n, image)) });
    blackboard.addQuestions({ question: 'Delete or move?', answer: 'move' });
    const fact = { id: 'f-1', subject: 'user', scope: 'product:mnemo', keyword: 'archive-folder', values: ['Archive/2019'] };
    listener({ kind: 'facts', op: 'loaded', source: 'prompt', facts: [fact], tokens: 12, error: null });
    listener({ kind: 'facts', op: 'saved', source: 'save_fact', facts: [{ ...fact, values: ['Archive/old'], change: 'superseded' }], tokens: 0, error: null });
    listener({ kind: 'working-memory', op: 'updated', conversationId: 'conv-1', memory: 'Invoices go to Archive/old.', status: 'success', error: null });

    const snapshot = buildMemorySnapshot(changes);
    expect(snapshot).toEqual({
      layers: { pending: 'Step 2 | Goal: select the 2019 invoices', recent: 'Step 1 | Eval: success | Goal: open the invoices folder', summary: '' },
      prunedSteps: [1, 2],
      blackboardEarlier: {},
      prompt: null,
      blackboard: {
        questions: [{ question: 'Delete or move?', answer: 'move' }],
        requests: [{ request: 'Archive the old invoices' }],
        trajectories: [],
        screenshots: [],
      },
      conversation: { context: [{ role: 'user', content: 'Archive the old invoices', kind: 'task' }], shortTerm: [], longTerm: [] },
      facts: { loaded: [fact], saved: [{ ...fact, values: ['Archive/old'], change: 'superseded' }], lastError: null },
      workingMemory: { conversationId: 'conv-1', memory: 'Invoices go to Archive/old.', status: 'success' },
    });
    expect(tracker.current).toEqual(snapshot);
    expect(Object.keys(snapshot)).toEqual(['layers', 'prunedSteps', 'blackboard', 'blackboardEarlier', 'prompt', 'conversation', 'facts', 'workingMemory']);
    expect(MemorySnapshotSchema.parse(JSON.parse(JSON.stringify(snapshot)))).toEqual(snapshot);
    expect(buildMemorySnapshot([])).toEqual(emptyMemorySnapshot());
  });

  it('reads every kind of change back from JSON, and refuses what is not one', async () => {
    const changes: MemoryChange[] = [];
    const trace = new MemoryItemList({ onChange: (change) => changes.push(change) });
    trace.addMemoryItem({ step: 1, arguments: { x: 1 } });
    new LayeredMemory({}, { onChange: (change) => changes.push(change) }).addPendingStep(1, 'go');
    new ScreenshotPruner({}, { onChange: (change) => changes.push(change) }).prune({ history: [] });
    new Blackboard({}, { onChange: (change) => changes.push(change) }).addRequests('do it');
    await new TieredMemory({}, { onChange: (change) => changes.push(change) }).addMessage({ role: 'user', content: 'hi' });
    expect(new Set(changes.map((change) => change.kind))).toEqual(new Set(['trace', 'layers', 'pruning', 'blackboard', 'conversation']));
    for (const change of changes) expect(parseMemoryChange(JSON.parse(JSON.stringify(change)))).toEqual(change);
    expect(parseMemoryChange({ kind: 'layers', pending: 1 })).toBeNull();
    expect(parseMemoryChange({ kind: 'mood' })).toBeNull();
  });
});
