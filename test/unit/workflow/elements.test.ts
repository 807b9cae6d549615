/**
 * Workflows and elements, the pure parts: a recorded element found again in a snapshot (role and
 * name, the path telling look-alikes apart, the box only then), the point acted at on it, the
 * decision that asks the tree first and names what found each target, the report's counts by
 * finder, a workflow saved before elements were recorded still loading, and teach's judgement of
 * a password field by the focused element's role.
 */
import { describe, expect, it } from 'vitest';
import type { Element } from '../../../src/shared/elements';
import type { AgentEvent } from '../../../src/shared/events';
import { describeWorkflowStep, TargetAnchorSchema, type WorkflowElement } from '../../../src/shared/workflow';
import { workflowReport } from '../../../src/shared/workflow-report';
import { decideStepFound, type PlaceCheck, type StepEvidence, type TargetEvidence } from '../../../src/main/workflow/decide';
import { chooseElement, pointOnElement, recordedImageBox, sameRoleAndName } from '../../../src/main/workflow/element-refind';
import { typedIntoPasswordByRole, typedIntoPasswordByTree, type DemonstrationTree } from '../../../src/main/teach/tree-reads';

const SUBMIT: WorkflowElement = { role: 'push button', name: 'Submit', path: ['frame:Form - Chromium', 'document web:Form'], bounds: { x: 520, y: 300, width: 140, height: 44 } };

function element(fields: Partial<Element> & Pick<Element, 'ref'>): Element {
  return { n: 1, role: 'push button', name: 'Submit', states: ['enabled', 'showing'], bounds: { x: 0, y: 0, width: 140, height: 44 }, interactive: true, ...fields };
}

describe('finding a recorded element in a snapshot', () => {
  it('by role and name, case and spacing aside; none is a reason in words', () => {
    const elements = [element({ ref: ':1.2/1', role: 'entry', name: 'Submit' }), element({ ref: ':1.2/2', name: '  submit ' }), element({ ref: ':1.2/3', name: 'Cancel' })];
    expect(sameRoleAndName(elements, SUBMIT).map((e) => e.ref)).toEqual([':1.2/2']);
    expect(chooseElement(SUBMIT, [])).toEqual({ ok: false, why: 'the element push button "Submit" is not in the accessibility tree' });
    expect(chooseElement(SUBMIT, sameRoleAndName(elements, SUBMIT))).toMatchObject({ ok: true, element: { ref: ':1.2/2' } });
  });

  it('among look-alikes: the one inside the same named elements, then the nearest to its recorded box', () => {
    const inDialog = element({ ref: ':1.2/7', bounds: { x: 525, y: 305, width: 140, height: 44 } });
    const inForm = element({ ref: ':1.2/9', bounds: { x: 100, y: 700, width: 140, height: 44 } });
    const paths = new Map([
      [':1.2/7', ['frame:Form - Chromium', 'dialog:Confirm']],
      [':1.2/9', SUBMIT.path],
    ]);
    expect(chooseElement(SUBMIT, [inDialog, inForm], paths)).toMatchObject({ ok: true, element: { ref: ':1.2/9' }, how: expect.stringMatching(/2 alike: the one inside the same named elements/) });
    // No path tells them apart: the nearest.
    expect(chooseElement(SUBMIT, [inForm, inDialog])).toMatchObject({ ok: true, element: { ref: ':1.2/7' }, how: expect.stringMatching(/nearest its recorded place/) });
  });

  it('acts at the same share of the element as recorded, inside it', () => {
    const recorded = recordedImageBox({ x: 200, y: 76, width: 220, height: 24 }, { x: 0.75, y: 0.75 });
    expect(recorded).toEqual({ x: 150, y: 57, width: 165, height: 18 });
    // Clicked a quarter in from the left, in the middle: the same on the moved, wider field.
    expect(pointOnElement({ x: 150 + 41.25, y: 66 }, recorded, { x: 400, y: 300, width: 200, height: 30 })).toEqual({ x: 450, y: 315 });
    // A point recorded outside the box is brought inside the new one.
    expect(pointOnElement({ x: 10, y: 500 }, recorded, { x: 400, y: 300, width: 200, height: 30 })).toEqual({ x: 401, y: 330 });
  });
});

