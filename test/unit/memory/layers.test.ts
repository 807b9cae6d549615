/**
 * The three layers against the scripted model server: compression starts exactly when a budget is
 * exceeded, a failed summarisation (HTTP 500, timeout, malformed or empty reply) loses nothing and
 * is retried at the next step, and without a model nothing is called.
 */
import { describe, expect, it } from 'vitest';
import {
  IN_PROGRESS_MARK,
  type LayersView,
  MEMORY_SUMMARIZATION_PROMPT,
  type MemoryChange,
  LayeredMemory,
} from '../../../src/main/memory';
import { type ScriptedReply } from '../../fixtures/openai-server';
import { memoryModel, serve, systemText, userText } from './helpers';

/** A goal of exactly `length` characters. */
function goal(length: number): string {
  return 'open-the-settings-dialog-and-check-the-proxy-fields-'.repeat(Math.ceil(length / 50) + 1).slice(0, length);
}

/** `Step N | Eval: success | Goal: ` is 31 characters for a one-digit step. */
const ENTRY_OVERHEAD = 31;

async function step(manager: LayeredMemory, id: number, goalText: string, evaluation: 'success' | 'failed' = 'success') {
  manager.addPendingStep(id, goalText);
  return manager.finalizeStep(id, evaluation);
}

function text(summary: string): ScriptedReply {
  return { text: JSON.stringify({ summary }) };
}

describe('budgets', () => {
  it('summarises recent exactly when it exceeds 500 characters, with the memory model', async () => {
    const server = await serve([text('Opened the settings; the proxy fields are visible.')]);
    const manager = new LayeredMemory({}, { model: memoryModel(server.url) });
    // Two entries and the newline between them: exactly 500 characters, the budget itself.
    await step(manager, 1, goal(200));
    await step(manager, 2, goal(500 - 2 * ENTRY_OVERHEAD - 1 - 200));
    expect(manager.layers.recent).toHaveLength(500);
    expect(server.requests).toHaveLength(0);

    const before = manager.layers.recent;
    const report = await step(manager, 3, 'x');
    expect(report).toEqual({ recent: 'summarised', summary: 'within-budget', error: null });
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.body.model).toBe('gpt-4.1-mini');
    expect(systemText(request)).toBe(MEMORY_SUMMARIZATION_PROMPT);
    expect(userText(request)).toBe(`${before}\nStep 3 | Eval: success | Goal: x`);
    expect(manager.layers).toEqual({ pending: '', recent: '', summary: 'Opened the settings; the proxy fields are visible.' });
  });

  it('summarises the summary exactly when it exceeds 2000 characters', async () => {
    const server = await serve([text('a'.repeat(999)), text('b'.repeat(1000)), text('c'.repeat(10)), text('condensed history')]);
    const manager = new LayeredMemory({}, { model: memoryModel(server.url) });
    const overBudget = goal(480);
    await step(manager, 1, overBudget);
    expect(manager.layers.summary).toHaveLength(999);
    await step(manager, 2, overBudget);
    // 999 + newline + 1000: the budget itself, not over it.
    expect(manager.layers.summary).toHaveLength(2000);
    expect(server.requests).toHaveLength(2);

    const report = await step(manager, 3, overBudget);
    expect(report).toEqual({ recent: 'summarised', summary: 'summarised', error: null });
    expect(server.requests).toHaveLength(4);
    expect(userText(server.requests[3]!)).toBe(`${'a'.repeat(999)}\n${'b'.repeat(1000)}\n${'c'.repeat(10)}`);
    expect(manager.layers.summary).toBe('condensed history');
  });

  it('counts budgets in tokens when asked (characters / 3)', async () => {
    const server = await serve([text('short')]);
    const manager = new LayeredMemory({ budgetUnit: 'tokens', recentBudget: 100, summaryBudget: 400 }, { model: memoryModel(server.url) });
    await step(manager, 1, goal(300 - ENTRY_OVERHEAD));
    expect(manager.layers.recent).toHaveLength(300);
    expect(manager.measure(manager.layers.recent)).toBe(100);
    expect(server.requests).toHaveLength(0);
    manager.addPendingStep(2, '');
    await manager.finalizeStep(2, 'success');
    expect(server.requests).toHaveLength(1);
    expect(manager.layers.summary).toBe('short');
  });

  it('reads a plain-text reply and a fenced JSON reply', async () => {
    const server = await serve([{ text: 'Clicked through the wizard; step 3 failed.' }, { text: '```json\n{"summary": "Wizard done."}\n```' }]);
    const manager = new LayeredMemory({ recentBudget: 50 }, { model: memoryModel(server.url) });
    await step(manager, 1, goal(60));
    expect(manager.layers.summary).toBe('Clicked through the wizard; step 3 failed.');
    await step(manager, 2, goal(60));
    expect(manager.layers.summary).toBe('Clicked through the wizard; step 3 failed.\nWizard done.');
  });
});

