/**
 * The elements aid in the loop: with `list` or `marks` each step's observation comes with the
 * active window's snapshot for the model (`PredictInput.elements`), its boxes on the step's image;
 * a display without a tree, or a snapshot that fails, goes on with pixels, said once per run and
 * not at every step; with the aid off the model gets no elements. On the fakes: a tree that
 * answers with a snapshot of the frame it is given, or fails.
 */
import { describe, expect, it } from 'vitest';
import type { ElementSnapshot, SnapshotResult } from '../../../src/shared/elements';
import type { Frame } from '../../../src/shared/frame';
import { imageBoundsOf } from '../../../src/main/operator/a11y/element-query';
import { RunElements, type ElementSource } from '../../../src/main/run/elements';
import { FakeOperator, reply } from '../../fixtures/fakes';
import { runAgent } from './agent-harness';

const SUBMIT = { ref: ':1.5/12', role: 'push button', name: 'Submit', states: ['enabled', 'focusable'], bounds: { x: 400, y: 300, width: 140, height: 44 }, interactive: true };

/** A tree with one button, its box given on the frame it is asked for; or one that never answers with a window. */
function tree(answer: 'button' | 'no window'): ElementSource {
  return {
    snapshot: async (options = {}): Promise<SnapshotResult> => {
      if (answer === 'no window') return { ok: false, kind: 'no_window', message: 'no active window on display :9 in the accessibility tree' };
      const frame = options.frame as Frame | undefined;
      const imageBounds = frame ? imageBoundsOf(SUBMIT.bounds, frame) : undefined;
      const snapshot: ElementSnapshot = {
        display: ':9',
        takenAt: 0,
        elapsedMs: 3,
        method: 'collection',
        window: { app: 'form', role: 'frame', name: 'Form', bounds: { x: 0, y: 0, width: 1280, height: 800 }, chosenBy: 'active' },
        elements: [{ n: 1, ...SUBMIT, ...(imageBounds ? { imageBounds } : {}) }],
        ...(frame ? { frame } : {}),
      };
      return { ok: true, snapshot };
    },
    resolve: async () => ({ ok: true, bounds: SUBMIT.bounds, states: SUBMIT.states }),
    readBack: async () => ({ ok: true, bounds: SUBMIT.bounds, states: SUBMIT.states }),
  };
}

const moves = [reply([{ type: 'wait', ms: 0 }]), reply([{ type: 'wait', ms: 0 }]), reply([{ type: 'finished', summary: 'done' }])];
const notesOf = (events: Array<{ type: string }>) => events.filter((event): event is { type: 'note'; message: string } => event.type === 'note').map((event) => event.message);

describe('the elements aid in the loop', () => {
  it("list: every step's request has the snapshot taken with its observation, boxes on the step's image", async () => {
    const operator = new FakeOperator({ bounds: { x: 0, y: 0, width: 1280, height: 800 } });
    const run = await runAgent({ operator, turns: moves, options: { elements: 'list', capture: { maxWidth: 640 } }, elements: new RunElements(tree('button')) });
    expect(run.end).toMatchObject({ status: 'finished' });
    expect(run.model.calls).toHaveLength(3);
    for (const call of run.model.calls) {
      expect(call.input.elements?.mode).toBe('list');
      // The 1280x800 display sent as 640x400: the button's box at half its screen size.
      expect(call.input.elements?.snapshot.elements[0]).toMatchObject({ n: 1, role: 'push button', name: 'Submit', imageBounds: { x: 200, y: 150, width: 70, height: 22 } });
      expect(call.input.elements?.snapshot.frame?.image).toMatchObject({ width: 640, height: 400 });
    }
  });

  it('marks is passed as marks', async () => {
    const run = await runAgent({ turns: [reply([{ type: 'finished', summary: 'done' }])], options: { elements: 'marks' }, elements: new RunElements(tree('button')) });
    expect(run.model.calls[0]?.input.elements?.mode).toBe('marks');
  });

  it('a tree that fails: pixels only, said once for the run, not at every step', async () => {
    const run = await runAgent({ turns: moves, options: { elements: 'list' }, elements: new RunElements(tree('no window')) });
    expect(run.end).toMatchObject({ status: 'finished' });
    expect(run.model.calls.every((call) => call.input.elements === undefined)).toBe(true);
    expect(notesOf(run.events).filter((note) => note.includes('elements aid'))).toEqual(['the elements aid (list): no elements for this step, pixels only: no active window on display :9 in the accessibility tree']);
  });

  it('a display without a tree (no reader in the run): pixels only, said once', async () => {
    const run = await runAgent({ turns: moves, options: { elements: 'list' } });
    expect(run.model.calls.every((call) => call.input.elements === undefined)).toBe(true);
    expect(notesOf(run.events).filter((note) => note.includes('elements aid'))).toEqual(['the elements aid (list) is on, but this display has no accessibility tree to read: pixels only']);
  });

  it('off: the model gets no elements, and nothing is said', async () => {
    const run = await runAgent({ turns: moves, elements: new RunElements(tree('button')) });
    expect(run.model.calls.every((call) => call.input.elements === undefined)).toBe(true);
    expect(notesOf(run.events).filter((note) => note.includes('elements'))).toEqual([]);
  });
});
