/**
 * The step decision as a pure function of its evidence: cheapest first, the evidence asked for in
 * order (search, then text, then the model under reground only), and never a place none of them
 * found. And the effect check that may send a step back to it.
 */
import { describe, expect, it } from 'vitest';
import { decideStep, type PlaceCheck, type StepEvidence, type TargetEvidence } from '../../../src/main/workflow/decide';
import { checkEffect } from '../../../src/main/workflow/effect';
import { FORM, moved, paint } from './scene';

const SAME: PlaceCheck = { mean: 0.001, changed: 0, ncc: 0.999 };
const DIFFERENT: PlaceCheck = { mean: 0.08, changed: 0.3, ncc: 0.2 };

function target(fields: Partial<TargetEvidence> = {}): TargetEvidence {
  return { label: 'click at (310, 49)', recorded: { x: 310, y: 49 }, inPlace: DIFFERENT, shifted: null, textAnchors: 1, ...fields };
}
function evidence(targets: TargetEvidence[], fields: Partial<StepEvidence> = {}): StepEvidence {
  return { step: 2, description: 'click at (310, 49)', targets, policy: 'stop', ...fields };
}

describe('decideStep', () => {
  it('replays a step whose target region agrees, and one with no target', () => {
    expect(decideStep(evidence([target({ inPlace: SAME })]))).toMatchObject({ decision: 'replayed', points: [{ x: 310, y: 49 }], how: expect.stringMatching(/^the target region matches the recording/) });
    // The same picture, dimmer: NCC says so where the pixel difference does not.
    expect(decideStep(evidence([target({ inPlace: { mean: 0.1, changed: 0.5, ncc: 0.98 } })]))).toMatchObject({ decision: 'replayed' });
    expect(decideStep(evidence([]))).toMatchObject({ decision: 'replayed', points: [], how: expect.stringMatching(/no target/) });
  });

  it('finds a target moved like the previous one without searching', () => {
    const decision = decideStep(evidence([target({ shifted: { ...SAME, offset: { x: -112, y: 0 } } })]));
    expect(decision).toEqual({ decision: 'refound', points: [{ x: 198, y: 49 }], how: "found moved by (-112, +0) like the previous step's target" });
  });

  it('asks for a search, and takes a clear best match', () => {
    expect(decideStep(evidence([target()]))).toEqual({ need: 'search' });
    const decision = decideStep(evidence([target({ search: [{ point: { x: 198, y: 49 }, score: 0.97 }, { point: { x: 40, y: 300 }, score: 0.7 }] })]));
    expect(decision).toMatchObject({ decision: 'refound', points: [{ x: 198, y: 49 }], how: 'click at (310, 49): the patch found at (198, 49) (NCC 0.97)' });
  });

  it('among look-alikes asks for the text, and takes the one it places', () => {
    const alike = [
      { point: { x: 198, y: 49 }, score: 0.95 },
      { point: { x: 198, y: 149 }, score: 0.94 },
    ];
    expect(decideStep(evidence([target({ search: alike })]))).toEqual({ need: 'text' });
    const placed = decideStep(evidence([target({ search: alike, text: { point: { x: 200, y: 150 }, words: ['name'], inside: 0 } })]));
    expect(placed).toMatchObject({ decision: 'refound', points: [{ x: 198, y: 149 }], how: expect.stringMatching(/the one of 2 alike that the text "name" near it places/) });
    // No text to tell them apart: stopped, before acting, saying why.
    const untold = decideStep(evidence([target({ search: alike, textAnchors: 0 })]));
    expect(untold).toMatchObject({ decision: 'stopped', points: [] });
    expect((untold as { how: string }).how).toMatch(/^step 2 \(click at \(310, 49\)\) diverged: around the click at \(310, 49\) the screen differs .*; 2 places match its patch alike \(NCC 0\.95, 0\.94\) and no text near it to tell them apart; stopped before acting$/);
  });

  it('restyled: the caption alone places it, one label beside it does not, a weak likeness with the text does', () => {
    const nowhere = [{ point: { x: 40, y: 300 }, score: 0.4 }];
    expect(decideStep(evidence([target({ search: nowhere })]))).toEqual({ need: 'text' });
    const caption = decideStep(evidence([target({ search: nowhere, text: { point: { x: 198, y: 49 }, words: ['send'], inside: 1 } })]));
    expect(caption).toMatchObject({ decision: 'refound', points: [{ x: 198, y: 49 }], how: expect.stringMatching(/the text "send" read at \(198, 49\) \(the patch no longer matches: restyled\)/) });
    const label = decideStep(evidence([target({ search: nowhere, text: { point: { x: 198, y: 49 }, words: ['name'], inside: 0 } })]));
    expect(label).toMatchObject({ decision: 'stopped', how: expect.stringMatching(/only the word "name" beside it was read, not enough alone/) });
    const weak = decideStep(evidence([target({ search: [{ point: { x: 197, y: 50 }, score: 0.7 }], text: { point: { x: 198, y: 49 }, words: ['name'], inside: 0 } })]));
    expect(weak).toMatchObject({ decision: 'refound', points: [{ x: 197, y: 50 }] });
  });

  it('takes a weak likeness where it was, or where the previous target moved to, when the text places it there too', () => {
    // The recording caught a focus ring the live screen lacks: the frame is only alike, where the label says.
    const ringed: PlaceCheck = { mean: 0.12, changed: 0.2, ncc: 0.66 };
    const label = { point: { x: 311, y: 50 }, words: ['field'], inside: 0 };
    expect(decideStep(evidence([target({ inPlace: ringed, search: [{ point: { x: 40, y: 300 }, score: 0.5 }], text: label })]))).toMatchObject({
      decision: 'refound',
      points: [{ x: 310, y: 49 }],
      how: expect.stringMatching(/the patch found at \(310, 49\) \(NCC 0\.66, its surroundings changed\) where the text "field" places it/),
    });
    const moved = decideStep(evidence([target({ shifted: { ...ringed, offset: { x: -112, y: 0 } }, search: [], text: { ...label, point: { x: 199, y: 50 } } })]));
    expect(moved).toMatchObject({ decision: 'refound', points: [{ x: 198, y: 49 }] });
    // The text elsewhere: the weak likeness alone is not enough.
    expect(decideStep(evidence([target({ inPlace: ringed, search: [], text: { ...label, point: { x: 100, y: 200 } } })]))).toMatchObject({ decision: 'stopped' });
  });

  it('takes a likeness a search would accept where the previous target moved to', () => {
    const near: PlaceCheck = { mean: 0.01, changed: 0.03, ncc: 0.9 };
    expect(decideStep(evidence([target({ shifted: { ...near, offset: { x: -112, y: 0 } } })]))).toMatchObject({ decision: 'refound', points: [{ x: 198, y: 49 }] });
    expect(decideStep(evidence([target({ shifted: { ...near, ncc: 0.7, offset: { x: -112, y: 0 } } })]))).toEqual({ need: 'search' });
  });

  it('under reground asks the model only once nothing else found it, and stops when it cannot either', () => {
    const lost = target({ search: [], text: null });
    expect(decideStep(evidence([lost], { policy: 'stop' }))).toMatchObject({ decision: 'stopped' });
    const asked = decideStep(evidence([lost], { policy: 'reground' }));
    expect(asked).toMatchObject({ need: 'model', why: expect.stringMatching(/its patch matches nowhere and its text is not on the screen/) });
    expect(decideStep(evidence([lost], { policy: 'reground', grounding: { ok: true, points: [{ x: 5, y: 6 }], detail: 'click at (5, 6)' } }))).toMatchObject({
      decision: 'grounded',
      points: [{ x: 5, y: 6 }],
      how: expect.stringMatching(/; the model found it: click at \(5, 6\)$/),
    });
    expect(decideStep(evidence([lost], { policy: 'reground', grounding: { ok: false, reason: 'the model did not find it: no button' } }))).toMatchObject({
      decision: 'stopped',
      how: expect.stringMatching(/the model could not find it either: the model did not find it: no button$/),
    });
    // Found without the model: the policy never matters.
    expect(decideStep(evidence([target({ inPlace: SAME })], { policy: 'reground' }))).toMatchObject({ decision: 'replayed' });
  });

  it('a drag is found only when both ends are', () => {
    const start = target({ label: 'drag start at (10, 10)', search: [{ point: { x: 20, y: 10 }, score: 0.99 }] });
    const end = target({ label: 'drag end at (100, 10)', search: [], text: null });
    expect(decideStep(evidence([start, end]))).toMatchObject({ decision: 'stopped', how: expect.stringMatching(/around the drag end at/) });
    expect(decideStep(evidence([start, { ...end, search: [{ point: { x: 110, y: 10 }, score: 0.9 }] }]))).toMatchObject({ decision: 'refound', points: [{ x: 20, y: 10 }, { x: 110, y: 10 }] });
  });

  it('a step whose effect did not appear is diverged: grounded under reground, else stopped', () => {
    const why = 'its effect did not appear, twice (0 of the 2 regions that changed in the recording changed)';
    expect(decideStep(evidence([target({ inPlace: SAME })], { afterEffect: why }))).toMatchObject({ decision: 'stopped', how: `step 2 (click at (310, 49)) diverged: ${why}; stopped before acting` });
    expect(decideStep(evidence([target({ inPlace: SAME })], { afterEffect: why, policy: 'reground' }))).toEqual({ need: 'model', why });
  });
});

