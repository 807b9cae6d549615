/**
 * The decision before each workflow step, as one pure function of the evidence. Cheapest first:
 *
 *   1. every target's region agrees with the recording where it was → `replayed`;
 *   2. it agrees, or matches as a search would accept, where the previous step's target moved to
 *      (a form moved as one) → `refound`;
 *   3. the recorded patch is found elsewhere, clearly (template matching), or among look-alikes
 *      the one the text near it places (OCR), or, restyled, where the text alone places it
 *      → `refound`, no model call;
 *   4. with the reground policy, the model grounds this step alone → `grounded`;
 *   5. otherwise → `stopped`, before acting, with what differed.
 *
 * Before all of these, a target recorded with its element (role, name, the named elements around
 * it) is looked for in the accessibility tree: found there, its place is the element's box now
 * → `replayed` where it was, `refound` where it moved, whatever its pixels look like. An element
 * not in the tree (gone, renamed, or no tree to read) leaves the step to the pixels as before.
 *
 * Evidence is gathered lazily: the function answers `{ need }` for the next, dearer piece (the
 * elements, a search of the screen, reading its text, a model call) and is asked again with it.
 * It never answers a place that none of these found. `decideStepFound` also names what found the
 * target (`element`, `template`, `ocr`, `model`).
 */
import type { Point } from '../../shared/actions';
import type { WorkflowDecisionKind, WorkflowFinder } from '../../shared/workflow-run';
import type { Difference } from '../replay/divergence';
import type { WorkflowPolicy } from '../replay/policy';
import type { TextLocation } from './anchors';

export interface DecisionThresholds {
  /** A patch in place agrees when its difference is within these (as replay's divergence guard)… */
  patchMean: number;
  patchChanged: number;
  /** …or its NCC with the recording is at least this (the same picture, brighter or dimmer). */
  agreeNcc: number;
  /** A search result counts from this NCC on. */
  matchNcc: number;
  /**
   * Where the previous step's target moved to, the patch counts from this NCC on: the place is
   * predicted, not searched for, so a likeness a search would accept (matchNcc) is enough there.
   */
  followNcc: number;
  /** A weaker result counts where the text near the target places it too. */
  weakNcc: number;
  /** A best match is clear when the next one is at least this much lower. */
  clearMargin: number;
  /** Among look-alikes, the one within this many pixels of where the text places the target. */
  textReach: number;
}

export const DEFAULT_DECISION_THRESHOLDS: DecisionThresholds = {
  patchMean: 0.02,
  patchChanged: 0.02,
  agreeNcc: 0.97,
  matchNcc: 0.8,
  followNcc: 0.8,
  weakNcc: 0.55,
  clearMargin: 0.04,
  textReach: 24,
};

/** The patch compared at one place: its difference and NCC with the recorded one. */
export interface PlaceCheck extends Difference {
  ncc: number;
}

export interface Candidate {
  /** Where the target would be (the recorded point moved with the patch). */
  point: Point;
  score: number;
}

/** The target's recorded element looked for in the tree: found (its place now), or why not. */
export type ElementFinding = { found: true; point: Point; how: string } | { found: false; why: string };

export interface TargetEvidence {
  /** `click at (697, 64)`: names the target in messages. */
  label: string;
  recorded: Point;
  /** The patch where the recording had it. */
  inPlace: PlaceCheck;
  /** The patch where the previous step's target moved to; null without such a move. */
  shifted: (PlaceCheck & { offset: Point }) | null;
  /** Undefined until searched: the best places of the patch on the screen, best first. */
  search?: Candidate[];
  /** How many words near the target the workflow keeps. */
  textAnchors: number;
  /** Undefined until read: where the words near it place the target (null: nowhere, or ambiguous). */
  text?: TextLocation | null;
  /** The target was recorded with its element (and the run can read the tree). */
  hasElement?: boolean;
  /** Undefined until looked for (when `hasElement`): the element in the tree now, or why not. */
  element?: ElementFinding;
}

export type Grounding = { ok: true; points: Point[]; detail: string } | { ok: false; reason: string };

export interface StepEvidence {
  step: number;
  /** `click at (697, 64)`: the step in words. */
  description: string;
  targets: TargetEvidence[];
  policy: WorkflowPolicy;
  /** Set when the step diverged after acting (its effect did not appear, twice): the reason. */
  afterEffect?: string;
  /** Undefined until the model was asked (only under the reground policy). */
  grounding?: Grounding;
}

export type StepDecision =
  | { decision: Exclude<WorkflowDecisionKind, 'stopped'>; points: Point[]; how: string }
  | { decision: 'stopped'; points: []; how: string }
  | { need: 'elements' | 'search' | 'text' }
  /** `why`: what differed, in words, for the model. */
  | { need: 'model'; why: string };

