/**
 * Batches that cannot click blind. A model that answers with several actions at once (Claude's
 * toolset, OpenAI's `actions`, any family whose reply holds several) planned them all on the one
 * screenshot it saw. After an action that can change the screen the loop looks again; when the
 * screen changed where a later action aims (or changed wholesale: a page loaded, a dialog dimmed
 * it), that action and the rest of the batch are not run, and the model is told which ran and why.
 * Typing and keys that follow a click into a field still run: they aim at no point.
 *
 * Pure: the loop gives the screens (fingerprints) and the target; this decides.
 */
import { actionPoints, type Action } from '../../shared/actions';
import { changedCellsNear, screenDifference, type ScreenFingerprint } from '../operator/screen-diff';

/** Actions that touch nothing on the screen: nothing to look at again after them. */
const STILL = new Set<Action['type']>(['wait', 'screenshot', 'zoom', 'finished', 'ask_user', 'fail', 'query_long_term_memory', 'save_fact', 'run_workflow']);

/** Whether an action can change what the screen shows (a hover can: a tooltip, a menu). */
export function changesScreen(action: Action): boolean {
  return !STILL.has(action.type);
}

/** Whether an action lands on a point of the screenshot the model saw: a click, a drag, a scroll at coordinates. */
export function aimsAtPoint(action: Action): boolean {
  return action.type !== 'zoom' && actionPoints(action).length > 0;
}

/**
 * How far around the target the screen is compared, in cells of the fingerprint (96x60 over the
 * display: 2 cells are about 27 px on a 1280-wide screen, 40 px on a 1920-wide one): the target
 * itself and what sits right by it, not the field two rows up that was just typed into.
 */
export const TARGET_RADIUS_CELLS = 2;
/** A cell changed when its grey moved by this much (of 255): a white field over a #f4f4f0 page is 11. */
export const CELL_CHANGE_LEVEL = 8;
/** The share of changed cells near the target above which it no longer looks as the model saw it (a blinking caret is one or two of 25). */
export const TARGET_CHANGED = 0.2;
/** Mean difference of the whole screen above which everything is suspect (a new page, a dimmed backdrop). */
export const WHOLESALE_CHANGE = 0.05;

export type BatchVerdict = { go: true } | { go: false; why: string };

/**
 * May the action aimed at `target` (fractions of the display, 0-1) run, now that the screen looks
 * like `now` where the model saw `before`? Without both screens there is nothing to judge: it runs,
 * as it always did.
 */
export function judgeNextAction(before: ScreenFingerprint | undefined, now: ScreenFingerprint | undefined, target: { x: number; y: number } | null): BatchVerdict {
  if (before === undefined || now === undefined) return { go: true };
  const whole = screenDifference(before, now);
  if (whole >= WHOLESALE_CHANGE) return { go: false, why: 'the screen changed' };
  if (target !== null && changedCellsNear(before, now, target, TARGET_RADIUS_CELLS, CELL_CHANGE_LEVEL) >= TARGET_CHANGED) return { go: false, why: 'the screen changed where it aims' };
  return { go: true };
}

/** Action numbers as a person counts them: "3", "3 and 4", "3, 4 and 5". */
function listOf(numbers: readonly number[]): string {
  if (numbers.length <= 1) return numbers.join('');
  return `${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
}

/**
 * What the model is told when a batch stops before action `cutAt` (0-based) of `total`, `ran`
 * having run: "the screen changed after action 2 of 4 (where action 3 aims); 3 and 4 were not run".
 */
export function describeCut(cutAt: number, total: number, verdictWhy: string): string {
  const notRun = Array.from({ length: total - cutAt }, (_, index) => cutAt + index + 1);
  const where = verdictWhy === 'the screen changed where it aims' ? ` where action ${cutAt + 1} aims` : '';
  const verb = notRun.length === 1 ? 'was' : 'were';
  return `the screen changed after action ${cutAt} of ${total}${where}; ${listOf(notRun)} ${verb} not run: look at the new screen before acting on it`;
}

/**
 * What the loop knows of the screen during one batch: the screen the model saw (`before`), the
 * latest look, and whether an action that can change the screen ran since (then a pointed action
 * needs a new look first).
 */
export class BatchLooks {
  latest: ScreenFingerprint | undefined;
  /** An action that can change the screen ran in this batch. */
  changed = false;
  /** ... and since the latest look. */
  changedSinceLook = false;

  constructor(readonly before: ScreenFingerprint | undefined) {}

  acted(): void {
    this.changed = true;
    this.changedSinceLook = true;
  }

  looked(screen: ScreenFingerprint | undefined): void {
    this.latest = screen;
    this.changedSinceLook = false;
  }
}
