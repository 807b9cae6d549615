/**
 * The step trace: MemoryItem keys belong to each item, MemoryItemList filters, deletes, bounds and
 * round-trips through JSON, and every change is reported.
 */
import { describe, expect, it } from 'vitest';
import { type MemoryChange, MemoryItemList, MemoryItem, MEMORY_ITEM_FIELDS, stepMemoryItem } from '../../../src/main/memory';
import { ActionSchema } from '../../../src/shared/actions';

function step(n: number, extra: Record<string, string> = {}): MemoryItem {
  return new MemoryItem({ step: n, action: 'click', screenshot: `screenshots/step-${n}.png`, ...extra });
}

describe('MemoryItem', () => {
  it('keeps its own keys: a custom field on one item does not appear on another', () => {
    const first = new MemoryItem({ step: 1 });
    first.setValue('shell_output', 'ls: done');
    const second = new MemoryItem({ step: 2 });
    expect(first.attributes).toEqual(['step', 'shell_output']);
    expect(second.attributes).toEqual(['step']);
    expect(second.getValue('shell_output')).toBeUndefined();
  });

  it('stores every field the seed lists, and custom ones, and copies on the way out', () => {
    const item = new MemoryItem({
      step: 3,
      screenshot: 'screenshots/step_3.png',
      action: 'click_element',
      arguments: { element_id: 'submit_button' },
      results: [{ status: 'success', result: 'Button clicked' }],
      observation: 'Submit button located at (500, 300)',
      control_text: 'Submit',
      request: 'Submit the form',
      response: '{"action": "click_element"}',
      parsed_response: { action: 'click_element' },
      cost: 0.0023,
      error: null,
      ui_automation_info: { role: 'button' },
    });
    expect(item.attributes).toEqual([...MEMORY_ITEM_FIELDS, 'ui_automation_info']);
    const dict = item.toDict();
    (dict.arguments as Record<string, string>).element_id = 'changed';
    expect(item.getValue('arguments')).toEqual({ element_id: 'submit_button' });
    expect(item.filter(['step', 'cost', 'missing'])).toEqual({ step: 3, cost: 0.0023 });
    expect(item.getValues(['action', 'missing'])).toEqual({ action: 'click_element', missing: undefined });
    item.setValue('error', undefined);
    expect(item.attributes).not.toContain('error');
  });
});

describe('Memory', () => {
  it('adds, reads the latest, filters by keys and by steps, deletes by step, clears', () => {
    const memory = new MemoryItemList();
    expect(memory.isEmpty()).toBe(true);
    expect(memory.getLatestItem()).toBeNull();
    memory.addMemoryItem(step(1));
    memory.addMemoryItem(step(2, { control_text: 'OK' }));
    memory.addMemoryItem({ step: 3, action: 'type' });
    expect(memory.length).toBe(3);
    expect(memory.getLatestItem()?.getValue('action')).toBe('type');
    expect(memory.filterMemoryFromKeys(['step', 'control_text'])).toEqual([{ step: 1 }, { step: 2, control_text: 'OK' }, { step: 3 }]);
    expect(memory.filterMemoryFromSteps([1, 3]).map((item) => item.step)).toEqual([1, 3]);
    expect(memory.deleteMemoryByStep(2)).toBe(1);
    expect(memory.deleteMemoryByStep(9)).toBe(0);
    expect(memory.content.map((item) => item.step)).toEqual([1, 3]);
    memory.clear();
    expect(memory.isEmpty()).toBe(true);
  });

  it('keeps at most maxItems, dropping the oldest', () => {
    const memory = new MemoryItemList({ maxItems: 3 });
    for (let n = 1; n <= 5; n++) memory.addMemoryItem(step(n));
    expect(memory.content.map((item) => item.step)).toEqual([3, 4, 5]);
    expect(() => new MemoryItemList({ maxItems: 0 })).toThrow(RangeError);
  });

  it('round-trips through JSON, custom fields included', () => {
    const memory = new MemoryItemList();
    memory.addMemoryItem(step(1, { shell_output: 'ok' }));
    memory.addMemoryItem({ step: 2, arguments: { x: 10, y: 20 }, results: [{ ok: true }], error: null });
    const text = memory.toJson();
    const back = MemoryItemList.fromJson(text);
    if (!back.ok) throw new Error(back.error);
    expect(back.memory.listContent).toEqual(memory.listContent);
    expect(back.memory.content[0]?.attributes).toEqual(['step', 'action', 'screenshot', 'shell_output']);
    expect(JSON.parse(JSON.stringify(memory))).toEqual(memory.listContent);
  });

  it('reports bad JSON as a value', () => {
    expect(MemoryItemList.fromJson('{not json')).toMatchObject({ ok: false, error: expect.stringContaining('not valid JSON') });
    expect(MemoryItemList.fromJson('{"step": 1}')).toEqual({ ok: false, error: 'the memory must be a JSON list of items' });
    expect(MemoryItemList.fromJson('[1]')).toEqual({ ok: false, error: 'item 0 of the memory is not an object' });
  });

  it('reports every change', () => {
    const changes: MemoryChange[] = [];
    const memory = new MemoryItemList({ maxItems: 2, onChange: (change) => changes.push(change) });
    memory.addMemoryItem(step(1));
    memory.addMemoryItem(step(2));
    memory.addMemoryItem(step(3));
    memory.deleteMemoryByStep(3);
    memory.clear();
    expect(changes.map((change) => (change.kind === 'trace' ? [change.op, change.step, change.length, change.dropped] : change.kind))).toEqual([
      ['add', 1, 1, 0],
      ['add', 2, 2, 0],
      ['add', 3, 2, 1],
      ['delete', 3, 1, 1],
      ['clear', null, 0, 1],
    ]);
    expect(changes[0]).toMatchObject({ item: { step: 1, screenshot: 'screenshots/step-1.png' } });
  });
});

describe('stepMemoryItem', () => {
  it("writes one step of the loop in the seed's fields, with the screenshot as a path", () => {
    const item = stepMemoryItem({
      step: 4,
      screenshot: 'screenshots/step-0004.jpg',
      actions: [ActionSchema.parse({ type: 'click', x: 10, y: 20 }), ActionSchema.parse({ type: 'type', text: 'hello' })],
      results: [{ ok: true, type: 'click', durationMs: 12 }, { ok: false, type: 'type', error: { kind: 'input_failed', message: 'no focus' } }],
      observation: 'The form is open',
      request: 'Fill in the form',
      response: '{"actions": []}',
      costUsd: 0.004,
      error: 'type failed: no focus',
      extra: { window_title: 'Form' },
    });
    expect(item.toDict()).toMatchObject({
      step: 4,
      screenshot: 'screenshots/step-0004.jpg',
      action: 'click, type',
      arguments: { actions: [{ type: 'click', x: 10, y: 20 }, { type: 'type', text: 'hello' }] },
      results: [{ ok: true }, { ok: false, error: { message: 'no focus' } }],
      observation: 'The form is open',
      request: 'Fill in the form',
      cost: 0.004,
      error: 'type failed: no focus',
      window_title: 'Form',
    });
  });
});