const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
const at = (point: Point) => `(${Math.round(point.x)}, ${Math.round(point.y)})`;
const signed = (value: number) => `${value >= 0 ? '+' : ''}${Math.round(value)}`;

export function agrees(check: PlaceCheck, thresholds: DecisionThresholds = DEFAULT_DECISION_THRESHOLDS): boolean {
  return (check.mean <= thresholds.patchMean && check.changed <= thresholds.patchChanged) || check.ncc >= thresholds.agreeNcc;
}

type Located = { ok: true; point: Point; how: string; by: WorkflowFinder } | { ok: false; why: string } | { ok: 'need'; need: 'search' | 'text' };

/** One target's place from the search and the text, or why it has none. */
function locate(target: TargetEvidence, thresholds: DecisionThresholds): Located {
  if (target.search === undefined) return { ok: 'need', need: 'search' };
  const matches = target.search.filter((candidate) => candidate.score >= thresholds.matchNcc);
  const [best, second] = matches;
  if (best && (!second || best.score - second.score >= thresholds.clearMargin)) {
    return { ok: true, point: best.point, how: `the patch found at ${at(best.point)} (NCC ${best.score.toFixed(2)})`, by: 'template' };
  }
  if (target.text === undefined && target.textAnchors > 0) return { ok: 'need', need: 'text' };
  const text = target.text ?? null;
  const words = text ? text.words.map((word) => `"${word}"`).join(', ') : '';
  if (best) {
    // Look-alikes: the text near the target tells them apart, or nothing does.
    const placed = text ? matches.filter((candidate) => Math.hypot(candidate.point.x - text.point.x, candidate.point.y - text.point.y) <= thresholds.textReach) : [];
    if (placed.length === 1 && placed[0]) {
      return { ok: true, point: placed[0].point, how: `the patch found at ${at(placed[0].point)} (NCC ${placed[0].score.toFixed(2)}), the one of ${matches.length} alike that the text ${words} near it places`, by: 'ocr' };
    }
    const scores = matches.map((m) => m.score.toFixed(2)).join(', ');
    const tells = target.textAnchors === 0 ? 'no text near it to tell them apart' : text ? `the text ${words} places it at ${at(text.point)}, near none of them or several` : 'its text is not on the screen';
    return { ok: false, why: `${matches.length} places match its patch alike (NCC ${scores}) and ${tells}` };
  }
  // A weaker likeness where the text places it: two cues agree (the surroundings changed, say, or
  // the recording caught a focus ring the live screen does not have). The places compared without
  // a search (where it was, where the previous target moved to) count as well as the search's.
  const compared: Candidate[] = [{ point: target.recorded, score: target.inPlace.ncc }];
  if (target.shifted) compared.push({ point: { x: target.recorded.x + target.shifted.offset.x, y: target.recorded.y + target.shifted.offset.y }, score: target.shifted.ncc });
  const weak = text ? [...target.search, ...compared].sort((a, b) => b.score - a.score).find((candidate) => candidate.score >= thresholds.weakNcc && Math.hypot(candidate.point.x - text.point.x, candidate.point.y - text.point.y) <= thresholds.textReach) : undefined;
  if (weak && text) return { ok: true, point: weak.point, how: `the patch found at ${at(weak.point)} (NCC ${weak.score.toFixed(2)}, its surroundings changed) where the text ${words} places it`, by: 'ocr' };
  const nearest = target.search[0];
  const patch = nearest ? `its patch matches nowhere (best NCC ${nearest.score.toFixed(2)} at ${at(nearest.point)})` : 'its patch matches nowhere';
  // Alone, the text must be the element's own (its caption), or two words beside it agreeing: one
  // label may be a word that stayed where it was while the element moved.
  if (text && (text.inside > 0 || text.words.length >= 2)) return { ok: true, point: text.point, how: `the text ${words} read at ${at(text.point)} (the patch no longer matches: restyled)`, by: 'ocr' };
  const textWhy = target.textAnchors === 0 ? 'no text on it or beside it was recorded' : text ? `only the word ${words} beside it was read, not enough alone` : 'its text is not on the screen';
  return { ok: false, why: `${patch} and ${textWhy}` };
}

/** Where nothing at all agrees: what differed at the recorded place, in words. */
function differenceInPlace(target: TargetEvidence): string {
  return `around the ${target.label} the screen differs from the recording (mean difference ${pct(target.inPlace.mean)}, ${pct(target.inPlace.changed)} of pixels changed, NCC ${target.inPlace.ncc.toFixed(2)})`;
}

/** Points this close (image pixels) to where they were recorded are where they were. */
const SAME_PLACE = 2;