describe('failures lose nothing and are retried', () => {
  const failures: Array<[string, ScriptedReply, string]> = [
    ['an HTTP 500', { status: 500 }, 'Memory compression failed: HTTP 500'],
    ['a timeout', { delayMs: 2_000, text: '{"summary": "late"}' }, 'Memory compression failed: the model did not answer within 300 ms'],
    ['a malformed body', { raw: '{"choices": [', contentType: 'application/json' }, 'Memory compression failed:'],
    ['an empty reply', { text: '' }, 'Memory compression failed: Memory model returned no text content'],
    ['JSON without a summary', { text: '{"notes": "x"}' }, 'Memory compression failed: Memory model returned JSON without a "summary" text'],
  ];

  for (const [name, failure, message] of failures) {
    it(`keeps recent as it was after ${name}, then retries at the next step`, async () => {
      const server = await serve([failure, text('All three steps done.')]);
      const changes: MemoryChange[] = [];
      const manager = new LayeredMemory(
        { recentBudget: 120 },
        { model: memoryModel(server.url, { timeoutMs: 300 }), onChange: (change) => changes.push(change) },
      );
      await step(manager, 1, goal(60));
      const report = await step(manager, 2, goal(60));
      const kept = manager.layers.recent;
      expect(report.recent).toBe('failed');
      expect(report.error).toContain(message);
      expect(manager.lastError).toContain(message);
      expect(manager.failedCompressions).toBe(1);
      expect(kept).toBe(`Step 1 | Eval: success | Goal: ${goal(60)}\nStep 2 | Eval: success | Goal: ${goal(60)}`);
      expect(manager.layers.summary).toBe('');
      expect(changes.at(-1)).toMatchObject({ kind: 'layers', recent: kept, compressing: false, lastError: expect.stringContaining(message) });

      await step(manager, 3, 'y');
      expect(server.requests).toHaveLength(2);
      expect(userText(server.requests[1]!)).toBe(`${kept}\nStep 3 | Eval: success | Goal: y`);
      expect(manager.layers).toEqual({ pending: '', recent: '', summary: 'All three steps done.' });
      expect(manager.lastError).toBeNull();
    });
  }

  it('keeps an over-budget summary after a failed summary compression and retries it at the next step', async () => {
    const server = await serve([text('s'.repeat(150)), { status: 503 }, text('compact')]);
    const manager = new LayeredMemory({ recentBudget: 50, summaryBudget: 100 }, { model: memoryModel(server.url) });
    const report = await step(manager, 1, goal(60));
    expect(report).toMatchObject({ recent: 'summarised', summary: 'failed', error: expect.stringContaining('Summary compression failed: HTTP 503') });
    expect(manager.layers.summary).toBe('s'.repeat(150));

    // Recent stays within budget: only the summary is retried.
    const retry = await step(manager, 2, 'z');
    expect(retry).toEqual({ recent: 'within-budget', summary: 'summarised', error: null });
    expect(userText(server.requests[2]!)).toBe('s'.repeat(150));
    expect(manager.layers).toEqual({ pending: '', recent: 'Step 2 | Eval: success | Goal: z', summary: 'compact' });
  });

  it('keeps a step finalised during a compression in recent', async () => {
    // The summary comes when the test lets it: step 3 is finalised while the compression waits.
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const server = await serve(async () => {
      await answered;
      return text('first three');
    });
    const manager = new LayeredMemory({ recentBudget: 100 }, { model: memoryModel(server.url) });
    await step(manager, 1, goal(40));
    const compressing = step(manager, 2, goal(40));
    await expect.poll(() => server.requests.length).toBe(1);
    expect(manager.compressing).toBe(true);
    const second = step(manager, 3, 'w');
    answer();
    await Promise.all([compressing, second]);
    expect(server.requests).toHaveLength(1);
    expect(manager.layers).toEqual({ pending: '', recent: 'Step 3 | Eval: success | Goal: w', summary: 'first three' });
  });
});