const DIFFERENT: PlaceCheck = { mean: 0.08, changed: 0.3, ncc: 0.2 };
const SAME: PlaceCheck = { mean: 0.001, changed: 0, ncc: 0.999 };
const target = (fields: Partial<TargetEvidence> = {}): TargetEvidence => ({ label: 'click at (310, 49)', recorded: { x: 310, y: 49 }, inPlace: DIFFERENT, shifted: null, textAnchors: 1, ...fields });
const evidence = (targets: TargetEvidence[], fields: Partial<StepEvidence> = {}): StepEvidence => ({ step: 2, description: 'click at (310, 49)', targets, policy: 'stop', ...fields });

describe('the decision with elements', () => {
  it('asks for the elements first, before comparing a single pixel', () => {
    expect(decideStepFound(evidence([target({ hasElement: true, inPlace: SAME })]))).toEqual({ decision: { need: 'elements' } });
  });

  it('an element found is the place, whatever the pixels: refound where it moved, replayed where it was', () => {
    const moved = decideStepFound(evidence([target({ hasElement: true, element: { found: true, point: { x: 500, y: 400 }, how: 'the element push button "Submit" found in the accessibility tree at (500, 400)' } })]));
    expect(moved).toEqual({
      decision: { decision: 'refound', points: [{ x: 500, y: 400 }], how: 'click at (310, 49): the element push button "Submit" found in the accessibility tree at (500, 400)' },
      foundBy: 'element',
    });
    const still = decideStepFound(evidence([target({ hasElement: true, element: { found: true, point: { x: 311, y: 49 }, how: 'found' } })]));
    expect(still).toMatchObject({ decision: { decision: 'replayed', points: [{ x: 311, y: 49 }] }, foundBy: 'element' });
  });

  it('an element gone leaves the step to the pixels as before, and its absence is part of what differed', () => {
    const gone = { found: false as const, why: 'the element push button "Submit" is not in the accessibility tree' };
    expect(decideStepFound(evidence([target({ hasElement: true, element: gone, inPlace: SAME })]))).toMatchObject({ decision: { decision: 'replayed' }, foundBy: 'template' });
    expect(decideStepFound(evidence([target({ hasElement: true, element: gone })]))).toEqual({ decision: { need: 'search' } });
    const stopped = decideStepFound(evidence([target({ hasElement: true, element: gone, search: [], text: null })]));
    expect(stopped.foundBy).toBeUndefined();
    expect(stopped.decision).toMatchObject({ decision: 'stopped', how: expect.stringContaining('the element push button "Submit" is not in the accessibility tree; its patch matches nowhere') });
    const asked = decideStepFound(evidence([target({ hasElement: true, element: gone, search: [], text: null })], { policy: 'reground' }));
    expect(asked.decision).toMatchObject({ need: 'model' });
    const grounded = decideStepFound(evidence([target({ hasElement: true, element: gone, search: [], text: null })], { policy: 'reground', grounding: { ok: true, points: [{ x: 5, y: 6 }], detail: 'click' } }));
    expect(grounded).toMatchObject({ decision: { decision: 'grounded' }, foundBy: 'model' });
  });

  it('names the pixels that found a target: the patch (template), the words (ocr)', () => {
    expect(decideStepFound(evidence([target({ search: [{ point: { x: 198, y: 49 }, score: 0.97 }] })])).foundBy).toBe('template');
    const restyled = decideStepFound(evidence([target({ search: [], text: { point: { x: 198, y: 49 }, words: ['send'], inside: 1 } })]));
    expect(restyled).toMatchObject({ decision: { decision: 'refound' }, foundBy: 'ocr' });
    expect(decideStepFound(evidence([])).foundBy).toBeUndefined();
  });
});