export function decideStep(evidence: StepEvidence, thresholds: DecisionThresholds = DEFAULT_DECISION_THRESHOLDS): StepDecision {
  return decideStepFound(evidence, thresholds).decision;
}

/** The decision, and what found the target (none for a step with no target, or one that stopped). */
export function decideStepFound(evidence: StepEvidence, thresholds: DecisionThresholds = DEFAULT_DECISION_THRESHOLDS): { decision: StepDecision; foundBy?: WorkflowFinder } {
  const { targets } = evidence;
  let why: string;
  if (evidence.afterEffect !== undefined) {
    why = evidence.afterEffect;
  } else {
    if (targets.length === 0) return { decision: { decision: 'replayed', points: [], how: 'no target on the screen to check: done as recorded' } };
    // The tree first: an element found there is the target, however its pixels changed.
    if (targets.some((target) => target.hasElement === true && target.element === undefined)) return { decision: { need: 'elements' } };
    const byElement = targets.map((target) => (target.element?.found === true ? target.element : null));
    if (byElement.every((found) => found !== null)) {
      const found = byElement as Array<Extract<ElementFinding, { found: true }>>;
      const points = found.map((place) => place.point);
      const still = points.every((point, i) => Math.hypot(point.x - (targets[i] as TargetEvidence).recorded.x, point.y - (targets[i] as TargetEvidence).recorded.y) <= SAME_PLACE);
      return { decision: { decision: still ? 'replayed' : 'refound', points, how: found.map((place, i) => `${targets[i]?.label}: ${place.how}`).join('; ') }, foundBy: 'element' };
    }
    if (targets.every((target) => agrees(target.inPlace, thresholds))) {
      const worst = targets.reduce((a, b) => (b.inPlace.mean > a.inPlace.mean ? b : a));
      return {
        decision: { decision: 'replayed', points: targets.map((t) => t.recorded), how: `the target region matches the recording (mean difference ${pct(worst.inPlace.mean)}, NCC ${worst.inPlace.ncc.toFixed(2)})` },
        foundBy: 'template',
      };
    }
    const shifted = targets.map((target) => target.shifted);
    if (shifted.every((check) => check !== null && (agrees(check, thresholds) || check.ncc >= thresholds.followNcc))) {
      const offset = (shifted[0] as NonNullable<TargetEvidence['shifted']>).offset;
      return {
        decision: {
          decision: 'refound',
          points: targets.map((t, i) => ({ x: t.recorded.x + (shifted[i] as NonNullable<TargetEvidence['shifted']>).offset.x, y: t.recorded.y + (shifted[i] as NonNullable<TargetEvidence['shifted']>).offset.y })),
          how: `found moved by (${signed(offset.x)}, ${signed(offset.y)}) like the previous step's target`,
        },
        foundBy: 'template',
      };
    }
    const located = targets.map((target) => locate(target, thresholds));
    const needed = located.find((place): place is { ok: 'need'; need: 'search' | 'text' } => place.ok === 'need');
    // The search first for every target, then the text: each is read once per screen.
    if (needed) return { decision: { need: located.some((place) => place.ok === 'need' && place.need === 'search') ? 'search' : needed.need } };
    if (located.every((place) => place.ok === true)) {
      const found = located as Array<Extract<Located, { ok: true }>>;
      return {
        decision: { decision: 'refound', points: found.map((place) => place.point), how: found.map((place, i) => `${targets[i]?.label}: ${place.how}`).join('; ') },
        foundBy: found.some((place) => place.by === 'ocr') ? 'ocr' : 'template',
      };
    }
    why = located
      .map((place, i) => (place.ok === false ? `${differenceInPlace(targets[i] as TargetEvidence)}; ${elementGone(targets[i] as TargetEvidence)}${place.why}` : null))
      .filter((text): text is string => text !== null)
      .join('; ');
  }

  if (evidence.policy === 'reground') {
    const grounding = evidence.grounding;
    if (grounding === undefined) return { decision: { need: 'model', why } };
    if (grounding.ok) return { decision: { decision: 'grounded', points: grounding.points, how: `${why}; the model found it: ${grounding.detail}` }, foundBy: 'model' };
    return { decision: { decision: 'stopped', points: [], how: `step ${evidence.step} (${evidence.description}) diverged: ${why}; the model could not find it either: ${grounding.reason}` } };
  }
  return { decision: { decision: 'stopped', points: [], how: `step ${evidence.step} (${evidence.description}) diverged: ${why}; stopped before acting` } };
}

/** Why the tree did not find a target recorded with its element, for the words of a divergence. */
function elementGone(target: TargetEvidence): string {
  return target.element?.found === false ? `${target.element.why}; ` : '';
}