describe('without a model', () => {
  it('makes no call: recent moves into summary word for word (no-op compression)', async () => {
    const changes: MemoryChange[] = [];
    const manager = new LayeredMemory({ recentBudget: 50, summaryBudget: 80 }, { onChange: (change) => changes.push(change) });
    await step(manager, 1, goal(30));
    const report = await step(manager, 2, goal(30));
    expect(report).toEqual({ recent: 'kept-verbatim', summary: 'kept-verbatim', error: null });
    expect(manager.layers.summary).toBe(`Step 1 | Eval: success | Goal: ${goal(30)}\nStep 2 | Eval: success | Goal: ${goal(30)}`);
    expect(manager.layers.recent).toBe('');
    expect(changes.every((change) => change.kind !== 'layers' || !change.compressing)).toBe(true);
  });
});

describe('steps whose success was not confirmed', () => {
  it('stay marked in progress when the summary drops the mark', async () => {
    const server = await serve([text('Tried to save the file.'), text('Saved after a retry.'), text('Step 5 is still in progress.')]);
    const manager = new LayeredMemory({ recentBudget: 60 }, { model: memoryModel(server.url) });
    manager.addPendingStep(1, 'save the file');
    await manager.finalizeStep(1, 'failed', { outcome: 'the Save button did not respond' });
    expect(userText(server.requests[0]!)).toBe('Step 1 | Eval: failed | Goal: save the file | Result: the Save button did not respond');
    expect(manager.layers.summary).toBe(`Tried to save the file.\n${IN_PROGRESS_MARK}: Step 1: save the file`);

    // Failed, then done within the same batch: confirmed, no mark.
    await step(manager, 2, 'export as PDF', 'failed');
    await step(manager, 3, 'export as PDF', 'success');
    expect(manager.layers.summary.split('\n').at(-1)).toBe('Saved after a retry.');

    // The model kept the mark itself: nothing added.
    await step(manager, 5, 'close the dialog window now and confirm', 'failed');
    expect(manager.layers.summary.split('\n').at(-1)).toBe('Step 5 is still in progress.');
  });

  it('keep their marks when the summary is summarised again', async () => {
    const server = await serve([text('Tried to save.'), text('Everything is done.')]);
    const manager = new LayeredMemory({ recentBudget: 10, summaryBudget: 30 }, { model: memoryModel(server.url) });
    // The recent summary with its mark is over the summary budget: it is summarised again at once.
    await step(manager, 1, 'save', 'failed');
    expect(server.requests).toHaveLength(2);
    expect(userText(server.requests[1]!)).toBe(`Tried to save.\n${IN_PROGRESS_MARK}: Step 1: save`);
    expect(manager.layers.summary).toBe(`Everything is done.\n${IN_PROGRESS_MARK}: Step 1: save`);
  });
});

describe('compose and changes', () => {
  it('composes summary, recent and the current step, leaving out empty layers', async () => {
    const server = await serve([text('Opened the app.')]);
    const manager = new LayeredMemory({ recentBudget: 40 }, { model: memoryModel(server.url) });
    expect(manager.compose()).toBe('');
    manager.addPendingStep(1, 'open the app');
    expect(manager.compose()).toBe('[Current step]\nStep 1 | Goal: open the app');
    await manager.finalizeStep(1, 'success');
    await step(manager, 2, 'menu');
    manager.addPendingStep(3, 'click File');
    expect(manager.compose()).toBe(
      '[Summarized history]\nOpened the app.\n\n[Recent steps]\nStep 2 | Eval: success | Goal: menu\n\n[Current step]\nStep 3 | Goal: click File',
    );
  });

  it('reports every change, with compressing true while the model works', async () => {
    const server = await serve([{ ...text('done'), delayMs: 50 }]);
    const changes: MemoryChange[] = [];
    const manager = new LayeredMemory({ recentBudget: 20 }, { model: memoryModel(server.url), onChange: (change) => changes.push(change) });
    manager.addPendingStep(1, 'open the app');
    await manager.finalizeStep(1, 'success');
    const layers = changes.map((change) => change as LayersView & { compressing: boolean });
    expect(layers.map(({ pending, recent, summary, compressing }) => ({ pending, recent, summary, compressing }))).toEqual([
      { pending: 'Step 1 | Goal: open the app', recent: '', summary: '', compressing: false },
      { pending: '', recent: 'Step 1 | Eval: success | Goal: open the app', summary: '', compressing: false },
      { pending: '', recent: 'Step 1 | Eval: success | Goal: open the app', summary: '', compressing: true },
      { pending: '', recent: '', summary: 'done', compressing: false },
    ]);
    manager.clear();
    expect(changes.at(-1)).toMatchObject({ kind: 'layers', pending: '', recent: '', summary: '' });
  });
});
