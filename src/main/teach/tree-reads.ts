/**
 * What a demonstration asks the accessibility tree, each read taken the moment it matters (the
 * tree describes the screen now, not when the step is written): the element under a click, kept
 * with the step so a workflow saved from it can find that element again; and the element that
 * has the focus when typing begins, which says by its role whether the field takes a password,
 * however the user reached it (a click, Tab).
 *
 * A display without a tree, or a read that fails, is `null`: the demonstration goes on with
 * pixels only, as before.
 */
import type { ActedElement } from '../../shared/action-result';
import type { Element } from '../../shared/elements';
import { PASSWORD_ROLE } from '../operator/a11y/atspi-constants';
import { elementAt } from '../operator/a11y/element-query';
import type { ElementReader } from '../operator/a11y/snapshot';

/** The reads a demonstration makes of the tree (`elementAt`, where there, spares a snapshot per click). */
export type DemonstrationTree = Pick<ElementReader, 'snapshot' | 'ancestry'> & Partial<Pick<ElementReader, 'elementAt'>>;

/**
 * The element under a screen point, with the named elements around it: by one element-at-point
 * query where the tree has it (a few round trips, so the read is of the screen the click met),
 * else from a snapshot.
 */
export async function elementUnder(tree: DemonstrationTree, point: { x: number; y: number }): Promise<ActedElement | null> {
  try {
    const element = await elementAtPoint(tree, point);
    if (!element) return null;
    return { role: element.role, name: element.name, bounds: element.bounds, path: await tree.ancestry(element.ref) };
  } catch {
    return null;
  }
}

/** As long as a snapshot may take by default: the query falls back to one where it cannot say. */
const POINT_BUDGET_MS = 2000;

async function elementAtPoint(tree: DemonstrationTree, point: { x: number; y: number }): Promise<Element | undefined> {
  if (tree.elementAt) {
    const found = await tree.elementAt(point, POINT_BUDGET_MS);
    return found.ok ? found.element : undefined;
  }
  const taken = await tree.snapshot();
  return taken.ok ? elementAt(taken.snapshot.elements, point) : undefined;
}

/** The element holding the keyboard focus in the active window (the innermost that says so), or null. */
export async function focusedElement(tree: DemonstrationTree): Promise<Element | null> {
  try {
    const taken = await tree.snapshot();
    if (!taken.ok) return null;
    const focused = taken.snapshot.elements.filter((element) => element.states.includes('focused'));
    const area = (element: Element) => element.bounds.width * element.bounds.height;
    return focused.sort((a, b) => Number(b.interactive) - Number(a.interactive) || area(a) - area(b))[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the tree says the typing went into a password field: `true` or `false` when the focused
 * element is a field (its role decides), `null` when the tree cannot say (no tree, no focus, the
 * focus on something that is not a field): then the pixels judge.
 */
export function typedIntoPasswordByRole(focused: Element | null): boolean | null {
  if (!focused) return null;
  if (focused.role === PASSWORD_ROLE) return true;
  return focused.states.includes('editable') ? false : null;
}

/**
 * How long the tree is read again for typed text to show in an ordinary field. Generous: it is
 * waited out only when the text shows in none (a password typed after a Tab the tree had not yet
 * followed), and a busy machine's Chromium updated its tree more than 2 s after the keys (CI).
 * The steps after it are only written later, never lost.
 */
const TYPED_TEXT_PATIENCE_MS = 10_000;

/**
 * Whether typed text went into a password field, asked of the tree once the typing is over: the
 * focus read as the typing began can be the field before a Tab when the app is slow to move it
 * (its tree lags its keyboard), and a field's value can lag the keys too. So unless that first
 * read found a password field, the tree is read until an ordinary field holds the text (`false`)
 * or `patienceMs` is over: then, text that shows in no ordinary field of a window that has a
 * password field went there (`true`); otherwise the first read stands (`null`: the pixels judge).
 * A window with no password field, the focus read on an ordinary field, is answered at once.
 */
export async function typedIntoPasswordByTree(
  tree: DemonstrationTree,
  text: string,
  focusedAtStart: Element | null,
  options: { patienceMs: number; pollMs: number } = { patienceMs: TYPED_TEXT_PATIENCE_MS, pollMs: 100 },
): Promise<boolean | null> {
  const byRole = typedIntoPasswordByRole(focusedAtStart);
  if (byRole === true) return true;
  const shown = text.replace(/[\n\r\t]/g, '');
  if (shown === '') return byRole;
  const deadline = Date.now() + options.patienceMs;
  try {
    for (;;) {
      const taken = await tree.snapshot();
      if (!taken.ok) return byRole;
      const { elements } = taken.snapshot;
      if (elements.some((element) => element.role !== PASSWORD_ROLE && element.states.includes('editable') && element.value?.includes(shown))) return false;
      const passwordField = elements.some((element) => element.role === PASSWORD_ROLE);
      // No password field for the text to have gone to, and the focus read on an ordinary one
      // (an app that shows no values): waiting could only say so again.
      if (!passwordField && byRole === false) return false;
      if (Date.now() >= deadline) return passwordField ? true : byRole;
      await new Promise((resolve) => setTimeout(resolve, options.pollMs));
    }
  } catch {
    return byRole;
  }
}