describe('checkEffect', () => {
  const before = FORM;
  // The step typed into the field: its inside changed.
  const typed = { ...FORM, boxes: [...FORM.boxes, { x: 204, y: 44, width: 60, height: 10, face: 40 }] };

  it('sees the recorded change where it happened, whatever was typed', () => {
    const other = { ...FORM, boxes: [...FORM.boxes, { x: 204, y: 44, width: 90, height: 10, face: 70 }] };
    expect(checkEffect({ before: paint(before), after: paint(typed) }, { before: paint(before), after: paint(other) })).toMatchObject({ appeared: true, expected: 1, seen: 1 });
  });

  it('misses it when nothing changed there', () => {
    const result = checkEffect({ before: paint(before), after: paint(typed) }, { before: paint(before), after: paint(before) });
    expect(result).toEqual({ appeared: false, expected: 1, seen: 0, detail: '0 of the 1 region that changed in the recording changed' });
  });

  it('finds it moved with the target', () => {
    const shifted = moved(typed, -96, 40);
    const live = { before: paint(moved(before, -96, 40)), after: paint(shifted) };
    expect(checkEffect({ before: paint(before), after: paint(typed) }, live, { x: -96, y: 40 })).toMatchObject({ appeared: true });
    expect(checkEffect({ before: paint(before), after: paint(typed) }, live)).toMatchObject({ appeared: false });
  });

  it('counts a text typed in words, with its caret, as one change', () => {
    const words = { ...FORM, boxes: [...FORM.boxes, { x: 204, y: 44, width: 30, height: 10, face: 40 }, { x: 250, y: 44, width: 30, height: 10, face: 40 }, { x: 283, y: 42, width: 1, height: 14, face: 0 }] };
    const oneWord = { ...FORM, boxes: [...FORM.boxes, { x: 204, y: 44, width: 20, height: 10, face: 40 }] };
    expect(checkEffect({ before: paint(before), after: paint(words) }, { before: paint(before), after: paint(oneWord) })).toMatchObject({ appeared: true, expected: 1, seen: 1 });
  });

  it("leaves out a change within what the next step acted on (the pointer's hover, a press the capture caught), not a menu opened around it", () => {
    const button = { x: 220, y: 150, width: 60, height: 22 };
    // The capture recorded after the typing already shows the next step's button pressed.
    const pressed = { ...typed, boxes: [...typed.boxes, { ...button, face: 170, border: 60 }] };
    const live = { before: paint(typed), after: paint(typed) };
    expect(checkEffect({ before: paint(typed), after: paint(pressed) }, live)).toMatchObject({ appeared: false, expected: 1 });
    expect(checkEffect({ before: paint(typed), after: paint(pressed), nextTargets: [button] }, live)).toMatchObject({ appeared: true, expected: 0 });
    // A menu the step opened, the next step's item inside it: still this step's effect.
    const menu = { ...FORM, boxes: [...FORM.boxes, { x: 200, y: 140, width: 200, height: 100, face: 250, border: 80 }] };
    const item = { x: 210, y: 150, width: 80, height: 20 };
    expect(checkEffect({ before: paint(before), after: paint(menu), nextTargets: [item] }, { before: paint(before), after: paint(before) })).toMatchObject({ appeared: false, expected: 1 });
    // The next click on the page itself (its element the whole document): no control, no hover to leave out.
    const page = { x: 0, y: 0, width: FORM.width, height: FORM.height };
    expect(checkEffect({ before: paint(typed), after: paint(pressed), nextTargets: [page] }, live)).toMatchObject({ appeared: false, expected: 1 });
  });

  it('counts a region already on the live screen as the recording left it: a recording that began on a window still blank', () => {
    // Recorded: the screen before was captured while the window was still blank, so the whole
    // form appears with the typing. Live: the form was drawn before the step, only the typing changes.
    const blank = { ...FORM, boxes: [] };
    const other = { ...FORM, boxes: [...FORM.boxes, { x: 204, y: 44, width: 90, height: 10, face: 70 }] };
    const result = checkEffect({ before: paint(blank), after: paint(typed) }, { before: paint(before), after: paint(other) });
    expect(result.appeared).toBe(true);
    expect(result.expected).toBeGreaterThan(1);
    expect(result.detail).toMatch(/^1 of the \d+ regions that changed in the recording changed, \d+ already as recorded$/);
    // A window that is not as recorded (here: still blank) is no effect already there.
    expect(checkEffect({ before: paint(blank), after: paint(typed) }, { before: paint(blank), after: paint(blank) })).toMatchObject({ appeared: false, seen: 0 });
    // Nor is a region whose live pixels differ from the recorded ones (the form drawn elsewhere).
    expect(checkEffect({ before: paint(blank), after: paint(typed) }, { before: paint(moved(before, 0, 120)), after: paint(moved(before, 0, 120)) })).toMatchObject({ appeared: false });
  });

  it('has nothing to check where the recording shows no change, and ignores specks', () => {
    expect(checkEffect({ before: paint(before), after: paint(before) }, { before: paint(before), after: paint(before) })).toMatchObject({ appeared: true, expected: 0 });
    const caret = { ...FORM, boxes: [...FORM.boxes, { x: 300, y: 44, width: 1, height: 10, face: 0 }] };
    expect(checkEffect({ before: paint(before), after: paint(caret) }, { before: paint(before), after: paint(before) })).toMatchObject({ appeared: true, expected: 0 });
  });
});