describe('the report and the schema', () => {
  const base = { runId: 'r', seq: 1, at: 0 };
  const started = (elements: boolean): AgentEvent =>
    ({ ...base, type: 'run-started', task: 't', model: 'none', family: 'none', limits: { maxSteps: 2, maxCostUsd: null }, workflow: { name: 'w', recording: { modelCalls: 2, tokens: 0, costUsd: 0 }, ...(elements ? { elements: true } : {}) } }) as AgentEvent;
  const step = (n: number, foundBy?: string): AgentEvent => ({ ...base, type: 'workflow-step', step: n, decision: 'refound', how: 'x', modelCalls: 0, ...(foundBy ? { foundBy } : {}) }) as AgentEvent;

  it('counts the steps by what found them in a run that read the tree; a run without one reports as before', () => {
    expect(workflowReport([started(true), step(1, 'element'), step(2, 'element'), step(3, 'ocr'), step(4)])?.foundBy).toEqual({ element: 2, template: 0, ocr: 1, model: 0 });
    expect(workflowReport([started(false), step(1, 'template')])).not.toHaveProperty('foundBy');
  });

  it('loads an anchor without an element, keeps one with it, and says the element in the step', () => {
    const anchor = { point: { x: 10, y: 20 }, role: 'click', patch: { rect: { x: 0, y: 0, width: 48, height: 24 }, image: { file: 'anchors/a.png', width: 48, height: 24, mime: 'image/png' } }, face: null, text: [] };
    expect(TargetAnchorSchema.parse(anchor)).not.toHaveProperty('element');
    expect(TargetAnchorSchema.parse({ ...anchor, element: SUBMIT }).element).toEqual(SUBMIT);
    expect(describeWorkflowStep({ action: { type: 'click', x: 10, y: 20, button: 'left' }, anchors: [{ ...anchor, element: SUBMIT } as never] })).toBe('click at (10, 20) on push button "Submit"');
  });
});

describe('teach: a password field by its role', () => {
  const field = (role: string, states: string[]) => element({ ref: ':1.3/4', role, name: 'Phrase', states });
  it('the role decides where the focus is on a field; elsewhere, or with no tree, the pixels do', () => {
    expect(typedIntoPasswordByRole(field('password text', ['editable', 'focused']))).toBe(true);
    expect(typedIntoPasswordByRole(field('entry', ['editable', 'focused']))).toBe(false);
    expect(typedIntoPasswordByRole(field('document web', ['focused']))).toBeNull();
    expect(typedIntoPasswordByRole(null)).toBeNull();
  });

  it('once the typing is over, where the text shows corrects a focus read before the app moved it (a Tab the tree had not caught up with)', async () => {
    const user = element({ ref: ':1.3/1', role: 'entry', name: 'User', states: ['editable'], value: 'ada' });
    const phrase = (states: string[]) => element({ ref: ':1.3/2', role: 'password text', name: 'Phrase', states });
    const quick = { patienceMs: 30, pollMs: 5 };
    let reads = 0;
    const treeOf = (...shown: Element[][]): DemonstrationTree => ({
      // Each read shows the next state, the last one from then on.
      snapshot: async () => ({ ok: true, snapshot: { display: ':9', takenAt: 0, elapsedMs: 1, method: 'collection', window: { app: 'form', role: 'frame', name: 'Form', bounds: { x: 0, y: 0, width: 800, height: 600 }, chosenBy: 'active' }, elements: shown[Math.min(reads++, shown.length - 1)] as Element[] } }),
      ancestry: async () => [],
    });
    const staleFocus = { ...user, states: ['editable', 'focused'] };
    // The user field was read as focused, but the text shows in no ordinary field: it went to the password field.
    expect(await typedIntoPasswordByTree(treeOf([user, phrase(['editable', 'focused'])]), 'hunter2!', staleFocus, quick)).toBe(true);
    expect(await typedIntoPasswordByTree(treeOf([user, phrase(['editable'])]), 'hunter2!', staleFocus, quick)).toBe(true);
    // The ordinary field holds what was typed, once its value caught up: not a password.
    reads = 0;
    expect(await typedIntoPasswordByTree(treeOf([user, phrase(['editable'])], [{ ...user, value: 'ada lovelace' }, phrase(['editable'])]), 'lovelace', staleFocus, { patienceMs: 5_000, pollMs: 1 })).toBe(false);
    // Read as a password field at first: that holds.
    expect(await typedIntoPasswordByTree(treeOf([user]), 'x', phrase(['editable', 'focused']), quick)).toBe(true);
    // No password field in the window: the first read stands, at the first look (no waiting for a value the app never shows).
    reads = 0;
    expect(await typedIntoPasswordByTree(treeOf([{ ...user, value: undefined }]), 'lovelace', staleFocus, { patienceMs: 60_000, pollMs: 1 })).toBe(false);
    expect(reads).toBe(1);
  });
});
